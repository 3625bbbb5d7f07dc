"""SHA-256 and BLAKE2b from CPython's own modules, without loading OpenSSL.

`import hashlib` loads OpenSSL's `_hashlib` (and `_blake2`): 11 M instructions of a 713 M lint start-up, for digests
of a few KB (finding fingerprints, the caches' keys). CPython builds its own SHA-256 (`_sha2` from 3.12, `_sha256`
before) unless built without it; the digest is the standard's either way (FIPS 180-4), so a fingerprint or a key
is the same whichever module made it (docs/lint-at-scale.md, "Session 43, part b").
"""

from __future__ import annotations

import sys

try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
except ImportError:  # (a Python built without its own hashes; asked by version: a failed import searches the path)
    from hashlib import sha256  # type: ignore[assignment, unused-ignore]

try:  # CPython's own BLAKE2 (hashlib's blake2b is this same type: hashlib never takes it from OpenSSL)
    from _blake2 import blake2b  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    from hashlib import blake2b  # type: ignore[assignment, unused-ignore]

__all__ = ["blake2b", "sha256"]
