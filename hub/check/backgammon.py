"""`boardcast check backgammon FILE`: audit a recorded backgammon match offline with the hub's rules engine.

Input, JSON lines. The first line is `{"match": {"length": 5}}`, optionally with
`"clock": {"mode": "simple"|"bronstein", "reserve_s": 600, "delay_s": 12}`. Then events, each with `"at"`
(seconds): `{"event": "opening", "dice": {"A": 5, "B": 3}}`, `{"event": "roll", "side": "A", "dice": [6, 4]}`,
`{"event": "board", "points": [24 ints], "bar": [a, b], "off": [a, b]}`, `{"event": "clock", "side": "A"}`,
`{"event": "double"|"take"|"drop", "side": "A"}`, `{"event": "invalid_dice", "side": "A"}`.
`points[0]` is point 1 seen from A; A's checkers are positive, B's negative.

Output, JSON lines: facts, anomalies, and a last `{"type": "result", "score": {"A": 5, "B": 3}, "winner": "A"}`
line. Exit 0 whatever the match holds; 2 for input that cannot be read, with a message on standard error
naming the line (what was printed before stays).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO, TypeGuard

from hub.check.common import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from hub.check.common import EXIT_OK as EXIT_OK
from hub.check.common import CheckInputError as CheckInputError
from hub.check.common import check_lines, fail
from hub.rules import backgammon as bg
from hub.rules import clock as clk
from hub.rules.base import Outcome


def run(lines: Iterable[str], out: TextIO, err: TextIO | None = None) -> int:
    """Check JSON lines; print facts, anomalies and the result as JSON lines; return the exit code."""
    return check_lines(
        lines,
        out,
        err or sys.stderr,
        start=read_match,
        step=_step,
        result=_result,
        no_match='no match line; the first line must be {"match": {"length": N}}',
        complaint="boardcast check backgammon: {} / girdi okunamadı",
    )


def _step(
    state: bg.BackgammonState, data: dict[str, Any], number: int
) -> tuple[float, Outcome[bg.BackgammonState]]:
    at, event = read_event(data, number)
    return at, bg.apply(state, event, at)


def _result(state: bg.BackgammonState) -> dict[str, Any]:
    winner = None if state.winner is None else bg.SIDE_NAMES[state.winner]
    return {"type": "result", "score": {"A": state.score[0], "B": state.score[1]}, "winner": winner}


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def read_match(data: dict[str, Any], number: int = 1) -> bg.BackgammonState:
    """The match line: `{"match": {"length": 5, "clock": {...}}}` as an initial state."""
    match = data.get("match")
    if not isinstance(match, dict):
        raise fail(number, '"match"', 'is missing; the first line must be {"match": {"length": N}}')
    length = match.get("length")
    if not _is_int(length) or length < 1:
        raise fail(number, "match.length", f"must be a positive whole number of points, got {length!r}")
    control = None
    clock = match.get("clock")
    if clock is not None:
        if not isinstance(clock, dict):
            raise fail(number, "match.clock", "must be an object")
        mode = clock.get("mode", "simple")
        if mode not in ("simple", "bronstein"):
            raise fail(number, "match.clock.mode", f'must be "simple" or "bronstein", got {mode!r}')
        reserve, delay = clock.get("reserve_s"), clock.get("delay_s", 0)
        if not _num(reserve) or reserve <= 0:
            raise fail(
                number, "match.clock.reserve_s", f"must be a positive number of seconds, got {reserve!r}"
            )
        if not _num(delay) or delay < 0:
            raise fail(number, "match.clock.delay_s", f"must be a number of seconds >= 0, got {delay!r}")
        control = clk.TimeControl.delay(float(reserve), float(delay), mode)
    return bg.initial(length, control)


def _side(data: dict[str, Any], number: int) -> int:
    value = data.get("side")
    if value not in ("A", "B"):
        raise fail(number, '"side"', f'must be "A" or "B", got {value!r}')
    return 0 if value == "A" else 1


def _ints(value: Any, count: int, number: int, field: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != count or not all(_is_int(v) for v in value):
        raise fail(number, f'"{field}"', f"must be a list of {count} integers, got {value!r}")
    return tuple(value)


def read_event(data: dict[str, Any], number: int) -> tuple[float, bg.Event]:
    """One event line as (at, engine event)."""
    at = data.get("at")
    if not _num(at):
        raise fail(number, '"at"', f"must be a number of seconds, got {at!r}")
    event = data.get("event")
    if event == "opening":
        dice = data.get("dice")
        if not isinstance(dice, dict) or not _is_int(dice.get("A")) or not _is_int(dice.get("B")):
            raise fail(number, '"dice"', f'must be {{"A": die, "B": die}}, got {dice!r}')
        return float(at), bg.Opening((dice["A"], dice["B"]))
    if event == "roll":
        d1, d2 = _ints(data.get("dice"), 2, number, "dice")
        source = data.get("source", "")
        return float(at), bg.Roll(_side(data, number), (d1, d2), source if isinstance(source, str) else "")
    if event == "board":
        points = _ints(data.get("points"), 24, number, "points")
        bar = _ints(data.get("bar"), 2, number, "bar")
        off = _ints(data.get("off"), 2, number, "off")
        return float(at), bg.BoardSnapshot(points, (bar[0], bar[1]), (off[0], off[1]))
    if event == "clock":
        return float(at), bg.ClockPress(_side(data, number))
    if event in ("double", "take", "drop"):
        return float(at), bg.Cube(bg.CubeAction(event), _side(data, number))
    if event == "invalid_dice":
        return float(at), bg.InvalidDice(_side(data, number))
    raise fail(
        number,
        '"event"',
        f"must be opening, roll, board, clock, double, take, drop or invalid_dice, got {event!r}",
    )
