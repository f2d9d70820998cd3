"""Table-tennis values: the match configuration, the inputs the rules read, the state they keep, and the
plain rules of a score (a game won, a match's result, the ends).

Sides are 0 and 1. Players are "A" and "B" in singles, "A1", "A2", "B1", "B2" in doubles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from devices.observations import ScoreboardState
from hub.rules.tabletennis.terms import DOUBLES_PLAYERS as DOUBLES_PLAYERS
from hub.rules.tabletennis.terms import RULESETS as RULESETS
from hub.rules.tabletennis.terms import odd_games

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
        if not odd_games(self.best_of):
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
    """The umpire takes back the last point of the game in play (given to `side`, when named)."""

    side: int | None = None


@dataclass(frozen=True, slots=True)
class Correction:
    """A referee sets the score reached and, if given, the correct server and ends there (2.14)."""

    points: tuple[int, int]
    games: tuple[int, int]
    reason: str = ""
    server: int | str | None = None  # a side, or a player in doubles
    ends: str | None = None


@dataclass(frozen=True, slots=True)
class Toss:
    """The toss's outcome (2.13.1, 2.13.2): who serves first ("A" or "B"; in doubles a player, "A1".."B2") and,
    in doubles, who receives first (a player of the other pair)."""

    server: str
    receiver: str | None = None


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing with no report; lets `tt.expedite_due` fire on time."""


@dataclass(frozen=True, slots=True)
class OtherEvent:
    """A device event the rules do not use (kept in the log, changes nothing)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


Input = (
    Display
    | TimeOut
    | Card
    | ExpediteStart
    | UmpirePoint
    | UmpireUndo
    | Correction
    | Toss
    | Tick
    | OtherEvent
)


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
        from hub.rules.tabletennis.service import service  # service needs the state: imported when asked

        pair = service(self)
        return None if pair is None else _side(pair[0])

    @property
    def receiver(self) -> int | None:
        """The side that receives the next rally, computed."""
        from hub.rules.tabletennis.service import service  # service needs the state: imported when asked

        pair = service(self)
        return None if pair is None else _side(pair[1])

    @property
    def ends(self) -> str:
        """Which way round the sides stand now: "normal" is side 0 on the left."""
        changes, ends = self.ends_anchor
        return ends if (ends_changes(self) - changes) % 2 == 0 else _other_ends(ends)


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


# -- the rules of a score ----------------------------------------------------------------------------------


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


def _other_ends(ends: str) -> str:
    return "swapped" if ends == "normal" else "normal"


def is_last_game(state: TableTennisState) -> bool:
    return state.game_number == state.best_of


def swap_point(ruleset: str) -> int:
    """2.13.7: ends change in the last possible game when a side first reaches 5 (10 in a 21-point game)."""
    return 10 if ruleset == "legacy21" else 5


def ends_changes(state: TableTennisState) -> int:
    """Changes of ends so far in the match: one after each game, one at 5 in the last possible game."""
    return state.game_number - 1 + (1 if is_last_game(state) and state.swap_at is not None else 0)


def one_game_more(old: tuple[int, int], new: tuple[int, int]) -> bool:
    return (new[0] - old[0], new[1] - old[1]) in ((1, 0), (0, 1))


def match_result(state: TableTennisState) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
    """Games won and every finished game's score, counting a game the board shows won but not yet rolled."""
    scores = state.final_scores
    if scores is None and state.winner is not None:  # decided, its games counted, their history not all known
        return state.games, state.game_scores
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
