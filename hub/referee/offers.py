"""What a referee may do to a match now, asked of the very checks that refuse an action.

The console shows these offers and nothing else, so it never offers what the hub would refuse: each offer is
the "may this be done now?" part of an action's check (`hub.referee.actions`), run without a request. Only
the fields a request brings (a score, a reason) are left for `prepare` to judge. No clock: time is an
argument; an offer that closes with time (the appeal) comes with its deadline in the console view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.matches import ActionRefused, AnomalyRecord, MatchState, check_confirm
from hub.referee.actions import (
    ANOMALY_ACTIONS,
    check_anomaly_state,
    check_appeal_now,
    check_correct_now,
    check_decide_now,
    check_forfeit_now,
    check_inputs_open,
    check_penalty_now,
    check_role,
    check_takes_results,
)
from hub.referee.model import Action, ActionForbidden, ActionInvalid, Penalty, Role

# the referee inputs the console offers beside the actions (`SportRules.referee_inputs`): a board's
# orientation; a resignation and its answer (an answer with no offer is taken and flagged by the rules)
CONSOLE_INPUTS = ("orientation", "resign", "accept", "reject")


def offered(match: MatchState, role: str, at: float) -> list[str]:
    """The actions, then the console's referee inputs, that a referee of `role` may take on the match at `at`:
    each one `prepare` (or the inputs route) accepts with well-formed fields, and no other."""
    offers = [
        action.value
        for action, check in _NOW_CHECKS.items()
        if _passes(check_role, action, role) and _passes(check, match, at)
    ]
    offers += [
        kind
        for kind in CONSOLE_INPUTS
        if kind in match.info.rules.referee_inputs and _passes(check_inputs_open, match)
    ]
    return offers


def chief_only(offers: list[str]) -> list[str]:
    """Those of the offers a referee who is not the chief may not take (deciding an appeal)."""
    actions = {a.value for a in Action}
    return [o for o in offers if o in actions and not _passes(check_role, Action(o), Role.REFEREE)]


def offered_penalties(match: MatchState) -> list[str]:
    """The penalties that may be recorded on the match now (a warning always; a result-changing one not once
    the result is locked)."""
    return [kind.value for kind in Penalty if _passes(check_penalty_now, match, kind)]


def anomaly_offers(anomaly: AnomalyRecord) -> list[str]:
    """What may be done to one anomaly now: acknowledge while open, resolve or dismiss while waiting."""
    return [action.value for action in ANOMALY_ACTIONS if _passes(check_anomaly_state, anomaly, action)]


def _some_penalty(match: MatchState, at: float) -> None:
    """A penalty is offered while some kind of it may be recorded (a warning always may)."""
    if not offered_penalties(match):
        raise ActionRefused(
            f"No penalty may be recorded on match {match.info.id} now. / Bu maça şimdi ceza verilemez."
        )


def _result_now(match: MatchState, at: float) -> None:
    """A result the board cannot see: a sport that takes one, on a match still taking inputs."""
    check_takes_results(match)
    check_inputs_open(match)


# the match actions in the console's order (the first offered is the dialog's default); anomalies have theirs
_NOW_CHECKS: dict[Action, Callable[[MatchState, float], None]] = {
    Action.CONFIRM: lambda match, at: check_confirm(match),
    Action.RESULT: _result_now,
    Action.CORRECT: lambda match, at: check_correct_now(match),
    Action.PENALTY: _some_penalty,
    Action.FORFEIT: lambda match, at: check_forfeit_now(match),
    Action.APPEAL: check_appeal_now,
    Action.DECIDE: lambda match, at: check_decide_now(match),
}


def _passes(check: Callable[..., object], *args: Any) -> bool:
    """True when the check, given `args`, raises none of the refusals."""
    try:
        check(*args)
    except (ActionRefused, ActionInvalid, ActionForbidden):
        return False
    return True
