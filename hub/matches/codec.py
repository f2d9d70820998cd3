"""A match as plain data and back: the records as dicts (for snapshots and the views), and the snapshot the
hub writes to resume folding at a version (`to_snapshot`, `from_snapshot`).

The records are frozen dataclasses whose field names are the keys: msgspec writes them (`to_builtins`) and
reads them back (`convert`, which fills a field an older snapshot lacks from its default)."""

from __future__ import annotations

from typing import Any, overload

from msgspec import convert, to_builtins

from hub.matches.model import (
    NO_REFEREE_RECORD,
    ActionRecord,
    AnomalyRecord,
    AppealRecord,
    FactRecord,
    MatchInfo,
    MatchState,
    MatchStatus,
    PenaltyRecord,
    RefereeRecord,
    ResultRecord,
)


def _plain(record: object) -> dict[str, Any]:
    """A record as a dict of plain data (`to_builtins` is typed to answer Any)."""
    data: dict[str, Any] = to_builtins(record)
    return data


def anomaly_to_dict(a: AnomalyRecord) -> dict[str, Any]:
    """An anomaly record as plain data, with its `id` and the times of its first and latest occurrence."""
    last_at = a.at if a.last_at is None else a.last_at
    # a list, as JSON reads it back: `to_builtins` keeps a tuple a tuple
    seen = [to_builtins(o) for o in a.occurrences]
    return {**to_builtins(a), "occurrences": seen, "id": a.id, "first_at": a.at, "last_at": last_at}


@overload
def result_to_dict(r: ResultRecord) -> dict[str, Any]: ...
@overload
def result_to_dict(r: None) -> None: ...
def result_to_dict(r: ResultRecord | None) -> dict[str, Any] | None:
    """A referee's result as plain data."""
    return None if r is None else _plain(r)


def appeal_to_dict(a: AppealRecord) -> dict[str, Any]:
    """An appeal, and its decision once made, as plain data."""
    return _plain(a)


def penalty_to_dict(p: PenaltyRecord) -> dict[str, Any]:
    """A penalty as plain data."""
    return _plain(p)


def action_to_dict(a: ActionRecord) -> dict[str, Any]:
    """An audit entry as plain data."""
    return _plain(a)


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
        "facts": to_builtins(match.facts),
        **to_builtins(match.referee),  # result, locked_at, appeals, penalties, actions
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
        anomalies=convert(data["anomalies"], tuple[AnomalyRecord, ...]),
        facts=convert(data["facts"], tuple[FactRecord, ...]),
        referee=_referee_from_snapshot(data),
    )


def _referee_from_snapshot(data: dict[str, Any]) -> RefereeRecord:
    if (
        data.get("result") is None
        and data.get("locked_at") is None
        and not any(data.get(k) for k in ("appeals", "penalties", "actions", "signoffs"))
    ):
        return NO_REFEREE_RECORD  # a snapshot from before the referee workflow, or of an untouched match
    return convert(data, RefereeRecord)
