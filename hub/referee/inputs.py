"""Referee inputs (time-out, card, correction…): checked by the sport's rules, rebuilt from what they read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.matches import ActionRefused, EventKind, MatchState
from hub.referee.actions import check_inputs_open
from hub.referee.model import MAX_INPUT_NUMBER, MAX_TEXT, ActionInvalid, RefereeEvent
from hub.referee.request import unknown_fields
from hub.rules.base import Severity
from hub.rules.names import named


def input_fields(match: MatchState, request: Any) -> frozenset[str] | None:
    """The fields a referee input of its `type` may have (what the rules write back for it); None when the
    input is not one the rules read, which `check_input` then says."""
    try:
        return frozenset(check_input(match, request, unknown_ok=True).body["input"])
    except (ActionInvalid, ActionRefused):
        return None


def prepare_input(match: MatchState, request: Any, at: float) -> RefereeEvent:
    """A referee input checked for its fields (ActionInvalid), then for the match taking inputs now and for
    the sport's rules accepting it at `at` (ActionRefused: not once locked or closed, nor what the rules call
    an error, such as a point after the match's end): the event to log."""
    event = check_input(match, request)
    check_inputs_open(match)
    rules = match.info.rules
    outcome = rules.apply(match.sport_state, rules.report_from_dict(event.body["input"]), at)
    error = next((a for a in outcome.anomalies if a.severity is Severity.ERROR), None)
    if error is not None:  # the referee's own input breaks the rules: say so and log nothing
        players, doubles = match.info.players, match.info.doubles
        raise ActionRefused(
            f"{named(error.message_en, players, doubles, 'en')} / {named(error.message_tr, players, doubles, 'tr')}"
        )
    return event


def check_input(match: MatchState, request: Any, *, unknown_ok: bool = False) -> RefereeEvent:
    """A referee input (time-out, card, correction…) checked by the sport's rules and rebuilt from what they
    read: the event logs that, never the request as sent. Texts are at most MAX_TEXT characters and counts
    at most MAX_INPUT_NUMBER; raise ActionInvalid naming the field."""
    rules = match.info.rules
    allowed = rules.referee_inputs
    if not isinstance(request, Mapping) or request.get("type") not in allowed:
        raise ActionInvalid(
            f'"type" must be one of {", ".join(allowed) or "nothing yet for this sport"} / geçersiz girdi türü'
        )
    try:
        checked = rules.input_to_dict(rules.report_from_dict(dict(request)))
    except KeyError as exc:
        raise ActionInvalid(f'"{exc.args[0]}" is missing / eksik alan: {exc.args[0]}') from None
    except (ValueError, TypeError) as exc:
        raise ActionInvalid(f"{exc} / geçersiz hakem girdisi") from None
    unknown = [] if unknown_ok else unknown_fields(request, checked)
    if unknown:
        raise ActionInvalid(
            f"{request['type']} takes no {', '.join(map(repr, unknown))}; its fields: "
            f"{', '.join(checked)} / bilinmeyen alan"
        )
    for key, value in checked.items():
        _check_bounds(key, value)
    return RefereeEvent(EventKind.REFEREE_INPUT, {"input": checked})


def _check_bounds(key: str, value: Any) -> None:
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise ActionInvalid(f'"{key}" is limited to {MAX_TEXT} characters / "{key}" çok uzun')
    numbers = value if isinstance(value, list | tuple) else (value,)
    for n in numbers:
        if isinstance(n, int | float) and not isinstance(n, bool) and not 0 <= n <= MAX_INPUT_NUMBER:
            raise ActionInvalid(
                f'"{key}" must be from 0 to {MAX_INPUT_NUMBER}, got {n!r} / "{key}" 0 ile {MAX_INPUT_NUMBER} arası olmalı'
            )
