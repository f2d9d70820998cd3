"""A referee's request read: its action, its fields, and the checked event `prepare` makes of it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hub.matches import MatchState
from hub.referee.actions import (
    ANOMALY_ACTIONS,
    appeal,
    check_role,
    confirm,
    correct,
    decide,
    forfeit,
    game_result,
    handle_anomalies,
    handle_anomaly,
    penalty,
)
from hub.referee.model import MAX_TEXT, Action, ActionInvalid, RefereeEvent

_ANOMALY_FIELDS = frozenset({"action", "anomaly", "reason"})
ACTION_FIELDS: dict[Action, frozenset[str]] = {  # the fields each action reads: any other is refused
    Action.CONFIRM: frozenset({"action"}),
    Action.ACKNOWLEDGE: _ANOMALY_FIELDS,
    Action.RESOLVE: _ANOMALY_FIELDS,
    Action.DISMISS: _ANOMALY_FIELDS,
    Action.CORRECT: frozenset({"action", "score", "reason", "winner"}),
    Action.PENALTY: frozenset({"action", "side", "penalty", "reason"}),
    Action.FORFEIT: frozenset({"action", "loser", "reason"}),
    Action.APPEAL: frozenset({"action", "appellant", "reason"}),
    Action.DECIDE: frozenset({"action", "decision", "reasoning", "score", "winner"}),
    Action.RESULT: frozenset({"action", "result", "how", "reason"}),
}


def prepare(match: MatchState, request: Mapping[str, Any], *, role: str, at: float) -> RefereeEvent:
    """Check a referee's request (`{"action": …, …}`) against the match, the role and the time."""
    if not isinstance(request, Mapping):
        raise ActionInvalid('expected an object such as {"action": "confirm"} / nesne bekleniyordu')
    try:
        action = Action(str(request.get("action")))
    except ValueError:
        raise ActionInvalid(
            f'"action" must be one of {", ".join(a.value for a in Action)}, got {request.get("action")!r} '
            f"/ geçersiz işlem"
        ) from None
    unknown = unknown_fields(request, ACTION_FIELDS[action])
    if unknown:
        raise ActionInvalid(
            f"{action.value} takes no {', '.join(map(repr, unknown))}; its fields: "
            f"{', '.join(sorted(ACTION_FIELDS[action]))} / bilinmeyen alan"
        )
    check_role(action, role)
    if action is Action.CONFIRM:
        return confirm(match)
    if action in ANOMALY_ACTIONS:
        return handle_anomaly(
            match, _text(request, "anomaly", required=True), action, _text(request, "reason")
        )
    if action is Action.CORRECT:
        return correct(match, _score(request), _text(request, "reason", required=True), request.get("winner"))
    if action is Action.PENALTY:
        return penalty(
            match, _side(request, "side"), request.get("penalty"), _text(request, "reason", required=True)
        )
    if action is Action.FORFEIT:
        return forfeit(match, _side(request, "loser"), _text(request, "reason", required=True))
    if action is Action.RESULT:
        return game_result(match, request.get("result"), request.get("how"), _text(request, "reason"))
    if action is Action.APPEAL:
        return appeal(
            match, _text(request, "appellant", required=True), _text(request, "reason", required=True), at
        )
    score = _score(request) if request.get("score") is not None else None
    return decide(
        match,
        request.get("decision"),
        _text(request, "reasoning", required=True),
        score,
        request.get("winner"),
    )


BULK_FIELDS = frozenset({"action", "match", "code", "reason"})  # `POST /api/referee/anomalies`


def prepare_bulk(matches: Mapping[str, MatchState], request: Mapping[str, Any]) -> tuple[str, RefereeEvent]:
    """Check a bulk anomaly request (`{"action": "acknowledge", "match": …, "code": …, "reason": …}`): the
    match it names and the event for every item of `code` on it (every code when absent)."""
    action = request.get("action")
    if not isinstance(action, str) or action not in {a.value for a in ANOMALY_ACTIONS}:
        raise ActionInvalid(
            f'"action" must be acknowledge, resolve or dismiss, got {action!r} '
            f'/ "action" acknowledge, resolve ya da dismiss olmalı'
        )
    match_id = _text(request, "match", required=True)
    match = matches.get(match_id)
    if match is None:
        raise ActionInvalid(f'"match": there is no match {match_id!r} / "match": böyle bir maç yok')
    code = _text(request, "code") or None
    codes = sorted({a.code for a in match.anomalies})
    if code is not None and code not in codes:
        raise ActionInvalid(
            f'"code": match {match_id} has no anomaly {code!r}; it has {", ".join(codes) or "none"} '
            f'/ "code": maçta bu kodda anormallik yok'
        )
    return match_id, handle_anomalies(match, code, Action(action), _text(request, "reason"))


def action_fields(request: Any) -> frozenset[str] | None:
    """The fields a request for its `action` may have; None when the action itself is not one."""
    try:
        return ACTION_FIELDS[Action(request.get("action"))]
    except (ValueError, TypeError, AttributeError):
        return None


def unknown_fields(request: Mapping[str, Any], allowed: Iterable[str]) -> list[str]:
    """The keys of a request that are not among `allowed`, in the request's order."""
    known = frozenset(allowed)
    return [key for key in request if key not in known]


# -- reading a request ---------------------------------------------------------------------------------------


def _text(request: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = request.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ActionInvalid(f'"{key}" must be text, got {value!r} / "{key}" metin olmalı')
    value = value.strip()
    if required and not value:
        raise ActionInvalid(f'"{key}" is required / "{key}" gerekli')
    if len(value) > MAX_TEXT:
        raise ActionInvalid(f'"{key}" is limited to {MAX_TEXT} characters / "{key}" çok uzun')
    return value


def _side(request: Mapping[str, Any], key: str) -> int:
    value = request.get(key)
    if value not in (0, 1) or isinstance(value, bool):
        raise ActionInvalid(f'"{key}" must be side 0 or 1, got {value!r} / "{key}" 0 ya da 1 olmalı')
    return int(value)


def _score(request: Mapping[str, Any]) -> tuple[float, float]:
    value = request.get("score")
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x < 1000 for x in value)
    ):
        return value[0], value[1]
    raise ActionInvalid(
        f'"score" must be two numbers from 0, one per side, such as [3, 1], got {value!r} '
        f"/ skor iki sayı olmalı, ör. [3, 1]"
    )
