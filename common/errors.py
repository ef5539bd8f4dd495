"""The one kind of error a user can cause: bad flags, files or values."""

from __future__ import annotations

import argparse
from pathlib import Path


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped, so it stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class UserError(Exception):
    """Something the user gave us is wrong; the message is one line naming where and what.

    The command line prints ``str(error)`` and exits with status 2.
    """

    def __init__(self, source: str | Path, key: str | None, expected: str, value=None,
                 has_value: bool = False):
        self.source = str(source)
        self.key = key
        self.expected = expected
        where = self.source + (f": {key}" if key else "")
        shown = f" = {value!r}" if has_value else ""
        super().__init__(one_line(f"{where}{shown}: expected {expected}"))


class CommandLineError(UserError):
    """A bad flag or flag value; the message is argparse's, or ours, after "command line:"."""

    def __init__(self, message: str):
        Exception.__init__(self, one_line(f"command line: {message}"))
        self.source, self.key, self.expected = "command line", None, message


def whole_number(least: int, most: int | None, what: str):
    """An argparse type: a whole number in [least, most] (no upper bound when most is None)."""
    expected = (f"a whole number of {what} in [{least}, {most}]" if most is not None
                else f"a whole number >= {least}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least or (most is not None and value > most):
            raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
        return value
    return parse
