"""What every `boardcast check` command shares: exit codes, the input error, printing JSON lines, the fold."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO, TypeVar

from hub.rules.base import Outcome

EXIT_OK = 0
EXIT_BAD_INPUT = 2
S = TypeVar("S")


class CheckInputError(ValueError):
    """A line of the input that cannot be read; the message names the line and says what is wrong."""


def quiet_broken_pipe() -> int:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again; exit 0."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def check_lines(
    lines: Iterable[str],
    out: TextIO,
    err: TextIO,
    *,
    start: Callable[[dict[str, Any], int], S],
    step: Callable[[S, dict[str, Any], int], tuple[float, Outcome[S]]],
    result: Callable[[S], dict[str, Any]],
    no_match: str,
    complaint: str,
    view: Callable[[dict[str, Any]], dict[str, Any]] = lambda data: data,
) -> int:
    """Fold JSON lines through a rules engine and print what it finds as JSON lines; return the exit code.

    Blank lines are skipped and lines are numbered from 1. The first object is the match line, read by
    `start` into the first state; each later one goes through `step` to an (at, outcome) whose facts and
    anomalies are printed with the line number (their data through `view`); `result` gives the last line.
    Input that cannot be read (a `CheckInputError`; `no_match` when there is no line at all) is reported on
    `err` as `complaint.format(error)` with exit code 2, and what was printed before stays.
    """
    state: S | None = None
    try:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            data = read_json(text, number)
            if state is None:
                state = start(data, number)
                continue
            at, outcome = step(state, data, number)
            state = outcome.state
            emit_outcome(out, outcome, at, number, view)
        if state is None:
            raise CheckInputError(no_match)
    except CheckInputError as exc:
        out.flush()
        print(complaint.format(exc), file=err)
        return EXIT_BAD_INPUT
    emit_line(out, result(state))
    return EXIT_OK


def emit_outcome(
    out: TextIO,
    outcome: Outcome[Any],
    at: float,
    line: int | None,
    view: Callable[[dict[str, Any]], dict[str, Any]] = lambda data: data,
) -> None:
    """Print an outcome's facts, then its anomalies, as JSON lines naming the input line (data through view)."""
    for fact in outcome.facts:
        emit_line(out, {"type": "fact", "kind": fact.kind, "at": at, "line": line, **view(fact.data)})
    for a in outcome.anomalies:
        emit_line(
            out,
            {
                "type": "anomaly",
                "code": a.code,
                "severity": a.severity.value,
                "at": at,
                "line": line,
                "message": a.message_en,
                "message_tr": a.message_tr,
                "data": view(a.data),
            },
        )


def emit_line(out: TextIO, line: dict[str, Any]) -> None:
    """Print one JSON output line at once (a reader following the output sees each line as it comes)."""
    out.write(json.dumps(line, ensure_ascii=False) + "\n")
    out.flush()


def read_json(text: str, number: int) -> dict[str, Any]:
    """One input line as a JSON object, or a `CheckInputError` naming the line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckInputError(f"line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise CheckInputError(f"line {number}: must be a JSON object, got {type(data).__name__}")
    return data


def fail(number: int, field: str, problem: str) -> CheckInputError:
    """The error for a field of line `number` that cannot be read."""
    return CheckInputError(f"line {number}: {field} {problem}")
