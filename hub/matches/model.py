"""A match's values: its venue facts (`MatchInfo`), its state (`MatchState`), the records a match keeps, and
the enums the log and the views speak in. Nothing here folds events (that is `hub.matches.reducer`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.registry import SPORTS, SportRules

MAX_KEPT_ANOMALIES = 200  # items (a problem repeated is one item with a count), newest kept
MAX_KEPT_OCCURRENCES = 100  # per item, newest kept: every occurrence stays in the log, with its offset
MAX_KEPT_FACTS = 30


class MatchStatus(enum.StrEnum):
    """Where a match stands; only a referee makes it official."""

    SCHEDULED = "scheduled"
    LIVE = "live"
    FINISHED = "finished"
    OFFICIAL = "official"
    PROTESTED = "protested"
    FORFEIT = "forfeit"
    ABANDONED = "abandoned"


# a status -> how a message says it ("Match R1-T1 is under appeal" / "Maç itirazda")
STATUS_NAMES = {
    MatchStatus.SCHEDULED: ("scheduled (not started)", "henüz başlamadı"),
    MatchStatus.LIVE: ("live (still being played)", "sürüyor"),
    MatchStatus.FINISHED: ("finished (not yet confirmed)", "bitti (henüz onaylanmadı)"),
    MatchStatus.OFFICIAL: ("official", "resmî"),
    MatchStatus.PROTESTED: ("under appeal", "itirazda"),
    MatchStatus.FORFEIT: ("decided by forfeit", "hükmen sonuçlandı"),
    MatchStatus.ABANDONED: ("abandoned", "yarıda kaldı"),
}


class EventKind(enum.StrEnum):
    """Kinds of match events in the log."""

    DEVICE_REPORT = "device.report"
    ANOMALY = "anomaly"
    REFEREE_CONFIRM = "referee.confirm"
    REFEREE_INPUT = "referee.input"  # a time-out, card, expedite or score correction the referee records
    TICK = "clock.tick"  # time passed with no report (logged only when the rules saw something in it)
    # the referee's workflow (hub/referee/ checks each before it is logged): every one names its referee
    REFEREE_ANOMALY = "referee.anomaly"  # an anomaly acknowledged, resolved or dismissed, with a reason
    REFEREE_RESULT = "referee.result"  # a corrected result: supersedes what the devices showed, with a reason
    REFEREE_PENALTY = "referee.penalty"  # a warning, game or match loss, or a card
    REFEREE_FORFEIT = "referee.forfeit"  # the no-show (or the player who will not go on) loses
    REFEREE_APPEAL = "referee.appeal"  # an appeal opened within the window: the match is protested
    REFEREE_DECISION = "referee.decision"  # the decision on the open appeal, with its reasoning
    LOCK = "match.lock"  # a match of the next round started: this result can no longer change
    SIGNOFF = "player.signoff"  # a player confirms the final score, or disputes it, at the table
    REFEREE_SCORED_BY = (
        "referee.scored_by"  # the table scored from its umpire's page, or from its device again
    )


class AnomalyState(enum.StrEnum):
    """Where a referee (or the rules themselves) took an anomaly."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


WAITING = (AnomalyState.OPEN, AnomalyState.ACKNOWLEDGED)


class ScoredBy(enum.StrEnum):
    """What a table's score is taken from: its device (the venue's), or its umpire's browser device."""

    DEVICE = "device"
    UMPIRE = "umpire"  # an item still waiting for a referee


RULES_ACTOR = (
    "rules"  # who resolved an anomaly that the rules cleared themselves (a wrong move corrected in time)
)


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What the venue file says about a match: fixed for its whole life."""

    id: str
    sport: str
    table: str
    round: int = 1
    players: tuple[str, ...] = ("", "")  # two names, or four for doubles: A1, A2, B1, B2
    best_of: int = 5
    doubles: bool = False
    first_server: str | None = None  # "A"/"B", or in doubles "A1".."B2"; None: from the first report
    first_receiver: str | None = None  # doubles only
    ruleset: str = "ittf"
    length: int = 0  # a match played to this many points
    # the time control in the sport's notation ("simple:600:12", "5400+30"), read by the sport's rules
    clock: str | None = None
    clock_white: str | None = None  # "left" or "right", the clock side White's time is on; None: learn it
    board: int | None = None  # the board number within a team match (1..8)
    team_match: str | None = None  # the team match this game belongs to
    orientation: str = "auto"  # the table's board "normal" | "rotated", or "auto": detected
    # a game whose board and stopped clock are unchanged this long waits for a result (None: 180 s)
    awaiting_result_s: float | None = None
    start_score: tuple[int, int] = (0, 0)  # a match resumed at a score
    pairing: tuple[int, int] | None = None  # White's and Black's starting ranks in the tournament file
    ratings: tuple[int, int] | None = None  # White's and Black's ratings (0: unrated)
    titles: tuple[str, str] | None = None  # White's and Black's FIDE titles ("GM"; "": none)
    fide_ids: tuple[int, int] | None = None  # White's and Black's FIDE ids (0: none)

    @property
    def rules(self) -> SportRules[Any, Any]:
        """The sport's rules."""
        return SPORTS[self.sport]


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One time a problem was seen: the event that shows it, when, and what the rules said of it."""

    offset: int
    at: float
    message_en: str
    message_tr: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AnomalyRecord:
    """A problem on a match (one code, and one side or kind where the code names one), pinned to the event that
    first showed it, with every later occurrence while it waits, and where the referee took it.

    While it is open or acknowledged, the same problem seen again is one more occurrence of this item (a
    count, not a new item); once resolved or dismissed, the next occurrence opens a new item."""

    code: str
    severity: Severity
    message_en: str
    message_tr: str
    offset: int
    at: float
    data: dict[str, Any] = field(default_factory=dict)
    index: int = 0  # its place among the anomalies the same event raised
    state: AnomalyState = AnomalyState.OPEN
    handled_by: str | None = None  # the referee, or RULES_ACTOR
    handled_at: float | None = None
    reason: str = ""
    count: int = 1  # occurrences, the first included
    last_offset: int | None = None  # the latest occurrence's event (None only in a snapshot of before counts)
    last_at: float | None = None
    occurrences: tuple[Occurrence, ...] = ()  # the later ones, the newest MAX_KEPT_OCCURRENCES

    @property
    def id(self) -> str:
        """Stable for the match's whole life: the first event's offset and the anomaly's place in it."""
        return f"{self.offset}.{self.index}"

    @property
    def key(self) -> tuple[str, Any, Any]:
        """What makes two anomalies the same problem: the code, and the side (or the kind of bad data) where
        the code names one."""
        return self.code, self.data.get("side"), self.data.get("kind")


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """A result a referee wrote (correction, forfeit, penalty, appeal decision); it supersedes the live one."""

    winner: int | None  # side 0 or 1; None for a draw
    # per side, in the sport's own unit (games, points, game points); int | float keeps a 2 a 2 through msgspec
    score: tuple[int | float, int | float]
    source: str  # "correction", "forfeit", "penalty" or "appeal"
    reason: str
    by: str | None
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class PenaltyRecord:
    """A warning, penalty or card a referee recorded against one side."""

    side: int
    penalty: str
    reason: str
    by: str | None
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class AppealRecord:
    """An appeal and, once made, the decision on it with its reasoning."""

    appellant: str
    reason: str
    by: str | None  # the referee who recorded it
    offset: int
    at: float
    status_before: MatchStatus
    decision: str | None = None  # "upheld" or "rejected"
    reasoning: str = ""
    decided_by: str | None = None
    decided_at: float | None = None


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One referee (or hub) action on the match, as the audit view shows it."""

    offset: int
    at: float
    actor: str | None
    kind: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SignoffRecord:
    """A player's sign-off at the table: the final score they confirmed (or disputed), tapped on the browser
    device `by`'s token opened. It stands for that score only: once the score changes it signs nothing."""

    side: int
    agree: bool
    score: tuple[float, float]
    at: float
    by: str | None = None


@dataclass(frozen=True, slots=True)
class RefereeRecord:
    """What referees (and the hub's round lock, and the players' sign-off) added to a match. One value, so that the device reports that
    make up most of a match carry it on by reference instead of copying five fields each time."""

    result: ResultRecord | None = None
    locked_at: float | None = None
    appeals: tuple[AppealRecord, ...] = ()
    penalties: tuple[PenaltyRecord, ...] = ()
    actions: tuple[ActionRecord, ...] = ()
    signoffs: tuple[SignoffRecord, ...] = ()  # the players' own word on the final score, at the table


NO_REFEREE_RECORD = RefereeRecord()


@dataclass(frozen=True, slots=True)
class FactRecord:
    """A derived fact, pinned to the event it came from."""

    kind: str
    data: dict[str, Any]
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything the hub knows about one match at one offset."""

    info: MatchInfo
    sport_state: Any
    status: MatchStatus = MatchStatus.SCHEDULED
    version: int = 0  # the offset of the last event folded in
    updated_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    confirmed_by: str | None = None
    confirmed_at: float | None = None
    anomalies: tuple[AnomalyRecord, ...] = ()
    facts: tuple[FactRecord, ...] = ()
    referee: RefereeRecord = NO_REFEREE_RECORD  # result, lock, appeals, penalties and the audit

    @property
    def result(self) -> ResultRecord | None:
        """A result a referee wrote; it supersedes the live one."""
        return self.referee.result

    @property
    def locked_at(self) -> float | None:
        """When the next round started: from then on the result cannot change."""
        return self.referee.locked_at

    @property
    def appeals(self) -> tuple[AppealRecord, ...]:
        """Every appeal, with its decision once made."""
        return self.referee.appeals

    @property
    def penalties(self) -> tuple[PenaltyRecord, ...]:
        """Every warning, penalty and card recorded."""
        return self.referee.penalties

    @property
    def actions(self) -> tuple[ActionRecord, ...]:
        """Every referee and hub action, for the audit view."""
        return self.referee.actions

    @property
    def official(self) -> bool:
        """True only once a referee has confirmed the result (or declared it, as a forfeit)."""
        return self.status is MatchStatus.OFFICIAL or self.status is MatchStatus.FORFEIT

    @property
    def winner(self) -> int | None:
        """The side that has won: the referee's result if there is one, else what the live data says."""
        if self.result is not None:
            return self.result.winner
        return self.info.rules.winner(self.sport_state)

    @property
    def locked(self) -> bool:
        """True once a match of the next round has started: the result can no longer change."""
        return self.locked_at is not None

    @property
    def open_appeal(self) -> AppealRecord | None:
        """The appeal waiting for its decision, if any."""
        return self.appeals[-1] if self.appeals and self.appeals[-1].decision is None else None


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The new match state and what folding the event raised."""

    state: MatchState
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()


class ActionRefused(ValueError):
    """A referee action that the match's state does not allow; the message says why, in both languages."""


def new_match(info: MatchInfo) -> MatchState:
    """A scheduled match with the sport's initial state."""
    return MatchState(info=info, sport_state=info.rules.initial(info.rules.config(info)))


def check_confirm(match: MatchState) -> None:
    """Raise ActionRefused unless a referee may confirm this match now."""
    if match.status is MatchStatus.OFFICIAL:
        raise ActionRefused(f"Match {match.info.id} is already official. / Maç zaten resmî.")
    if match.status is not MatchStatus.FINISHED:
        raise ActionRefused(
            f"Match {match.info.id} is {STATUS_NAMES[match.status][0]}; only a finished match can be confirmed. "
            f"/ Maç {STATUS_NAMES[match.status][1]}; yalnızca bitmiş bir maç onaylanabilir."
        )
