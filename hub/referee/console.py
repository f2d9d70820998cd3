"""What the referee console reads beyond the referee view: rules, appeal deadline, contacts, audit trail."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hub.matches import MatchState, referee_view
from hub.referee.model import APPEAL_WINDOW_S, HAS_RESULT
from hub.rulebook import RuleOverride, rule_for
from hub.venue import PlayerConfig


def console_view(
    match: MatchState,
    players: Mapping[str, PlayerConfig] | None = None,
    rule_overrides: Mapping[str, RuleOverride] | None = None,
) -> dict[str, Any]:
    """What the referee console shows of a match: the referee view, each anomaly's rule (the venue's wording
    where its file overrides one), the appeal deadline, and the players' contacts (private: referees only)."""
    view = referee_view(match)
    for anomaly in view["anomalies"]:
        rule = rule_for(anomaly["code"], match.info, rule_overrides)
        anomaly["rule"] = None if rule is None else rule.to_dict()
    view["appeal_until"] = (
        match.finished_at + APPEAL_WINDOW_S
        if match.finished_at is not None and match.status in HAS_RESULT
        else None
    )
    known = players or {}
    view["contacts"] = [
        {"name": p.name, "club": p.club, "city": p.city, "phone": p.phone, "email": p.email}
        for p in (known.get(name) for name in match.info.players)
        if p is not None
    ]
    return view


def audit(matches: Iterable[MatchState]) -> list[dict[str, Any]]:
    """Every referee and hub action on every match, newest first, with who and when."""
    entries = [
        {
            "match": m.info.id,
            "table": m.info.table,
            "round": m.info.round,
            "offset": a.offset,
            "at": a.at,
            "actor": a.actor,
            "kind": a.kind,
            "body": a.body,
        }
        for m in matches
        for a in m.actions
    ]
    entries.sort(key=lambda e: (e["at"], e["match"], e["offset"]), reverse=True)
    return entries
