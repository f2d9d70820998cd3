"""A match as a pure fold over its events: status, provenance, the sport's state, and its anomalies.

`model` holds the values (`MatchInfo`, `MatchState`, the records and enums); `reducer` the one reducer,
`apply_event`, a table of handlers by event kind (`actions` the referee actions', `effects` what they all
share), and replay's `fold_events`; `codec` the
snapshots and plain data; `views` what screens see. Everything the hub imports is here.
"""

from __future__ import annotations

from hub.matches.actions import scored_by_of
from hub.matches.codec import (
    action_to_dict,
    anomaly_to_dict,
    appeal_to_dict,
    from_snapshot,
    penalty_to_dict,
    result_to_dict,
    to_snapshot,
)
from hub.matches.model import (
    MAX_KEPT_ANOMALIES,
    MAX_KEPT_FACTS,
    MAX_KEPT_OCCURRENCES,
    NO_REFEREE_RECORD,
    RULES_ACTOR,
    WAITING,
    ActionRecord,
    ActionRefused,
    AnomalyRecord,
    AnomalyState,
    AppealRecord,
    EventKind,
    FactRecord,
    MatchInfo,
    MatchOutcome,
    MatchState,
    MatchStatus,
    Occurrence,
    PenaltyRecord,
    RefereeRecord,
    ResultRecord,
    ScoredBy,
    check_confirm,
    new_match,
)
from hub.matches.reducer import apply_event, fold_events
from hub.matches.views import public_view, referee_view, summary

__all__ = [
    "MAX_KEPT_ANOMALIES",
    "MAX_KEPT_FACTS",
    "MAX_KEPT_OCCURRENCES",
    "NO_REFEREE_RECORD",
    "RULES_ACTOR",
    "WAITING",
    "ActionRecord",
    "ActionRefused",
    "AnomalyRecord",
    "AnomalyState",
    "AppealRecord",
    "EventKind",
    "FactRecord",
    "MatchInfo",
    "MatchOutcome",
    "MatchState",
    "MatchStatus",
    "Occurrence",
    "PenaltyRecord",
    "RefereeRecord",
    "ResultRecord",
    "ScoredBy",
    "action_to_dict",
    "anomaly_to_dict",
    "appeal_to_dict",
    "apply_event",
    "check_confirm",
    "fold_events",
    "from_snapshot",
    "new_match",
    "penalty_to_dict",
    "public_view",
    "referee_view",
    "result_to_dict",
    "scored_by_of",
    "summary",
    "to_snapshot",
]
