"""scaling: how the hub's cost grows with spectators (1k, 2k, 5k, 10k at 200 tables) and tables (50, 200, 800).

Server: a real `HubRuntime` in its own process (`python -m benchmarks.hubprocess`, pinned to CPU 0, the
default asyncio loop as `boardcast serve` runs it), so its CPU time and RSS are its own; its tables are wired
to real pty pairs, which it opens by path as it would /dev/ttyACM0, with sessions, codec, ingest, rules, the
log (its writer process, synchronous=FULL) and fan-out. Devices: `benchmarks.ptydevices`, another process
holding every pty master, writes one display per table per second and stamps each write with the wall clock
just before `os.write`, outside the hub. Spectators: `benchmarks.wsclient` processes (CPU 1 with the
devices), each client a phone on a match page: one match (`match:M1-Tk`, as `web-display/match.js`
subscribes), the spectators spread evenly over the tables. The venue wall is not subscribed: its changes are
gathered in a window that grows with its audience and are timed by the `spectators` benchmark.

At each point, over the measuring window (after a warm-up, with every client connected):

- `cpu_us_per_message`: the hub's CPU time (the run time of every thread of the hub process and of its
  log writer process, from /proc/PID/task/TID/schedstat) ÷ the changes delivered to clients in the window.
  It carries everything the hub does, reading the ptys and logging included, so it is higher where few
  spectators share many tables (`hub_cpu_share` is the same time as a share of one core); along the
  spectator sweep `marginal_cpu_us_per_message` is each step's added CPU ÷ its added messages, where the
  tables' cost cancels.
- `rss_kib_per_conn`: (the hub process's peak VmRSS in the window − its VmRSS before any client) ÷ clients.
- `kernel_kib_per_conn`: the hub's side of each connection in the kernel: the buffers `ss -tmn` reports as
  skmem (rmem_alloc + wmem_queued + fwd_alloc + opt_mem, at the highest of two samples in the window) of the
  established sockets whose *local* port is the hub's port (the accepted sockets the hub holds; a client's
  socket has it as its remote port), plus the fixed kernel objects each socket needs (slab sizes from
  /proc/slabinfo of TCP, sock_inode_cache, filp, dentry, eventpoll_epi). /proc/net/sockstat is not used: on
  loopback it counts both ends of every connection, and every other process's sockets.
- `p50_ms`/`p99_ms`: device write → client read. After the window the hub stops, the benchmark reads its log,
  ties each match version to the device write that produced it (table and displayed score) and the clients
  turn their (match, version, receive time) records into latencies; snapshots are not timed. The part
  before the hub's rules, log and fan-out (`read_p50_ms`/`read_p99_ms`: write → the session decoding the
  frame, the report's `at` in the log) is reported beside it.

To tell the hub's own cost from the machine's, each point also reports (from inside the hub process, see
`benchmarks.hubprocess`) how late the hub's loop woke a 10 ms timer, how late its own work alone made it
(the loop thread's CPU time per tick), how long that thread waited for a CPU, and its collections; and from
`ss` the bytes the hub had not yet sent and the clients had not yet read. Figures land in `details["points"]`
(one entry per point: spectators, tables, cpu_us_per_message, rss_kib_per_conn, kernel_kib_per_conn,
p50_ms, p99_ms, delivered, …).

No baseline: the figures are service levels. The row passes when the largest spectator point (10,000 at full
size) has p99 ≤ 400 ms and hub RSS + kernel ≤ 30 KiB per connection, with every client connected and none
closed.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.common import (
    ClientFleet,
    Result,
    client_cpus,
    merge_hist,
    percentile_ms,
    raise_nofile,
    say,
    scratch,
    server_cpu,
)
from benchmarks.common import sizes as pick_sizes
from benchmarks.hubprocess import (
    HubProcess,
    cpu_seconds,
    loop_wait_s,
    rss_kib_of,
    socket_buffers,
    socket_struct_bytes,
)
from benchmarks.ptyboards import DeviceProcess, device_reports, version_map
from boardcast_sim.pty import PtyPair, open_pty_pair

NAME = "scaling"
FULL = {
    "spectators": [1000, 2000, 5000, 10000],  # at `tables_fixed` tables
    "tables": [50, 200, 800],  # at `spectators_fixed` spectators
    "tables_fixed": 200,
    "spectators_fixed": 2000,
    "rate_per_table": 1.0,
    "warmup_s": 2.0,
    "window_s": 8.0,
    "client_processes": 4,
    "connect_s": 90.0,
}
SMOKE = {
    "spectators": [10, 20],
    "tables": [4],
    "tables_fixed": 4,
    "spectators_fixed": 10,
    "rate_per_table": 2.0,
    "warmup_s": 0.5,
    "window_s": 1.0,
    "client_processes": 1,
    "connect_s": 10.0,
}
P99_MS = 400.0
KIB_PER_CONN = 30.0
KEPT_UP = 0.99  # share of the owed changes delivered in the window by a hub that keeps up
STARVED = 0.10  # a hub loop runnable but off its CPU more than this share of the window was starved


# -- one point --------------------------------------------------------------------------------------------


class WindowSampler:
    """The hub's CPU at the window's ends, its peak RSS and the highest kernel buffer total in the window."""

    def __init__(self, hub: HubProcess, t0: float, t1: float) -> None:
        self.hub, self.t0, self.t1 = hub, t0, t1
        self.cpu0: dict[int, tuple[float, float]] = {}
        self.cpu1: dict[int, tuple[float, float]] = {}
        self.loop_wait0 = self.loop_wait1 = 0.0
        self.rss_peak = 0
        self.buffers: dict[str, int] = {"sockets": 0, "bytes": 0}  # the sample with the most bytes
        self.unread = 0  # the most bytes the clients' sockets held unread at a sample
        self.unsent = 0  # the most bytes the hub's sockets held unsent at a sample

    async def run(self) -> None:
        pid = self.hub.pid
        await asyncio.sleep(max(0.0, self.t0 - time.time()))
        self.cpu0, self.loop_wait0 = cpu_seconds(pid), loop_wait_s(pid)
        span = self.t1 - self.t0
        samples_ss = {self.t0 + span * 0.5, self.t0 + span * 0.9}  # ss of 10k sockets is itself work
        while time.time() < self.t1:
            self.rss_peak = max(self.rss_peak, rss_kib_of(pid))
            due = [t for t in samples_ss if t <= time.time()]
            for t in due:
                samples_ss.discard(t)
                got = await socket_buffers(self.hub.port)
                self.buffers = max(self.buffers, got, key=lambda s: (s["bytes"], s["sockets"]))
                self.unread = max(self.unread, got["clients_unread"])
                self.unsent = max(self.unsent, got["unsent"])
            await asyncio.sleep(min(0.25, max(0.0, self.t1 - time.time())))
        self.cpu1, self.loop_wait1 = cpu_seconds(pid), loop_wait_s(pid)
        self.rss_peak = max(self.rss_peak, rss_kib_of(pid))

    def cpu_s(self) -> tuple[float, float]:
        """(hub process, whole tree) CPU seconds over the window."""
        pid = self.hub.pid
        main = self.cpu1.get(pid, (0.0, 0.0))[0] - self.cpu0.get(pid, (0.0, 0.0))[0]
        tree = sum(v[0] - self.cpu0.get(p, (0.0, 0.0))[0] for p, v in self.cpu1.items())
        return main, tree

    def waited_s(self) -> float:
        """Seconds the hub's event-loop thread was runnable but waiting for a CPU, over the window."""
        return self.loop_wait1 - self.loop_wait0


class Stage:
    """One point's ptys, devices process and hub process, spawned ahead: both spend a second or two
    importing, which a benchmark can let them do while it finishes the point before."""

    def __init__(self, tables: int) -> None:
        self.tables = tables
        self.ptys: list[PtyPair] = []
        self.devices = DeviceProcess()
        self.hub = HubProcess()

    async def spawn(self) -> None:
        self.ptys = [open_pty_pair() for _ in range(self.tables)]
        await asyncio.gather(self.devices.spawn(self.ptys), self.hub.spawn())

    async def close(self) -> None:
        """Stop everything it started; safe to call twice."""
        await self.devices.close()
        await self.hub.stop()
        for p in self.ptys:
            p.close()


async def measure(
    spectators: int,
    stage: Stage,
    sizes: dict[str, Any],
    struct_bytes: int,
    after_window: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """One point: a fresh hub, devices and clients; the figures of its window. `after_window` runs once the
    window is over (the next point's processes start importing)."""
    tables, devices, hub = stage.tables, stage.devices, stage.hub
    seconds = sizes["warmup_s"] + sizes["window_s"] + 0.3  # the devices write a little past the window
    try:
        with scratch(NAME) as data:
            device_ids = [f"tt-{i + 1}" for i in range(tables)]
            await asyncio.gather(  # the parent holds the slave ends meanwhile: the ptys stay alive
                devices.configure(device_ids, sizes["rate_per_table"], seconds),
                hub.start(tables, [p.slave_path for p in stage.ptys], data),
            )
            say(f"{NAME}: hub {hub.pid} serving on port {hub.port}")
            fleet = ClientFleet(
                hub.port,
                [[f"match:M1-T{i % tables + 1}"] for i in range(spectators)],
                "version",
                processes=sizes["client_processes"],
                batch=True,  # as the spectator pages subscribe
            )
            try:
                r = await _drive(hub, devices, fleet, sizes, seconds, spectators)
                if after_window is not None:
                    await after_window()
                stats = await hub.stop()
                log = data / "events.sqlite3"
                mapping, r["log_unmatched"] = version_map(log, r.pop("writes"))
                r["read_delays"] = _read_delays(log, mapping, r["t0"], r["t1"])
                await fleet.send_all({"map": mapping})
                r["results"] = await fleet.results(within=60)
            finally:
                await fleet.close()
                await hub.stop()
    finally:
        await stage.close()
    return _point(spectators, tables, r, stats, struct_bytes, sizes["window_s"])


async def _drive(
    hub: HubProcess,
    devices: DeviceProcess,
    fleet: ClientFleet,
    sizes: dict[str, Any],
    seconds: float,
    spectators: int,
) -> dict[str, Any]:
    """Connect the clients, let the devices write, sample the hub over the window; the raw counts."""
    await asyncio.sleep(0.2)  # the hub settles after opening its ptys
    rss_before = rss_kib_of(hub.pid)
    say(f"{NAME}: connecting {spectators} clients")
    started = time.time()
    ready, failed = await fleet.start(within=sizes["connect_s"])
    connect_s = time.time() - started
    say(f"{NAME}: {ready} connected, {failed} failed in {connect_s:.1f} s")
    rss_connected = rss_kib_of(hub.pid)
    await devices.go()
    t0 = time.time() + sizes["warmup_s"]
    t1 = t0 + sizes["window_s"]
    await fleet.window(t0, t1)
    await hub.window(t0, t1)
    sampler = WindowSampler(hub, t0, t1)
    sampling = asyncio.create_task(sampler.run())
    counts = await fleet.results(within=seconds + 30)
    await sampling
    writes = await devices.writes(within=seconds + 30)
    return {
        "ready": ready,
        "failed": failed,
        "connect_s": connect_s,
        "rss_before": rss_before,
        "rss_connected": rss_connected,
        "sampler": sampler,
        "counts": counts,
        "writes": writes,
        "device_writes": sum(len(v) for v in writes.values()),
        "owed": _owed(writes, spectators, t0, t1),
        "t0": t0,
        "t1": t1,
        "highest_fd": hub.highest_fd,
    }


def _read_delays(log: Path, mapping: dict[str, dict[str, float]], t0: float, t1: float) -> list[float]:
    """Seconds from each device write in the window to the hub reading it (the report's `at` in the log,
    the session's clock when it decoded the frame), sorted: the part of the latency before the hub's rules,
    log and fan-out."""
    rows = device_reports(log, "at")
    delays = []
    for match_id, offset, at in rows:
        written = mapping.get(match_id, {}).get(str(offset))
        if written is not None and t0 <= written < t1:
            delays.append(at - written)
    return sorted(delays)


def _owed(writes: dict[str, list[list[float]]], spectators: int, t0: float, t1: float) -> int:
    """Changes owed to clients for the writes in the window: each table's writes × its watchers (client i
    watches table i mod tables). At a steady state what is received in the window matches it."""
    tables = len(writes)
    owed = 0
    for device_id, rows in writes.items():
        k = int(device_id.split("-")[1]) - 1
        watchers = spectators // tables + (1 if k < spectators % tables else 0)
        owed += watchers * sum(1 for row in rows if t0 <= row[-1] < t1)
    return owed


def _point(
    spectators: int, tables: int, r: dict[str, Any], stats: dict[str, Any], struct_bytes: int, window_s: float
) -> dict[str, Any]:
    sampler: WindowSampler = r["sampler"]
    hist = merge_hist(r["results"])
    delivered = sum(c["records"] for c in r["counts"])
    main_s, tree_s = sampler.cpu_s()
    ready = max(1, r["ready"])
    sockets, buffer_bytes = sampler.buffers["sockets"], sampler.buffers["bytes"]
    buffers_kib = buffer_bytes / max(1, sockets) / 1024
    structs_kib = struct_bytes / 1024
    rss_per = (sampler.rss_peak - r["rss_before"]) / ready
    return {
        "spectators": spectators,
        "tables": tables,
        "cpu_us_per_message": round(tree_s * 1e6 / delivered, 2) if delivered else float("nan"),
        "rss_kib_per_conn": round(rss_per, 2),
        "kernel_kib_per_conn": round(buffers_kib + structs_kib, 2),
        "p50_ms": percentile_ms(hist, 0.5),
        "p99_ms": percentile_ms(hist, 0.99),
        "max_ms": percentile_ms(hist, 1.0),
        "read_p50_ms": _quantile_ms(r["read_delays"], 0.5),
        "read_p99_ms": _quantile_ms(r["read_delays"], 0.99),
        "delivered": delivered,
        "delivered_share": round(delivered / r["owed"], 3) if r["owed"] else None,
        "timed": sum(hist.values()),
        "untimed": sum(x.get("unmatched", 0) for x in r["results"]),
        "device_writes": r["device_writes"],
        "frames_read_by_hub": stats.get("frames_ok"),
        "log_reports_unmatched": r["log_unmatched"],
        "connected": r["ready"],
        "closed": sum(c["closed"] for c in r["counts"]) + stats.get("closed_stuck", 0),
        "connect_s": round(r["connect_s"], 1),
        "hub_cpu_s": round(tree_s, 4),
        "hub_cpu_share": round(tree_s / window_s, 3),
        "hub_main_cpu_share": round(main_s / window_s, 3),
        "hub_rss_before_kib": r["rss_before"],
        "rss_connected_kib_per_conn": round((r["rss_connected"] - r["rss_before"]) / ready, 2),
        "kernel_buffers_kib_per_conn": round(buffers_kib, 2),
        "kernel_structs_kib_per_conn": round(structs_kib, 2),
        "hub_sockets_seen": sockets,
        "hub_highest_fd": r["highest_fd"],
        "hub_unsent_kib": round(sampler.unsent / 1024, 1),
        "clients_unread_kib": round(sampler.unread / 1024, 1),
        **_client_cost(r["results"]),
        "hub_loop_lag_p99_ms": stats.get("loop_lag_p99_ms"),
        "hub_loop_lag_max_ms": stats.get("loop_lag_max_ms"),
        "hub_loop_own_lag_p99_ms": stats.get("loop_own_lag_p99_ms"),
        "hub_loop_own_lag_max_ms": stats.get("loop_own_lag_max_ms"),
        "hub_gc_longest_pause_ms": stats.get("gc_longest_pause_ms"),
        "hub_gc_in_window": stats.get("gc_in_window"),
        "hub_gc_in_window_ms": stats.get("gc_in_window_ms"),
        "hub_gc_longest_in_window_ms": stats.get("gc_longest_in_window_ms"),
        "hub_loop_waited_for_cpu_share": round(sampler.waited_s() / window_s, 3),
    }


def _client_cost(results: list[dict[str, Any]]) -> dict[str, float | None]:
    """The client processes in the window: their CPU time as a share of one core, and the mean share of the
    window a process spent runnable but waiting for a CPU (clients that wait are late readers)."""
    timed = [x for x in results if x.get("wall_s")]
    if not timed:
        return {"clients_cpu_share": None, "clients_waited_share": None}
    wall = max(x["wall_s"] for x in timed)
    waited = sum((x["ready_s"] - x["cpu_s"]) / x["wall_s"] for x in timed) / len(timed)
    return {
        "clients_cpu_share": round(sum(x["cpu_s"] for x in timed) / wall, 3),
        "clients_waited_share": round(max(0.0, waited), 3),
    }


def _quantile_ms(sorted_s: list[float], q: float) -> float:
    return round(sorted_s[int(q * (len(sorted_s) - 1))] * 1000, 2) if sorted_s else float("nan")


def _line(p: dict[str, Any]) -> str:
    """One point as a note: the figures, then what explains its latency."""
    parts = [
        f"{p['spectators']:,} spectators × {p['tables']} tables: {p['cpu_us_per_message']} µs CPU/message",
        f"(hub {p['hub_cpu_share']:.0%} of a core), RSS {p['rss_kib_per_conn']} + kernel",
        f"{p['kernel_kib_per_conn']} KiB/conn, p50 {p['p50_ms']:.1f} / p99 {p['p99_ms']:.1f} ms",
        f"(write → hub read {p['read_p50_ms']} / {p['read_p99_ms']} ms),",
        f"{p['delivered']:,} delivered ({p['delivered_share']} of owed), {p['connected']:,} connected,",
        f"{p['closed']} closed; hub loop late {p['hub_loop_lag_p99_ms']} ms p99 ({p['hub_loop_lag_max_ms']} max;",
        f"by its own work {p['hub_loop_own_lag_p99_ms']} / {p['hub_loop_own_lag_max_ms']}),",
        f"its loop waited for a CPU {p['hub_loop_waited_for_cpu_share']:.0%} of the window;",
        f"collections {p['hub_gc_in_window']}, {p['hub_gc_in_window_ms']} ms",
        f"(longest {p['hub_gc_longest_in_window_ms']}); unsent {p['hub_unsent_kib']} KiB,",
        f"clients' unread {p['clients_unread_kib']} KiB; clients used {p['clients_cpu_share']} of a core and",
        f"waited for one {p['clients_waited_share']} of the window",
    ]
    return " ".join(parts)


# -- the row ----------------------------------------------------------------------------------------------


def _marginal(results: list[dict[str, Any]], tables: int) -> None:
    """Along the spectator sweep, what each step's added messages cost: (hub CPU − the step before's) ÷
    (messages delivered − the step before's). The reading of the ptys and the log is the same at every
    step, so it cancels; what is left is the fan-out's own cost per message (noisy on a busy machine).
    A hub behind its work (less than `KEPT_UP` of what it owed delivered in the window) has not yet spent
    the CPU for it, so no figure is given there."""
    sweep = sorted((p for p in results if p["tables"] == tables), key=lambda p: p["spectators"])
    for before, after in itertools.pairwise(sweep):
        more = after["delivered"] - before["delivered"]
        cpu = after["hub_cpu_s"] - before["hub_cpu_s"]
        kept_up = min(before["delivered_share"] or 0.0, after["delivered_share"] or 0.0) >= KEPT_UP
        after["marginal_cpu_us_per_message"] = round(cpu * 1e6 / more, 2) if more > 0 and kept_up else None


def points_of(sizes: dict[str, Any]) -> list[tuple[int, int]]:
    """(spectators, tables) to run, each once: the spectator sweep, then the table sweep."""
    out = [(s, sizes["tables_fixed"]) for s in sizes["spectators"]]
    out += [(sizes["spectators_fixed"], t) for t in sizes["tables"]]
    return list(dict.fromkeys(out))


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = []
    spread = client_cpus()
    if spread:  # this process works beside the clients, not on the hub's CPU
        os.sched_setaffinity(0, set(spread))
        others = ", ".join(map(str, spread))
        notes.append(
            f"hub process pinned to CPU {server_cpu()}; clients, devices and this process to CPU {others}"
        )
    points = points_of(sizes)
    most = max(s for s, _ in points)
    raised = raise_nofile(most + 3 * max(t for _, t in points) + 1024)  # inherited by client processes
    if raised:
        notes.append(raised)
    struct_bytes, struct_note = socket_struct_bytes()
    notes.append(f"kernel per connection = skmem buffers of the hub's sockets + {struct_note}")
    results = []
    stages = [Stage(tables) for _, tables in points]  # each spawned while the point before ends
    try:
        await stages[0].spawn()
        for i, (spectators, tables) in enumerate(points):
            say(f"{NAME}: point {spectators} spectators, {tables} tables")
            following = stages[i + 1].spawn if i + 1 < len(stages) else None
            results.append(await measure(spectators, stages[i], sizes, struct_bytes, following))
            notes.append(_line(results[-1]))
            say(f"{NAME}: {notes[-1]}")
    finally:
        for stage in stages:
            await stage.close()
    _marginal(results, sizes["tables_fixed"])
    top = max(results, key=lambda p: (p["spectators"], p["tables"] == sizes["tables_fixed"]))
    per_conn = top["rss_kib_per_conn"] + top["kernel_kib_per_conn"]
    starved = [p for p in results if p["hub_loop_waited_for_cpu_share"] > STARVED]
    if starved:  # what the latency then measures is the machine's other work, not the hub
        points_named = ", ".join(f"{p['spectators']:,}×{p['tables']}" for p in starved)
        notes.append(
            f"the hub's loop waited for a CPU more than {STARVED:.0%} of the window at {points_named}"
            " (other processes on its CPU): compare those points' `hub_loop_own_lag_*` (its own work)"
        )
    passed = (
        top["p99_ms"] <= P99_MS
        and per_conn <= KIB_PER_CONN
        and top["connected"] == top["spectators"]
        and top["closed"] == 0
    )
    return Result(
        name=NAME,
        unit="ms p99",
        ours=top["p99_ms"],
        baseline=None,
        target=f"at {top['spectators']:,} spectators: p99 ≤ {P99_MS:.0f} ms, ≤ {KIB_PER_CONN:.0f} KiB/conn",
        passed=passed,
        sizes={**sizes, "spectator_topics": "one match each (a match page)", "changes": "1/s per table"},
        details={"points": results, "top_kib_per_conn": round(per_conn, 2)},
        notes=notes,
    )
