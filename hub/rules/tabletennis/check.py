"""`boardcast check tabletennis FILE`: audit a recorded match offline with the hub's own rules engine.

Input, JSON lines: the first line is `{"match": {...}}`, then scoreboard reports
`{"at": 12.5, "score": [3, 2], "games": [1, 0], "server": "A", "ends": "normal", "expedite": false}` and
events `{"at": 20.0, "event": "timeout"|"card"|"expedite"|"correction"|"point"|"undo", "side": "A", ...}`.
A report or event line with a key it does not have cannot be read (a misspelt "event" would otherwise
make an event a report).
Output, JSON lines: facts, anomalies, and a last `{"type": "result", ...}` line. Exit 0 whatever the match
holds; 2 for input that cannot be read, with a message naming the line (what was printed before stays).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, TextIO

import msgspec

from hub.check.common import CheckInputError, check_lines, fail, read_as, read_match_line
from hub.rules import tabletennis as tt
from hub.rules.base import Outcome
from hub.rules.tabletennis.terms import odd_games

_SIDE_KEYS = ("side", "server", "receiver", "winner", "first_server", "closing_side")


def check(lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
    """Fold table-tennis JSON lines through the rules; print facts, anomalies and the result; the exit code."""
    return check_lines(
        lines,
        out,
        err,
        start=lambda data, number: tt.initial(read_match(data, number)),
        step=_step,
        result=_result,
        no_match=f'{name}: no match line; the first line must be {{"match": {{...}}}}',
        complaint="boardcast check tabletennis: {} / girdi okunamadı",
        view=_letters,
    )


def _step(
    state: tt.TableTennisState, data: dict[str, Any], number: int
) -> tuple[float, Outcome[tt.TableTennisState]]:
    at, item = read_line(data, number, state.config)
    return at, tt.apply(state, item, at)


def _result(state: tt.TableTennisState) -> dict[str, Any]:
    won, scores = tt.match_result(state)
    winner = None if state.winner is None else "AB"[state.winner]
    return {"type": "result", "games": list(won), "scores": [list(g) for g in scores], "winner": winner}


def _letters(data: dict[str, Any]) -> dict[str, Any]:
    """Sides as the check format writes them: "A" and "B"."""
    return {
        k: ("AB"[v] if k in _SIDE_KEYS and v in (0, 1) and not isinstance(v, bool) else v)
        for k, v in data.items()
    }


_Count = Annotated[int, msgspec.Meta(ge=0)]
_Score = tuple[_Count, _Count]
_AB = Literal["A", "B"]
_Player = Literal["A1", "A2", "B1", "B2"]


class _Match(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The match line's object; a key it does not have is refused, naming those it has."""

    best_of: Annotated[int, msgspec.Meta(ge=1)] = 5
    doubles: bool = False
    ruleset: Literal["ittf", "legacy21"] = "ittf"
    first_server: _AB | _Player | None = None
    first_receiver: _AB | _Player | None = None
    players: dict[str, Any] | list[Any] | None = None  # names, for whoever reads the file; not checked


class _MatchLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    match: _Match


_MATCH_PROBLEMS = {
    "match": 'is missing; the first line must be {{"match": {{...}}}}',
    "match.best_of": "must be an odd number of games, got {got}",
    "match.doubles": "must be true or false, got {got}",
    "match.ruleset": f"must be one of {', '.join(tt.RULESETS)}, got {{got}}",
    "match.first_receiver": "must be a player of the other pair, got {got}",
}


def read_match(data: dict[str, Any], number: int = 1) -> tt.TableTennisConfig:
    """The match line: `{"match": {"best_of": 5, "doubles": false, "first_server": "A", "ruleset": "ittf"}}`."""
    doubles = isinstance(data.get("match"), dict) and data["match"].get("doubles") is True
    players = tt.DOUBLES_PLAYERS if doubles else ("A", "B")
    problems = {**_MATCH_PROBLEMS, "match.first_server": f"must be one of {', '.join(players)}, got {{got}}"}
    match = read_match_line(data, _MatchLine, number, problems).match
    if not odd_games(match.best_of):
        raise fail(number, "match.best_of", f"must be an odd number of games, got {match.best_of!r}")
    first_server, first_receiver = match.first_server, match.first_receiver
    if first_server is not None and not match.doubles and first_server not in players:
        raise fail(number, "match.first_server", f"must be one of {', '.join(players)}, got {first_server!r}")
    if first_receiver is not None and (not match.doubles or first_receiver not in players):
        raise fail(
            number, "match.first_receiver", f"must be a player of the other pair, got {first_receiver!r}"
        )
    if first_receiver is not None and first_server is not None and first_receiver[0] == first_server[0]:
        raise fail(number, "match.first_receiver", "must be a player of the other pair")
    return tt.TableTennisConfig.from_names(
        match.best_of, match.doubles, first_server, first_receiver, match.ruleset
    )


class _Line(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A report or event line: its time, then what it says; keys it does not have are refused."""

    at: float

    def read(self, number: int, doubles: bool) -> tt.Input:
        raise NotImplementedError


def _server(value: str | None, number: int, doubles: bool) -> tuple[int | None, str | None]:
    if value is None:
        return None, None
    if value in ("A", "B"):
        return (0 if value == "A" else 1), None
    if doubles:
        return (0 if value[0] == "A" else 1), value
    raise fail(number, '"server"', f'must be "A" or "B", got {value!r}')


class _Report(_Line, frozen=True):
    score: _Score
    games: _Score
    server: _AB | _Player | None = None
    ends: Literal["normal", "swapped"] | None = None
    expedite: bool | None = None
    game_scores: tuple[_Score, ...] = ()
    event: None = None  # no event: a report

    def read(self, number: int, doubles: bool) -> tt.Input:
        side, player = _server(self.server, number, doubles)
        return tt.Display(self.score, self.games, side, self.game_scores, self.ends, self.expedite, player)


class _Event(_Line, tag_field="event", frozen=True):
    pass


class _TimeOut(_Event, tag="timeout", frozen=True):
    side: _AB

    def read(self, number: int, doubles: bool) -> tt.Input:
        return tt.TimeOut(0 if self.side == "A" else 1)


class _Card(_Event, tag="card", frozen=True):
    side: _AB
    card: Literal["yellow", "yellow_red", "red"]
    player: _Player | None = None

    def read(self, number: int, doubles: bool) -> tt.Input:
        return tt.Card(0 if self.side == "A" else 1, self.card, self.player)


class _Expedite(_Event, tag="expedite", frozen=True):
    ball_in_play: bool | None = None

    def read(self, number: int, doubles: bool) -> tt.Input:
        return tt.ExpediteStart(self.ball_in_play)


class _Correction(_Event, tag="correction", frozen=True):
    score: _Score
    games: _Score
    server: _AB | _Player | None = None
    reason: str = ""
    ends: Literal["normal", "swapped"] | None = None

    def read(self, number: int, doubles: bool) -> tt.Input:
        side, player = _server(self.server, number, doubles)
        return tt.Correction(self.score, self.games, self.reason, player or side, self.ends)


class _Point(_Event, tag="point", frozen=True):
    side: _AB

    def read(self, number: int, doubles: bool) -> tt.Input:
        return tt.UmpirePoint(0 if self.side == "A" else 1)


class _Undo(_Event, tag="undo", frozen=True):
    side: _AB

    def read(self, number: int, doubles: bool) -> tt.Input:
        return tt.UmpireUndo(0 if self.side == "A" else 1)


class _At(msgspec.Struct, frozen=True):
    at: float


_EVENTS: dict[str, type[_Line]] = {
    str(cls.__struct_config__.tag): cls for cls in (_TimeOut, _Card, _Expedite, _Correction, _Point, _Undo)
}
_PROBLEMS = {
    "at": "must be a number, got {got}",
    "score": "must be two non-negative integers, got {got}",
    "games": "must be two non-negative integers, got {got}",
    "server": 'must be "A" or "B", got {got}',
    "ends": 'must be "normal" or "swapped", got {got}',
    "expedite": "must be true or false, got {got}",
    "game_scores": "must be a list of [a, b] pairs",
    "game_scores[]": "must be two non-negative integers, got {got}",
    "side": 'must be "A" or "B", got {got}',
    "card": f"must be one of {', '.join(tt.CARDS)}, got {{got}}",
    "player": "must be A1, A2, B1 or B2, got {got}",
    "ball_in_play": "must be true, false or null, got {got}",
    "reason": "must be text",
}
_DOUBLES_PROBLEMS = {**_PROBLEMS, "server": 'must be "A", "B" or a player "A1".."B2", got {got}'}
_MISSING = frozenset({"at", "score", "games", "game_scores[]", "side"})


def read_line(data: dict[str, Any], number: int, config: tt.TableTennisConfig) -> tuple[float, tt.Input]:
    """One report or event line as (at, engine input)."""
    event = data.get("event")
    into = _Report if event is None else _EVENTS.get(event) if isinstance(event, str) else None
    if into is None:
        read_as(data, _At, number, _PROBLEMS, _MISSING)  # a line's time is checked first
        raise fail(
            number, '"event"', f"must be timeout, card, expedite, correction, point or undo, got {event!r}"
        )
    try:
        line = read_as(data, into, number, _DOUBLES_PROBLEMS if config.doubles else _PROBLEMS, _MISSING)
    except CheckInputError:
        read_as(data, _At, number, _PROBLEMS, _MISSING)  # a wrong time is named first, whatever else is
        raise
    return line.at, line.read(number, config.doubles)
