"""The referee's vocabulary: roles, actions, penalties, decisions, the checked event and the refusals."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from hub.matches import EventKind, MatchStatus

# the tournament rules §10; paired rounds: 15 minutes after the round (the club championship regulations 6.2)
APPEAL_WINDOW_S = 15 * 60
SYSTEM_ACTOR = "boardcast"  # who locks a round: the hub itself, when it sees the next round start
MAX_TEXT = 1000
MAX_INPUT_NUMBER = 9999  # a referee input's counts (points, games, plies): far past any real match
HAS_RESULT = (MatchStatus.FINISHED, MatchStatus.OFFICIAL, MatchStatus.FORFEIT)


class Role(enum.StrEnum):
    """What a referee may do: the chief referee also decides appeals."""

    REFEREE = "referee"
    CHIEF = "chief"


class Action(enum.StrEnum):
    """The referee actions the console and `POST /api/matches/{id}/actions` offer."""

    CONFIRM = "confirm"
    ACKNOWLEDGE = "acknowledge"
    RESOLVE = "resolve"
    DISMISS = "dismiss"
    CORRECT = "correct"
    PENALTY = "penalty"
    FORFEIT = "forfeit"
    APPEAL = "appeal"
    DECIDE = "decide"
    RESULT = "result"  # a result the board cannot see: resignation, agreement, forfeit, arbiter


class Penalty(enum.StrEnum):
    """Penalties a referee records (the tournament rules §9; cards, ITTF 3.5.2)."""

    WARNING = "warning"
    GAME_LOSS = "game_loss"
    MATCH_LOSS = "match_loss"
    YELLOW = "yellow"
    YELLOW_RED = "yellow_red"
    RED = "red"


class Decision(enum.StrEnum):
    """The decision on an appeal."""

    UPHELD = "upheld"
    REJECTED = "rejected"


CHIEF_ONLY = frozenset(
    {Action.DECIDE}
)  # the appeal goes to the chief referee (the club championship regulations 6.2)
CARDS = frozenset({Penalty.YELLOW, Penalty.YELLOW_RED, Penalty.RED})


class ActionInvalid(ValueError):
    """A request that is not a well-formed referee action (HTTP 400); the message names the field."""


class ActionForbidden(PermissionError):
    """The referee's role does not allow the action (HTTP 403)."""


@dataclass(frozen=True, slots=True)
class RefereeEvent:
    """A checked action: the event kind and body to log, with the referee as its actor."""

    kind: EventKind
    body: dict[str, Any]
