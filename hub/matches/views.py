"""What screens see of a match: the venue wall's tile (`summary`), a match's own public screen
(`public_view`: no referee's notes, no referee's names unless the venue shows them) and the referee console
(`referee_view`: everything)."""

from __future__ import annotations

from typing import Any

from hub.growing import ItemViews
from hub.matches.codec import action_to_dict, anomaly_to_dict, appeal_to_dict, penalty_to_dict, result_to_dict
from hub.matches.model import RULES_ACTOR, AnomalyRecord, FactRecord, MatchInfo, MatchState, ResultRecord
from hub.matches.model import WAITING as _WAITING
from hub.matches.naming import named_action, named_anomaly, with_names
from hub.matches.signoff import signoffs_view


def _identity(match: MatchState) -> dict[str, Any]:
    """What every view of a match starts with: which match, where, who, and how far it stands."""
    extra = {}
    if match.info.team_match is not None:
        extra = {"team_match": match.info.team_match, "board": match.info.board}
    return {
        **extra,
        "id": match.info.id,
        "sport": match.info.sport,
        "table": match.info.table,
        "round": match.info.round,
        "players": list(match.info.players),
        "status": match.status.value,
        "official": match.official,
        "version": match.version,
        "updated_at": match.updated_at,
    }


def summary(match: MatchState) -> dict[str, Any]:
    """The compact public view for the venue wall: no private data, no history."""
    return {
        **_identity(match),
        "state": match.info.rules.tile_state(match.sport_state),
        "open_anomalies": sum(1 for a in match.anomalies if a.state in _WAITING),
        "result": _public_result(match.result),
        "locked": match.locked,
    }


def _public_result(r: ResultRecord | None) -> dict[str, Any] | None:
    """What spectators see of a referee's result: who won, the score and how it came about."""
    return None if r is None else {"winner": r.winner, "score": list(r.score), "source": r.source}


# What spectators never see of a referee's work: the notes written for the log, and (unless the venue opts in
# with `show_referee_names`) who did it. The decision itself, and an appeal decision's reasoning, are public.
_PRIVATE_NOTES = frozenset({"reason"})
_REFEREE_NAMES = frozenset({"by", "handled_by", "decided_by", "confirmed_by", "actor"})


def _public(data: dict[str, Any], names: bool) -> dict[str, Any]:
    """`data` without its private notes, and without referees' names unless `names`."""
    return {k: v for k, v in data.items() if k not in _PRIVATE_NOTES and (names or k not in _REFEREE_NAMES)}


def public_view(match: MatchState, *, referee_names: bool = False) -> dict[str, Any]:
    """The full public view of one match for its own screen: every decision, no referee's note, and no
    referee's name unless `referee_names` (the venue's `show_referee_names`)."""
    by_referee = {a.offset for a in match.actions}  # facts of these events may carry a name or a note
    result = match.result
    return {  # `summary`'s keys in its order, with the whole state and result where it has the tile's
        **_identity(match),
        "state": match.info.rules.public_state(match.sport_state),
        "open_anomalies": sum(1 for a in match.anomalies if a.state in _WAITING),
        "result": None if result is None else _public(result_to_dict(result), referee_names),
        "locked": match.locked,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        **({"confirmed_by": match.confirmed_by} if referee_names else {}),
        "confirmed_at": match.confirmed_at,
        "facts": _fact_views(match.facts, (match.info, referee_names, frozenset(by_referee)), match.info.id),
        "anomalies": [named_anomaly(_public_anomaly(a, referee_names), match.info) for a in match.anomalies],
        # the decision and its reasoning are shown to the players (the tournament rules §10); the
        # grounds as the referee wrote them down stay in the referee's views
        "appeals": [_public(appeal_to_dict(a), referee_names) for a in match.appeals],
        "signoffs": signoffs_view(match),
        "penalties": [
            with_names(
                _public({"side": p.side, "penalty": p.penalty, "at": p.at, "by": p.by}, referee_names),
                match.info,
            )
            for p in match.penalties
        ],
    }


# facts that record one side's card, penalty, forfeit or time-out: shown with the player's name beside the side
_NAMED_FACTS = frozenset({"card", "penalty", "forfeit", "timeout"})


def _fact_view(f: FactRecord, context: tuple[MatchInfo, bool, frozenset[int]]) -> dict[str, Any]:
    """A fact as its match's public view shows it; `context`: the match, whether referees' names are shown,
    and the offsets of the referees' actions (facts of these may carry a name or a note)."""
    info, referee_names, by_referee = context
    data = _public(f.data, referee_names) if f.offset in by_referee else f.data
    return {
        "kind": f.kind,
        "data": with_names(data, info) if f.kind in _NAMED_FACTS else data,
        "offset": f.offset,
        "at": f.at,
    }


# each fact's view is built once per match, not once per view of it (a match's page gets it at every change)
_fact_views: ItemViews[FactRecord, dict[str, Any]] = ItemViews(_fact_view)


def _public_anomaly(a: AnomalyRecord, names: bool) -> dict[str, Any]:
    view = anomaly_to_dict(a)
    if (
        a.handled_by == RULES_ACTOR
    ):  # the rules cleared it themselves: no referee, and what they saw is public
        return view
    return _public(view, names)


def referee_view(match: MatchState) -> dict[str, Any]:
    """What the referee console watches of a match: status, result, anomalies, appeals, penalties, actions."""
    return {
        **_identity(match),
        "winner": match.winner,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "confirmed_by": match.confirmed_by,
        "confirmed_at": match.confirmed_at,
        "locked": match.locked,
        "locked_at": match.locked_at,
        "result": result_to_dict(match.result),
        "anomalies": [named_anomaly(anomaly_to_dict(a), match.info) for a in match.anomalies],
        "appeals": [appeal_to_dict(a) for a in match.appeals],
        "penalties": [with_names(penalty_to_dict(p), match.info) for p in match.penalties],
        "actions": [named_action(action_to_dict(a), match.info) for a in match.actions],
        "signoffs": signoffs_view(match),
    }
