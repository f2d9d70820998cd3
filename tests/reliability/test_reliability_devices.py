"""Device faults the device tests do not already cover, end to end: a hand-written Boardcast Wire device on
a real pseudo-terminal, the real session, ingest, hall and event log.

Covered elsewhere (not repeated): unplug and replug, silence, a missing port, a hello from another device
(`tests/devices/test_session_serial.py`), the u16 wrap inside the session and the sequence unwrapper
(`test_wire_sequence.py`), a resent frame, a gap and a new boot epoch fed straight into ingest
(`tests/hub/test_ingest.py`), damaged streams (`tests/hub/test_damaged_streams.py`).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

from boardcast_sim.pty import open_pty_pair
from devices.observations import DeviceHello, Heartbeat, ScoreboardState
from devices.wire.messages import encode_report
from devices.wire.session import DeviceSession
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo
from hub.venue import TableConfig, Venue
from tests.devices.support import FAST, eventually
from tests.reliability.conftest import Tried

DEVICE = "rel-board-1"


def _hello(epoch: int) -> DeviceHello:
    return DeviceHello(DEVICE, "tt-scoreboard", "manual", "0.1", 1, epoch, ("resync", "ack"))


def _state(count: int) -> ScoreboardState:
    """The display after `count` points: a deuce that never ends, so every frame is a legal next score."""
    return ScoreboardState(points=((count + 1) // 2, count // 2), games=(0, 0))


class Rig:
    """A hub core (log, hall, ingest) with one table whose device is on a fresh pty."""

    def __init__(self, tmp_path: Path) -> None:
        self.pty = open_pty_pair()
        table = TableConfig("T1", "tabletennis", self.pty.slave_path, DEVICE)
        self.venue = Venue("Faults", (table,), (MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 5),))
        self.log = EventLog(tmp_path / "events.sqlite3")
        self.log.open()
        self.hall = Hall(self.venue, self.log, Fanout())
        self.hall.load()
        self.ingest = Ingest(self.hall)
        self.session = DeviceSession.for_url(
            self.pty.slave_path, self.ingest.sink_for(table), expected_device_id=DEVICE, backoff=FAST
        )
        os.set_blocking(self.pty.master_fd, True)

    async def write(self, data: bytes) -> None:
        """Write everything, at the speed the pty takes it (a blocking write in a thread)."""
        view = memoryview(data)
        while view:
            n = await asyncio.to_thread(os.write, self.pty.master_fd, view[:65536])
            view = view[n:]

    def health(self):
        return self.ingest.health["T1"]

    def device_keys(self) -> list[tuple[int, int]]:
        rows, after = [], 0
        while batch := self.log.events(after_id=after, limit=5000):
            rows += [(e.boot_epoch, e.seq) for e in batch if e.device_id == DEVICE]
            after = batch[-1].id
        return rows


async def test_wrap_reboot_duplicates_and_reorders_store_each_frame_once(
    tmp_path: Path, tried: Tried
) -> None:
    rig = Rig(tmp_path)
    rng = random.Random(5)
    sent: list[tuple[int, int, int]] = []  # (epoch, raw seq, points count) in the order written
    try:
        async with asyncio.TaskGroup() as tg:
            task = tg.create_task(rig.session.run())
            rig.log.start()
            count = 0
            plan: list[tuple[int, int, object]] = []
            # boot 5 starts near the top of the u16 counter and wraps; boot 6 (a reboot) starts again at 0
            for epoch, first, frames in ((5, 65_500, 80), (6, 0, 40)):
                plan.append((epoch, first, _hello(epoch)))
                for raw in range(first + 1, first + 1 + frames):
                    count += 1
                    plan.append((epoch, raw % 65_536, count))
            order = list(range(len(plan)))
            swaps = dups = 0
            for i in range(2, len(order) - 1):  # reorder neighbours (never a hello) and repeat some frames
                hellos = isinstance(plan[order[i]][2], DeviceHello) or isinstance(
                    plan[order[i + 1]][2], DeviceHello
                )
                if rng.random() < 0.08 and not hellos:
                    order[i], order[i + 1] = order[i + 1], order[i]
                    swaps += 1
            sequence = []
            for i in order:
                sequence.append(i)
                if rng.random() < 0.08 and not isinstance(plan[i][2], DeviceHello):
                    sequence.append(i)
                    dups += 1
            await eventually(lambda: rig.session.connected, 10)
            for i in sequence:
                epoch, raw, what = plan[i]
                report = what if isinstance(what, DeviceHello) else _state(what)
                await rig.write(encode_report(report, raw))
                if isinstance(what, DeviceHello):
                    await asyncio.sleep(0.2)  # let the session take the new boot before its frames
                else:
                    sent.append((epoch, raw, what))
            await eventually(lambda: rig.health().frames >= len(sequence) - 2, 15)
            await rig.log.flush()
            task.cancel()
        keys = rig.device_keys()
        match = rig.hall.match("M1")
    finally:
        await rig.log.close()
        rig.pty.close()
    distinct = {(e, r) for e, r, _ in sent}
    assert len(keys) == len(set(keys)), "a frame was stored twice"
    assert len([k for k in keys if k[0] in (5, 6)]) >= len(distinct)  # every frame, hellos too
    assert max(s for e, s in keys if e == 5) > 65_535  # the wrap kept counting up, not back to 0
    assert min(s for e, s in keys if e == 6) <= 1  # the reboot started again
    # the newest frame of the last boot always arrives new, so the score is the device's last display
    assert match.sport_state.points == _state(count).points
    health = rig.health()
    assert health.late >= dups  # every repeat, and every frame overtaken by its neighbour, was seen late
    gaps = [a for a in match.anomalies if a.code == "device.gap"]
    if swaps:
        assert gaps, "a frame that overtook its neighbour left no visible gap"
    tried(
        "device seq wrap-around (65500 → 65580), reboot with a new epoch, duplicated and reordered frames",
        area="device faults",
        count=len(sequence),
        observed=f"{len(distinct)} distinct frames each stored once; {dups} repeats and {swaps} swaps "
        f"seen as {health.late} late frames and {len(gaps)} device.gap anomalies; the seq kept growing "
        f"across the wrap and started again after the reboot",
    )


async def test_a_garbage_flood_at_full_speed_loses_no_valid_frame(tmp_path: Path, tried: Tried) -> None:
    rig = Rig(tmp_path)
    rng = random.Random(11)
    frames, chunk = 32, 64 * 1024
    try:
        async with asyncio.TaskGroup() as tg:
            task = tg.create_task(rig.session.run())
            rig.log.start()
            await eventually(lambda: rig.session.connected, 10)
            await rig.write(encode_report(_hello(9), 0))
            await asyncio.sleep(0.2)
            started = time.monotonic()
            for seq in range(1, frames + 1):  # 2 MiB of noise, a valid frame after each 64 KiB
                await rig.write(rng.randbytes(chunk) + b"\x00" + encode_report(_state(seq), seq))
            elapsed = time.monotonic() - started
            await eventually(
                lambda: rig.hall.working["M1"].sport_state is not None and rig.health().frames >= frames + 1,
                20,
            )
            await rig.log.flush()
            task.cancel()
        keys = rig.device_keys()
        health = rig.health()
    finally:
        await rig.log.close()
        rig.pty.close()
    assert set(range(1, frames + 1)) <= {s for e, s in keys if e == 9}
    assert len(keys) == len(set(keys)) and health.frame_errors > frames
    tried(
        "garbage flood at full speed on a serial line (2 MiB of random bytes, a valid frame every 64 KiB)",
        area="device faults",
        count=frames * chunk,
        observed=f"all {frames} valid frames stored once; {health.frame_errors} frame errors counted in "
        f"device health; written in {elapsed:.1f} s",
    )


async def test_a_device_clock_that_jumps_is_kept_as_reported_and_orders_nothing(
    tmp_path: Path, tried: Tried
) -> None:
    """The device's own clock (heartbeat uptime) jumps forwards and back within one boot: the hub orders by
    seq and stamps with its own time, so the score is unaffected, and every uptime is logged as the device
    said it (nothing smoothed or dropped)."""
    rig = Rig(tmp_path)
    uptimes = [10, 11, 12, 4_000_000, 4_000_001, 3, 4, 2**31 - 1, 0, 5, 6, 7]
    try:
        async with asyncio.TaskGroup() as tg:
            task = tg.create_task(rig.session.run())
            rig.log.start()
            await eventually(lambda: rig.session.connected, 10)
            await rig.write(encode_report(_hello(3), 0))
            await asyncio.sleep(0.2)
            seq = 0
            for n, uptime in enumerate(uptimes, start=1):
                seq += 1
                await rig.write(encode_report(_state(n), seq))
                seq += 1
                await rig.write(encode_report(Heartbeat(battery=80, uptime_s=uptime), seq))
            await eventually(lambda: rig.health().frames >= 2 * len(uptimes) + 1, 15)
            await rig.log.flush()
            task.cancel()
        events = rig.log.events(limit=10_000)
        match = rig.hall.match("M1")
    finally:
        await rig.log.close()
        rig.pty.close()
    logged = [e.body["report"]["uptime_s"] for e in events if e.kind == "device.heartbeat"]
    assert logged == uptimes
    assert match.sport_state.points == _state(len(uptimes)).points
    stamps = [e.at for e in events if e.device_id == DEVICE]
    assert stamps == sorted(stamps)  # the hub's clock, not the device's, orders what happened
    assert not [a for a in match.anomalies if a.code == "device.gap"] and rig.health().late == 0
    tried(
        "device clock (uptime) jumping forwards and back within one boot",
        area="device faults",
        count=len(uptimes),
        observed="every uptime logged exactly as reported; score applied in seq order; hub timestamps "
        "monotonic; no false gap or late frame",
    )
