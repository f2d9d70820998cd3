"""`boardcast check SPORT FILE`: audit a recorded match offline with the hub's own rules engines.

`run` reads the file and hands its lines to the sport's checker (`SportRules.check_lines`, in
`hub/rules/<sport>/check.py`); a sport whose recordings are not JSON lines checks them itself
(`SportRules.check`, with its own options). Shared pieces (exit codes, the input error, printing JSON lines) are
in `common`; the checkers import only it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from hub.check.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    CheckInputError,
    check_lines,
    emit_line,
    emit_outcome,
    quiet_broken_pipe,
    text_lines,
)
from hub.rules.registry import SPORTS as ALL_SPORTS

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "SPORTS",
    "CheckInputError",
    "check_lines",
    "emit_line",
    "emit_outcome",
    "quiet_broken_pipe",
    "run",
]

SPORTS = tuple(name for name, sport in ALL_SPORTS.items() if sport.checks_json_lines)


LinesCheck = Callable[[Iterable[str], str, TextIO, TextIO], int]  # (lines, file name, out, err) -> exit code


def run(
    sport: str,
    path: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
    check: LinesCheck | None = None,
) -> int:
    """Check a file ('-' for standard input) with the sport's checker (or `check`, one with options); print
    JSON lines; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    if sport not in SPORTS:
        print(f"boardcast check: unknown sport {sport!r}; known: {', '.join(SPORTS)}", file=err)
        return EXIT_BAD_INPUT
    check = check or ALL_SPORTS[sport].check_lines
    try:
        if path == "-":
            stdin = getattr(sys.stdin, "buffer", None)  # bytes, unless stdin was replaced by text
            return check(sys.stdin if stdin is None else text_lines(stdin), path, out, err)
        with open(path, "rb") as f:
            return check(text_lines(f), path, out, err)
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say, and not an error
        return quiet_broken_pipe()
    except OSError as exc:
        print(f"boardcast check: cannot read {path}: {exc.strerror or exc} / dosya okunamadı", file=err)
        return EXIT_BAD_INPUT
