"""What a simulated table-tennis match is told to do: its count, the incidents to call, the faults to make.

`MatchOptions` gathers them: singles or doubles, the ITTF or legacy 21-point count, when the umpire
introduces expedite, the time-outs and cards to call, and the display errors (`Fault`) to inject.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass

EXPEDITE_MAX_POINTS = 18  # 2.15.2: not introduced in a game in which 18 points have been scored


class Ruleset(enum.StrEnum):
    """How points are counted."""

    ITTF = "ittf"  # games to 11, 2 serves each, since 2001
    LEGACY21 = "legacy21"  # games to 21, 5 serves each; some old boards still count this way


@dataclass(frozen=True, slots=True)
class Count:
    """The numbers a ruleset plays to."""

    game_points: int  # a game is won at this score with 2 clear
    serves: int  # serves in a row before the service changes (until deuce)
    change_ends_at: int  # the score at which ends change in the last possible game


COUNTS = {Ruleset.ITTF: Count(11, 2, 5), Ruleset.LEGACY21: Count(21, 5, 10)}


class EventKind(enum.StrEnum):
    """The EVENT kinds a table-tennis scoreboard (or a wristband) sends."""

    TIMEOUT = "timeout"  # {"side": s}
    CARD = "card"  # {"side": s, "card": "yellow" | "yellow_red" | "red", "player": "A1"?}
    EXPEDITE = "expedite"  # {"ball_in_play": bool | None}
    POINT = "point"  # {"side": s}: an umpire input awarding one rally
    UNDO = "undo"  # {"side": s}: the umpire takes back the last point given to that side


class Card(enum.StrEnum):
    """Misbehaviour cards (ITTF 3.5.2)."""

    YELLOW = "yellow"  # a warning
    YELLOW_RED = "yellow_red"  # a penalty: 1 point to the opponent the first time, 2 after that
    RED = "red"  # a serious offence, reported to the referee; no point here


class Fault(enum.StrEnum):
    """A display error the simulator can make on purpose; the value is the hub's anomaly code after "tt."."""

    SCORE_JUMP = "score_jump"  # a rally is played but not shown: the next display is 2 points on
    SCORE_DECREASE = "score_decrease"  # the display before the last rally is shown again, once
    ILLEGAL_GAME_END = "illegal_game_end"  # the game is closed with a 1-point lead (11-10)
    WRONG_SERVER = "wrong_server"  # one display shows the receiving side as serving
    ENDS_NOT_CHANGED = "ends_not_changed"  # the first display after a change of ends shows the old ends
    SECOND_TIMEOUT = "second_timeout"  # a side that used its time-out calls another
    PENALTY_WITHOUT_WARNING = "penalty_without_warning"  # a yellow_red card to a side never warned
    EXPEDITE_DROPPED = "expedite_dropped"  # the first display of a later game has the expedite lamp off
    MATCH_OVERRUN = "match_overrun"  # a rally is shown after the match was decided

    @property
    def anomaly(self) -> str:
        """The hub anomaly code that must flag this fault."""
        return f"tt.{self.value}"


@dataclass(frozen=True, slots=True)
class ExpeditePlan:
    """When the umpire introduces the expedite system (ITTF 2.15.1): the first moment all conditions hold."""

    game: int | None = None  # 1-based game; None: the first game in which the other conditions hold
    at_points: int = 0  # points scored in that game (a long game: the rally count reached)
    play_s: float | None = None  # or: after this much simulated play in the game (10 minutes = 600)
    ball_in_play: bool = False  # True: a rally is interrupted and replayed by the same server (2.15.3)

    def __post_init__(self) -> None:
        if not 0 <= self.at_points < EXPEDITE_MAX_POINTS:
            raise ValueError(f"expedite at_points must be 0..17 (2.15.2), got {self.at_points}")


@dataclass(frozen=True, slots=True)
class TimeOutPlan:
    """A time-out called by a side before the rally with this match-wide number (counted from 0)."""

    side: int
    at_rally: int


@dataclass(frozen=True, slots=True)
class CardPlan:
    """A card shown to a side (or one doubles player) before the rally with this match-wide number."""

    side: int
    at_rally: int
    card: Card = Card.YELLOW
    player: str | None = None


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """How a simulated match is played beyond best-of and the toss.

    faults: a collection of `Fault` (each injected once, at a seeded moment) or a mapping of `Fault` to a
    probability tried at every moment where that fault can happen.
    """

    doubles: bool = False
    ruleset: Ruleset = Ruleset.ITTF
    first_server_player: str | None = None  # doubles, game 1; default "A1" or "B1" by first_server
    first_receiver_player: str | None = None  # doubles, game 1; default "B1" or "A1"
    vary_doubles_first_server: bool = False  # later games: the serving pair picks at random (2.13.4)
    expedite: ExpeditePlan | None = None
    timeouts: tuple[TimeOutPlan, ...] = ()
    cards: tuple[CardPlan, ...] = ()
    faults: Collection[Fault] | Mapping[Fault, float] = frozenset()

    @classmethod
    def showcase(cls, *, doubles: bool = False, faults: Collection[Fault] = frozenset()) -> MatchOptions:
        """A full match for demos: a time-out, a yellow card and expedite from game 3 after 6 points."""
        return cls(
            doubles=doubles,
            expedite=ExpeditePlan(game=3, at_points=6),
            timeouts=(TimeOutPlan(side=1, at_rally=14),),
            cards=(CardPlan(side=0, at_rally=20, player="A2" if doubles else None),),
            faults=faults,
        )


PLAIN_MATCH = MatchOptions()  # singles, ITTF count, no incidents, no faults
