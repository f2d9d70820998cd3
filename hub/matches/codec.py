"""A match as plain data and back: the records as dicts (for snapshots and the views), and the snapshot the
hub writes to resume folding at a version (`to_snapshot`, `from_snapshot`)."""

from __future__ import annotations

from typing import Any, overload

from hub.matches.model import (
    NO_REFEREE_RECORD,
    ActionRecord,
    AnomalyRecord,
    AnomalyState,
    AppealRecord,
    FactRecord,
    MatchInfo,
    MatchState,
    MatchStatus,
    PenaltyRecord,
    RefereeRecord,
    ResultRecord,
)
from hub.rules.base import Severity


def anomaly_to_dict(a: AnomalyRecord) -> dict[str, Any]:
    """An anomaly record as plain data."""
    return {
        "code": a.code,
        "severity": a.severity.value,
        "message_en": a.message_en,
        "message_tr": a.message_tr,
        "offset": a.offset,
        "at": a.at,
        "data": a.data,
        "id": a.id,
        "index": a.index,
        "state": a.state.value,
        "handled_by": a.handled_by,
        "handled_at": a.handled_at,
        "reason": a.reason,
    }


@overload
def result_to_dict(r: ResultRecord) -> dict[str, Any]: ...
@overload
def result_to_dict(r: None) -> None: ...
def result_to_dict(r: ResultRecord | None) -> dict[str, Any] | None:
    """A referee's result as plain data."""
    if r is None:
        return None
    return {
        "winner": r.winner,
        "score": list(r.score),
        "source": r.source,
        "reason": r.reason,
        "by": r.by,
        "offset": r.offset,
        "at": r.at,
    }


def appeal_to_dict(a: AppealRecord) -> dict[str, Any]:
    """An appeal, and its decision once made, as plain data."""
    return {
        "appellant": a.appellant,
        "reason": a.reason,
        "by": a.by,
        "offset": a.offset,
        "at": a.at,
        "status_before": a.status_before.value,
        "decision": a.decision,
        "reasoning": a.reasoning,
        "decided_by": a.decided_by,
        "decided_at": a.decided_at,
    }


def penalty_to_dict(p: PenaltyRecord) -> dict[str, Any]:
    """A penalty as plain data."""
    return {
        "side": p.side,
        "penalty": p.penalty,
        "reason": p.reason,
        "by": p.by,
        "offset": p.offset,
        "at": p.at,
    }


def action_to_dict(a: ActionRecord) -> dict[str, Any]:
    """An audit entry as plain data."""
    return {"offset": a.offset, "at": a.at, "actor": a.actor, "kind": a.kind, "body": a.body}


def to_snapshot(match: MatchState) -> dict[str, Any]:
    """Everything needed to resume folding at `match.version`."""
    return {
        "sport_state": match.info.rules.to_dict(match.sport_state),
        "status": match.status.value,
        "version": match.version,
        "updated_at": match.updated_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "confirmed_by": match.confirmed_by,
        "confirmed_at": match.confirmed_at,
        "anomalies": [anomaly_to_dict(a) for a in match.anomalies],
        "facts": [{"kind": f.kind, "data": f.data, "offset": f.offset, "at": f.at} for f in match.facts],
        "result": result_to_dict(match.result),
        "locked_at": match.locked_at,
        "appeals": [appeal_to_dict(a) for a in match.appeals],
        "penalties": [penalty_to_dict(p) for p in match.penalties],
        "actions": [action_to_dict(a) for a in match.actions],
    }


def from_snapshot(info: MatchInfo, data: dict[str, Any]) -> MatchState:
    """The inverse of `to_snapshot`."""
    return MatchState(
        info=info,
        sport_state=info.rules.from_dict(data["sport_state"]),
        status=MatchStatus(data["status"]),
        version=data["version"],
        updated_at=data["updated_at"],
        started_at=data["started_at"],
        finished_at=data["finished_at"],
        confirmed_by=data["confirmed_by"],
        confirmed_at=data["confirmed_at"],
        anomalies=tuple(
            AnomalyRecord(
                a["code"],
                Severity(a["severity"]),
                a["message_en"],
                a["message_tr"],
                a["offset"],
                a["at"],
                a["data"],
                a.get("index", 0),
                AnomalyState(a.get("state", "open")),
                a.get("handled_by"),
                a.get("handled_at"),
                a.get("reason", ""),
            )
            for a in data["anomalies"]
        ),
        facts=tuple(FactRecord(f["kind"], f["data"], f["offset"], f["at"]) for f in data["facts"]),
        referee=_referee_from_snapshot(data),
    )


def _referee_from_snapshot(data: dict[str, Any]) -> RefereeRecord:
    if (
        data.get("result") is None
        and data.get("locked_at") is None
        and not any(data.get(k) for k in ("appeals", "penalties", "actions"))
    ):
        return NO_REFEREE_RECORD  # a snapshot from before the referee workflow, or of an untouched match
    return RefereeRecord(
        result=_result_from_dict(data.get("result")),
        locked_at=data.get("locked_at"),
        appeals=tuple(
            AppealRecord(
                a["appellant"],
                a["reason"],
                a["by"],
                a["offset"],
                a["at"],
                MatchStatus(a["status_before"]),
                a["decision"],
                a["reasoning"],
                a["decided_by"],
                a["decided_at"],
            )
            for a in data.get("appeals", ())
        ),
        penalties=tuple(
            PenaltyRecord(p["side"], p["penalty"], p["reason"], p["by"], p["offset"], p["at"])
            for p in data.get("penalties", ())
        ),
        actions=tuple(
            ActionRecord(a["offset"], a["at"], a["actor"], a["kind"], a["body"])
            for a in data.get("actions", ())
        ),
    )


def _result_from_dict(r: dict[str, Any] | None) -> ResultRecord | None:
    if r is None:
        return None
    a, b = r["score"]
    return ResultRecord(r["winner"], (a, b), r["source"], r["reason"], r["by"], r["offset"], r["at"])
