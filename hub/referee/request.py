"""A referee's request read: its action's Struct (msgspec, known fields only), and the checked event
`prepare` makes of it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from devices.strict import by_tag, complaint
from hub.matches import MatchState
from hub.referee.actions import (
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

# A score's number, one per side: whole or half points, never a boolean (msgspec refuses `true` for both)
_Points = Annotated[int, msgspec.Meta(ge=0, lt=1000)] | Annotated[float, msgspec.Meta(ge=0, lt=1000)]
Score = tuple[_Points, _Points]
Side = Literal[0, 1]
Text = str | None  # stripped, and checked for being required and for its length, by `_text`


class ActionRequest(msgspec.Struct, tag_field="action", forbid_unknown_fields=True, frozen=True):
    """What every referee action's body has: its `action`, the Struct's tag."""

    TEXTS: ClassVar[tuple[str, ...]] = ()  # the fields that are text, to strip and bound


class ConfirmRequest(ActionRequest, tag=Action.CONFIRM.value, frozen=True):
    """`{"action": "confirm"}`."""


class AnomalyRequest(ActionRequest, frozen=True):
    """An anomaly item acknowledged, resolved or dismissed."""

    TEXTS = ("anomaly", "reason")
    anomaly: Text = None
    reason: Text = None


class AcknowledgeRequest(AnomalyRequest, tag=Action.ACKNOWLEDGE.value, frozen=True):
    """`{"action": "acknowledge", "anomaly": …, "reason": …}`."""


class ResolveRequest(AnomalyRequest, tag=Action.RESOLVE.value, frozen=True):
    """`{"action": "resolve", "anomaly": …, "reason": …}`."""


class DismissRequest(AnomalyRequest, tag=Action.DISMISS.value, frozen=True):
    """`{"action": "dismiss", "anomaly": …, "reason": …}`."""


class CorrectRequest(ActionRequest, tag=Action.CORRECT.value, frozen=True):
    """A corrected result: the score, the reason, and a winner that must agree with the score."""

    TEXTS = ("reason",)
    score: Score
    reason: Text = None
    winner: Any = None  # checked against the score by the action


class PenaltyRequest(ActionRequest, tag=Action.PENALTY.value, frozen=True):
    """A penalty against one side; the penalty's name is checked by the action (its list and its rules)."""

    TEXTS = ("reason",)
    side: Side
    penalty: Any = None
    reason: Text = None


class ForfeitRequest(ActionRequest, tag=Action.FORFEIT.value, frozen=True):
    """A match forfeited by `loser`."""

    TEXTS = ("reason",)
    loser: Side
    reason: Text = None


class AppealRequest(ActionRequest, tag=Action.APPEAL.value, frozen=True):
    """An appeal lodged by `appellant`."""

    TEXTS = ("appellant", "reason")
    appellant: Text = None
    reason: Text = None


class DecideRequest(ActionRequest, tag=Action.DECIDE.value, frozen=True):
    """The decision on the open appeal; an upheld one may carry a new score."""

    TEXTS = ("reasoning",)
    decision: Any = None  # upheld or rejected, checked by the action after the appeal is found open
    reasoning: Text = None
    score: Score | None = None
    winner: Any = None


class ResultRequest(ActionRequest, tag=Action.RESULT.value, frozen=True):
    """A result the board cannot see; result and how are checked by the action once the rules take
    results (a 409 for another sport comes before a 400 for its fields)."""

    TEXTS = ("reason",)
    result: Any = None
    how: Any = None
    reason: Text = None


ACTION_REQUESTS: dict[str, type[ActionRequest]] = by_tag(
    ConfirmRequest,
    AcknowledgeRequest,
    ResolveRequest,
    DismissRequest,
    CorrectRequest,
    PenaltyRequest,
    ForfeitRequest,
    AppealRequest,
    DecideRequest,
    ResultRequest,
)
ACTION_FIELDS: dict[Action, frozenset[str]] = {  # the fields each action reads: any other is refused
    Action(tag): frozenset({"action", *cls.__struct_fields__}) for tag, cls in ACTION_REQUESTS.items()
}


def prepare(match: MatchState, request: Mapping[str, Any], *, role: str, at: float) -> RefereeEvent:
    """Check a referee's request (`{"action": …, …}`) against the match, the role and the time."""
    wanted = read_action(request)
    action = Action(str(wanted.__struct_config__.tag))
    check_role(action, role)
    if isinstance(wanted, ConfirmRequest):
        return confirm(match)
    if isinstance(wanted, AnomalyRequest):
        return handle_anomaly(match, _text(wanted, "anomaly", required=True), action, _text(wanted, "reason"))
    if isinstance(wanted, CorrectRequest):
        return correct(match, wanted.score, _text(wanted, "reason", required=True), wanted.winner)
    if isinstance(wanted, PenaltyRequest):
        return penalty(match, wanted.side, wanted.penalty, _text(wanted, "reason", required=True))
    if isinstance(wanted, ForfeitRequest):
        return forfeit(match, wanted.loser, _text(wanted, "reason", required=True))
    if isinstance(wanted, ResultRequest):
        return game_result(match, wanted.result, wanted.how, _text(wanted, "reason"))
    if isinstance(wanted, AppealRequest):
        return appeal(
            match, _text(wanted, "appellant", required=True), _text(wanted, "reason", required=True), at
        )
    assert isinstance(wanted, DecideRequest)
    return decide(
        match, wanted.decision, _text(wanted, "reasoning", required=True), wanted.score, wanted.winner
    )


def read_action(request: Mapping[str, Any]) -> ActionRequest:
    """A referee's request as its action's Struct; ActionInvalid naming the field that is wrong."""
    if not isinstance(request, Mapping):
        raise ActionInvalid('expected an object such as {"action": "confirm"} / nesne bekleniyordu')
    named = request.get("action")
    cls = ACTION_REQUESTS.get(named) if isinstance(named, str) else None
    if cls is None:
        raise ActionInvalid(
            f'"action" must be one of {", ".join(a.value for a in Action)}, got {request.get("action")!r} '
            f"/ geçersiz işlem"
        )
    try:
        return msgspec.convert(request, cls)
    except msgspec.ValidationError as exc:
        raise ActionInvalid(_refusal(exc, request, cls)) from None


def _refusal(exc: msgspec.ValidationError, request: Mapping[str, Any], cls: type[ActionRequest]) -> str:
    """msgspec's complaint about a request as the bilingual message naming the field and what it must be."""
    said = complaint(exc)
    key, action = said.field, str(cls.__struct_config__.tag)
    fields = ACTION_FIELDS[Action(action)]
    if said.unknown:
        unknown = unknown_fields(request, fields)
        return (
            f"{action} takes no {', '.join(map(repr, unknown))}; its fields: {', '.join(sorted(fields))} "
            f"/ bilinmeyen alan"
        )
    value = request.get(key) if key is not None else None
    if key in ("side", "loser"):
        return f'"{key}" must be side 0 or 1, got {value!r} / "{key}" 0 ya da 1 olmalı'
    if key == "score":
        return (
            f'"score" must be two numbers from 0, one per side, such as [3, 1], got {value!r} '
            f"/ skor iki sayı olmalı, ör. [3, 1]"
        )
    if key in cls.TEXTS:
        return f'"{key}" must be text, got {value!r} / "{key}" metin olmalı'
    return f'"{key}": {said.reason} / "{key}" geçersiz'  # not reached while every typed field is named above


def _text(wanted: msgspec.Struct, key: str, *, required: bool = False) -> str:
    """A text field of a request: stripped, required when asked, at most MAX_TEXT characters."""
    value: str = (getattr(wanted, key) or "").strip()
    if required and not value:
        raise ActionInvalid(f'"{key}" is required / "{key}" gerekli')
    if len(value) > MAX_TEXT:
        raise ActionInvalid(f'"{key}" is limited to {MAX_TEXT} characters / "{key}" çok uzun')
    return value


class BulkRequest(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """`POST /api/referee/anomalies`: one action on every item of one code (or all) of one match."""

    action: Literal["acknowledge", "resolve", "dismiss"]
    match: Text = None
    code: Text = None
    reason: Text = None


BULK_FIELDS = frozenset(BulkRequest.__struct_fields__)


def prepare_bulk(matches: Mapping[str, MatchState], request: Mapping[str, Any]) -> tuple[str, RefereeEvent]:
    """Check a bulk anomaly request (`{"action": "acknowledge", "match": …, "code": …, "reason": …}`): the
    match it names and the event for every item of `code` on it (every code when absent)."""
    wanted = _read_bulk(request)
    match_id = _text(wanted, "match", required=True)
    match = matches.get(match_id)
    if match is None:
        raise ActionInvalid(f'"match": there is no match {match_id!r} / "match": böyle bir maç yok')
    code = _text(wanted, "code") or None
    codes = sorted({a.code for a in match.anomalies})
    if code is not None and code not in codes:
        raise ActionInvalid(
            f'"code": match {match_id} has no anomaly {code!r}; it has {", ".join(codes) or "none"} '
            f'/ "code": maçta bu kodda anormallik yok'
        )
    return match_id, handle_anomalies(match, code, Action(wanted.action), _text(wanted, "reason"))


def _read_bulk(request: Mapping[str, Any]) -> BulkRequest:
    try:
        return msgspec.convert(request, BulkRequest)
    except msgspec.ValidationError as exc:
        said = complaint(exc)
        key = said.field
        if said.unknown:
            unknown = unknown_fields(request, BULK_FIELDS)
            raise ActionInvalid(
                f"{', '.join(map(repr, unknown))}: not a field; the fields: {', '.join(sorted(BULK_FIELDS))} "
                f"/ bilinmeyen alan"
            ) from None
        if key == "action" or key is None:
            raise ActionInvalid(
                f'"action" must be acknowledge, resolve or dismiss, got {request.get("action")!r} '
                f'/ "action" acknowledge, resolve ya da dismiss olmalı'
            ) from None
        raise ActionInvalid(
            f'"{key}" must be text, got {request.get(key)!r} / "{key}" metin olmalı'
        ) from None


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
