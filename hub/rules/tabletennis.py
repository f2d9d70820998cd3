"""Table-tennis rules (ITTF 2.11–2.15, 3.4.4, 3.5.2) as one pure reducer over scoreboard and umpire inputs.

`apply(state, input, at)` folds one input into the match and returns the new state with the facts and
anomalies it saw; it never raises on a rule violation. The server, receiver and ends are computed from the
toss, the game number and the score (plus the anchors the rules allow: the expedite introduction and a
referee's correction); a device's indicators are compared with them, never trusted. Scoreboards report what
they display, not rallies, so a display is compared with the score reached: one point more for one side is a
rally, a jump that an awarded penalty explains is that penalty, anything else is kept as reported and flagged.

Sides are 0 and 1. Players are "A" and "B" in singles, "A1", "A2", "B1", "B2" in doubles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec.structs import replace

from devices.observations import DeviceEvent, ScoreboardState
from hub.rules.base import Anomaly, Fact, Outcome, Severity

RULESETS = ("ittf", "legacy21")
CARDS = ("yellow", "yellow_red", "red")
ENDS = ("normal", "swapped")


# -- configuration ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableTennisConfig:
    """What the venue says about a match before it starts."""

    best_of: int = 5
    doubles: bool = False
    ruleset: str = "ittf"  # "ittf" | "legacy21" (21 points, 5 serves each, 2 clear after 20-20)
    first_server: int | None = None  # side; None: taken from the first report's server indicator
    first_server_player: str | None = None  # doubles: "A1".."B2"
    first_receiver_player: str | None = None

    def __post_init__(self) -> None:
        if self.best_of < 1 or self.best_of % 2 == 0:
            raise ValueError(f"best_of must be an odd number of games, got {self.best_of}")
        if self.ruleset not in RULESETS:
            raise ValueError(f"ruleset must be one of {', '.join(RULESETS)}, got {self.ruleset!r}")
        if self.first_server not in (None, 0, 1):
            raise ValueError(f"first_server must be 0, 1 or None, got {self.first_server!r}")
        for p in (self.first_server_player, self.first_receiver_player):
            if p is not None and p not in DOUBLES_PLAYERS:
                raise ValueError(f"players are A1, A2, B1, B2, got {p!r}")

    @property
    def games_to_win(self) -> int:
        """Games a side needs to take the match."""
        return self.best_of // 2 + 1

    @classmethod
    def from_names(
        cls,
        best_of: int = 5,
        doubles: bool = False,
        first_server: str | None = None,
        first_receiver: str | None = None,
        ruleset: str = "ittf",
    ) -> TableTennisConfig:
        """A config from the venue file's words: first_server "A"/"B", or in doubles "A1".."B2"."""
        if first_server is None:
            side, player = None, None
        elif doubles and first_server in DOUBLES_PLAYERS:
            side, player = _side(first_server), first_server
        elif first_server in ("A", "B"):
            side, player = _side(first_server), None
        else:
            raise ValueError(f"first_server must be A or B (A1..B2 in doubles), got {first_server!r}")
        return cls(best_of, doubles, ruleset, side, player, first_receiver if doubles else None)


DOUBLES_PLAYERS = ("A1", "A2", "B1", "B2")


# -- inputs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Display:
    """What a scoreboard shows: the score, games, and its (untrusted) indicators."""

    points: tuple[int, int]
    games: tuple[int, int]
    server: int | None = None
    game_scores: tuple[tuple[int, int], ...] = ()
    ends: str | None = None
    expedite: bool | None = None
    server_player: str | None = None

    @classmethod
    def of(cls, report: ScoreboardState) -> Display:
        """The engine's view of a device's scoreboard state (optional fields read when the device has them)."""
        return cls(
            (int(report.points[0]), int(report.points[1])),
            (int(report.games[0]), int(report.games[1])),
            report.server,
            tuple((int(a), int(b)) for a, b in report.game_scores),
            _text(getattr(report, "ends", None)),
            getattr(report, "expedite", None),
            _text(getattr(report, "server_player", None)),
        )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class TimeOut:
    """A time-out called by a side (3.4.4.2)."""

    side: int


@dataclass(frozen=True, slots=True)
class Card:
    """A card shown to a side (3.5.2): "yellow", "yellow_red" or "red"."""

    side: int
    card: str
    player: str | None = None


@dataclass(frozen=True, slots=True)
class ExpediteStart:
    """The umpire introduces the expedite system (2.15); ball_in_play None when not known."""

    ball_in_play: bool | None = None


@dataclass(frozen=True, slots=True)
class UmpirePoint:
    """The umpire awards one rally to a side (a wristband or a button)."""

    side: int


@dataclass(frozen=True, slots=True)
class UmpireUndo:
    """The umpire takes back the last point given to a side."""

    side: int


@dataclass(frozen=True, slots=True)
class Correction:
    """A referee sets the score reached and, if given, the correct server and ends there (2.14)."""

    points: tuple[int, int]
    games: tuple[int, int]
    reason: str = ""
    server: int | str | None = None  # a side, or a player in doubles
    ends: str | None = None


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing with no report; lets `tt.expedite_due` fire on time."""


@dataclass(frozen=True, slots=True)
class OtherEvent:
    """A device event the rules do not use (kept in the log, changes nothing)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


Input = Display | TimeOut | Card | ExpediteStart | UmpirePoint | UmpireUndo | Correction | Tick | OtherEvent


# -- state -------------------------------------------------------------------------------------------------


class PointRecord(msgspec.Struct, frozen=True, gc=False):
    """One point scored: the score it made, who won it and who served it.

    A frozen msgspec Struct, as `TableTennisState` is (a match holds one per rally): built and compared in C.
    `gc=False`: it holds only numbers, text and a tuple of two ints, so it can never be part of a cycle."""

    game: int
    points: tuple[int, int]
    side: int
    server: int
    server_player: str | None
    at: float
    penalty: bool = False


class TableTennisState(msgspec.Struct, frozen=True, gc=False):
    """A table-tennis match as the rules see it.

    A frozen msgspec Struct: `msgspec.structs.replace` builds the next state in C (a frozen dataclass's
    `replace` and `__init__` cost replay a sixth of its time). `gc=False`: every field is an immutable value
    (frozen dataclasses, tuples, numbers, text, frozen Structs) built before the state, so it can never be
    part of a cycle. It is stored and sent only through `to_dict`, never handed to an encoder as is."""

    config: TableTennisConfig = TableTennisConfig()
    toss: tuple[str, str] | None = None  # first server and first receiver of game 1; None until known
    game_order: tuple[str, str] | None = None  # first server and first receiver of the game in play
    points: tuple[int, int] = (0, 0)
    games: tuple[int, int] = (0, 0)
    game_scores: tuple[tuple[int, int], ...] = ()
    winner: int | None = None
    final_scores: tuple[tuple[int, int], ...] | None = None  # every game's score once the match is decided
    rallies: int = 0
    swap_at: int | None = None  # points played when a side first reached 5 in the last possible game
    ends_anchor: tuple[int, str] = (0, "normal")  # ends after that many changes of ends
    expedite: bool = False
    expedite_since: tuple[int, tuple[int, int]] | None = None
    expedite_anchor: tuple[int, int, str, str] | None = None  # game, points played, server, receiver
    order_anchor: tuple[int, int, str, str] | None = None  # a referee's correction: same layout
    timeouts: tuple[bool, bool] = (False, False)
    timeout_active: int | None = None
    timeout_at: float | None = None
    cards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    penalty_points: tuple[int, int] = (0, 0)  # points awarded TO each side for the other's misbehaviour
    unshown: tuple[int, int] = (0, 0)  # penalty points the scoreboard has not shown yet
    carry: tuple[int, int] = (0, 0)  # penalty points that carry into the next game
    game_clock: float | None = None  # when the game's first point was scored
    paused: float = 0.0  # time-out seconds not counted as play in this game
    expedite_due_game: int | None = None
    expedite_dropped_game: int | None = None
    ends_flagged: int | None = None  # the change-of-ends count already flagged as not changed
    last_display: Display | None = None
    points_log: tuple[PointRecord, ...] = ()

    @property
    def best_of(self) -> int:
        """Games in the match."""
        return self.config.best_of

    @property
    def games_to_win(self) -> int:
        """Games a side needs to take the match."""
        return self.config.games_to_win

    @property
    def game_number(self) -> int:
        """The game in play, counted from 1."""
        return sum(self.games) + 1

    @property
    def server(self) -> int | None:
        """The side that serves the next rally, computed."""
        pair = service(self)
        return None if pair is None else _side(pair[0])

    @property
    def receiver(self) -> int | None:
        """The side that receives the next rally, computed."""
        pair = service(self)
        return None if pair is None else _side(pair[1])

    @property
    def ends(self) -> str:
        """Which way round the sides stand now: "normal" is side 0 on the left."""
        changes, ends = self.ends_anchor
        return ends if (_ends_changes(self) - changes) % 2 == 0 else _other_ends(ends)


def _after_rally(
    s: TableTennisState,
    points: tuple[int, int],
    points_log: tuple[PointRecord, ...],
    rallies: int,
    game_clock: float | None,
    paused: float,
    last_display: Display | None,
) -> TableTennisState:
    """The state after one plain rally: `replace` with those fields set and the time-out cleared, written out
    as one constructor call (no per-field introspection), as a rally is most of what a match folds."""
    return TableTennisState(
        config=s.config,
        toss=s.toss,
        game_order=s.game_order,
        points=points,
        games=s.games,
        game_scores=s.game_scores,
        winner=s.winner,
        final_scores=s.final_scores,
        rallies=rallies,
        swap_at=s.swap_at,
        ends_anchor=s.ends_anchor,
        expedite=s.expedite,
        expedite_since=s.expedite_since,
        expedite_anchor=s.expedite_anchor,
        order_anchor=s.order_anchor,
        timeouts=s.timeouts,
        timeout_active=None,
        timeout_at=None,
        cards=s.cards,
        penalty_points=s.penalty_points,
        unshown=s.unshown,
        carry=s.carry,
        game_clock=game_clock,
        paused=paused,
        expedite_due_game=s.expedite_due_game,
        expedite_dropped_game=s.expedite_dropped_game,
        ends_flagged=s.ends_flagged,
        last_display=last_display,
        points_log=points_log,
    )


def initial(config: TableTennisConfig | int = 5) -> TableTennisState:
    """A match that has not started (an int is taken as best_of, for callers that only know that)."""
    if isinstance(config, int):
        config = TableTennisConfig(best_of=config)
    toss = _toss_from_config(config)
    return TableTennisState(config=config, toss=toss, game_order=toss)


def _toss_from_config(config: TableTennisConfig) -> tuple[str, str] | None:
    if not config.doubles:
        if config.first_server is None:
            return None
        return ("A", "B") if config.first_server == 0 else ("B", "A")
    server = config.first_server_player
    if server is None:
        if config.first_server is None:
            return None
        server = "AB"[config.first_server] + "1"
    receiver = config.first_receiver_player
    if receiver is None or _side(receiver) == _side(server):
        receiver = "BA"[_side(server)] + "1"
    return server, receiver


# -- the rules as functions --------------------------------------------------------------------------------


def game_target(ruleset: str) -> int:
    """Points that win a game: 11 (ITTF 2.11.1), 21 under the legacy rules."""
    return 21 if ruleset == "legacy21" else 11


def game_over(points: tuple[int, int], ruleset: str = "ittf") -> bool:
    """ITTF 2.11.1: a game is won at 11, or by 2 clear after 10-10 (21 and 20-20 under legacy21)."""
    a, b = points
    return max(a, b) >= game_target(ruleset) and abs(a - b) >= 2


def _side(player: str) -> int:
    return 0 if player[0] == "A" else 1


def _partner(player: str) -> str:
    return player if len(player) == 1 else player[0] + ("2" if player[1] == "1" else "1")


def _next_pair(pair: tuple[str, str]) -> tuple[str, str]:
    """2.13.5: the previous receiver serves; the partner of the previous server receives."""
    server, receiver = pair
    return receiver, _partner(server)


def _other_ends(ends: str) -> str:
    return "swapped" if ends == "normal" else "normal"


def _is_last_game(state: TableTennisState) -> bool:
    return state.game_number == state.best_of


def _swap_point(ruleset: str) -> int:
    """2.13.7: ends change in the last possible game when a side first reaches 5 (10 in a 21-point game)."""
    return 10 if ruleset == "legacy21" else 5


def _ends_changes(state: TableTennisState) -> int:
    """Changes of ends so far in the match: one after each game, one at 5 in the last possible game."""
    return state.game_number - 1 + (1 if _is_last_game(state) and state.swap_at is not None else 0)


def _cycle_pairs(cycle: Any, played: int, serves: int, deuce: int) -> tuple[Any, Any]:
    """Who served rally `played` and who serves the next, in a game with no anchor: the cycle moves on
    every `serves` rallies, and every rally from deuce on."""
    if played < deuce:
        return cycle[(played // serves) % 4], cycle[((played + 1) // serves) % 4]
    return (
        cycle[(min(played, deuce) // serves + max(0, played - deuce)) % 4],
        cycle[(min(played + 1, deuce) // serves + max(0, played + 1 - deuce)) % 4],
    )


def _pair_at(state: TableTennisState, played: int) -> tuple[str, str] | None:
    """Server and receiver of the rally after `played` points of the current game (2.13, 2.15).

    Closed form of a walk through the game's rallies: from the game's order (or the last anchor reached),
    the pair moves on once per change of service (2.13.3; every point under expedite from its anchor,
    2.15.4), the receiving pair changes its order at the swap in the last doubles game (2.13.6), and an
    anchor (the expedite introduction, a referee's correction) sets the pair at its point.
    """
    pair = state.game_order
    if pair is None:
        return None
    if played < 0:
        return pair
    game = sum(state.games) + 1
    events: list[tuple[int, int, tuple[str, str] | None]] = []  # (point, order at one point, pair)
    swap_at = state.swap_at
    if (
        swap_at is not None
        and state.config.doubles
        and game == state.config.best_of
        and 0 <= swap_at <= played
    ):
        events.append((swap_at, 0, None))
    expedite_anchor = state.expedite_anchor
    if expedite_anchor is not None and expedite_anchor[0] == game and 0 <= expedite_anchor[1] <= played:
        events.append((expedite_anchor[1], 1, (expedite_anchor[2], expedite_anchor[3])))
    order_anchor = state.order_anchor
    if order_anchor is not None and order_anchor[0] == game and 0 <= order_anchor[1] <= played:
        events.append((order_anchor[1], 2, (order_anchor[2], order_anchor[3])))
    every_point_from: int | None = None
    if state.expedite:
        every_point_from = (
            expedite_anchor[1] if expedite_anchor is not None and expedite_anchor[0] == game else 0
        )
    serves, deuce = (5, 40) if state.config.ruleset == "legacy21" else (2, 20)
    if not events:
        return _advance(pair, _changes(played, every_point_from, serves, deuce))
    at = 0
    events.sort(key=lambda e: (e[0], e[1]))
    for n, _, anchor in events:
        pair = _advance(
            pair,
            _changes(n, every_point_from, serves, deuce) - _changes(at, every_point_from, serves, deuce),
        )
        at = n
        pair = (pair[0], _partner(pair[1])) if anchor is None else anchor
    return _advance(
        pair,
        _changes(played, every_point_from, serves, deuce) - _changes(at, every_point_from, serves, deuce),
    )


def _changes(n: int, every_point_from: int | None, serves: int, deuce: int) -> int:
    """Changes of service over points 1..n: every `serves` points, every point after `deuce` (2.13.3), and
    every point after `every_point_from` under expedite (2.15.4)."""
    if every_point_from is not None and n > every_point_from:
        e = max(every_point_from, 0)
        return min(e, deuce) // serves + max(0, e - deuce) + n - e
    return min(n, deuce) // serves + max(0, n - deuce)


_CYCLE_PLAYERS = ("A", "B", *DOUBLES_PLAYERS)


def _cycle(pair: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    cycle = [pair]
    for _ in range(3):
        cycle.append(_next_pair(cycle[-1]))
    return tuple(cycle)


# the serve cycle from each pair of known players: it repeats every 4 changes (every 2 in singles)
_CYCLES = {(s, r): _cycle((s, r)) for s in _CYCLE_PLAYERS for r in _CYCLE_PLAYERS}


def _advance(pair: tuple[str, str], times: int) -> tuple[str, str]:
    """The pair after `times` changes of service."""
    cycle = _CYCLES.get(pair)
    if cycle is not None:
        return cycle[times % 4]
    for _ in range(times):
        pair = _next_pair(pair)
    return pair


def service(state: TableTennisState) -> tuple[str, str] | None:
    """The (server, receiver) players of the next rally, computed; None before the toss is known."""
    return _pair_at(state, sum(state.points))


def match_result(state: TableTennisState) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
    """Games won and every finished game's score, counting a game the board shows won but not yet rolled."""
    scores = state.final_scores
    if scores is None:
        scores = state.game_scores
        if game_over(state.points, state.config.ruleset):
            scores = (*scores, state.points)
    won = [0, 0]
    for a, b in scores:
        won[0 if a > b else 1] += 1
    if state.final_scores is None and len(state.game_scores) != sum(state.games):
        won = list(state.games)  # the board's games are kept as reported when its history does not add up
        if game_over(state.points, state.config.ruleset):
            won[0 if state.points[0] > state.points[1] else 1] += 1
    return (won[0], won[1]), scores


# -- messages ----------------------------------------------------------------------------------------------


def _fmt(pair: tuple[int, ...] | list[int]) -> str:
    return f"{pair[0]}-{pair[1]}"


def _who(side: int) -> str:
    return "AB"[side]


_SEVERITY = {
    "tt.score_jump": Severity.WARNING,
    "tt.score_decrease": Severity.WARNING,
    "tt.illegal_game_end": Severity.ERROR,
    "tt.games_mismatch": Severity.ERROR,
    "tt.match_overrun": Severity.ERROR,
    "tt.wrong_server": Severity.WARNING,
    "tt.ends_not_changed": Severity.WARNING,
    "tt.expedite_due": Severity.WARNING,
    "tt.expedite_not_allowed": Severity.ERROR,
    "tt.expedite_dropped": Severity.WARNING,
    "tt.second_timeout": Severity.ERROR,
    "tt.penalty_without_warning": Severity.WARNING,
}

ANOMALY_CODES = tuple(_SEVERITY)


def _anomaly(code: str, en: str, tr: str, **data: Any) -> Anomaly:
    return Anomaly(code, _SEVERITY[code], en, tr, data)


# -- the reducer -------------------------------------------------------------------------------------------


class _Fold:
    """One input being folded: the state so far and what the rules saw on the way."""

    def __init__(self, state: TableTennisState, at: float) -> None:
        self.s = state
        self.at = at
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []

    def fact(self, kind: str, **data: Any) -> None:
        self.facts.append(Fact(kind, data))

    def flag(self, anomaly: Anomaly) -> None:
        self.anomalies.append(anomaly)

    # -- toss ---------------------------------------------------------------------------------------------

    def ensure_toss(self, display: Display | None = None) -> None:
        """The first server: from config, else the first report's indicator, else side A (said so)."""
        s = self.s
        if s.toss is not None:
            return
        doubles = s.config.doubles
        default = ("A1", "B1") if doubles else ("A", "B")
        probe = replace(s, toss=default, game_order=default)
        if display is not None:
            probe = replace(probe, points=display.points, games=display.games)
            order = _fit_order(probe, display.server, display.server_player, prefer_first_receiver=True)
            if order is not None:
                toss = order if probe.game_number % 2 == 1 else (order[1], order[0])
                self.s = replace(
                    s, toss=toss, game_order=_order_for_game(replace(s, toss=toss), s.game_number)
                )
                self.fact("toss", first_server=_side(toss[0]), **self._players(toss), source="board")
                return
        self.s = replace(s, toss=default, game_order=_order_for_game(replace(s, toss=default), s.game_number))
        self.fact("toss", first_server=0, **self._players(default), source="assumed")

    def _players(self, pair: tuple[str, str]) -> dict[str, Any]:
        if not self.s.config.doubles:
            return {}
        return {"first_server_player": pair[0], "first_receiver_player": pair[1]}

    # -- points -------------------------------------------------------------------------------------------

    def score_point(self, side: int, *, penalty: bool = False) -> None:
        s = self.s
        pair = service(s)
        game = s.game_number
        points = list(s.points)
        points[side] += 1
        new_points = (points[0], points[1])
        record = PointRecord(
            game,
            new_points,
            side,
            _side(pair[0]) if pair else 0,
            pair[0] if pair and s.config.doubles else None,
            self.at,
            penalty,
        )
        paused = s.paused
        if s.timeout_at is not None:
            paused += min(60.0, max(0.0, self.at - s.timeout_at))
        self.s = replace(
            s,
            points=new_points,
            points_log=(*s.points_log, record),
            rallies=s.rallies + (0 if penalty else 1),
            game_clock=self.at if s.game_clock is None else s.game_clock,
            paused=paused,
            timeout_active=None,
            timeout_at=None,
        )
        self.fact(
            "penalty_point" if penalty else "point",
            side=side,
            points=list(new_points),
            game=game,
            server=record.server,
            **({"server_player": record.server_player} if s.config.doubles else {}),
        )
        self.after_points(s.points)

    def after_points(self, before: tuple[int, int]) -> None:
        """What a new score reached brings: the change at 5 in the last game, a game or the match won."""
        s = self.s
        if game_over(before, s.config.ruleset):
            return  # the game was over already; whoever changed the score was flagged for it
        if _is_last_game(s) and s.swap_at is None and max(s.points) >= _swap_point(s.config.ruleset):
            self.s = s = replace(s, swap_at=sum(s.points))
            self.fact("ends_change", game=s.game_number, points=list(s.points), ends=s.ends)
        if s.winner is None and game_over(s.points, s.config.ruleset):
            side = 0 if s.points[0] > s.points[1] else 1
            self.fact("game", side=side, score=list(s.points), game=s.game_number)
            if s.games[side] + 1 >= s.games_to_win:
                scores = (*s.game_scores, s.points)
                won, _ = match_result(s)
                self.s = replace(s, winner=side, final_scores=scores)
                self.fact("match", side=side, games=list(won))

    def set_points(self, points: tuple[int, int]) -> None:
        """Take a score as reported (a jump or a decrease), keeping the points log in step."""
        s = self.s
        game = s.game_number
        log = list(s.points_log)
        for side in (0, 1):
            excess = s.points[side] - points[side]
            i = len(log) - 1
            while excess > 0 and i >= 0 and log[i].game == game:
                if log[i].side == side:
                    del log[i]
                    excess -= 1
                i -= 1
        before = s.points
        self.s = replace(s, points=points, points_log=tuple(log))
        if max(points) < _swap_point(s.config.ruleset):
            self.s = replace(self.s, swap_at=None)
        decided_here = s.final_scores is not None and len(s.final_scores) > len(s.game_scores)
        if s.winner is not None and decided_here and not game_over(points, s.config.ruleset):
            self.s = replace(self.s, winner=None, final_scores=None)  # the deciding game no longer shows won
        self.after_points(before)

    def new_game(self, closing_side: int) -> None:
        """Roll into the next game: record the finished one, change ends, and set the next serve order."""
        s = self.s
        final = s.points
        if not (game_over(final, s.config.ruleset) and final[closing_side] > final[1 - closing_side]):
            self.flag(
                _anomaly(
                    "tt.illegal_game_end",
                    f"Game {s.game_number} was closed for {_who(closing_side)} at {_fmt(final)}, "
                    f"a score that does not win a game.",
                    f"{s.game_number}. oyun {_fmt(final)} skorunda {_who(closing_side)} lehine kapatıldı; "
                    f"bu skor oyunu bitirmez.",
                    game=s.game_number,
                    score=list(final),
                    side=closing_side,
                )
            )
            self.fact("game", side=closing_side, score=list(final), game=s.game_number, legal=False)
        games = list(s.games)
        games[closing_side] += 1
        carry = s.carry
        self.s = _next_game(s, (games[0], games[1]))
        if self.s.winner is None and max(self.s.games) >= self.s.games_to_win:
            self.s = replace(self.s, winner=closing_side, final_scores=self.s.game_scores)
            self.fact("match", side=closing_side, games=list(self.s.games))
        for side in (0, 1):  # 3.5.2 (HMO): penalty points that did not fit in a game count in the next
            for _ in range(carry[side]):
                if self.s.winner is None:
                    self.score_point(side, penalty=True)
                    u = list(self.s.unshown)
                    u[side] += 1
                    self.s = replace(self.s, unshown=(u[0], u[1]))

    # -- a scoreboard display -----------------------------------------------------------------------------

    def display(self, d: Display) -> None:
        s = self.s
        changed = s.last_display != d
        if s.last_display is None and not s.points_log and d.ends in ENDS:  # the toss winner chose an end
            probe = replace(s, points=d.points, games=d.games)
            if probe.ends != d.ends:
                self.s = s = replace(s, ends_anchor=(_ends_changes(probe), d.ends))
                self.fact("ends", ends=d.ends, source="board")
        self.ensure_toss(d)
        s = self.s
        if s.winner is not None:
            self._after_decision(d)
        elif d.games == s.games:
            self._same_game(d.points)
        elif _one_game_more(s.games, d.games):
            closing = 0 if d.games[0] > s.games[0] else 1
            if len(d.game_scores) == sum(d.games) and d.game_scores[-1] != s.points:
                shown_final = d.game_scores[-1]  # the board's record of the game just closed
                if shown_final[0] >= s.points[0] and shown_final[1] >= s.points[1]:
                    self._same_game(shown_final)
            self.new_game(closing)
            self._first_server_choice(d)
            if self.s.winner is None:
                self._same_game(d.points)
            elif d.points != (0, 0):
                self._overrun(d)
        else:
            self._games_mismatch(d)
        if self.s.points == (0, 0) and self.s.winner is None:
            self._first_server_choice(d)
        if changed:
            self._check_board(d)
        self.s = replace(self.s, last_display=d)

    def _first_server_choice(self, d: Display) -> None:
        """2.13.4: in doubles the serving pair chooses which of its players serves first; a board at 0-0
        showing the other one is that choice (in game 1 only when the venue did not name the player)."""
        s = self.s
        order = s.game_order
        if not s.config.doubles or order is None or d.server_player not in DOUBLES_PLAYERS:
            return
        if s.game_number == 1 and s.config.first_server_player is not None:
            return
        if d.server_player == _partner(order[0]):
            # the first receiver is still the player who served to the first server in the game before
            if s.game_number == 1:  # the receiving pair makes its own choice in game 1 (2.13.2)
                self.s = replace(s, game_order=(d.server_player, order[1]), toss=(d.server_player, order[1]))
            else:
                self.s = replace(s, game_order=(d.server_player, _partner(order[1])))
            self.fact("first_server_choice", game=s.game_number, player=d.server_player)

    def _same_game(self, shown: tuple[int, int]) -> None:
        s = self.s
        base = (s.points[0] - s.unshown[0], s.points[1] - s.unshown[1])
        delta = (shown[0] - base[0], shown[1] - base[1])
        if delta[0] < 0 or delta[1] < 0:
            self.flag(
                _anomaly(
                    "tt.score_decrease",
                    f"Game {s.game_number}: the score went down from {_fmt(base)} to {_fmt(shown)} "
                    f"with no correction.",
                    f"{s.game_number}. oyun: skor düzeltme olmadan {_fmt(base)} iken {_fmt(shown)} oldu.",
                    game=s.game_number,
                    **{"from": list(base), "to": list(shown)},
                )
            )
            self.s = replace(self.s, unshown=(0, 0))
            self.set_points(shown)
            return
        rest = delta
        if s.unshown != (0, 0) and delta[0] >= s.unshown[0] and delta[1] >= s.unshown[1]:
            rest = (delta[0] - s.unshown[0], delta[1] - s.unshown[1])  # the board now shows the penalty
            self.s = replace(s, unshown=(0, 0))
        if rest == (0, 0):
            return
        if rest in ((1, 0), (0, 1)) and not game_over(self.s.points, s.config.ruleset):
            self.score_point(0 if rest[0] else 1)
            return
        target = (self.s.points[0] + rest[0], self.s.points[1] + rest[1])
        if game_over(self.s.points, s.config.ruleset):
            self.flag(
                _anomaly(
                    "tt.illegal_game_end",
                    f"Game {s.game_number} was already won at {_fmt(self.s.points)}; the board then showed "
                    f"{_fmt(target)}.",
                    f"{s.game_number}. oyun {_fmt(self.s.points)} ile kazanılmıştı; tabela sonra "
                    f"{_fmt(target)} gösterdi.",
                    game=s.game_number,
                    score=list(self.s.points),
                    shown=list(target),
                )
            )
        else:
            self.flag(
                _anomaly(
                    "tt.score_jump",
                    f"Game {s.game_number}: the score went from {_fmt(self.s.points)} to {_fmt(target)} "
                    f"in one report, not one rally.",
                    f"{s.game_number}. oyun: skor tek raporda {_fmt(self.s.points)} iken {_fmt(target)} "
                    f"oldu; bu tek bir sayı değil.",
                    game=s.game_number,
                    **{"from": list(self.s.points), "to": list(target)},
                )
            )
        self.set_points(target)

    def _after_decision(self, d: Display) -> None:
        s = self.s
        won, scores = match_result(s)
        last = scores[-1] if scores else (0, 0)
        settled = (d.games == s.games and d.points == s.points) or (
            d.games == won and d.points in ((0, 0), last)
        )
        if settled:
            if d.games == won and s.games != won:  # the board rolls the deciding game into its games count
                self.s = replace(s, games=won, points=d.points, game_scores=scores)
            return
        self._overrun(d)

    def _overrun(self, d: Display) -> None:
        s = self.s
        self.flag(
            _anomaly(
                "tt.match_overrun",
                f"The match was already won by {_who(s.winner or 0)}; the board then showed "
                f"{_fmt(d.points)} in games {_fmt(d.games)}.",
                f"Maçı {_who(s.winner or 0)} zaten kazanmıştı; tabela sonra {_fmt(d.games)} oyunda "
                f"{_fmt(d.points)} gösterdi.",
                winner=s.winner,
                points=list(d.points),
                games=list(d.games),
            )
        )
        self.s = replace(s, points=d.points, games=d.games)

    def _games_mismatch(self, d: Display) -> None:
        s = self.s
        self.flag(
            _anomaly(
                "tt.games_mismatch",
                f"Games went from {_fmt(s.games)} to {_fmt(d.games)} in one report.",
                f"Oyun skoru tek raporda {_fmt(s.games)} iken {_fmt(d.games)} oldu.",
                **{"from": list(s.games), "to": list(d.games)},
            )
        )
        scores = s.game_scores
        if len(d.game_scores) == sum(d.games):
            scores = d.game_scores
        elif len(scores) > sum(d.games):
            scores = scores[: sum(d.games)]
        self.s = replace(
            s,
            games=d.games,
            game_scores=scores,
            points=(0, 0),
            swap_at=None,
            order_anchor=None,
            unshown=(0, 0),
            game_clock=None,
            paused=0.0,
        )
        self.s = replace(self.s, game_order=_order_for_game(self.s, self.s.game_number))
        self.set_points(d.points)
        if self.s.winner is None and max(d.games) >= s.games_to_win:
            known = scores if len(scores) == sum(d.games) else None  # else the games stand as reported
            self.s = replace(self.s, winner=0 if d.games[0] > d.games[1] else 1, final_scores=known)
            self.fact("match", side=self.s.winner, games=list(d.games))

    def _check_board(self, d: Display) -> None:
        """Compare the board's indicators and history with the computed ones."""
        s = self.s
        if d.game_scores and len(d.game_scores) == sum(d.games):
            counted = [0, 0]
            for a, b in d.game_scores:
                counted[0 if a > b else 1] += 1
            ours = s.final_scores if s.final_scores is not None else s.game_scores
            differs = tuple(counted) != d.games or (
                len(ours) >= len(d.game_scores) and ours[: len(d.game_scores)] != d.game_scores
            )
            last = s.last_display
            if differs and (last is None or last.game_scores != d.game_scores or last.games != d.games):
                self.flag(
                    _anomaly(
                        "tt.games_mismatch",
                        f"The board's game history {_scores(d.game_scores)} does not match games "
                        f"{_fmt(d.games)} and the games played ({_scores(ours)}).",
                        f"Tabelanın oyun geçmişi {_scores(d.game_scores)}, {_fmt(d.games)} oyun skoru ve "
                        f"oynanan oyunlarla ({_scores(ours)}) uyuşmuyor.",
                        shown=[list(g) for g in d.game_scores],
                        games=list(d.games),
                        played=[list(g) for g in ours],
                    )
                )
        if s.winner is not None or game_over(s.points, s.config.ruleset):
            return  # between games and after the match a board may show either way
        if d.expedite is True and not s.expedite:
            self.introduce_expedite(None, board_server=d.server, board_player=d.server_player)
        elif d.expedite is False and s.expedite and s.expedite_since is not None:
            game = s.game_number
            if game > s.expedite_since[0] and s.expedite_dropped_game != game:
                self.flag(
                    _anomaly(
                        "tt.expedite_dropped",
                        f"Game {game}: the board shows no expedite, but the expedite system has been in "
                        f"force since game {s.expedite_since[0]} and stays to the end of the match (2.15.6).",
                        f"{game}. oyun: tabela hızlandırma sistemini göstermiyor; sistem "
                        f"{s.expedite_since[0]}. oyundan beri geçerli ve maç sonuna kadar sürer (2.15.6).",
                        game=game,
                        since_game=s.expedite_since[0],
                    )
                )
                self.s = replace(s, expedite_dropped_game=game)
        s = self.s
        pair = service(s)
        if pair is not None:
            server = _side(pair[0])
            wrong_side = d.server is not None and d.server != server
            wrong_player = s.config.doubles and d.server_player is not None and d.server_player != pair[0]
            if wrong_side or wrong_player:
                shown = d.server_player if wrong_player else _who(d.server or 0)
                due = pair[0] if s.config.doubles else _who(server)
                self.flag(
                    _anomaly(
                        "tt.wrong_server",
                        f"Game {s.game_number} at {_fmt(s.points)}: the board shows {shown} serving; "
                        f"{due} should serve.",
                        f"{s.game_number}. oyun {_fmt(s.points)}: tabela servisi {shown} gösteriyor; "
                        f"servis {due} oyuncusunda olmalı.",
                        game=s.game_number,
                        points=list(s.points),
                        shown=d.server_player if s.config.doubles and d.server_player else d.server,
                        expected=pair[0] if s.config.doubles else server,
                    )
                )
        if d.ends is not None and d.ends != s.ends:
            changes = _ends_changes(s)
            if s.ends_flagged != changes:
                self.flag(
                    _anomaly(
                        "tt.ends_not_changed",
                        f"Game {s.game_number} at {_fmt(s.points)}: the board shows ends {d.ends}; "
                        f"they should be {s.ends} (change after each game and at 5 in the last game).",
                        f"{s.game_number}. oyun {_fmt(s.points)}: tabela tarafları {d.ends} gösteriyor; "
                        f"{s.ends} olmalı (her oyundan sonra ve son oyunda 5'te taraf değişir).",
                        game=s.game_number,
                        points=list(s.points),
                        shown=d.ends,
                        expected=s.ends,
                    )
                )
                self.s = replace(s, ends_flagged=changes)

    # -- expedite -----------------------------------------------------------------------------------------

    def check_expedite_due(self) -> None:
        """2.15.1: after 10 minutes' play in a game with fewer than 18 points, the expedite system is due."""
        s = self.s
        if s.expedite or s.winner is not None or s.game_clock is None or s.expedite_due_game == s.game_number:
            return
        if game_over(s.points, s.config.ruleset) or not _expedite_allowed(s):
            return
        paused = s.paused
        if s.timeout_at is not None:
            paused += min(60.0, max(0.0, self.at - s.timeout_at))
        limit = 900.0 if s.config.ruleset == "legacy21" else 600.0
        played = self.at - s.game_clock - paused
        if played >= limit:
            self.flag(
                _anomaly(
                    "tt.expedite_due",
                    f"Game {s.game_number} has been played for {played / 60:.1f} minutes at {_fmt(s.points)}; "
                    f"the expedite system is due (2.15.1).",
                    f"{s.game_number}. oyun {_fmt(s.points)} skorunda {played / 60:.1f} dakikadır oynanıyor; "
                    f"hızlandırma sistemi uygulanmalı (2.15.1).",
                    game=s.game_number,
                    points=list(s.points),
                    played_s=round(played, 1),
                )
            )
            self.s = replace(s, expedite_due_game=s.game_number)

    def introduce_expedite(
        self, ball_in_play: bool | None, *, board_server: int | None = None, board_player: str | None = None
    ) -> None:
        """2.15.3: who serves when expedite starts; then service alternates every point (2.15.4)."""
        s = self.s
        if s.expedite:
            return
        game, played = s.game_number, sum(s.points)
        if not _expedite_allowed(s):
            self.flag(
                _anomaly(
                    "tt.expedite_not_allowed",
                    f"Game {game}: the expedite system was introduced at {_fmt(s.points)}; it may not be "
                    f"introduced once 18 points have been scored (2.15.2).",
                    f"{game}. oyun: hızlandırma sistemi {_fmt(s.points)} skorunda başlatıldı; 18 sayı "
                    f"oynandıktan sonra başlatılamaz (2.15.2).",
                    game=game,
                    points=list(s.points),
                )
            )
        in_play = _pair_at(s, played)  # the interrupted rally's server serves again
        if played == 0 or in_play is None:
            not_in_play = in_play
        else:  # the receiver of the previous rally serves
            last = _pair_at(s, played - 1)
            not_in_play = _next_pair(last) if last else None
            if not_in_play and s.config.doubles and _is_last_game(s) and s.swap_at == played:
                not_in_play = (not_in_play[0], _partner(not_in_play[1]))
        chosen = not_in_play
        if ball_in_play is True:
            chosen = in_play
        elif ball_in_play is None and in_play is not None and not_in_play is not None:
            if board_player is not None and s.config.doubles:
                chosen = in_play if board_player == in_play[0] else not_in_play
            elif board_server is not None:
                chosen = in_play if board_server == _side(in_play[0]) else not_in_play
        self.s = replace(
            s,
            expedite=True,
            expedite_since=(game, s.points),
            expedite_anchor=(game, played, chosen[0], chosen[1]) if chosen else None,
        )
        self.fact(
            "expedite",
            game=game,
            points=list(s.points),
            ball_in_play=ball_in_play,
            server=_side(chosen[0]) if chosen else None,
            **({"server_player": chosen[0]} if chosen and s.config.doubles else {}),
        )

    # -- umpire and referee inputs ------------------------------------------------------------------------

    def timeout(self, side: int) -> None:
        s = self.s
        if s.timeouts[side]:
            self.flag(
                _anomaly(
                    "tt.second_timeout",
                    f"{_who(side)} called a second time-out; one per player or pair per match (3.4.4.2).",
                    f"{_who(side)} ikinci kez mola istedi; maç başına bir mola hakkı vardır (3.4.4.2).",
                    side=side,
                    game=s.game_number,
                    points=list(s.points),
                )
            )
        used = list(s.timeouts)
        used[side] = True
        self.s = replace(s, timeouts=(used[0], used[1]), timeout_active=side, timeout_at=self.at)
        self.fact("timeout", side=side, game=s.game_number, points=list(s.points))

    def card(self, c: Card) -> None:
        s = self.s
        side = c.side
        given = s.cards[side]
        if c.card == "yellow_red" and "yellow" not in given:
            self.flag(
                _anomaly(
                    "tt.penalty_without_warning",
                    f"{_who(side)} got yellow and red cards (a penalty point) with no yellow card before "
                    f"(3.5.2: a warning comes first).",
                    f"{_who(side)} önceden sarı kart görmeden sarı-kırmızı kart (ceza sayısı) gördü "
                    f"(3.5.2: önce uyarı verilir).",
                    side=side,
                    game=s.game_number,
                    points=list(s.points),
                )
            )
        cards = list(s.cards)
        cards[side] = (*given, c.card)
        self.s = replace(s, cards=(cards[0], cards[1]))
        award = 0
        if c.card == "yellow_red":
            award = 2 if "yellow_red" in given else 1  # 3.5.2: 1 point, then 2 points each time
        self.fact("card", side=side, card=c.card, player=c.player, penalty_points=award)
        other = 1 - side
        penalty = list(self.s.penalty_points)
        penalty[other] += award
        self.s = replace(self.s, penalty_points=(penalty[0], penalty[1]))
        for _ in range(award):
            if self.s.winner is not None:
                break
            if game_over(self.s.points, s.config.ruleset):
                carry = list(self.s.carry)
                carry[other] += 1
                self.s = replace(self.s, carry=(carry[0], carry[1]))
                continue
            self.score_point(other, penalty=True)
            unshown = list(self.s.unshown)
            unshown[other] += 1
            self.s = replace(self.s, unshown=(unshown[0], unshown[1]))

    def umpire_point(self, side: int) -> None:
        s = self.s
        if s.winner is not None:
            points = list(s.points)
            points[side] += 1
            self._overrun(Display((points[0], points[1]), s.games))
            return
        if game_over(s.points, s.config.ruleset):
            self.new_game(0 if s.points[0] > s.points[1] else 1)
        self.score_point(side)

    def umpire_undo(self, side: int) -> None:
        s = self.s
        if s.points[side] == 0:
            self.fact("undo", side=side, ignored=True)
            return
        points = list(s.points)
        points[side] -= 1
        self.set_points((points[0], points[1]))
        self.s = replace(self.s, rallies=max(0, self.s.rallies - 1))
        self.fact("undo", side=side, points=points, game=s.game_number)

    def correction(self, c: Correction) -> None:
        s = self.s
        if c.games != s.games:
            scores = s.game_scores[: sum(c.games)]
            if _one_game_more(s.games, c.games) and game_over(s.points, s.config.ruleset):
                scores = (*s.game_scores, s.points)  # the game the board missed closing
            self.s = replace(
                s,
                games=c.games,
                game_scores=scores,
                points=(0, 0),
                swap_at=None,
                order_anchor=None,
                unshown=(0, 0),
                carry=(0, 0),
                game_clock=None,
                paused=0.0,
                winner=None,
                final_scores=None,
            )
            self.s = replace(self.s, game_order=_order_for_game(self.s, self.s.game_number))
        self.s = replace(self.s, unshown=(0, 0))
        self.set_points(c.points)
        s = self.s
        if s.winner is None and max(s.games) >= s.games_to_win:
            known = s.game_scores if len(s.game_scores) == sum(s.games) else None
            self.s = s = replace(s, winner=0 if s.games[0] > s.games[1] else 1, final_scores=known)
        if c.server is not None:
            server_side = c.server if isinstance(c.server, int) else _side(c.server)
            player = c.server if isinstance(c.server, str) and s.config.doubles else None
            pair = service(s)
            if pair is None or _side(pair[0]) != server_side or (player and pair[0] != player):
                order = _fit_order(s, server_side, player)
                if order is not None:
                    game = s.game_number
                    toss = order if game % 2 == 1 else (order[1], order[0])
                    if s.config.doubles and game > 1:
                        toss = s.toss or toss  # in doubles a later game's order is the pair's own choice
                    self.s = replace(s, game_order=order, toss=toss)
                else:
                    wanted = player or (_who(server_side) if not s.config.doubles else None)
                    anchor = _pair_with_server(pair, wanted, server_side, s.config.doubles)
                    if anchor is not None:
                        self.s = replace(s, order_anchor=(s.game_number, sum(s.points), anchor[0], anchor[1]))
        if c.ends is not None:
            self.s = replace(self.s, ends_anchor=(_ends_changes(self.s), c.ends), ends_flagged=None)
        s = self.s
        pair = service(s)
        self.fact(
            "correction",
            points=list(c.points),
            games=list(c.games),
            reason=c.reason,
            server=_side(pair[0]) if pair else None,
            ends=s.ends,
        )


def _scores(scores: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(_fmt(g) for g in scores) or "-"


def _one_game_more(old: tuple[int, int], new: tuple[int, int]) -> bool:
    return (new[0] - old[0], new[1] - old[1]) in ((1, 0), (0, 1))


def _expedite_allowed(state: TableTennisState) -> bool:
    """2.15.2: not once 18 points are scored in the game (legacy rules: not once both have 19)."""
    if state.config.ruleset == "legacy21":
        return min(state.points) < 19
    return sum(state.points) < 18


def _order_for_game(state: TableTennisState, game: int) -> tuple[str, str] | None:
    """2.13.6: the toss order in odd games, reversed in even games."""
    if state.toss is None:
        return None
    return state.toss if game % 2 == 1 else (state.toss[1], state.toss[0])


def _candidate_orders(state: TableTennisState) -> list[tuple[str, str]]:
    current = state.game_order
    if not state.config.doubles:
        orders = [("A", "B"), ("B", "A")]
    else:
        orders = [(s, r) for s in DOUBLES_PLAYERS for r in DOUBLES_PLAYERS if _side(s) != _side(r)]
    if current in orders:
        orders.remove(current)
        orders.insert(0, current)
    return orders


def _fit_order(
    state: TableTennisState,
    server_side: int | None,
    server_player: str | None,
    *,
    prefer_first_receiver: bool = False,
) -> tuple[str, str] | None:
    """A game order under which the computed server at the score reached is the one given."""
    if server_side is None and server_player is None:
        return None
    orders = _candidate_orders(state)
    if prefer_first_receiver:  # with nothing else to go on, the first player of the receiving pair receives
        orders.sort(key=lambda o: o[1][-1] != "1" if len(o[1]) == 2 else False)
    for order in orders:
        pair = service(replace(state, game_order=order))
        if pair is None:
            continue
        if server_player is not None and state.config.doubles:
            if pair[0] == server_player:
                return order
        elif _side(pair[0]) == server_side:
            return order
    return None


def _pair_with_server(
    pair: tuple[str, str] | None, player: str | None, side: int, doubles: bool
) -> tuple[str, str] | None:
    """The pair of the current serve cycle whose server is the one given."""
    if pair is None:
        return None
    candidate = pair
    for _ in range(4 if doubles else 2):
        if (player is not None and candidate[0] == player) or (
            player is None and _side(candidate[0]) == side
        ):
            return candidate
        candidate = _next_pair(candidate)
    return None


def apply(state: TableTennisState, report: Any, at: float) -> Outcome[TableTennisState]:
    """Fold one input (an engine input, or a device's ScoreboardState or DeviceEvent) into the match.

    Never raises on a rule violation: the input is kept as reported and the violation is an anomaly.
    """
    if type(report) is Display:  # what a logged scoreboard report reads back as (`to_input` keeps it)
        outcome = _one_rally(state, report, at)
        if outcome is None:
            outcome = _next_game_display(state, report)
        if outcome is not None:
            return outcome
        return _apply_in_full(state, report, at)
    return _apply_in_full(state, to_input(report), at)


def _one_rally(s: TableTennisState, d: Display, at: float) -> Outcome[TableTennisState] | None:
    """The display one rally after the last, with nothing else to say, folded directly; else None.

    This is `_Fold.display` for its commonest case, step for step: it returns exactly what the full fold
    returns (tests/hub/test_tabletennis_fastpath.py compares the two on every input of generated matches,
    noisy ones included), and None as soon as any rule could have more to say than "a point" (and "a game",
    when the point wins a game but not the match): the first display, a toss still to find, a decided match,
    a new game, the match won by this point, the change of ends at 5, penalty points the board has not
    shown, expedite, an indicator or a game history that does not match, a repeated display, the expedite
    clock running out.
    """
    last = s.last_display
    if last is None or s.winner is not None or s.toss is None or s.expedite or d.expedite is True:
        return None
    games = s.games
    if d.games != games or last.games != games or d.game_scores != last.game_scores:
        return None
    shown = d.points
    if s.unshown != (0, 0) or s.final_scores is not None or (last.points == shown and last == d):
        return None
    a, b = s.points
    if shown == (a + 1, b):
        side = 0
    elif shown == (a, b + 1):
        side = 1
    else:
        return None
    new_points = shown
    n0, n1 = new_points
    config = s.config
    target, swap_point, clock_limit, serves, deuce = _LEGACY21 if config.ruleset == "legacy21" else _ITTF
    # `game_over`, inline: the score before does not win a game; the score after (the higher) may, but not
    # the match (then `_Fold` decides it)
    wins_game = False
    if n0 >= target or n1 >= target:
        if max(a, b) >= target and abs(a - b) >= 2:
            return None
        if abs(n0 - n1) >= 2:
            if games[side] + 1 >= config.games_to_win:
                return None
            wins_game = True
    game = games[0] + games[1] + 1
    swap_at = s.swap_at
    if swap_at is None and game == config.best_of and (n0 >= swap_point or n1 >= swap_point):
        return None  # the change of ends at 5 in the last game
    paused = s.paused
    if s.timeout_at is not None:
        paused += min(60.0, max(0.0, at - s.timeout_at))
    clock = s.game_clock
    if clock is not None and at - clock - paused >= clock_limit and s.expedite_due_game != game:
        return None  # `_Fold.check_expedite_due` would look at the clock: let it
    played = a + b
    doubles = config.doubles
    order = s.game_order
    cycle = _CYCLES.get(order) if order is not None else None
    if (
        cycle is not None
        and s.order_anchor is None
        and s.expedite_anchor is None
        and (swap_at is None or not doubles)
    ):  # `_pair_at` with no anchor in the game: the cycle moved on once per change of service
        pair, after = _cycle_pairs(cycle, played, serves, deuce)
    else:
        pair = _pair_at(s, played)  # who served this rally
        after = _pair_at(s, played + 1)  # who serves the next: what the board's indicator must show
    # the board's indicators are checked while a game is on; between games a board may show either way
    if after is not None and not wins_game:
        if d.server is not None and d.server != (0 if after[0][0] == "A" else 1):  # `_side`
            return None
        if doubles and d.server_player is not None and d.server_player != after[0]:
            return None
    if d.ends is not None and not wins_game:  # points alone do not move the ends: `s.ends`, inline
        changes, ends = s.ends_anchor
        if (game - 1 + (1 if game == config.best_of and swap_at is not None else 0) - changes) % 2:
            ends = _other_ends(ends)
        if d.ends != ends:
            return None
    server = (0 if pair[0][0] == "A" else 1) if pair else 0
    player = pair[0] if pair and doubles else None
    record = PointRecord(game, new_points, side, server, player, at, False)
    state = _after_rally(
        s, new_points, (*s.points_log, record), s.rallies + 1, at if clock is None else clock, paused, d
    )
    data: dict[str, Any] = {"side": side, "points": [n0, n1], "game": game, "server": server}
    if doubles:
        data["server_player"] = player
    if wins_game:  # `_Fold.after_points`
        won = Fact("game", {"side": side, "score": [n0, n1], "game": game})
        return Outcome(state, (Fact("point", data), won), ())
    return Outcome(state, (Fact("point", data),), ())


def _next_game(s: TableTennisState, games: tuple[int, int], **more: Any) -> TableTennisState:
    """The state once the game is closed at its score and the next one begins, `games` won (`new_game`)."""
    previous = s.game_order
    return replace(
        s,
        games=games,
        game_scores=(*s.game_scores, s.points),
        points=(0, 0),
        swap_at=None,
        order_anchor=None,
        game_order=(previous[1], previous[0]) if previous else None,  # 2.13.6
        unshown=(0, 0),
        carry=(0, 0),
        game_clock=None,
        paused=0.0,
        timeout_active=None,
        timeout_at=None,
        **more,
    )


def _settled_singles(s: TableTennisState) -> bool:
    """A singles match the shortcuts may fold into: a display seen, the toss known, no winner yet, no
    expedite, no penalty points waiting to be shown or carried."""
    return (
        s.last_display is not None
        and s.winner is None
        and s.toss is not None
        and not s.expedite
        and not s.config.doubles
        and s.unshown == (0, 0)
        and s.carry == (0, 0)
        and s.final_scores is None
    )


def _next_game_display(s: TableTennisState, d: Display) -> Outcome[TableTennisState] | None:
    """The next game's first display (0-0, one game more, the game just won in its history) in singles,
    with nothing else to say, folded directly; else None.

    `_Fold.display` for that case, step for step (`new_game`, then the board checked against the new game's
    server and ends), as `_one_rally` is for a rally; tests/hub/test_tabletennis_fastpath.py holds the two
    to the same result. None for anything more: doubles, a decided match, expedite, penalty points to carry
    or not yet shown, a game closed at a score that does not win it, the board's history, server or ends
    not matching.
    """
    config = s.config
    if not _settled_singles(s) or d.expedite is True or d.points != (0, 0):
        return None
    games, shown = s.games, d.games
    if shown == (games[0] + 1, games[1]):
        closing = 0
    elif shown == (games[0], games[1] + 1):
        closing = 1
    else:
        return None
    final = s.points
    if not (game_over(final, config.ruleset) and final[closing] > final[1 - closing]):
        return None  # an illegal close: `new_game` flags it
    if max(shown) >= config.games_to_win:
        return None  # the match is won
    history = d.game_scores
    if history and len(history) == shown[0] + shown[1]:
        if history[-1] != final:
            return None  # the board's own record of the game just closed: `_same_game` reads it
        if (sum(1 for x, y in history if x > y), sum(1 for x, y in history if x <= y)) != shown:
            return None  # `_check_board`: the history does not add up to the games shown
        ours = (*s.game_scores, final)
        if len(ours) >= len(history) and ours[: len(history)] != history:
            return None
    state = _next_game(s, shown, last_display=d)
    pair = service(state)
    if pair is not None and d.server is not None and d.server != _side(pair[0]):
        return None
    if d.ends is not None and d.ends != state.ends:
        return None
    return Outcome(state, (), ())


def fold_rallies(
    s: TableTennisState, rows: Sequence[tuple[Any, ...]], start: int, end: int
) -> tuple[TableTennisState, int, Callable[[int], list[tuple[int, Fact]]]]:
    """Fold `rows[start:end]` (match events `(offset, kind, at, actor, body)`) while each is a device report
    the shortcuts of `apply` take in a singles match: a display one plain rally after the last, a rally that
    wins a game but not the match, the next game's first display. Returns the state, how many rows it
    folded, and the run's facts (`facts(n)`: its newest n facts, oldest first, each with the index of its
    row from `start`).

    Replay's shortcut through a match: each display is read and checked exactly as `apply` reads and checks
    it (`input_from_dict`, then `_one_rally`'s or `_next_game_display`'s conditions), but what a rally cannot
    change is checked once per game, and one state is built at the run's end instead of one per row. It stops
    at the first row that is anything else, and the caller folds that row through `apply`. The result is the
    state and the facts those `apply` calls would give (tests/hub/test_replay.py folds generated noisy matches
    both ways).
    """
    last = s.last_display
    config = s.config
    game_order = s.game_order
    if (
        last is None  # `_settled_singles` says so too; said here for the type checker
        or game_order is None
        or not _settled_singles(s)
        or s.order_anchor is not None
        or s.expedite_anchor is not None
        or last.games != s.games
    ):
        return s, 0, _NO_FACTS
    cycle = _CYCLES.get(game_order)
    if cycle is None:
        return s, 0, _NO_FACTS
    target, swap_point, clock_limit, serves, deuce = _LEGACY21 if config.ruleset == "legacy21" else _ITTF
    games_to_win = config.games_to_win
    changes, first_ends = s.ends_anchor
    games = s.games
    game_scores = s.game_scores
    game = games[0] + games[1] + 1
    swap_at = s.swap_at
    last_game = game == config.best_of
    # `s.ends`, inline: points alone do not move the ends, so it stands for the rest of the game
    ends = (
        _other_ends(first_ends)
        if (game - 1 + (1 if last_game and swap_at is not None else 0) - changes) % 2
        else first_ends
    )
    a, b = s.points
    over = max(a, b) >= target and abs(a - b) >= 2  # the game is won: only the next game's display may follow
    games_list = [games[0], games[1]]  # as a logged display holds them
    rallies = s.rallies
    clock = s.game_clock
    paused = s.paused
    timeout_at = s.timeout_at
    due_game = s.expedite_due_game
    # the last display, read: its points and history (as a logged display holds it) stand for every rally
    # of the run until the next game's first display; the Display itself is read once, from the run's last
    # rally (`last_data`), not once per row
    last_points = last.points
    last_history = [[x, y] for x, y in last.game_scores]
    last_data: dict[str, Any] | None = None
    records: list[PointRecord] = []
    record_rows: list[int] = []  # the row of each record, from `start`
    game_points: list[int] = []  # records that won a game
    new_games = False
    i = start
    while i < end:
        row = i
        _offset, kind, at, _actor, body = rows[row]
        if kind != "device.report" or type(body) is not dict:
            break
        data = body.get("report")
        if type(data) is not dict or data.get("type", "display") != "display":
            break
        raw = data.get("points")
        if over:
            # `_next_game_display`: 0-0, one game more for the side that won the last, its score in the history
            closing = 0 if a > b else 1
            if raw != [0, 0] or data.get("games") != [games[0] + 1 - closing, games[1] + closing]:
                break
            d = _display_from_dict(data)
            if d is None or d.expedite is True or d.points != (0, 0):
                break
            shown = d.games
            if max(shown) >= games_to_win:
                break
            final = (a, b)
            ours = (*game_scores, final)
            history = d.game_scores
            if history and len(history) == shown[0] + shown[1]:
                if history[-1] != final:
                    break
                if (sum(1 for x, y in history if x > y), sum(1 for x, y in history if x <= y)) != shown:
                    break
                if len(ours) >= len(history) and ours[: len(history)] != history:
                    break
            next_order = (game_order[1], game_order[0])  # 2.13.6
            next_cycle = _CYCLES.get(next_order)
            if next_cycle is None:
                break
            next_game = shown[0] + shown[1] + 1
            next_ends = _other_ends(first_ends) if (next_game - 1 - changes) % 2 else first_ends
            if d.server is not None and d.server != (0 if next_cycle[0][0][0] == "A" else 1):
                break
            if d.ends is not None and d.ends != next_ends:
                break
            # `new_game`, kept in locals
            games, game_scores, game_order, cycle = shown, ours, next_order, next_cycle
            game, ends, swap_at, last_game = next_game, next_ends, None, next_game == config.best_of
            games_list = [games[0], games[1]]
            a = b = 0
            over = False
            clock, paused, timeout_at = None, 0.0, None
            new_games = True
            last, last_data, last_points = d, None, d.points
            last_history = [[x, y] for x, y in d.game_scores]
            i += 1
            continue
        # What usually ends a run (a match point, a game's first display after a rally), seen before the
        # display is read: `apply` then reads that row once, not twice. Only ever a reason to stop.
        if raw == [a + 1, b]:
            won = a + 1 >= target and a + 1 - b >= 2
            side = 0
        elif raw == [a, b + 1]:
            won = b + 1 >= target and b + 1 - a >= 2
            side = 1
        else:
            break
        if won and games[side] + 1 >= games_to_win:
            break
        # the display, checked field by field as `_display_from_dict` checks it, against the last one: the
        # points one rally on, the same games and history, an indicator that is absent or one a board may show
        shown_games = data.get("games")
        if (
            shown_games != games_list
            or type(raw[0]) is not int
            or type(raw[1]) is not int
            or type(shown_games[0]) is not int
            or type(shown_games[1]) is not int
        ):
            break
        shown_history = data.get("game_scores")
        if last_history:
            # equal, and integers (11.0 and True compare equal to 11 and 1)
            if shown_history != last_history or not _int_pairs(shown_history):
                break
        elif shown_history:
            break
        server = data.get("server")
        if server is not None and (type(server) is not int or (server != 0 and server != 1)):
            break
        shown_ends = data.get("ends")
        if shown_ends is not None and (type(shown_ends) is not str or shown_ends not in ENDS):
            break
        expedite = data.get("expedite")
        if expedite is not None and expedite is not False:
            break  # True starts the expedite system; anything else is not a display
        player = data.get("server_player")
        if player is not None and (type(player) is not str or player not in DOUBLES_PLAYERS):
            break
        shown = (raw[0], raw[1])
        if last_points == shown:
            break  # the same score again: `apply` says whether it is the same display
        n0, n1 = shown
        if swap_at is None and last_game and (n0 >= swap_point or n1 >= swap_point):
            break
        new_paused = paused
        if timeout_at is not None:
            new_paused += min(60.0, max(0.0, at - timeout_at))
        if clock is not None and at - clock - new_paused >= clock_limit and due_game != game:
            break
        played = a + b
        pair, after = _cycle_pairs(cycle, played, serves, deuce)
        if not won:  # between games a board may show either way
            if server is not None and server != (0 if after[0][0] == "A" else 1):
                break
            if shown_ends is not None and shown_ends != ends:
                break
        # the rally: what `_one_rally` builds, kept in locals until the run ends
        server = 0 if pair[0][0] == "A" else 1
        if won:
            game_points.append(len(records))
            over = True
        records.append(PointRecord(game, shown, side, server, None, at, False))
        record_rows.append(row - start)
        a, b = n0, n1
        rallies += 1
        if clock is None:
            clock = at
        paused = new_paused
        timeout_at = None
        last_data, last_points = data, shown
        i += 1
    folded = i - start
    if not folded:
        return s, 0, _NO_FACTS
    if last_data is not None:
        last = _display_from_dict(last_data)  # checked above: a Display
    facts = _run_facts(records, record_rows, game_points)
    points_log = s.points_log + tuple(records) if records else s.points_log
    if not new_games:
        return _after_rally(s, (a, b), points_log, rallies, clock, paused, last), folded, facts
    state = replace(
        s,
        games=games,
        game_scores=game_scores,
        points=(a, b),
        points_log=points_log,
        rallies=rallies,
        swap_at=swap_at,
        game_order=game_order,
        game_clock=clock,
        paused=paused,
        timeout_active=None,
        timeout_at=None,
        last_display=last,
    )
    return state, folded, facts


def _int_pairs(pairs: list[Any]) -> bool:
    """Every pair holds two ints (a loop: `all` over a generator costs more for the few a history has)."""
    for x, y in pairs:  # noqa: SIM110 - measured: the loop, not `all` over a generator
        if type(x) is not int or type(y) is not int:
            return False
    return True


def _NO_FACTS(wanted: int) -> list[tuple[int, Fact]]:
    return []


def _run_facts(
    records: list[PointRecord], rows: list[int], game_points: list[int]
) -> Callable[[int], list[tuple[int, Fact]]]:
    """The facts `apply` raised on a run `fold_rallies` folded, built only when asked for (a match keeps its
    newest few): a point for each rally, and a game after the rally that won one."""

    def newest(wanted: int) -> list[tuple[int, Fact]]:
        out: list[tuple[int, Fact]] = []
        won = set(game_points)
        k = len(records) - 1
        while k >= 0 and len(out) < wanted:
            r = records[k]
            if k in won:
                out.append(
                    (
                        rows[k],
                        Fact("game", {"side": r.side, "score": [r.points[0], r.points[1]], "game": r.game}),
                    )
                )
                if len(out) >= wanted:
                    break
            data: dict[str, Any] = {
                "side": r.side,
                "points": [r.points[0], r.points[1]],
                "game": r.game,
                "server": r.server,
            }
            out.append((rows[k], Fact("point", data)))
            k -= 1
        out.reverse()
        return out

    return newest


# per ruleset: points that win a game, the score that changes ends in the last game, seconds of play before
# the expedite system is due, serves each, and the points after which service changes every point
_ITTF = (11, 5, 600.0, 2, 20)
_LEGACY21 = (21, 10, 900.0, 5, 40)


def _apply_in_full(state: TableTennisState, item: Input, at: float) -> Outcome[TableTennisState]:
    """Fold one engine input through every rule (`apply` tries `_one_rally` first)."""
    fold = _Fold(state, at)
    fold.check_expedite_due()
    if isinstance(item, Display):
        fold.display(item)
    elif isinstance(item, OtherEvent | Tick):
        pass
    else:
        fold.ensure_toss()
        if isinstance(item, TimeOut):
            fold.timeout(item.side)
        elif isinstance(item, Card):
            fold.card(item)
        elif isinstance(item, ExpediteStart):
            fold.introduce_expedite(item.ball_in_play)
        elif isinstance(item, UmpirePoint):
            fold.umpire_point(item.side)
        elif isinstance(item, UmpireUndo):
            fold.umpire_undo(item.side)
        elif isinstance(item, Correction):
            fold.correction(item)
    return Outcome(fold.s, tuple(fold.facts), tuple(fold.anomalies))


# -- device reports and plain data -------------------------------------------------------------------------


def _side_of(data: dict[str, Any]) -> int:
    side = data.get("side")
    if side in ("A", "B"):
        return 0 if side == "A" else 1
    if side not in (0, 1) or isinstance(side, bool):
        raise ValueError(f"side must be 0 or 1, got {side!r}")
    return int(side)


def to_input(report: Any) -> Input:
    """An engine input from a device report; events the rules cannot read become `OtherEvent`."""
    if isinstance(report, ScoreboardState):
        return Display.of(report)
    if isinstance(report, DeviceEvent):
        data = dict(report.data)
        try:
            if report.kind == "timeout":
                return TimeOut(_side_of(data))
            if report.kind == "card" and data.get("card") in CARDS:
                return Card(_side_of(data), data["card"], data.get("player"))
            if report.kind == "expedite":
                ball = data.get("ball_in_play")
                return ExpediteStart(ball if isinstance(ball, bool) else None)
            if report.kind == "point":
                return UmpirePoint(_side_of(data))
            if report.kind == "undo":
                return UmpireUndo(_side_of(data))
        except ValueError:
            pass
        return OtherEvent(report.kind, data)
    return report


def _pair(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def input_to_dict(item: Any) -> dict[str, Any]:
    """An input (or a device report) as plain data with a "type" key; `input_from_dict` reverses it."""
    if type(item) is ScoreboardState:  # every scoreboard report: `Display.of` and the dict below, in one
        points, games, history = item.points, item.games, item.game_scores
        return {
            "type": "display",
            "points": [int(points[0]), int(points[1])],
            "games": [int(games[0]), int(games[1])],
            "server": item.server,
            "game_scores": [[int(a), int(b)] for a, b in history] if history else [],
            "ends": None if item.ends is None else str(item.ends),
            "expedite": item.expedite,
            "server_player": None if item.server_player is None else str(item.server_player),
        }
    item = to_input(item)
    if isinstance(item, Display):
        return {
            "type": "display",
            "points": list(item.points),
            "games": list(item.games),
            "server": item.server,
            "game_scores": [list(g) for g in item.game_scores],
            "ends": item.ends,
            "expedite": item.expedite,
            "server_player": item.server_player,
        }
    if isinstance(item, TimeOut):
        return {"type": "timeout", "side": item.side}
    if isinstance(item, Card):
        return {"type": "card", "side": item.side, "card": item.card, "player": item.player}
    if isinstance(item, ExpediteStart):
        return {"type": "expedite", "ball_in_play": item.ball_in_play}
    if isinstance(item, UmpirePoint):
        return {"type": "point", "side": item.side}
    if isinstance(item, UmpireUndo):
        return {"type": "undo", "side": item.side}
    if isinstance(item, Correction):
        return {
            "type": "correction",
            "points": list(item.points),
            "games": list(item.games),
            "reason": item.reason,
            "server": item.server,
            "ends": item.ends,
        }
    if isinstance(item, Tick):
        return {"type": "tick"}
    if isinstance(item, OtherEvent):
        return {"type": "event", "kind": item.kind, "data": dict(item.data)}
    raise TypeError(f"no table-tennis input encoding for {type(item).__name__}")


def input_from_dict(data: dict[str, Any]) -> Input:
    """The inverse of `input_to_dict`; a dict without "type" is a display (the skeleton's log bodies).

    Raises ValueError naming the field when the data is not a valid input (for referee input checked at the
    API before it is logged; what `input_to_dict` wrote always reads back).
    """
    if data.get("type", "display") == "display":
        display = _display_from_dict(data)
        if display is not None:
            return display
    return _checked_input_from_dict(data)


def _checked_input_from_dict(data: dict[str, Any]) -> Input:
    """`input_from_dict` field by field, naming the field that is wrong."""
    kind = data.get("type", "display")
    try:
        if kind == "display":
            return Display(
                _score(data, "points"),
                _score(data, "games"),
                _optional(data, "server", _SIDES),
                tuple([_two_counts(g, "game") for g in data.get("game_scores") or ()]),
                _optional(data, "ends", ENDS),
                _optional(data, "expedite", _BOOLS),
                _optional(data, "server_player", DOUBLES_PLAYERS),
            )
        if kind == "timeout":
            return TimeOut(_required_side(data))
        if kind == "card":
            card = data.get("card")
            if card not in CARDS:
                raise ValueError(f"card must be one of {', '.join(CARDS)}, got {card!r}")
            return Card(_required_side(data), card, _optional(data, "player", DOUBLES_PLAYERS))
        if kind == "expedite":
            return ExpediteStart(_optional(data, "ball_in_play", _BOOLS))
        if kind == "point":
            return UmpirePoint(_required_side(data))
        if kind == "undo":
            return UmpireUndo(_required_side(data))
        if kind == "correction":
            reason = data.get("reason", "")
            if not isinstance(reason, str):
                raise ValueError(f"reason must be text, got {reason!r}")
            return Correction(
                _score(data, "points"),
                _score(data, "games"),
                reason,
                _optional(data, "server", _SERVERS),
                _optional(data, "ends", ENDS),
            )
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"{kind} input: {exc!r} missing or malformed") from None
    if kind == "tick":
        return Tick()
    return OtherEvent(str(data.get("kind", kind)), dict(data.get("data") or {}))


def _display_from_dict(data: dict[str, Any]) -> Display | None:
    """A display in the form `input_to_dict` writes it (lists, plain ints), checked as `input_from_dict`
    checks it, without the per-field helpers; None for any other form, which the full check then reads
    (and rejects with the field named, if it is wrong)."""
    try:  # the form `input_to_dict` writes holds every key: read by subscript, not by `get` calls
        points, games, server = data["points"], data["games"], data["server"]
        history, ends, expedite, player = (
            data["game_scores"],
            data["ends"],
            data["expedite"],
            data["server_player"],
        )
    except KeyError:
        points, games, server = data.get("points"), data.get("games"), data.get("server")
        history, ends = data.get("game_scores"), data.get("ends")
        expedite, player = data.get("expedite"), data.get("server_player")
    if type(points) is not list or type(games) is not list or len(points) != 2 or len(games) != 2:
        return None
    p0, p1 = points
    g0, g1 = games
    if not (type(p0) is int and type(p1) is int and type(g0) is int and type(g1) is int):
        return None
    if p0 < 0 or p1 < 0 or g0 < 0 or g1 < 0:
        return None
    if server is not None and (type(server) is not int or (server != 0 and server != 1)):
        return None
    if ends is not None and (type(ends) is not str or ends not in ENDS):
        return None
    if expedite is not None and expedite is not True and expedite is not False:
        return None
    if player is not None and (type(player) is not str or player not in DOUBLES_PLAYERS):
        return None
    scores: tuple[tuple[int, int], ...] = ()
    if history:
        if type(history) is not list:
            return None
        pairs = []
        for pair in history:
            if type(pair) is not list or len(pair) != 2:
                return None
            a, b = pair
            if type(a) is not int or type(b) is not int or a < 0 or b < 0:
                return None
            pairs.append((a, b))
        scores = tuple(pairs)
    return Display((p0, p1), (g0, g1), server, scores, ends, expedite, player)


def _score(data: dict[str, Any], key: str) -> tuple[int, int]:
    return _two_counts(data.get(key), key)


def _two_counts(value: Any, key: str) -> tuple[int, int]:
    if isinstance(value, list | tuple) and len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int and a >= 0 and b >= 0:
            return a, b
        if (
            isinstance(a, int)
            and not isinstance(a, bool)
            and a >= 0
            and isinstance(b, int)
            and not isinstance(b, bool)
            and b >= 0
        ):
            return a, b
    raise ValueError(f"{key} must be two non-negative integers, got {value!r}")


def _required_side(data: dict[str, Any]) -> int:
    side = data.get("side")
    if side not in (0, 1) or isinstance(side, bool):
        raise ValueError(f"side must be 0 or 1, got {side!r}")
    return int(side)


_BOOLS = (True, False)
_SIDES = (0, 1)
_SERVERS = (0, 1, *DOUBLES_PLAYERS)
# the exact types each of the module's value sets holds: a value is one of them only with one of these types
# (True is not side 1, nor 1.0; the inline reading, `_display_from_dict`, checks types the same way)
_TYPES_OF = {id(t): frozenset(type(a) for a in t) for t in (_BOOLS, _SIDES, _SERVERS, ENDS, DOUBLES_PLAYERS)}


def _optional(data: dict[str, Any], key: str, allowed: tuple[Any, ...]) -> Any:
    value = data.get(key)
    if value is None:
        return None
    types = _TYPES_OF.get(id(allowed))  # the module's own tuples: they live as long as it does
    if types is None:
        types = frozenset(type(a) for a in allowed)
    if type(value) not in types or value not in allowed:
        raise ValueError(f"{key} must be one of {', '.join(map(str, allowed))} or null, got {value!r}")
    return value


def _config_to_dict(c: TableTennisConfig) -> dict[str, Any]:
    return {
        "best_of": c.best_of,
        "doubles": c.doubles,
        "ruleset": c.ruleset,
        "first_server": c.first_server,
        "first_server_player": c.first_server_player,
        "first_receiver_player": c.first_receiver_player,
    }


def _anchor(value: Any) -> tuple[int, int, str, str] | None:
    return None if value is None else (int(value[0]), int(value[1]), str(value[2]), str(value[3]))


def to_dict(state: TableTennisState) -> dict[str, Any]:
    """The state as plain JSON data: the keys the hub and screens read (`view`), then what resuming needs."""
    return {**view(state), **_bookkeeping(state)}


def view(state: TableTennisState) -> dict[str, Any]:
    """What spectators' screens and the API get: the score, the game history, indicators, the rally log; not
    the bookkeeping the rules keep to resume (sent with every change to a match's page, it was a third of
    the view)."""
    pair = service(state)
    doubles = state.config.doubles
    return {
        **_tile(state, pair),
        "ruleset": state.config.ruleset,
        "server_player": pair[0] if pair and doubles else None,
        "receiver_player": pair[1] if pair and doubles else None,
        "ends": state.ends,
        "expedite_since": (
            None
            if state.expedite_since is None
            else {"game": state.expedite_since[0], "points": list(state.expedite_since[1])}
        ),
        "rallies": state.rallies,
        "points_log": _points_log_view(state.points_log),
    }


def _point_view(p: PointRecord) -> dict[str, Any]:
    return {
        "game": p.game,
        "points": list(p.points),
        "side": p.side,
        "server": p.server,
        "server_player": p.server_player,
        "at": p.at,
        **({"penalty": True} if p.penalty else {}),
    }


# The rally log as `view` shows it, per match: the log last shown and its points' dicts. A match's log grows
# a point at a time, and its page gets the whole view at every change (and a snapshot the whole state), so
# each point's dict is built once, not once per view: ~90 dicts per view late in a match. Keyed by the log's
# first point (kept alive by the entry, so its id stays its own); a hall's live matches fit, the oldest
# entry goes first. Only ever a shortcut: an entry is used where its log equals the start of the one shown.
_POINTS_LOGS_KEPT = 256
_points_logs: dict[int, tuple[tuple[PointRecord, ...], list[dict[str, Any]]]] = {}


def _points_log_view(log: tuple[PointRecord, ...]) -> list[dict[str, Any]]:
    """The rally log as a new list of dicts (shared with earlier views of the match: never changed)."""
    if not log:
        return []
    key = id(log[0])
    kept = _points_logs.pop(key, None)
    if kept is not None and len(kept[0]) <= len(log) and log[: len(kept[0])] == kept[0]:
        dicts = kept[1] + [_point_view(p) for p in log[len(kept[0]) :]]
    else:
        dicts = [_point_view(p) for p in log]
    _points_logs[key] = (log, dicts)
    if len(_points_logs) > _POINTS_LOGS_KEPT:
        del _points_logs[next(iter(_points_logs))]
    return dicts.copy()


def _bookkeeping(state: TableTennisState) -> dict[str, Any]:
    return {
        "config": _config_to_dict(state.config),
        "toss": None if state.toss is None else list(state.toss),
        "game_order": None if state.game_order is None else list(state.game_order),
        "final_scores": None if state.final_scores is None else [list(g) for g in state.final_scores],
        "swap_at": state.swap_at,
        "ends_anchor": list(state.ends_anchor),
        "expedite_anchor": None if state.expedite_anchor is None else list(state.expedite_anchor),
        "order_anchor": None if state.order_anchor is None else list(state.order_anchor),
        "timeout_at": state.timeout_at,
        "unshown": list(state.unshown),
        "carry": list(state.carry),
        "game_clock": state.game_clock,
        "paused": state.paused,
        "expedite_due_game": state.expedite_due_game,
        "expedite_dropped_game": state.expedite_dropped_game,
        "ends_flagged": state.ends_flagged,
        "last_display": None if state.last_display is None else input_to_dict(state.last_display),
    }


# what a venue wall tile shows (web-display/wall.js, console.js): the score, not its history
TILE_KEYS = (
    "best_of",
    "doubles",
    "points",
    "games",
    "game",
    "game_scores",
    "server",
    "receiver",
    "expedite",
    "timeouts",
    "timeout_active",
    "cards",
    "penalty_points",
    "winner",
)


def tile(state: TableTennisState) -> dict[str, Any]:
    """`to_dict` cut to `TILE_KEYS`, built without the rest (the rally log grows with every point, and the
    wall takes a tile of every match on every change)."""
    return _tile(state, service(state))


def _tile(state: TableTennisState, pair: tuple[str, str] | None) -> dict[str, Any]:
    return {
        "best_of": state.best_of,
        "doubles": state.config.doubles,
        "points": list(state.points),
        "games": list(state.games),
        "game": state.game_number,
        "game_scores": [list(g) for g in state.game_scores],
        "server": _side(pair[0]) if pair else None,
        "receiver": _side(pair[1]) if pair else None,
        "expedite": state.expedite,
        "timeouts": list(state.timeouts),
        "timeout_active": state.timeout_active,
        "cards": [list(c) for c in state.cards],
        "penalty_points": list(state.penalty_points),
        "winner": state.winner,
    }


def _last_display_from_dict(data: dict[str, Any]) -> Display:
    """The last display as `_bookkeeping` wrote it (`input_to_dict` of a Display)."""
    display = input_from_dict(data)
    if not isinstance(display, Display):
        raise ValueError(f"last_display must be a display, got {data!r}")
    return display


def from_dict(data: dict[str, Any]) -> TableTennisState:
    """The inverse of `to_dict` (older skeleton snapshots read with defaults)."""
    c = data.get("config") or {"best_of": data["best_of"]}
    config = TableTennisConfig(
        best_of=c["best_of"],
        doubles=c.get("doubles", False),
        ruleset=c.get("ruleset", "ittf"),
        first_server=c.get("first_server"),
        first_server_player=c.get("first_server_player"),
        first_receiver_player=c.get("first_receiver_player"),
    )
    since = data.get("expedite_since")
    last = data.get("last_display")
    toss = data.get("toss")
    order = data.get("game_order")
    final = data.get("final_scores")
    cards = data.get("cards", [[], []])
    return TableTennisState(
        config=config,
        toss=None if toss is None else (toss[0], toss[1]),
        game_order=None if order is None else (order[0], order[1]),
        points=_pair(data["points"]),
        games=_pair(data["games"]),
        game_scores=tuple(_pair(g) for g in data["game_scores"]),
        winner=data["winner"],
        final_scores=None if final is None else tuple(_pair(g) for g in final),
        rallies=data["rallies"],
        swap_at=data.get("swap_at"),
        ends_anchor=(
            int(data.get("ends_anchor", [0, "normal"])[0]),
            str(data.get("ends_anchor", [0, "normal"])[1]),
        ),
        expedite=data.get("expedite", False),
        expedite_since=None if since is None else (since["game"], _pair(since["points"])),
        expedite_anchor=_anchor(data.get("expedite_anchor")),
        order_anchor=_anchor(data.get("order_anchor")),
        timeouts=(bool(data.get("timeouts", [0, 0])[0]), bool(data.get("timeouts", [0, 0])[1])),
        timeout_active=data.get("timeout_active"),
        timeout_at=data.get("timeout_at"),
        cards=(tuple(cards[0]), tuple(cards[1])),
        penalty_points=_pair(data.get("penalty_points", [0, 0])),
        unshown=_pair(data.get("unshown", [0, 0])),
        carry=_pair(data.get("carry", [0, 0])),
        game_clock=data.get("game_clock"),
        paused=data.get("paused", 0.0),
        expedite_due_game=data.get("expedite_due_game"),
        expedite_dropped_game=data.get("expedite_dropped_game"),
        ends_flagged=data.get("ends_flagged"),
        last_display=None if last is None else _last_display_from_dict(last),
        points_log=tuple(
            PointRecord(
                p["game"],
                _pair(p["points"]),
                p["side"],
                p["server"],
                p["server_player"],
                p["at"],
                p.get("penalty", False),
            )
            for p in data.get("points_log", ())
        ),
    )
