"""soak: does the demo hall under spectator load stay flat? Hub RSS, open files and update latency over time.

`python -m benchmarks soak --minutes N` (the runner hands N in as the size `minutes`). The hall is the demo,
run as an operator runs it, as a process of its own: `python -m hub demo` (the `boardcast demo` command) with
its simulated table-tennis scoreboards, backgammon boards and a chess team match on DGT boards, each on a
real pseudo-terminal. Spectators are a `ClientFleet` in processes of their own (pinned to the second CPU):
one in four watches the wall (`venue` and `devices`, as `wall.js` subscribes), the rest each watch one match
page (`match:ID`), subscribed in batches as the pages are.

Every `sample_s` seconds the benchmark reads the hub process's resident set (VmRSS) and its open file
descriptors (`/proc/PID/fd`), and the clients keep a latency histogram per sample: each change is timed from
the `updated_at` it carries (when the hub received the device's report) to the client's read, so latency
here is the hub's part of device-to-screen (the demo's devices write into ptys inside the hub process).

Flat: over the samples taken after the first minute (warm-up: imports, connections and the first matches
starting grow the heap), the least-squares line's rise over that span is under 5 % of the line's value at its
start, for RSS and for open files (`rss_growth_pct`, `fds_growth_pct`); the same figure for the per-sample
p99 is reported (`p99_growth_pct`) but not judged: one 10 s sample's p99 rests on a few hundred changes,
and its noise on this shared machine is larger than 5 %. Pass: flat, no client closed, and play lasting the
whole soak (changes timed in every sample after the warm-up). The demo's matches end (at speed 1 its chess
games take about 10 minutes, its table tennis about 20): soaks longer than `play_minutes` run the demo
slower, so that play still spans them (fewer changes a second); the speed used is in the sizes.
"""

from __future__ import annotations

import asyncio
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.common import ROOT, ClientFleet, Result, percentile_ms, say, scratch
from benchmarks.common import sizes as pick_sizes
from benchmarks.restart import dies_with_us, http_get, operator_environment, stop_hub

NAME = "soak"
FULL = {
    "minutes": 3.0,
    "clients": 1000,
    "client_processes": 2,
    "tables": 16,
    "bg_tables": 2,
    "chess_boards": 8,
    "sample_s": 10.0,
    "warmup_s": 60.0,
    "play_minutes": 10.0,  # how long the demo plays on at speed 1 (its chess games end first)
}
SMOKE = {
    "minutes": 0.12,
    "clients": 40,
    "client_processes": 1,
    "tables": 4,
    "bg_tables": 1,
    "chess_boards": 2,
    "sample_s": 1.2,
    "warmup_s": 3.0,
    "play_minutes": 10.0,
}
FLAT_PCT = 5.0
BANNER = re.compile(rb"Seyirciler:\s+http://127\.0\.0\.1:(\d+)/")


# -- the hub process ----------------------------------------------------------------------------------------


async def start_demo(
    data: Path, sizes: dict[str, Any], speed: float
) -> tuple[asyncio.subprocess.Process, int]:
    """Spawn `boardcast demo` on `data`; the process and its port, once it serves."""
    args = [
        *("--data", str(data), "--port", "0", "--seed", "1", "--speed", f"{speed:g}"),
        *("--tables", str(sizes["tables"]), "--bg-tables", str(sizes["bg_tables"])),
        *("--chess-boards", str(sizes["chess_boards"])),
    ]
    errors = data.parent / "demo.stderr"
    with errors.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "hub",
            "demo",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
            cwd=ROOT,
            env=operator_environment(),
            preexec_fn=dies_with_us,
        )
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(30):
            while True:
                line = await proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"the demo exited ({await proc.wait()}): {errors.read_text()[-2000:]}")
                found = BANNER.search(line)
                if found:
                    return proc, int(found.group(1))
    except BaseException:
        await stop_hub(proc)
        raise


def process_sample(pid: int) -> tuple[float, int]:
    """A process's resident set (MiB) and open file descriptors, from /proc."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss / 1024, sum(1 for _ in Path(f"/proc/{pid}/fd").iterdir())


async def _get_json(port: int, path: str) -> Any:
    status, body = await http_get(port, path)
    if status != 200:
        raise RuntimeError(f"GET {path}: {status}")
    return orjson.loads(body)


# -- the figures --------------------------------------------------------------------------------------------


def _line(points: list[tuple[float, float]]) -> tuple[float, float, float]:
    """The least-squares line through `points`: its slope, and the means of t and of the values."""
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return (sum((t - mt) * (v - mv) for t, v in points) / var if var else 0.0), mt, mv


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """The least-squares line's slope, per hour (`t` in seconds): a short soak's growth at an hour's rate."""
    return 3600.0 * _line(points)[0] if len(points) >= 2 else float("nan")


def growth_pct(points: list[tuple[float, float]]) -> float:
    """The least-squares line's rise over the points' span, in % of the line's value at the first point."""
    if len(points) < 2:
        return float("nan")
    slope, mt, mv = _line(points)
    first, last = points[0][0], points[-1][0]
    at_first = mv + slope * (first - mt)
    return 100.0 * slope * (last - first) / at_first if at_first else float("nan")


def _merge_phase(results: list[dict[str, Any]], k: int) -> dict[int, int]:
    merged: dict[int, int] = {}
    for r in results:
        for bucket, count in r["hists"][k].items():
            merged[int(bucket)] = merged.get(int(bucket), 0) + count
    return merged


def _topics(match_ids: list[str], clients: int) -> list[list[str]]:
    """One client in four on the wall, the others each on one match page, spread over the matches."""
    return [
        ["venue", "devices"] if i % 4 == 0 else [f"match:{match_ids[i % len(match_ids)]}"]
        for i in range(clients)
    ]


# -- the benchmark ------------------------------------------------------------------------------------------


async def _soak(
    proc: asyncio.subprocess.Process, port: int, sizes: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Connect the fleet, sample the hub every `sample_s` for `minutes`; the samples and the fleet's counts."""
    match_ids = [m["id"] for m in await _get_json(port, "/api/matches")]
    fleet = ClientFleet(
        port, _topics(match_ids, sizes["clients"]), "updated", processes=sizes["client_processes"], batch=True
    )
    try:
        ready, failed = await fleet.start(within=45)
        say(f"{NAME}: {ready} clients connected, {failed} failed")
        step, duration = sizes["sample_s"], sizes["minutes"] * 60
        t0 = time.time()
        bounds = [t0 + k * step for k in range(int(duration / step) + 1)]
        await fleet.window(bounds[0], bounds[-1], phases=bounds)
        samples = []
        for k, at in enumerate(bounds):
            await asyncio.sleep(max(0.0, at - time.time()))
            rss, fds = process_sample(proc.pid)
            samples.append({"t_s": round(at - t0, 1), "rss_mib": round(rss, 1), "fds": fds})
            if k % max(1, int(60 / step)) == 0:
                say(f"{NAME}: t={at - t0:.0f} s rss {rss:.1f} MiB, {fds} fds")
        results = await fleet.results(within=60)
    finally:
        await fleet.close()
    for k, sample in enumerate(samples[1:]):  # the latency of the changes read since the sample before
        hist = _merge_phase(results, k)
        sample["changes"] = sum(hist.values())
        sample["p99_ms"] = round(percentile_ms(hist, 0.99), 1) if hist else None
    counts = {
        "ready": ready,
        "failed": failed,
        "closed": sum(r["closed"] for r in results),
        "frames": sum(r["frames"] for r in results),
    }
    return samples, counts


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    minutes = float(sizes["minutes"])
    speed = 1.0 if minutes <= sizes["play_minutes"] else sizes["play_minutes"] / minutes
    if smoke:
        speed = 5.0  # a few seconds of soak: faster play, so that every sample sees changes
    with scratch(NAME) as tmp:
        proc, port = await start_demo(tmp / "data", sizes, speed)
        try:
            samples, counts = await _soak(proc, port, sizes)
        finally:
            exit_code = await stop_hub(proc)
    warmup = min(sizes["warmup_s"], minutes * 60 / 3)
    after = [s for s in samples if s["t_s"] >= warmup]
    rss_growth = growth_pct([(s["t_s"], s["rss_mib"]) for s in after])
    fds_growth = growth_pct([(s["t_s"], s["fds"]) for s in after])
    timed = [s for s in after if s.get("p99_ms") is not None]
    p99_growth = growth_pct([(s["t_s"], s["p99_ms"]) for s in timed])
    play_lasted = all(s.get("changes") for s in after if s["t_s"] > 0)
    flat = rss_growth < FLAT_PCT and fds_growth < FLAT_PCT
    p99s = [s["p99_ms"] for s in timed]
    return Result(
        name=NAME,
        unit="% RSS",
        ours=rss_growth,
        baseline=None,
        target=f"flat: RSS and fds < {FLAT_PCT:g} % growth after {warmup:.0f} s",
        passed=flat and counts["closed"] == 0 and counts["failed"] == 0 and play_lasted,
        sizes={**sizes, "speed": speed},
        details={
            "rss_growth_pct": round(rss_growth, 2),
            "fds_growth_pct": round(fds_growth, 2),
            # what "flat" over a few minutes cannot show: the same slope over an hour of play
            "rss_mib_per_hour": round(slope_per_hour([(s["t_s"], s["rss_mib"]) for s in after]), 1),
            "p99_growth_pct": round(p99_growth, 1),
            "p99_ms_median_sample": sorted(p99s)[len(p99s) // 2] if p99s else math.nan,
            "p99_ms_worst_sample": max(p99s) if p99s else math.nan,
            "play_lasted": play_lasted,
            "clients": counts["ready"],
            "clients_failed": counts["failed"],
            "clients_closed": counts["closed"],
            "changes_delivered": counts["frames"],
            "hub_exit_code": exit_code,
            "samples": samples,
        },
        notes=[
            "ours: the hub process's RSS growth over the samples after the warm-up (least-squares line's rise "
            "over the span, % of its start); no baseline: the hub against its own earlier self",
            "latency: a change's `updated_at` (hub received the device report) to the client's read",
        ],
    )
