"""What every parser module provides. Parsers are pure: text in, model out, no I/O."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Input:
    """One file's text. ``path`` is what reports show (relative to the working directory)."""

    path: str
    text: str


# A parser module exposes:
#   PLATFORM: str                                   platform id from losslessd.platforms
#   sniff(inp: Input) -> bool                       content detection, cheap
#   parse(inputs: list[Input], name: str) -> Device one device from one or more files
# Problems inside a file go to Device.issues (SYS findings); a file that gives no device at all
# raises losslessd.errors.InputError with file and line. A parser of JSON may leave Source.line
# unset on its JSON-pointer sources and set Device._locator instead: Device.locate finds lines
# on demand (parse_group does it for the whole device, lint for the sources its findings show).
