"""Credentials by reference only: the inventory names an environment variable (`password_env`) or a
file readable by its owner alone (`password_file`, mode 0600 or 0400), never the secret itself.

A resolved secret is a Secret: it prints as where it came from, never as its value, so it cannot
leak into captures, manifests, logs or reports through a format string or a repr.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from .errors import InputError
from .limits import SECRET_FILE_BYTES, file_kind, read_text

# Inventory keys that hold a secret, by reference: <key>_env or <key>_file. A bare <key> is refused.
SECRET_KEYS = ("password", "secret", "community", "auth_key", "priv_key")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CredentialError(ValueError):
    """A credential reference that cannot be used; ``key`` is the inventory key at fault."""

    def __init__(self, message: str, key: str):
        super().__init__(message)
        self.key = key


class Secret:
    """A password or key. ``reveal()`` is the only way to its value."""

    __slots__ = ("_value", "origin")

    def __init__(self, value: str, origin: str):
        self._value = value
        self.origin = origin  # "environment variable LEAF_PW" or "file /run/secrets/leaf"

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"<secret from {self.origin}>"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a Secret is not serialised")


def refuse_plaintext(spec: Mapping) -> list[CredentialError]:
    """One error per secret written in clear in ``spec`` (a mapping of the inventory)."""
    return [CredentialError(f"plaintext `{key}:` refused; give `{key}_env:` (an environment variable "
                            f"name) or `{key}_file:` (a file with mode 0600)", key)
            for key in SECRET_KEYS if key in spec]


def resolve(spec: Mapping, key: str, env: Mapping[str, str]) -> Secret | None:
    """The secret ``spec`` references as ``<key>_env`` or ``<key>_file``; None when it names neither.

    Raises CredentialError for a missing or empty variable, or a file that is missing, not a regular
    file, empty, or readable by group or others."""
    env_key, file_key = f"{key}_env", f"{key}_file"
    if env_key in spec and file_key in spec:
        raise CredentialError(f"give either `{env_key}` or `{file_key}`, not both", file_key)
    if env_key in spec:
        name = spec[env_key]
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):  # not echoed: it may be a misplaced secret
            raise CredentialError(f"`{env_key}` must name an environment variable (letters, digits, _)",
                                  env_key)
        value = env.get(name)
        if value is None:
            raise CredentialError(f"environment variable {name} (`{env_key}`) is not set", env_key)
        if not value:
            raise CredentialError(f"environment variable {name} (`{env_key}`) is empty", env_key)
        return Secret(value, f"environment variable {name}")
    if file_key in spec:
        path = spec[file_key]
        if not isinstance(path, str) or not path:
            raise CredentialError(f"`{file_key}` must be a file path", file_key)
        return Secret(read_secret_file(Path(path).expanduser(), file_key), f"file {path}")
    return None


def read_secret_file(path: Path, key: str) -> str:
    """The first line of a file that only its owner may read (like ssh's check of a private key)."""
    if "\0" in str(path):  # (YAML "\0": os.stat raised ValueError, an internal error)
        raise CredentialError(f"`{key}` {str(path)!r}: a file name cannot hold a NUL character", key)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise CredentialError(f"`{key}` {path}: {exc.strerror or exc}", key) from None
    if not stat.S_ISREG(st.st_mode):
        raise CredentialError(f"`{key}` {path} is not a regular file ({file_kind(st.st_mode)})", key)
    if st.st_mode & 0o077:
        raise CredentialError(f"`{key}` {path} has mode {stat.S_IMODE(st.st_mode):04o}; a secret file must "
                              f"be readable by its owner only: chmod 600 {path}", key)
    try:  # opened without blocking and checked again: the file may have been swapped since the stat
        value = read_text(path, str(path), limit=SECRET_FILE_BYTES, what="secret file").split("\n", 1)[0]
    except InputError as exc:
        raise CredentialError(f"`{key}` {exc}", key) from None
    if not value:
        raise CredentialError(f"`{key}` {path} is empty", key)
    return value
