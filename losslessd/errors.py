"""Errors an operator can act on. The CLI prints them and exits 2; never a traceback."""

from __future__ import annotations


class InputError(Exception):
    """Unusable input (file, policy, selector): message names the file and line or JSON path."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, pointer: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.pointer = pointer
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            if self.pointer:
                where += f" (at {self.pointer})"
            where += ": "
        return where + self.message
