"""What the referee console reads beyond the referee view: rules, what may be done now, the appeal deadline,
contacts, audit trail."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hub.articles import RuleOverride, rule_for
from hub.matches import MatchState, referee_view
from hub.matches.naming import with_names
from hub.referee.actions import appeal_deadline
from hub.referee.model import Role
from hub.referee.offers import anomaly_offers, chief_only, offered, offered_penalties
from hub.venue import PlayerConfig


def console_view(
    match: MatchState,
    players: Mapping[str, PlayerConfig] | None = None,
    rule_overrides: Mapping[str, RuleOverride] | None = None,
    *,
    at: float,
) -> dict[str, Any]:
    """What the referee console shows of a match at `at`: the referee view, each anomaly's rule (the venue's
    wording where its file overrides one) and offers, what may be done now, the appeal deadline, and the
    players' contacts (private: only referees get this).

    One view serves every referee (the `referee` topic is shared): `offers` are the chief's, and `chief_only`
    names those a referee who is not the chief may not take."""
    view = referee_view(match)
    for anomaly, record in zip(view["anomalies"], match.anomalies, strict=True):
        rule = rule_for(anomaly["code"], match.info, rule_overrides)
        anomaly["rule"] = None if rule is None else rule.to_dict()
        anomaly["offers"] = anomaly_offers(record)
    view["offers"] = offers = offered(match, Role.CHIEF, at)
    view["chief_only"] = chief_only(offers)
    view["penalty_kinds"] = offered_penalties(match)
    view["appeal_until"] = appeal_deadline(match)
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
            "body": with_names(a.body, m.info),
        }
        for m in matches
        for a in m.actions
    ]
    entries.sort(key=lambda e: (e["at"], e["match"], e["offset"]), reverse=True)
    return entries
