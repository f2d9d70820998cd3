"""What the match reducer reads and keeps: its phases, the events it folds, and the match state itself."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from hub.rules import clock as clk
from hub.rules.backgammon.model import START, Move, Position
from hub.rules.base import Anomaly, Severity


class Phase(enum.StrEnum):
    """Where a game stands."""

    OPENING = "opening"  # waiting for the opening roll of a game
    AWAIT_ROLL = "await_roll"  # `turn` may double or roll
    MOVING = "moving"  # `turn` has rolled and is moving
    DOUBLED = "doubled"  # `turn` offered a double; the opponent takes or drops
    MATCH_OVER = "match_over"


@dataclass(frozen=True, slots=True)
class Opening:
    """Opening roll: one die each."""

    dice: tuple[int, int]  # (A's die, B's die)


@dataclass(frozen=True, slots=True)
class Roll:
    """A side rolled two dice."""

    side: int
    dice: tuple[int, int]
    source: str = ""


@dataclass(frozen=True, slots=True)
class InvalidDice:
    """The side's dice were invalid (cocked, off the board): rerolled."""

    side: int


@dataclass(frozen=True, slots=True)
class BoardSnapshot:
    """What the board shows now; A positive from A's view, like `Position`."""

    points: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ClockPress:
    """The side pressed its clock: its turn is complete."""

    side: int


class CubeAction(enum.StrEnum):
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"


@dataclass(frozen=True, slots=True)
class Cube:
    """A cube action by a side."""

    action: CubeAction
    side: int


@dataclass(frozen=True, slots=True)
class Resign:
    """A side offers to resign the game: `value` 1 a single game, 2 a gammon, 3 a backgammon (times the cube)."""

    side: int
    value: int


class ResignAnswer(enum.StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"


@dataclass(frozen=True, slots=True)
class ResignReply:
    """The opponent accepts or rejects the resignation offered."""

    answer: ResignAnswer
    side: int


@dataclass(frozen=True, slots=True)
class HandGame:
    """A game scored by hand (an umpire's scoring page, a score sheet): who won it, how (`value` 1 a single game, 2 a
    gammon, 3 a backgammon), the cube's value, and whether a resignation ended it."""

    winner: int
    value: int
    cube: int = 1
    resigned: bool = False


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed with no input: only the clock's flag is checked."""


Event = (
    Opening | Roll | InvalidDice | BoardSnapshot | ClockPress | Cube | Resign | ResignReply | HandGame | Tick
)


@dataclass(frozen=True, slots=True)
class Action:
    """One entry of a game's record, for exports."""

    side: int
    kind: str  # "move", "double", "take", "drop", "resign", "accept", "reject"
    dice: tuple[int, int] | None = None
    moves: tuple[Move, ...] = ()
    legal: bool = True
    value: int = 0  # a resignation's value (1 single, 2 gammon, 3 backgammon)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: the score before it, what was played, who won how much."""

    number: int
    score_before: tuple[int, int]
    actions: tuple[Action, ...]
    winner: int | None
    points: int
    crawford: bool = False
    resigned: int = 0  # the value of the resignation that ended it, 0 when it was played out or dropped


@dataclass(frozen=True, slots=True)
class PlayedTurn:
    """The last completed turn, kept until the opponent rolls or doubles so it can still be corrected."""

    side: int
    start: Position
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class BackgammonState:
    """A backgammon match as the rules see it."""

    length: int
    score: tuple[int, int] = (0, 0)
    phase: Phase = Phase.OPENING
    game: int = 0
    position: Position = START
    turn: int = 0
    dice: tuple[int, int] | None = None
    turn_start: Position | None = None
    cube_value: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    crawford_done: bool = False
    illegal_pending: bool = False
    last_turn: PlayedTurn | None = None
    opening_tie: int | None = None
    winner: int | None = None
    clock: clk.ClockState | None = None
    actions: tuple[Action, ...] = ()
    games: tuple[GameRecord, ...] = field(default=())
    shown_dice: tuple[int, int] | None = None  # the dice a digital board last showed (device input only)
    resign_offer: tuple[int, int] | None = None  # (side, value) of a resignation not yet answered
    # the turn in play began before the hub joined the board (`join`): its checkers are not judged on the way
    joined_turn: bool = False
    awaiting_board: bool = False  # the hub joined the board and has not yet seen its position (`join`)

    @property
    def post_crawford(self) -> bool:
        """Not the Crawford game, and someone is one point from winning (gnubg's definition)."""
        return self.crawford_done and not self.crawford and self.length - 1 in self.score


def initial(
    length: int, clock: clk.TimeControl | None = None, score: tuple[int, int] = (0, 0)
) -> BackgammonState:
    """A match to `length` points that has not started, or resumes at `score` (each below the length)."""
    if length < 1:
        raise ValueError(f"match length must be at least 1, got {length}")
    if len(score) != 2 or any(not 0 <= s < length for s in score):
        raise ValueError(f"a starting score must be two scores from 0 to {length - 1}, got {list(score)}")
    return BackgammonState(
        length=length, score=(score[0], score[1]), clock=clk.start(clock) if clock else None
    )


def anomaly(code: str, severity: Severity, en: str, tr: str, **data: Any) -> Anomaly:
    """An anomaly with its English and Turkish texts and its data as keywords."""
    return Anomaly(code, severity, en, tr, data)
