"""The referee's workflow as pure checks: what a referee may do to a match now, and the event that records it.

Every action (confirm, acknowledge/resolve/dismiss an anomaly, correct a result, record a penalty, declare a
forfeit, open an appeal, decide it, record a result the board cannot see) is checked here against the
match's state, the referee's role and the time, and becomes one event body for the log;
`hub.matches.apply_event` folds it. A refusal raises with a message in English and Turkish and nothing is
logged. No I/O and no clock: time is an argument.

Rules (The tournament rules §8-§10, the club championship regulations 6.2; docs/REFEREE.md):
a result is corrected by a new event that supersedes it, never by rewriting; a forfeit writes the sport's
forfeit score (`SportRules.forfeit_score`); an appeal is accepted within 15 minutes of the end and leaves the
match `protested` until the decision, which the chief referee makes and which is recorded with its reasoning;
once a match of the next round has started, the previous round's results are locked: nothing changes them but
an appeal lodged within its 15 minutes (the lock does not shorten them) and that appeal's decision.

`model` holds the vocabulary (roles, actions, penalties, decisions, `RefereeEvent`, the refusals); `request`
reads a console request and `prepare`s its event; `actions` the checks, one function per action, and the round
lock; `inputs` the referee inputs the sport's rules read; `offers` what may be done to a match now (asked
of the same checks); `console` what the console reads (each anomaly with its rule from `hub.articles`).
Everything the hub imports is here.
"""

from __future__ import annotations

from hub.referee.actions import (
    UNDECIDED,
    appeal,
    appeal_deadline,
    check_inputs_open,
    check_unlocked,
    confirm,
    correct,
    decide,
    forfeit,
    game_result,
    handle_anomalies,
    handle_anomaly,
    lock_event,
    penalty,
)
from hub.referee.console import audit, console_view
from hub.referee.inputs import check_input, input_fields, prepare_input
from hub.referee.model import (
    APPEAL_WINDOW_S,
    CARDS,
    CHIEF_ONLY,
    MAX_INPUT_NUMBER,
    MAX_TEXT,
    SYSTEM_ACTOR,
    Action,
    ActionForbidden,
    ActionInvalid,
    Decision,
    Penalty,
    RefereeEvent,
    Role,
)
from hub.referee.offers import CONSOLE_INPUTS, anomaly_offers, offered, offered_penalties
from hub.referee.request import (
    ACTION_FIELDS,
    BULK_FIELDS,
    action_fields,
    prepare,
    prepare_bulk,
    unknown_fields,
)

__all__ = [
    "ACTION_FIELDS",
    "APPEAL_WINDOW_S",
    "BULK_FIELDS",
    "CARDS",
    "CHIEF_ONLY",
    "CONSOLE_INPUTS",
    "MAX_INPUT_NUMBER",
    "MAX_TEXT",
    "SYSTEM_ACTOR",
    "UNDECIDED",
    "Action",
    "ActionForbidden",
    "ActionInvalid",
    "Decision",
    "Penalty",
    "RefereeEvent",
    "Role",
    "action_fields",
    "anomaly_offers",
    "appeal",
    "appeal_deadline",
    "audit",
    "check_input",
    "check_inputs_open",
    "check_unlocked",
    "confirm",
    "console_view",
    "correct",
    "decide",
    "forfeit",
    "game_result",
    "handle_anomalies",
    "handle_anomaly",
    "input_fields",
    "lock_event",
    "offered",
    "offered_penalties",
    "penalty",
    "prepare",
    "prepare_bulk",
    "prepare_input",
    "unknown_fields",
]
