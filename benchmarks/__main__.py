"""`python -m benchmarks [NAME ...] [--smoke] [--json FILE]`: run benchmarks, print one table.

Each benchmark runs in a fresh Python process (so one's memory or threads never colour another's figures)
with a hard time limit; a benchmark that crashes or overruns is a row marked CRASH and makes the exit code 1.
A missed target is reported as FAIL and does not change the exit code.

For exploring, not for the table: `BENCH_SIZES='{"clients": 1000}'` overrides sizes of the benchmarks that
have them, and `BENCH_PROFILE=FILE` (with `--one NAME`) writes a cProfile of the benchmark's main thread.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import math
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from hub.server.allocator import returning_environment

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = {
    "fanout": "benchmarks.fanout",
    "spectators": "benchmarks.spectators",
    "ingest": "benchmarks.ingest",
    "latency": "benchmarks.latency",
    "latency-analysis": "benchmarks.latency_analysis",
    "replay": "benchmarks.replay",
    "slow-client": "benchmarks.slow_client",
    "edges": "benchmarks.edges",
    "bg-chances": "benchmarks.bg_chances",
    "bg-legal": "benchmarks.bg_legal",
    "chess": "benchmarks.chess",
    "tabletennis": "benchmarks.tabletennis",
    "restart": "benchmarks.restart",
    "soak": "benchmarks.soak",
    "scaling": "benchmarks.scaling",
}
LIMIT_S = {"full": 150.0, "smoke": 60.0}  # the runner's hard stop; each benchmark is sized to stay under 60 s
# full-size hard stops of the benchmarks that sweep sizes or run for minutes
LONGER_S: dict[str, float] = {
    "fanout": 240.0,
    "edges": 540.0,  # thirteen windows of readers, then three rounds of 4,000 clients on one edge and on two
    "restart": 300.0,  # ~40 s, but the first run builds and caches its logs: replay's, then the hub's snapshots
    "soak": 3 * 60 + LIMIT_S["full"],  # its default 3 minutes (--minutes N gives N minutes and the same room)
    "scaling": 420.0,
    "slow-client": 300.0,
    "latency-analysis": 300.0,  # two latency runs  # 8 pairs of 15 s phases and a warm-up set: ~255 s
}
RESULT = "BENCHMARK-RESULT "


def _one(name: str, smoke: bool) -> int:
    """Run one benchmark in this process and print its result line."""
    module = importlib.import_module(BENCHMARKS[name])
    profile_to = os.environ.get("BENCH_PROFILE")  # a file: cProfile of this benchmark's event-loop thread
    if profile_to:
        import cProfile

        profiler = cProfile.Profile()
        result = profiler.runcall(asyncio.run, module.run(smoke))
        profiler.dump_stats(profile_to)
    else:
        result = asyncio.run(module.run(smoke))
    print(RESULT + json.dumps(result.to_dict()), flush=True)
    sys.stderr.flush()
    os._exit(0)  # a replay stopped at its time bound leaves a thread folding; nothing else is left to do


TIMED = {"soak"}  # the benchmarks that run for `--minutes`


def _limit(name: str, smoke: bool, minutes: float | None) -> float:
    if smoke:
        return LIMIT_S["smoke"]
    if minutes is not None and name in TIMED:  # run for a given time: that, and room to start and stop
        return minutes * 60 + LIMIT_S["full"]
    return LONGER_S.get(name, LIMIT_S["full"])


def _spawn(name: str, smoke: bool, minutes: float | None = None) -> dict[str, Any]:
    args = [sys.executable, "-m", "benchmarks", "--one", name] + (["--smoke"] if smoke else [])
    limit = _limit(name, smoke, minutes)
    started = time.monotonic()
    env = returning_environment(
        os.environ
    )  # the allocator `boardcast serve` runs on (hub/server/allocator.py)
    if minutes is not None:  # read by the benchmark as one of its sizes (see `common.sizes`)
        overrides = json.loads(env.get("BENCH_SIZES", "{}"))
        env["BENCH_SIZES"] = json.dumps({**overrides, "minutes": minutes})
    # its own session: at the hard stop everything it started (hubs, clients, Redis) goes with it
    proc = subprocess.Popen(
        args,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stderr = proc.communicate()[1]
        return {"name": name, "crashed": f"did not finish within {limit:.0f} s", "log": stderr[-4000:]}
    finally:
        with contextlib.suppress(ProcessLookupError):  # what it left behind when it ended
            os.killpg(proc.pid, signal.SIGKILL)
    elapsed = time.monotonic() - started
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT):
            result = json.loads(line[len(RESULT) :])
            result["seconds"] = round(elapsed, 1)
            return result
    return {"name": name, "crashed": f"exit code {proc.returncode}", "log": stderr[-4000:]}


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if isinstance(value, float | int):
        if abs(value) >= 1000:
            text = f"{value:,.0f}"
        elif abs(value) >= 10:
            text = f"{value:.1f}"
        else:
            text = f"{value:.2f}"
        return f"{text} {unit}".strip()
    return str(value)


def interpreter() -> str:
    """The Python running the benchmarks (and, as `sys.executable`, the hub processes they start): figures
    depend on its build. A CPython whose libpython is a shared library and not built with
    `--enable-optimizations` (pyenv's default) ran ingest 25-30 % slower here than the distribution's."""
    linked = "unknown"
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        pass
    else:
        shared = sorted({line.split()[-1] for line in maps.splitlines() if "libpython" in line})
        linked = f"libpython shared ({shared[0]})" if shared else "libpython linked into the executable"
    version = ".".join(map(str, sys.version_info[:3]))
    return f"interpreter: {sys.implementation.name} {version}, {os.path.realpath(sys.executable)}, {linked}"


def table(results: list[dict[str, Any]]) -> str:
    """The results as one Markdown table, then each benchmark's sizes and details."""
    rows = [("benchmark", "ours", "baseline", "ratio", "target", "result")]
    for r in results:
        if "crashed" in r:
            rows.append((r["name"], "—", "—", "—", "—", f"CRASH ({r['crashed']})"))
            continue
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}×"
        rows.append(
            (
                r["name"],
                _fmt(r["ours"], r["unit"]),
                _fmt(r["baseline"], r["unit"]),
                ratio,
                r["target"],
                "pass" if r["passed"] else "FAIL",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines.append("")
    for r in results:
        if "crashed" in r:
            lines.append(f"{r['name']}: CRASHED: {r['crashed']}\n{r.get('log', '')}")
            continue
        sizes = ", ".join(f"{k}={v}" for k, v in r["sizes"].items())
        details = ", ".join(f"{k}={_fmt(v)}" for k, v in r["details"].items())
        lines.append(f"{r['name']} ({r.get('seconds', '?')} s): sizes: {sizes}")
        lines.append(f"  {details}")
        for note in r["notes"]:
            lines.append(f"  note: {note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"any of: {', '.join(BENCHMARKS)} (default all)"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks the harness, not the hub")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    parser.add_argument(
        "--minutes", type=float, metavar="N", help="how long the benchmarks that run for a time (soak) run"
    )
    parser.add_argument("--one", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        try:
            return _one(args.one, args.smoke)
        except Exception:
            traceback.print_exc()
            return 1
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    names = args.names or list(BENCHMARKS)
    results = []
    for name in names:
        print(f"running {name}{' (smoke)' if args.smoke else ''} …", file=sys.stderr, flush=True)
        results.append(_spawn(name, args.smoke, args.minutes))
    print(table(results))
    print(interpreter())
    if args.json:
        args.json.write_text(json.dumps({"interpreter": interpreter(), "results": results}, indent=2))
    return 1 if any("crashed" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
