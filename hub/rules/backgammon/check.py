"""`boardcast check backgammon FILE`: audit a recorded backgammon match offline with the hub's rules engine.

Input, JSON lines. The first line is `{"match": {"length": 5}}`, optionally with
`"clock": {"mode": "simple"|"bronstein", "reserve_s": 600, "delay_s": 12}` and, for a match resumed at a
score, `"score": {"A": 3, "B": 1}` (each below the length; or the same on the first `opening` line). Then events, each with `"at"`
(seconds): `{"event": "opening", "dice": {"A": 5, "B": 3}}`, `{"event": "roll", "side": "A", "dice": [6, 4]}`,
`{"event": "board", "points": [24 ints], "bar": [a, b], "off": [a, b]}`, `{"event": "clock", "side": "A"}`,
`{"event": "double"|"take"|"drop", "side": "A"}`, `{"event": "invalid_dice", "side": "A"}`,
`{"event": "resign", "side": "A", "value": 1|2|3}` (a single game, a gammon, a backgammon, times the cube) and
`{"event": "accept"|"reject", "side": "B"}` (the opponent's answer).
`points[0]` is point 1 seen from A; A's checkers are positive, B's negative. An event line with a key it
does not have cannot be read (a misspelt key would otherwise be read as nothing).

Output, JSON lines: facts, anomalies, and a last `{"type": "result", "score": {"A": 5, "B": 3}, "winner": "A"}`
line. Exit 0 whatever the match holds; 2 for input that cannot be read, with a message on standard error
naming the line (what was printed before stays).

With `--analysis FILE` the match is also analysed by GNU Backgammon (`hub.rules.backgammon.analysis`), and one
line per player follows the result: `{"type": "analysis", "side": "A", "pr": 6.1, "checker_pr": 5.8,
"cube_pr": 0.9, "decisions": 212, "errors": 9, "blunders": 2, "luck": 0.31, "ply": 0, "band": "Master"}`.
Exit 1 when gnubg is not installed or could not analyse the match (the check's own lines stay).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Annotated, Any, ClassVar, Literal, TextIO

import msgspec

from devices.observations import ResignValue
from devices.strict import by_tag
from hub.check.common import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from hub.check.common import EXIT_OK as EXIT_OK
from hub.check.common import CheckInputError as CheckInputError
from hub.check.common import check_lines, emit_line, fail, read_as, read_match_line
from hub.rules import backgammon as bg
from hub.rules import clock as clk
from hub.rules.base import Outcome

EXIT_NO_ANALYSIS = 1
ANALYSIS_KEYS = (
    "side",
    "pr",
    "checker_pr",
    "cube_pr",
    "decisions",
    "errors",
    "blunders",
    "luck",
    "ply",
    "band",
)


def run(lines: Iterable[str], out: TextIO, err: TextIO | None = None, analysis_ply: int | None = None) -> int:
    """Check JSON lines; print facts, anomalies and the result as JSON lines (and with `analysis_ply`, each
    player's analysis at that ply); return the exit code."""
    err = err or sys.stderr
    last: list[bg.BackgammonState] = []

    def result(state: bg.BackgammonState) -> dict[str, Any]:
        last.append(state)
        return _result(state)

    code = check_lines(
        lines,
        out,
        err,
        start=read_match,
        step=_step,
        result=result,
        no_match='no match line; the first line must be {"match": {"length": N}}',
        complaint="boardcast check backgammon: {} / girdi okunamadı",
    )
    if code != EXIT_OK or analysis_ply is None:
        return code
    return _analysis(last[-1], analysis_ply, out, err)


def _analysis(state: bg.BackgammonState, ply: int, out: TextIO, err: TextIO) -> int:
    """Each player's analysis line, from GNU Backgammon's analysis of the whole match."""
    from hub.rules.backgammon.analysis import (
        AnalysisError,
        analyse_once,
        find_gnubg,
        game_analysis,
        summarise,
    )
    from hub.rules.backgammon.analysis.service import marker_of
    from hub.rules.backgammon.export import match_to_mat

    path = find_gnubg()
    if path is None:
        print(
            "boardcast check backgammon: --analysis needs GNU Backgammon (gnubg) / gnubg kurulu değil",
            file=err,
        )
        return EXIT_NO_ANALYSIS
    try:
        games = analyse_once(path, match_to_mat(state, current=True), 0, ply)
    except AnalysisError as error:
        print(f"boardcast check backgammon: {error}", file=err)
        return EXIT_NO_ANALYSIS
    players = summarise([game_analysis(g["index"], g["records"]) for g in games], ply, marker_of(state))
    for player in players:
        figures = player.to_dict()
        emit_line(out, {"type": "analysis", **{key: figures[key] for key in ANALYSIS_KEYS}})
    return EXIT_OK


def _step(
    state: bg.BackgammonState, data: dict[str, Any], number: int
) -> tuple[float, Outcome[bg.BackgammonState]]:
    at, event = read_event(data, number)
    if isinstance(event, bg.Opening) and data.get("score") is not None:
        state = _at_score(state, read_as(data, _Opening, number, _OPENING_PROBLEMS), number)
    return at, bg.apply(state, event, at)


def _at_score(state: bg.BackgammonState, line: _Opening, number: int) -> bg.BackgammonState:
    """The match at an opening line's `score`: where a resumed match starts, before its first game; after
    that, the score the match already stands at (any other is refused, naming the line)."""
    assert line.score is not None
    score = (line.score.A, line.score.B)
    if score == state.score:
        return state
    if state.game or state.games:
        raise fail(
            number,
            '"score"',
            f"the match stands at A {state.score[0]}, B {state.score[1]}; an opening's score must agree, "
            f"got A {score[0]}, B {score[1]}",
        )
    if max(score) >= state.length:
        raise fail(
            number, '"score"', f"must be below the length {state.length}, got A {score[0]}, B {score[1]}"
        )
    return replace(bg.initial(state.length, None, score), clock=state.clock)


def _result(state: bg.BackgammonState) -> dict[str, Any]:
    winner = None if state.winner is None else bg.SIDE_NAMES[state.winner]
    return {"type": "result", "score": {"A": state.score[0], "B": state.score[1]}, "winner": winner}


class _Clock(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    reserve_s: Annotated[float, msgspec.Meta(gt=0)]
    mode: Literal["simple", "bronstein"] = "simple"
    delay_s: Annotated[float, msgspec.Meta(ge=0)] = 0.0


class _Score(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    A: Annotated[int, msgspec.Meta(ge=0)]
    B: Annotated[int, msgspec.Meta(ge=0)]


class _Match(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The match line's object; a key it does not have is refused, naming those it has."""

    length: Annotated[int, msgspec.Meta(ge=1)]
    clock: _Clock | None = None
    score: _Score | None = None  # a match resumed at a score
    players: dict[str, Any] | list[Any] | None = None  # names, for whoever reads the file; not checked


class _MatchLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    match: _Match


_MATCH_PROBLEMS = {
    "match": 'is missing; the first line must be {{"match": {{"length": N}}}}',
    "match.length": "must be a positive whole number of points, got {got}",
    "match.clock": "must be an object",
    "match.clock.mode": 'must be "simple" or "bronstein", got {got}',
    "match.clock.reserve_s": "must be a positive number of seconds, got {got}",
    "match.clock.delay_s": "must be a number of seconds >= 0, got {got}",
    "match.score": 'must be {{"A": points, "B": points}}, each below the length, got {got}',
}


def read_match(data: dict[str, Any], number: int = 1) -> bg.BackgammonState:
    """The match line: `{"match": {"length": 5, "clock": {...}}}` as an initial state."""
    match = read_match_line(data, _MatchLine, number, _MATCH_PROBLEMS).match
    clock = match.clock
    control = None if clock is None else clk.TimeControl.delay(clock.reserve_s, clock.delay_s, clock.mode)
    score = (0, 0) if match.score is None else (match.score.A, match.score.B)
    if max(score) >= match.length:
        raise fail(
            number, "match.score", _MATCH_PROBLEMS["match.score"].format(got=repr(data["match"]["score"]))
        )
    return bg.initial(match.length, control, score)


_AB = Literal["A", "B"]


class _Event(msgspec.Struct, tag_field="event", forbid_unknown_fields=True, frozen=True):
    """An event line: its time, then what it says; keys it does not have are refused."""

    at: float

    def event(self) -> bg.Event:
        raise NotImplementedError


class _Dice(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    A: int
    B: int


class _Opening(_Event, tag="opening", frozen=True):
    dice: _Dice
    score: _Score | None = None  # the match's score at this game's start: a resumed match's first opening

    def event(self) -> bg.Event:
        return bg.Opening((self.dice.A, self.dice.B))


class _Roll(_Event, tag="roll", frozen=True):
    side: _AB
    dice: tuple[int, int]
    source: str | None = None

    def event(self) -> bg.Event:
        return bg.Roll(_SIDES[self.side], self.dice, self.source or "")


class _Board(_Event, tag="board", frozen=True):
    points: Annotated[tuple[int, ...], msgspec.Meta(min_length=24, max_length=24)]
    bar: tuple[int, int]
    off: tuple[int, int]

    def event(self) -> bg.Event:
        return bg.BoardSnapshot(self.points, self.bar, self.off)


class _ClockPress(_Event, tag="clock", frozen=True):
    side: _AB

    def event(self) -> bg.Event:
        return bg.ClockPress(_SIDES[self.side])


class _Double(_Event, tag="double", frozen=True):
    side: _AB
    action: ClassVar[bg.CubeAction] = bg.CubeAction.DOUBLE

    def event(self) -> bg.Event:
        return bg.Cube(self.action, _SIDES[self.side])


class _Take(_Double, tag="take", frozen=True):
    action: ClassVar[bg.CubeAction] = bg.CubeAction.TAKE


class _Drop(_Double, tag="drop", frozen=True):
    action: ClassVar[bg.CubeAction] = bg.CubeAction.DROP


class _InvalidDice(_Event, tag="invalid_dice", frozen=True):
    side: _AB

    def event(self) -> bg.Event:
        return bg.InvalidDice(_SIDES[self.side])


class _Resign(_Event, tag="resign", frozen=True):
    side: _AB
    value: ResignValue

    def event(self) -> bg.Event:
        return bg.Resign(_SIDES[self.side], self.value)


class _Accept(_Event, tag="accept", frozen=True):
    side: _AB
    answer: ClassVar[bg.ResignAnswer] = bg.ResignAnswer.ACCEPT

    def event(self) -> bg.Event:
        return bg.ResignReply(self.answer, _SIDES[self.side])


class _Reject(_Accept, tag="reject", frozen=True):
    answer: ClassVar[bg.ResignAnswer] = bg.ResignAnswer.REJECT


class _At(msgspec.Struct, frozen=True):
    at: float


_SIDES = {"A": 0, "B": 1}
_EVENTS: dict[str, type[_Event]] = by_tag(
    _Opening, _Roll, _Board, _ClockPress, _Double, _Take, _Drop, _InvalidDice, _Resign, _Accept, _Reject
)
_PROBLEMS = {
    "at": "must be a number of seconds, got {got}",
    "side": 'must be "A" or "B", got {got}',
    "dice": "must be a list of 2 integers, got {got}",
    "source": "must be text or null, got {got}",
    "points": "must be a list of 24 integers, got {got}",
    "bar": "must be a list of 2 integers, got {got}",
    "off": "must be a list of 2 integers, got {got}",
    "value": "must be 1 (single), 2 (gammon) or 3 (backgammon), got {got}",
}
_OPENING_PROBLEMS = {**_PROBLEMS, "dice": 'must be {{"A": die, "B": die}}, got {got}'}


def read_event(data: dict[str, Any], number: int) -> tuple[float, bg.Event]:
    """One event line as (at, engine event)."""
    event = data.get("event")
    into = _EVENTS.get(event) if isinstance(event, str) else None
    if into is None:
        read_as(data, _At, number, _PROBLEMS)  # a line's time is checked first
        raise fail(
            number,
            '"event"',
            "must be opening, roll, board, clock, double, take, drop, invalid_dice, resign, accept or reject, "
            f"got {event!r}",
        )
    try:
        line = read_as(data, into, number, _OPENING_PROBLEMS if into is _Opening else _PROBLEMS)
    except CheckInputError:
        read_as(data, _At, number, _PROBLEMS)  # a wrong time is named first, whatever else is
        raise
    return line.at, line.event()
