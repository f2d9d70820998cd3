"""What every `boardcast check` command shares: exit codes, reading input lines, printing JSON lines, the fold."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TextIO, TypeVar

import msgspec
import msgspec.inspect

from devices.strict import Complaint, complaint
from hub.rules.base import Outcome
from hub.rules.names import named

EXIT_OK = 0
EXIT_BAD_INPUT = 2
S = TypeVar("S")
T = TypeVar("T", bound=msgspec.Struct)


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
    names: tuple[tuple[str, ...], bool] = ((), False)
    try:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            data = read_json(text, number)
            if state is None:
                state = start(data, number)
                names = match_names(data)
                continue
            at, outcome = step(state, data, number)
            state = outcome.state
            emit_outcome(out, outcome, at, number, view, names)
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
    names: tuple[Sequence[str], bool] = ((), False),
) -> None:
    """Print an outcome's facts, then its anomalies, as JSON lines naming the input line (data through view,
    messages naming `names`: the players and whether they are doubles pairs)."""
    players, doubles = names
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
                "message": named(a.message_en, players, doubles, "en"),
                "message_tr": named(a.message_tr, players, doubles, "tr"),
                "data": view(a.data),
            },
        )


def match_names(data: dict[str, Any]) -> tuple[tuple[str, ...], bool]:
    """The players the match line names (a list, or an object by side: "A"/"B", "A1".."B2") and whether
    they are doubles pairs; none when it names none (`players` is for readers and not checked)."""
    match = data.get("match")
    if not isinstance(match, dict):
        return (), False
    doubles = match.get("doubles") is True
    given = match.get("players")
    if isinstance(given, dict):
        given = [given.get(key) for key in (("A1", "A2", "B1", "B2") if doubles else ("A", "B"))]
    if not isinstance(given, list):
        return (), doubles
    return tuple(p if isinstance(p, str) else "" for p in given), doubles


def emit_line(out: TextIO, line: dict[str, Any]) -> None:
    """Print one JSON output line at once (a reader following the output sees each line as it comes)."""
    out.write(json.dumps(line, ensure_ascii=False) + "\n")
    out.flush()


def text_lines(raw: Iterable[bytes]) -> Iterator[str]:
    """Lines of bytes as UTF-8 text; a line that is not raises a `CheckInputError` naming it."""
    for number, line in enumerate(raw, start=1):
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CheckInputError(
                f"line {number}: not UTF-8 text (byte {line[exc.start]:#04x} at column {exc.start + 1})"
            ) from None


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


def read_match_line(data: dict[str, Any], into: type[T], number: int, problems: Mapping[str, str]) -> T:
    """The match line (the first) read as `read_as` reads a line; one with no "match" says what it must be."""
    if "match" not in data:
        raise fail(number, '"match"', problems["match"].format(got=None))
    return read_as(data, into, number, problems)


def read_as(
    data: dict[str, Any],
    into: type[T],
    number: int,
    problems: Mapping[str, str],
    missing: Collection[str] = (),
) -> T:
    """Line `number` read strictly into the Struct `into` (no "1" for 1, no 1 for true), or a `CheckInputError`
    naming the line and the field.

    `problems` says what is wrong with a field, by its dotted path ("match.best_of"), as a `str.format`
    template with "{got}" for its value ("must be a number, got {got}"); "key[]" is for an element of a
    list, shown alone. A field of
    `missing` that is absent or null "is missing". A key that `into` does not have is named with those it has.
    """
    try:
        return msgspec.convert(data, into, strict=True)
    except msgspec.ValidationError as exc:
        raise _problem(complaint(exc), data, into, number, problems, missing) from None


def _problem(
    said: Complaint,
    data: dict[str, Any],
    into: type[Any],
    number: int,
    problems: Mapping[str, str],
    missing: Collection[str],
) -> CheckInputError:
    names = said.path[:-1] if said.unknown else said.path
    depth = next((i for i, step in enumerate(names) if not isinstance(step, str)), len(names))
    if said.unknown and depth == len(names):
        where = ".".join(map(str, said.path))
        return fail(
            number,
            f'"{where}"',
            f"is not a field of this line; {'.'.join(map(str, names)) or 'it'} takes "
            + ", ".join(_fields_at(into, names)),
        )
    depth = next(  # the longest path the caller has words for: "dice" for dice.B
        (d for d in range(depth, 0, -1) if ".".join(map(str, names[:d])) in problems), depth
    )
    key = ".".join(str(step) for step in names[:depth])
    label = f'"{key}"' if depth == 1 else key
    element = depth < len(names) and f"{key}[]" in problems
    name = f"{key}[]" if element else key
    got = said.value(data, depth + 1 if element else depth)
    if got is None and name in missing:
        return fail(number, label, "is missing")
    problem = problems.get(name)
    if problem is None:
        return fail(number, label, f"is wrong: {said.reason}")
    return fail(number, label, problem.format(got=repr(got)))


def _fields_at(into: type[Any], names: tuple[str | int, ...]) -> list[str]:
    """The keys the Struct met by following `names` down from `into` takes (its tag key first)."""
    info: Any = msgspec.inspect.type_info(into)
    for name in names:
        field = next(f for f in info.fields if f.encode_name == name)
        info = field.type
        if isinstance(info, msgspec.inspect.UnionType):  # a sub-object or null
            info = next(t for t in info.types if isinstance(t, msgspec.inspect.StructType))
    tag = [info.tag_field] if info.tag_field else []
    return tag + [f.encode_name for f in info.fields]
