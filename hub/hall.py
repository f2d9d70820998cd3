"""The live state of every match in the venue, advanced only through the event log.

The hall folds each match event into the match's working state at once (so the next event is checked
against it), hands the event to the log, and publishes the state at that offset only when the log reports
the commit. Spectators therefore never see a state that a crash could take back. On start it loads each
match's latest snapshot and folds the tail of the log through the same reducer.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

from hub.eventlog import EventLog, EventRecord, Snapshot
from hub.fanout import Fanout, SnapshotSource
from hub.matches import (
    EventKind,
    MatchInfo,
    MatchState,
    MatchStatus,
    apply_event,
    from_snapshot,
    new_match,
    public_view,
    referee_view,
    summary,
    to_snapshot,
)
from hub.sports import SPORTS, Sport
from hub.venue import TableConfig, Venue

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 200
SNAPSHOT_ON = (MatchStatus.FINISHED, MatchStatus.OFFICIAL)  # statuses that take a snapshot when reached
CLOSED = (MatchStatus.FINISHED, MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED)


class UnknownMatch(KeyError):
    """No match with that id in this venue."""


def replay_match(
    info: MatchInfo, eventlog: EventLog, *, up_to: int | None = None, snapshot: Snapshot | None = None
) -> tuple[MatchState, int]:
    """Rebuild a match from a snapshot and the log's tail, as the hub does on start; also count the events."""
    state = new_match(info)
    if snapshot is not None and (up_to is None or snapshot.offset <= up_to):
        state = from_snapshot(info, snapshot.state)
    folded = 0
    for record in eventlog.match_events(info.id, state.version):
        if up_to is not None and record.offset > up_to:
            break
        state = apply_event(state, record.kind, record.body, record.offset, record.at, record.actor).state
        folded += 1
    return state, folded


class Hall:
    """Every match of the venue: working state, committed state, and the path from one to the other."""

    def __init__(
        self, venue: Venue, eventlog: EventLog, fanout: Fanout, *, snapshot_every: int = SNAPSHOT_EVERY
    ) -> None:
        self.venue = venue
        self.snapshot_every = snapshot_every
        self.log = eventlog
        self.fanout = fanout
        self.infos: dict[str, MatchInfo] = {m.id: m for m in venue.matches}
        on_table: dict[str, list[MatchInfo]] = {}
        for info in self.infos.values():
            on_table.setdefault(info.table, []).append(info)
        # the venue fixes each table's matches: their order (round, then id) is worked out once
        self._on_table: dict[str, tuple[str, ...]] = {
            table: tuple(m.id for m in sorted(infos, key=lambda m: (m.round, m.id)))
            for table, infos in on_table.items()
        }
        self.working: dict[str, MatchState] = {}
        self.committed: dict[str, MatchState] = {}
        self._uncommitted: dict[str, deque[MatchState]] = {}
        self.venue_version = 0
        self.replayed_events = 0
        eventlog.add_listener(self._on_commit)
        fanout.add_source(self._snapshot_source)

    # -- start ----------------------------------------------------------------------------------------------

    def load(self) -> None:
        """Rebuild every match from the log: latest snapshot, then the tail through the live reducer."""
        snapshots = self.log.snapshots()
        for info in self.infos.values():
            state, folded = replay_match(info, self.log, snapshot=snapshots.get(info.id))
            self.replayed_events += folded
            self.working[info.id] = state
            self.committed[info.id] = state
        self.venue_version = self.log.last_id
        unknown = set(self.log.match_ids()) - set(self.infos)
        for match_id in sorted(unknown):
            log.warning("the log holds events for match %s, which the venue file no longer lists", match_id)

    # -- reading --------------------------------------------------------------------------------------------

    def match(self, match_id: str) -> MatchState:
        """The committed (published) state of a match."""
        try:
            return self.committed[match_id]
        except KeyError:
            raise UnknownMatch(match_id) from None

    def matches(self) -> list[MatchState]:
        """Every match's committed state, by table then round."""
        return sorted(self.committed.values(), key=lambda m: (m.info.table, m.info.round, m.info.id))

    def venue_sport(self, table: TableConfig) -> Sport:
        """The rules a table's reports are checked against."""
        return SPORTS[table.sport]

    def current_match(self, table_id: str, fresh_start: bool) -> str | None:
        """The match a table's device reports for: the open one, or the next scheduled one on a fresh start."""
        scheduled: str | None = None
        finished: str | None = None
        working = self.working
        for match_id in self._on_table.get(table_id, ()):
            m = working.get(match_id)
            if m is None:
                continue
            status = m.status
            if status is MatchStatus.SCHEDULED:
                if scheduled is None:
                    scheduled = match_id
            elif status in CLOSED:
                finished = match_id
            else:
                return match_id  # the first open match
        if scheduled is not None and (fresh_start or finished is None):
            return scheduled
        return finished  # a late report for the match just played: kept, and checked there

    # -- writing --------------------------------------------------------------------------------------------

    def record(
        self,
        match_id: str,
        kind: EventKind,
        body: dict[str, Any],
        at: float,
        *,
        actor: str | None = None,
        device_key: tuple[str, int, int] | None = None,
        raw: bytes | None = None,
    ) -> asyncio.Future[bool]:
        """Fold an event into a match now and log it; the future resolves after its commit."""
        current = self.working.get(match_id)
        if current is None:
            raise UnknownMatch(match_id)
        offset = current.version + 1
        outcome = apply_event(current, kind, body, offset, at, actor)
        self.working[match_id] = outcome.state
        self._uncommitted.setdefault(match_id, deque()).append(outcome.state)
        device_id, boot_epoch, seq = device_key if device_key else (None, None, None)
        record = EventRecord(
            id=self.log.next_id(),
            kind=kind.value,
            at=at,
            body=body,
            match_id=match_id,
            offset=offset,
            device_id=device_id,
            boot_epoch=boot_epoch,
            seq=seq,
            actor=actor,
            raw=raw,
        )
        return self.log.append(record)

    def tick(self, at: float) -> int:
        """Let rules that watch the clock (expedite due) see time pass; log a tick only where it raises an
        anomaly, so replay sees the same tick and the log is not filled with nothing. Returns ticks logged."""
        logged = 0
        for match_id, state in list(self.working.items()):
            if state.status is not MatchStatus.LIVE or state.info.rules.tick is None:
                continue
            trial = apply_event(state, EventKind.TICK, {}, state.version + 1, at, None)
            if trial.anomalies:
                self.record(match_id, EventKind.TICK, {}, at)
                logged += 1
        return logged

    def _on_commit(self, records: list[EventRecord], inserted: list[bool]) -> None:
        changed: dict[str, tuple[MatchState, int]] = {}
        for record, new in zip(records, inserted, strict=True):
            if record.match_id is None or record.offset is None:
                continue
            pending = self._uncommitted.get(record.match_id)
            while pending and pending[0].version <= record.offset:
                state = pending.popleft()
                if state.version == record.offset:
                    if not new:  # the hall guards against this; if it happens, the log is what counts
                        log.error("match event %s/%s was not stored", record.match_id, record.offset)
                    mid = record.match_id
                    previous = changed[mid][0] if mid in changed else self.committed.get(mid)
                    changed[record.match_id] = (state, record.id)
                    if state.version % self.snapshot_every == 0 or (
                        state.status in SNAPSHOT_ON
                        and (previous is None or previous.status is not state.status)
                    ):  # also when the match is decided or confirmed, so a restart folds only what follows
                        self.log.put_snapshot(
                            Snapshot(record.match_id, state.version, record.at, to_snapshot(state))
                        )
        for match_id, (state, log_id) in changed.items():
            before = self.committed.get(match_id)
            self.committed[match_id] = state
            self.venue_version = max(self.venue_version, log_id)
            self.fanout.publish(f"match:{match_id}", state.version, public_view(state))
            self.fanout.publish("venue", self.venue_version, summary(state), key=match_id)
            if before is None or (before.status, before.anomalies[-1:]) != (
                state.status,
                state.anomalies[-1:],
            ):
                self.fanout.publish("referee", self.venue_version, referee_view(state), key=match_id)

    # -- fan-out snapshots ----------------------------------------------------------------------------------

    def venue_snapshot(self) -> dict[str, Any]:
        """The venue topic's full state."""
        matches = self.matches()
        return {
            "name": self.venue.name,
            "official": all(m.official for m in matches),
            "matches": [summary(m) for m in matches],
        }

    def _snapshot_source(self, topic: str) -> SnapshotSource | None:
        if topic == "venue":  # built only when the cached one is older (see Fanout._snapshot)
            return lambda: (self.venue_version, self.venue_snapshot)
        if topic == "referee":
            return lambda: (
                self.venue_version,
                lambda: {"official": False, "matches": [referee_view(m) for m in self.matches()]},
            )
        if topic.startswith("match:") and topic[6:] in self.committed:
            match_id = topic[6:]
            return lambda: (self.committed[match_id].version, public_view(self.committed[match_id]))
        return None
