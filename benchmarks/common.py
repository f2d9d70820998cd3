"""What every benchmark shares: its result row, client processes, the hub under test, and small tools."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import orjson

import hub.server.app
from benchmarks.changeclock import RECORD
from benchmarks.wsclient import BUCKETS_PER_MS
from boardcast_sim.tabletennis import TableTennisMatchSim
from devices.observations import DeviceFamily, DeviceHello, Observation, ScoreboardState
from hub.matches import MatchInfo
from hub.server.app import HubRuntime
from hub.venue import TableConfig, Venue
from hub.web import WebContext

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # loopback only


@dataclass
class Result:
    """One row of the table, and the details printed under it."""

    name: str
    unit: str
    ours: float
    baseline: float | None
    target: str
    passed: bool
    sizes: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """Ours over the baseline, when there is one."""
        if self.baseline in (None, 0):
            return None
        return self.ours / self.baseline

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for the runner and `--json`."""
        return {**asdict(self), "ratio": self.ratio}


def device_frames(runtime: HubRuntime) -> int:
    """Frames the hub's device sessions took as observations: the sessions that read frames (a table's
    browser-device session, an umpire's pad, reads none and is not counted)."""
    return sum(
        stats.frames_ok for s in list(runtime.sessions.values()) if (stats := getattr(s, "stats", None))
    )


def sizes(full: dict[str, Any], smoke_sizes: dict[str, Any], smoke: bool) -> dict[str, Any]:
    """The sizes to run; `BENCH_SIZES='{"clients": 1000}'` overrides some, for exploring (say so if used)."""
    chosen = dict(smoke_sizes if smoke else full)
    chosen.update({k: v for k, v in orjson.loads(os.environ.get("BENCH_SIZES", "{}")).items() if k in chosen})
    return chosen


def say(message: str) -> None:
    """Progress on stderr (the runner keeps it for a crash report)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- processes and machine --------------------------------------------------------------------------------


def _allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def server_cpu() -> int:
    """The CPU the server under test is pinned to: the first this process may use."""
    return _allowed_cpus()[0]


def client_cpus() -> list[int]:
    """The CPUs client processes are spread over (every allowed one but the server's), or [] with one CPU."""
    return _allowed_cpus()[1:]


def client_cpu(index: int = 0) -> int | None:
    """The CPU the `index`-th client process is pinned to (round robin), or None when there is only one."""
    spread = client_cpus()
    return spread[index % len(spread)] if spread else None


def pin_server() -> str:
    """Pin this (server) process to its CPU when the machine has another for the clients."""
    spread = client_cpus()
    if spread:
        os.sched_setaffinity(0, {server_cpu()})
        return f"server pinned to CPU {server_cpu()}, client processes to CPU {', '.join(map(str, spread))}"
    return "one CPU: server and clients share it"


def rss_kib() -> int:
    """This process's resident set, KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class RssSampler:
    """Samples this process's RSS every `every` seconds; `peak` is the highest seen."""

    def __init__(self, every: float = 0.25) -> None:
        self.every = every
        self.peak = rss_kib()
        self._task: asyncio.Task[None] | None = None

    def __enter__(self) -> RssSampler:
        self.peak = rss_kib()
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        self.peak = max(self.peak, rss_kib())
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            self.peak = max(self.peak, rss_kib())
            await asyncio.sleep(self.every)


MEMORY_FILESYSTEMS = {"tmpfs", "ramfs"}


def filesystem(path: Path) -> dict[str, str]:
    """The mount holding `path`, from /proc/mounts: its type, device and mount point."""
    real = os.path.realpath(path)
    best = {"type": "unknown", "device": "unknown", "mount": "/"}
    with contextlib.suppress(OSError), open("/proc/mounts") as mounts:
        for line in mounts:
            device, mount, kind = line.split()[:3]
            mount = mount.replace("\\040", " ")
            inside = real == mount or real.startswith(mount.rstrip("/") + "/")
            if inside and len(mount) >= len(best["mount"]):  # the deepest, the last mounted
                best = {"type": kind, "device": device, "mount": mount}
    return best


def describe(fs: dict[str, str]) -> str:
    """A filesystem as one phrase, e.g. "ext4 on /dev/vda (mounted at /)"."""
    return f"{fs['type']} on {fs['device']} (mounted at {fs['mount']})"


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A temporary directory on a disk, so a commit's flush waits for it as in service: the temporary
    directory, or the project's or the home folder when that is in memory (tmpfs)."""
    where: str | None = None
    for where in (None, str(ROOT), str(Path.home())):
        if filesystem(Path(where or tempfile.gettempdir()))["type"] not in MEMORY_FILESYSTEMS:
            break
    with tempfile.TemporaryDirectory(prefix=f".boardcast-bench-{prefix}-", dir=where) as d:
        yield Path(d)


def raise_nofile(wanted: int) -> str | None:
    """Raise RLIMIT_NOFILE toward `wanted` (up to the hard limit); say so when it changed."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return None
    new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    return f"RLIMIT_NOFILE raised in-process from {soft} to {new} (hard {hard})"


# -- client fleets ----------------------------------------------------------------------------------------


class ClientFleet:
    """WebSocket clients in separate processes (`benchmarks.wsclient`), talking line-JSON over pipes."""

    def __init__(
        self,
        port: int,
        topics: list[list[str]],
        mode: str,
        *,
        processes: int,
        path: str = "/ws",
        batch: bool = False,
        timed_every: int = 1,
    ):
        self.port = port
        self.timed_every = timed_every  # every k-th client of each process times its frames
        self.mode = mode
        self.batch = batch  # subscribe as the pages do: arrays, one per delivery
        self.path = path
        processes = max(1, min(processes, len(topics)))
        self.shares = [topics[i::processes] for i in range(processes)]
        self.procs: list[asyncio.subprocess.Process] = []

    async def start(self, within: float = 45.0) -> tuple[int, int]:
        """Start the processes; return (clients connected and subscribed, clients that failed).

        A client not connected and subscribed (snapshot received) `within` seconds counts as failed.
        """
        deadline = time.time() + within
        for index, share in enumerate(self.shares):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "benchmarks.wsclient",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                cwd=ROOT,
                limit=1 << 26,
            )
            self.procs.append(proc)
            config = {
                "host": HOST,
                "port": self.port,
                "path": self.path,
                "topics": share,
                "mode": self.mode,
                "batch": self.batch,
                "timed_every": self.timed_every,
                "cpu": client_cpu(index),
                "connect_deadline": deadline,
            }
            await self._send(proc, config)
        replies = await self._collect(within + 15)
        return sum(r["ready"] for r in replies), sum(r["failed"] for r in replies)

    async def window(self, t0: float, t1: float, phases: list[float] | None = None) -> None:
        """Tell every client when to measure; with `phases` (boundaries from t0 to t1), a histogram per phase
        (each result's "hists") instead of one ("hist")."""
        for proc in self.procs:
            await self._send(proc, {"t0": t0, "t1": t1, "phases": phases})

    async def results(self, within: float) -> list[dict[str, Any]]:
        """Each process's result line."""
        return await self._collect(within)

    async def send_all(self, message: dict[str, Any]) -> None:
        """One line to every process."""
        for proc in self.procs:
            await self._send(proc, message)

    async def close(self) -> None:
        """Let the processes close their sockets and exit; kill any that do not."""
        for proc in self.procs:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        for proc in self.procs:
            try:
                async with asyncio.timeout(10):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()

    async def _send(self, proc: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
        proc.stdin.write(orjson.dumps(message) + b"\n")
        await proc.stdin.drain()

    async def _collect(self, within: float) -> list[dict[str, Any]]:
        async with asyncio.timeout(within):
            lines = await asyncio.gather(*(p.stdout.readline() for p in self.procs))
        out = []
        for proc, line in zip(self.procs, lines, strict=True):
            if not line:
                raise RuntimeError(f"client process {proc.pid} exited (code {await proc.wait()})")
            out.append(orjson.loads(line))
        return out


def merge_hist(results: list[dict[str, Any]]) -> dict[int, int]:
    """Merge the clients' latency histograms."""
    merged: dict[int, int] = {}
    for r in results:
        for k, v in r.get("hist", {}).items():
            merged[int(k)] = merged.get(int(k), 0) + v
    return merged


def percentile_ms(hist: dict[int, int], q: float) -> float:
    """The q-quantile (0..1) of a histogram of 1/BUCKETS_PER_MS ms buckets, in ms (bucket upper edge)."""
    total = sum(hist.values())
    if not total:
        return float("nan")
    rank = q * total
    seen = 0
    for k in sorted(hist):
        seen += hist[k]
        if seen >= rank:
            return (k + 1) / BUCKETS_PER_MS
    return (max(hist) + 1) / BUCKETS_PER_MS


# -- the hub under test -----------------------------------------------------------------------------------


def tt_venue(tables: int, *, rounds: int = 1, best_of: int = 7, devices: list[str] | None = None) -> Venue:
    """A venue of table-tennis tables T1..Tn, `rounds` matches each (M{round}-T{i}), optional devices."""
    table_configs = tuple(
        TableConfig(
            id=f"T{i + 1}",
            sport="tabletennis",
            device=devices[i] if devices else None,
            device_id=f"tt-{i + 1}" if devices else None,
        )
        for i in range(tables)
    )
    matches = tuple(
        MatchInfo(
            id=f"M{r}-T{i + 1}",
            sport="tabletennis",
            table=f"T{i + 1}",
            round=r,
            players=(f"Player {2 * i + 1}", f"Player {2 * i + 2}"),
            best_of=best_of,
        )
        for r in range(1, rounds + 1)
        for i in range(tables)
    )
    return Venue(f"Benchmark hall ({tables} tables)", table_configs, matches, ())


def tt_rallies(seed: int, best_of: int = 7) -> list[ScoreboardState]:
    """A legal match as its scoreboard shows it: 0-0, then the display after each rally, to the end."""
    sim = TableTennisMatchSim(seed, best_of, first_server=seed % 2)
    states = [sim.state]
    while not sim.finished:
        states.append(sim.next_rally())
    return states


class RunningHub:
    """A real `HubRuntime` serving on a free loopback port, in this event loop."""

    def __init__(
        self,
        venue: Venue,
        data_dir: Path,
        *,
        stuck_after_s: float | None = None,
        bus_url: str | None = None,
    ) -> None:
        self.runtime = HubRuntime(venue, data_dir, host=HOST, port=0, bus_url=bus_url)
        self.stuck_after_s = stuck_after_s
        self.ctx: WebContext | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        """The port the hub listens on."""
        assert self.runtime._socket is not None
        return self.runtime._socket.getsockname()[1]

    async def start(self, *jobs: Callable[[], Awaitable[None]]) -> None:
        """open() and run() the hub; return once it serves."""
        self.runtime.open()

        def make_context(*args: Any, **kwargs: Any) -> WebContext:
            if self.stuck_after_s is not None:
                kwargs["stuck_after_s"] = self.stuck_after_s
            self.ctx = WebContext(*args, **kwargs)
            return self.ctx

        # HubRuntime.run() builds its WebContext; the benchmark keeps a handle on it (and, for slow-client,
        # a shorter stuck_after_s) by handing run() this factory instead of the class. Nothing else changes.
        with mock.patch.object(hub.server.app, "WebContext", make_context):
            self._task = asyncio.get_running_loop().create_task(self.runtime.run(*jobs))
            async with asyncio.timeout(20):
                await self.runtime.ready.wait()

    async def stop(self) -> None:
        """Stop the hub; cancel it if it does not wind down in time."""
        self.runtime.stop()
        if self._task is None:
            return
        try:
            async with asyncio.timeout(15):
                await asyncio.shield(self._task)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        except Exception as exc:  # the hub's own failure is the benchmark's to report
            raise RuntimeError(f"the hub failed while stopping: {exc!r}") from exc


class ChangeDriver:
    """Table-tennis scoreboards without a wire: legal rallies into each table's real `TableSink`.

    Every table reports at `rate` per second, spread evenly over the second; each observation is stamped
    `received_at` with the wall clock as it is handed over (see below), and the hub keeps that stamp as the
    match's `updated_at` (the event's time), so a frame's `updated_at` is the moment its change was handed over.

    Two ways to run it. `job` runs inside the hub's own loop (a `HubRuntime.run()` job, as the demo's
    simulators do): a turn of that loop that stalls delays the next report too, so the stall never shows in
    receive time minus `updated_at`. `outside(hub)` then `begin(start, end)` take the time from outside:
    `benchmarks.changeclock`, a process of its own (on the client CPU), writes a record (table, step, stamp)
    into a pipe as each report falls due, stamped with the wall clock as it writes; the hub's loop reads the
    pipe as it would a device's link and hands each report to its table's sink with that stamp. A report that
    waits behind a stalled turn of the loop keeps the stamp of when it was written, so the wait counts in its
    latency; the stamps owe nothing to the hub's thread or its GIL (a thread in the hub's process, tried
    first, woke 80-110 ms late at p99 behind a busy hub thread). How late the clock woke against its schedule
    is kept (`late_ms`). `last_stamp` (table -> stamp of its last report) lets a benchmark check that the hub
    kept the stamps (`check_stamps`).
    """

    def __init__(
        self, tables: int, *, rate: float = 1.0, seconds: float = 60.0, seed: int = 7, best_of: int = 7
    ):
        self.sinks: list[Any] = []
        self.rate = rate
        steps = int(rate * seconds) + 2
        # a table whose match is over falls silent: a best-of-7 match lasts 63-140 rallies
        self.states = [tt_rallies(seed + i, best_of)[:steps] for i in range(tables)]
        self.sent = 0
        self.window: tuple[float, float] | None = None  # wall-clock (start, end), set from any thread
        self.late_ms: Counter[int] = Counter()  # outside: how late the clock woke for each report, whole ms
        self.last_stamp: dict[int, float] = {}  # table index -> received_at of its last report
        self._clock: subprocess.Popen[bytes] | None = None
        self._pending = b""  # a record the pipe has given part of

    async def job(self, runtime: HubRuntime) -> None:
        """A `HubRuntime.run()` job: take each table's sink, wait for `window`, then report through it."""
        assert runtime.ingest is not None
        self.sinks = [runtime.ingest.sink_for(t) for t in runtime.venue.tables]
        while self.window is None:  # noqa: ASYNC110 - set from the benchmark's thread
            await asyncio.sleep(0.01)
        start, end = self.window
        await asyncio.sleep(max(0.0, start - time.time()))
        await self.run(asyncio.get_running_loop().time() + (end - time.time()))

    async def run(self, until: float) -> None:
        """Report until the loop time `until`; a table whose match is over falls silent."""
        loop = asyncio.get_running_loop()
        now = time.time()
        for i, sink in enumerate(self.sinks):
            sink.observe(Observation(f"tt-{i + 1}", 1, 0, now, _hello(f"tt-{i + 1}")))
        n = len(self.sinks)
        period = 1.0 / (n * self.rate)
        next_at = loop.time()
        k = 0
        while next_at < until:
            table, step = k % n, k // n
            states = self.states[table]
            if step < len(states):
                at = time.time()
                self.sinks[table].observe(Observation(f"tt-{table + 1}", 1, step + 1, at, states[step]))
                self.last_stamp[table] = at
                self.sent += 1
            k += 1
            next_at += period
            delay = next_at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif k % 50 == 0:
                await asyncio.sleep(0)

    def outside(self, hub: ThreadedHub) -> None:
        """Start the clock process and have the hub's loop read its pipe (see the class docstring)."""
        loop = hub.loop
        assert loop is not None
        self._clock = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.changeclock"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        assert self._clock.stdout is not None
        fd = self._clock.stdout.fileno()
        os.set_blocking(fd, False)

        async def attach() -> None:  # on the hub's loop, like every other touch of its state
            assert hub.runtime.ingest is not None
            self.sinks = [hub.runtime.ingest.sink_for(t) for t in hub.runtime.venue.tables]
            loop.add_reader(fd, self._readable, loop, fd)

        asyncio.run_coroutine_threadsafe(attach(), loop).result(10)

    def begin(self, start: float, end: float) -> None:
        """Have the clock report from `start` to `end` (wall clock)."""
        assert self._clock is not None and self._clock.stdin is not None
        self.window = (start, end)
        config = {"steps": [len(s) for s in self.states], "rate": self.rate, "start": start, "end": end}
        self._clock.stdin.write(orjson.dumps({**config, "cpu": client_cpu()}) + b"\n")
        self._clock.stdin.close()

    def _readable(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        """On the hub's loop: what the clock wrote, each report into its table's sink with the clock's stamp."""
        try:
            data = self._pending + os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if len(data) == len(self._pending):  # the clock has ended
            loop.remove_reader(fd)
            return
        whole = len(data) - len(data) % RECORD.size
        self._pending = data[whole:]
        for table, step, at in RECORD.iter_unpack(data[:whole]):
            device = f"tt-{table + 1}"
            if step == 0:
                self.sinks[table].observe(Observation(device, 1, 0, at, _hello(device)))
                continue
            self.sinks[table].observe(Observation(device, 1, step, at, self.states[table][step - 1]))
            self.last_stamp[table] = at
            self.sent += 1

    def stop(self, within: float = 5.0) -> None:
        """Wait for the clock process to end (it ends with its window; killed if not within `within` s, or if
        it never began) and keep how late it was."""
        clock, self._clock = self._clock, None
        if clock is None:
            return
        if self.window is None:
            clock.kill()
        try:
            clock.wait(timeout=within)
        except subprocess.TimeoutExpired:
            clock.kill()
            clock.wait()
        assert clock.stderr is not None  # its stdout stays with the hub's loop, which reads it to the end
        for line in clock.stderr.read().decode(errors="replace").splitlines():
            if line.startswith("{"):
                self.late_ms.update({int(k): v for k, v in orjson.loads(line)["late_ms"].items()})

    def check_stamps(self, hub: ThreadedHub, within: float = 5.0) -> int:
        """How many tables' matches (M1-T{i}) do not carry their last report's stamp as `updated_at`: 0 when
        the hub kept the stamps the latencies are timed from. Call once the reports have ended; the hub may
        still be taking the last ones in (a commit to finish), so it looks again for up to `within` s."""
        loop = hub.loop
        assert loop is not None

        # on the hub's loop: its state, and (for `job`) the stamps, change only there
        async def read() -> int:
            stamps = dict(self.last_stamp)
            return sum(hub.runtime.hall.match(f"M1-T{i + 1}").updated_at != at for i, at in stamps.items())

        deadline = time.monotonic() + within
        while True:
            wrong = asyncio.run_coroutine_threadsafe(read(), loop).result(within + 5)
            if wrong == 0 or time.monotonic() > deadline:
                return wrong
            time.sleep(0.1)


def _hello(device_id: str) -> DeviceHello:
    return DeviceHello(device_id, DeviceFamily.TT_SCOREBOARD.value, "bench", "bench-1", 1, 1, ("ack",))


class ThreadedHub:
    """A `RunningHub` on its own event loop in its own thread, so the benchmark never waits on the hub's loop.

    Under overload one turn of the hub's loop can last many seconds (each client's writer sends its whole
    backlog without yielding); the benchmark's own loop (clients, clock, results) must not stall with it.
    `jobs` run inside the hub (`HubRuntime.run(*jobs)`), as the demo's simulators do.
    """

    def __init__(
        self,
        venue: Venue,
        data_dir: Path,
        *,
        stuck_after_s: float | None = None,
        jobs: tuple[Callable[[HubRuntime], Awaitable[None]], ...] = (),
    ) -> None:
        self.hub = RunningHub(venue, data_dir, stuck_after_s=stuck_after_s)
        self.jobs = jobs
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="hub", daemon=True)
        self.error: BaseException | None = None

    @property
    def runtime(self) -> HubRuntime:
        """The hub's composition root."""
        return self.hub.runtime

    @property
    def port(self) -> int:
        """The port the hub listens on."""
        return self.hub.port

    @property
    def ctx(self) -> WebContext | None:
        """The hub's web context (counters such as closed_stuck)."""
        return self.hub.ctx

    async def start(self) -> None:
        """Start the hub thread; return once the hub serves."""
        self._thread.start()
        ready = await asyncio.to_thread(self._ready.wait, 30)
        if self.error is not None:
            raise RuntimeError(f"the hub failed to start: {self.error!r}") from self.error
        if not ready:
            raise RuntimeError("the hub did not start within 30 s")

    async def stop(self, within: float = 20.0) -> bool:
        """Ask the hub to stop; True if its thread ended in time (a stuck hub is left to the process exit)."""
        if self.loop is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self.hub.runtime.stop)
        await asyncio.to_thread(self._thread.join, within)
        return not self._thread.is_alive()

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:
            self.error = exc
            self._ready.set()

    async def _run(self) -> None:
        self.loop = asyncio.get_running_loop()
        runtime = self.hub.runtime
        await self.hub.start(*(functools.partial(job, runtime) for job in self.jobs))
        self._ready.set()
        assert self.hub._task is not None
        await self.hub._task


def clients_snapshot(fanout_clients: set) -> list:
    """A copy of a set another thread may be changing."""
    for _ in range(10):
        try:
            return list(fanout_clients)
        except RuntimeError:
            continue
    return []
