"""The live state of every match in the venue, advanced only through the event log.

The hall folds each match event into the match's working state at once (so the next event is checked
against it), hands the event to the log, and publishes the state at that offset only when the log reports
the commit. Spectators therefore never see a state that a crash could take back. On start it loads each
match's latest snapshot and folds the tail of the log through the same reducer.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from hub import referee
from hub.feed.fanout import Fanout, SnapshotSource
from hub.hall.spectators import PublicHall, UnknownMatch
from hub.log.eventlog import EventLog, EventRecord, Snapshot, unpack_snapshot
from hub.matches import (
    EventKind,
    MatchInfo,
    MatchState,
    MatchStatus,
    apply_event,
    fold_events,
    from_snapshot,
    new_match,
    to_snapshot,
)
from hub.rules.registry import SPORTS, SportRules
from hub.venue import TableConfig, Venue
from hub.venue.changes import NewRounds

log = logging.getLogger(__name__)

# a device report for `Hall.record_reports`: (body, at, (device_id, boot_epoch, seq), raw frame)
DeviceReportRow = tuple[dict[str, Any], float, tuple[str, int, int], bytes | None]

ROUND_ADDED = "venue.round"  # a hall event: a round's matches taken from the venue file while running
SNAPSHOT_EVERY = 200
# after a start, time passing ends nothing for this long: devices that ran on while the hub was down (a game
# clock keeps running) report first, so no flag is taken as fallen across the hub's own absence
START_GRACE_S = 15.0
SNAPSHOT_ON = (MatchStatus.FINISHED, MatchStatus.OFFICIAL)  # statuses that take a snapshot when reached
# played out: a table's device moves on to its next match (a protested match was over when appealed)
CLOSED = (
    MatchStatus.FINISHED,
    MatchStatus.OFFICIAL,
    MatchStatus.FORFEIT,
    MatchStatus.ABANDONED,
    MatchStatus.PROTESTED,
)


def replay_match(
    info: MatchInfo, eventlog: EventLog, *, up_to: int | None = None, snapshot: Snapshot | None = None
) -> tuple[MatchState, int]:
    """Rebuild a match from a snapshot and the log's tail, as the hub does on start; also count the events."""
    state = new_match(info)
    if snapshot is not None and (up_to is None or snapshot.offset <= up_to):
        state = from_snapshot(info, snapshot.state)
    return fold_events(state, eventlog.match_tail(info.id, state.version), up_to)


class Hall(PublicHall):
    """Every match of the venue: working state, committed state, and the path from one to the other."""

    def __init__(
        self, venue: Venue, eventlog: EventLog, fanout: Fanout, *, snapshot_every: int = SNAPSHOT_EVERY
    ) -> None:
        super().__init__(venue, fanout)
        self.snapshot_every = snapshot_every
        self.log = eventlog
        self._on_table: dict[str, tuple[str, ...]] = {}
        self._order_tables()
        self.working: dict[str, MatchState] = {}
        self.committed: dict[str, MatchState] = {}
        # `public` (PublicHall) is what spectators may see: the committed state, or for a delayed sport the
        # state `delay` seconds ago
        self._held: dict[str, deque[EventRecord]] = {}  # committed events of delayed matches, not yet public
        self._last_tick: dict[str, float] = {}
        self._ticks_from = float("-inf")  # `START_GRACE_S` after the log was loaded
        self._uncommitted: dict[str, deque[MatchState]] = {}
        # (sport, round) -> its matches not known to be locked: a match that starts locks the round before it
        # (the tournament rules §10)
        self._in_round: dict[tuple[str, int], list[str]] = {}
        for info in self.infos.values():
            self._in_round.setdefault((info.sport, info.round), []).append(info.id)
        self.rounds_added = 0  # rounds taken from the venue file while running
        self.taking_rounds = asyncio.Lock()  # held while the venue file is read again and a round taken
        self.players = {p.name: p for p in venue.players}
        self.rule_overrides = venue.rules  # the venue's own wording of rules, by anomaly code
        self.replayed_events = 0
        eventlog.add_listener(self._on_commit)

    def _order_tables(self) -> None:
        """Each table's matches in the order it plays them (round, then id), worked out once per venue."""
        on_table: dict[str, list[MatchInfo]] = {}
        for info in self.infos.values():
            on_table.setdefault(info.table, []).append(info)
        self._on_table = {
            table: tuple(m.id for m in sorted(infos, key=lambda m: (m.round, m.id)))
            for table, infos in on_table.items()
        }

    # -- start ----------------------------------------------------------------------------------------------

    def load(self, now: float | None = None) -> None:
        """Rebuild every match from the log: latest snapshot, then the tail through the live reducer.

        A delayed match's public state is rebuilt as of `now` minus the delay; the rest is held for release.
        """
        snapshots = self.log.packed_snapshots()
        if self.log.last_id:  # a restart: what ran on meanwhile reports before time passing is judged
            self._ticks_from = (now if now is not None else time.time()) + START_GRACE_S
        # Folding builds millions of small objects that either live on (the states) or are freed by their
        # reference counts (no cycles): the cyclic collector would only walk the growing heap again and
        # again, a large part of a long replay. It runs again once loading is done.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for info in self.infos.values():
                found = snapshots.pop(info.id, None)  # decoded here, with the collector off, and let go after
                snapshot = (
                    None
                    if found is None
                    else Snapshot(info.id, found[0], found[1], unpack_snapshot(found[2]))
                )
                state, folded = replay_match(info, self.log, snapshot=snapshot)
                self.replayed_events += folded
                self.working[info.id] = state
                self.committed[info.id] = state
                self.public[info.id] = state
                if self.delay_s(info) > 0:
                    self._load_delayed(info, now if now is not None else time.time())
        finally:
            if collecting:
                gc.enable()
        self.venue_version = self.log.last_id
        unknown = set(self.log.match_ids()) - set(self.infos)
        for match_id in sorted(unknown):
            log.warning("the log holds events for match %s, which the venue file no longer lists", match_id)

    # -- reading --------------------------------------------------------------------------------------------

    def match(self, match_id: str) -> MatchState:
        """The committed state of a match (what referees see)."""
        try:
            return self.committed[match_id]
        except KeyError:
            raise UnknownMatch(match_id) from None

    def matches(self) -> list[MatchState]:
        """Every match's committed state, by table then round."""
        return sorted(self.committed.values(), key=lambda m: (m.info.table, m.info.round, m.info.id))

    def console_view(self, match: MatchState, at: float | None = None) -> dict[str, Any]:
        """What the referee console shows of a match (now, unless `at`), with its players' private contacts:
        referees only."""
        return referee.console_view(
            match, self.players, self.rule_overrides, at=time.time() if at is None else at
        )

    def audit(self) -> list[dict[str, Any]]:
        """Every referee and hub action on every match (committed), newest first."""
        return referee.audit(self.committed.values())

    def venue_sport(self, table: TableConfig) -> SportRules[Any, Any]:
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

    # -- new rounds -----------------------------------------------------------------------------------------

    async def add_rounds(self, new: NewRounds, actor: str | None, at: float | None = None) -> int:
        """Take a new round from the venue file read again: logged (who, which matches), then scheduled and
        shown; the log id it was recorded at is returned."""
        body = {
            "rounds": list(new.rounds),
            "matches": [m.id for m in new.matches],
            "team_matches": [t.id for t in new.team_matches],
        }
        record = EventRecord(
            id=self.log.next_id(),
            kind=ROUND_ADDED,
            at=time.time() if at is None else at,
            body=body,
            actor=actor,
        )
        await self.log.append(record)
        self.add_matches(new.venue, new.matches, new.team_matches)
        for info in new.matches:
            state = self.public[info.id]
            self.working[info.id] = self.committed[info.id] = state
            self._in_round.setdefault((info.sport, info.round), []).append(info.id)
            if self.delay_s(info) > 0:  # its events go out late, as those of the matches loaded at start
                self._held[info.id] = deque()
        self._order_tables()
        self.venue_version = max(self.venue_version, record.id)
        self.rounds_added += 1
        self.show_new(new.matches)
        return record.id

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
        stored = self._record(match_id, kind, body, at, actor, device_key, raw, answer=True)
        assert stored is not None
        return stored

    def _record(
        self,
        match_id: str,
        kind: EventKind,
        body: dict[str, Any],
        at: float,
        actor: str | None,
        device_key: tuple[str, int, int] | None,
        raw: bytes | None,
        *,
        answer: bool,
    ) -> asyncio.Future[bool] | None:
        """`record`; without `answer`, no one waits for this event's commit (the hall hears of it from its
        listener, as every event), so no future is made for it: a device's report, nearly every event."""
        current = self.working.get(match_id)
        if current is None:
            raise UnknownMatch(match_id)
        offset = current.version + 1
        outcome = apply_event(current, kind, body, offset, at, actor)
        self.working[match_id] = outcome.state
        pending = self._uncommitted.get(match_id)
        if pending is None:
            pending = self._uncommitted[match_id] = deque()
        pending.append(outcome.state)
        device_id, boot_epoch, seq = device_key if device_key else (None, None, None)
        record = EventRecord(
            self.log.next_id(), kind.value, at, body, match_id, offset, device_id, boot_epoch, seq, actor, raw
        )
        stored = None
        if answer:
            stored = self.log.append(record)
        else:
            self.log.append_many([record])
        if current.status is MatchStatus.SCHEDULED and outcome.state.status is not MatchStatus.SCHEDULED:
            self._lock_round_before(current.info, at)
        return stored

    def record_reports(self, match_id: str, reports: Sequence[DeviceReportRow], start: int = 0) -> int:
        """`record` for device reports `reports[start:]` on one match, folded together: up to and including
        the first that changes the match's status (the table may then move on to its next match), at least
        one. Each report is its own log row, as `record` writes it; the match's state is built once for the
        run, not once per report (a device catching up after an outage, a gateway that batches, a read that
        brought many frames). Returns how many were taken."""
        current = self.working.get(match_id)
        if current is None:
            raise UnknownMatch(match_id)
        if len(reports) - start == 1 or current.status is MatchStatus.SCHEDULED or current.status in CLOSED:
            # one report (a scoreboard reporting a rally live), or one the table may move on after: the
            # one-event path, without the run's setup
            body, at, device_key, raw = reports[start]
            self._record(match_id, EventKind.DEVICE_REPORT, body, at, None, device_key, raw, answer=False)
            return 1
        first = current.version + 1
        kind = EventKind.DEVICE_REPORT.value
        # the match is open: the table's next reports come here too (`current_match`), until its status changes
        rows = [(first + n, kind, r[1], None, r[0]) for n, r in enumerate(reports[start:])]
        state, folded = fold_events(current, rows, until_status_changes=True)
        eventlog = self.log
        records = []
        for n in range(folded):
            body, at, (device_id, boot_epoch, seq), raw = reports[start + n]
            records.append(
                EventRecord(
                    eventlog.next_id(),
                    kind,
                    at,
                    body,
                    match_id,
                    first + n,
                    device_id,
                    boot_epoch,
                    seq,
                    None,
                    raw,
                )
            )
        eventlog.append_many(records)  # the hall hears of their commit from its listener
        self.working[match_id] = state
        pending = self._uncommitted.get(match_id)
        if pending is None:
            pending = self._uncommitted[match_id] = deque()
        pending.append(state)  # the run's last state: the commit of its last row makes it official
        return folded

    def _lock_round_before(self, started: MatchInfo, at: float) -> None:
        """A match of round n started: lock every round n-1 result of its sport, as a logged hub action."""
        in_round = self._in_round.get((started.sport, started.round - 1))
        if not in_round:
            return
        # a lock is for good: the next match of round n to start looks only at the round's matches still
        # playing (each start used to walk the whole round, 200 matches, 4 % of an ingest run; then each
        # start asked every match still playing twice, 3 %)
        playing = []
        for match_id in in_round:
            state = self.working[match_id]
            if state.status in referee.UNDECIDED:  # no result to lock yet (`lock_event` would say None)
                playing.append(match_id)
                continue
            lock = referee.lock_event(state, started)
            if lock is not None:
                self.record(match_id, lock.kind, lock.body, at, actor=referee.SYSTEM_ACTOR)
        in_round[:] = playing

    def tick(self, at: float) -> int:
        """Let rules that watch the clock (a penalty coming due, a board settling, a flag falling) see time
        pass, each sport as often as it asks. A tick is logged only where the rules changed something, so
        replay sees the same tick and the log is not filled with nothing. Returns ticks logged. For
        `START_GRACE_S` after a restart, no tick: the devices have not yet said where things stand."""
        if at < self._ticks_from:
            return 0
        due = {
            name
            for name, sport in SPORTS.items()
            if sport.tick is not None and at - self._last_tick.get(name, float("-inf")) >= sport.tick_every_s
        }
        for name in due:
            self._last_tick[name] = at
        logged = 0
        for match_id, state in list(self.working.items()):
            if state.status is not MatchStatus.LIVE or state.info.sport not in due:
                continue
            trial = apply_event(state, EventKind.TICK, {}, state.version + 1, at, None)
            # a reducer hands back the very same state when time passing changed nothing
            if trial.anomalies or trial.facts or trial.state.sport_state is not state.sport_state:
                self.record(match_id, EventKind.TICK, {}, at)
                logged += 1
        return logged

    def tick_every_s(self) -> float:
        """How often `tick` should be called: the shortest interval any sport of this venue asks for."""
        sports = {info.sport for info in self.infos.values()}
        return min((SPORTS[s].tick_every_s for s in sports if SPORTS[s].tick is not None), default=15.0)

    def _on_commit(self, records: list[EventRecord], inserted: list[bool]) -> None:
        changed: dict[str, tuple[MatchState, int]] = {}
        for record, new in zip(records, inserted, strict=True):
            if record.match_id is None or record.offset is None:
                continue
            held = self._held.get(record.match_id)
            if held is not None and new:
                held.append(record)
            pending = self._uncommitted.get(record.match_id)
            while pending and pending[0].version <= record.offset:
                state = pending.popleft()
                if state.version == record.offset:
                    if not new:  # the hall guards against this; if it happens, the log is what counts
                        log.error("match event %s/%s was not stored", record.match_id, record.offset)
                    mid = record.match_id
                    previous = changed[mid][0] if mid in changed else self.committed.get(mid)
                    changed[record.match_id] = (state, record.id)
                    every = self.snapshot_every
                    # every `every` offsets (a run folded at once may step over the multiple itself)
                    if (previous.version if previous else 0) // every < state.version // every or (
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
            if match_id not in self._held:  # a delayed match goes out through `release`
                self._publish_public(state)
            if (  # the console follows status, anomalies (and their handling), referee actions, sign-offs
                before is None
                or before.status is not state.status
                or before.anomalies is not state.anomalies
                or before.referee is not state.referee
            ):
                self.fanout.publish("referee", self.venue_version, self.console_view(state), key=match_id)

    # -- broadcast delay -----------------------------------------------------------------------------------

    def _load_delayed(self, info: MatchInfo, now: float) -> None:
        """Rebuild a delayed match's public state as of `now - delay`, and hold the events after it."""
        cut = now - self.delay_s(info)
        public = new_match(info)
        held: deque[EventRecord] = deque()
        for record in self.log.match_events(info.id, 0):
            if record.at <= cut and not held:
                public = apply_event(
                    public, record.kind, record.body, _offset(record), record.at, record.actor
                ).state
            else:
                held.append(record)
        self.public[info.id] = public
        self._held[info.id] = held

    def release(self, now: float) -> int:
        """Make public what the broadcast delay held back and is now old enough; returns events released."""
        released = 0
        for match_id, held in self._held.items():
            if not held or held[0].at > now - self.delay_s(self.infos[match_id]):
                continue
            state = self.public[match_id]
            cut = now - self.delay_s(state.info)
            while held and held[0].at <= cut:
                r = held.popleft()
                state = apply_event(state, r.kind, r.body, _offset(r), r.at, r.actor).state
                released += 1
            self.venue_version = max(self.venue_version, self.log.last_id)
            self.fanout.forget_snapshot("venue")  # the content changed; the version may not have
            self._publish_public(state)
        return released

    def _snapshot_source(self, topic: str) -> SnapshotSource | None:
        if topic == "referee":
            return lambda: (
                self.venue_version,
                lambda: {"official": False, "matches": [self.console_view(m) for m in self.matches()]},
            )
        return super()._snapshot_source(topic)


def _offset(record: EventRecord) -> int:
    """A match event's offset in its match (every event a match's log returns has one)."""
    assert record.offset is not None
    return record.offset
