"""tabletennis: a scoreboard report folded into its match, µs per report, live and on replay.

Matches: best-of-7 matches as a scoreboard shows them (`common.tt_rallies`: 0-0, then the display after each
rally, to the end; the simulator's legal matches, seeded), a rally every 12 s of match time.

Live, per report: what the hub does with one scoreboard report once it is read: `report_to_dict` for the log
body and the match reducer's `apply_event(match, "device.report", …)`, the sport's one reducer. Timed report
by report (wall clock): p50, p99; and match by match (this thread's CPU time, so that another process holding
the CPU is not counted): reports/s. Replay: `fold_events` over each match's log rows, the same reducer row by
row, timed the same way (`replay_us_per_report`). No target is set: pass means every match finished and its
replayed state equals the live one.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.common import Result, say, tt_rallies
from benchmarks.common import sizes as pick_sizes
from hub.matches import MatchInfo, MatchState, MatchStatus, apply_event, fold_events, new_match
from hub.rules.registry import report_to_dict

NAME = "tabletennis"
FULL = {"matches": 600}
SMOKE = {"matches": 40}
RALLY_S = 12.0
REPORT = "device.report"
Row = tuple[int, str, float, str | None, Any]


def _info(seed: int) -> MatchInfo:
    return MatchInfo(f"M{seed}", "tabletennis", "T1", players=("A", "B"), best_of=7)


def live(seed: int, reports: list[Any], ns: list[int]) -> MatchState:
    """One match report by report, as the hub folds a live scoreboard; each call's time into `ns`."""
    match = new_match(_info(seed))
    clock = time.perf_counter_ns
    for n, report in enumerate(reports):
        t0 = clock()
        body = {"device_id": "tt-1", "boot_epoch": 1, "seq": n + 1, "report": report_to_dict(report)}
        match = apply_event(match, REPORT, body, n + 1, n * RALLY_S, None).state
        ns.append(clock() - t0)
    return match


def rows_of(reports: list[Any]) -> list[Row]:
    """The match's log rows, as replay reads them."""
    return [
        (
            n + 1,
            REPORT,
            n * RALLY_S,
            None,
            {"device_id": "tt-1", "boot_epoch": 1, "seq": n + 1, "report": body},
        )
        for n, body in enumerate(map(report_to_dict, reports))
    ]


def _us(ns: list[int]) -> tuple[float, float]:
    cuts = statistics.quantiles(ns, n=100, method="inclusive")
    return round(cuts[49] / 1000, 2), round(cuts[98] / 1000, 2)


async def run(smoke: bool) -> Result:
    """Every match live, report by report, then replayed from its log rows."""
    sz = pick_sizes(FULL, SMOKE, smoke)
    matches = [tt_rallies(seed) for seed in range(int(sz["matches"]))]
    say(f"{NAME}: {len(matches)} matches, {sum(map(len, matches))} reports")
    ns: list[int] = []
    cpu = {"live": 0.0, "replay": 0.0}
    unequal = unfinished = 0
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    for seed, reports in enumerate(matches):
        rows = rows_of(reports)
        t0 = time.thread_time()  # CPU time: a share of the CPU taken by another process is not counted
        live_state = live(seed, reports, ns)
        t1 = time.thread_time()
        replayed, _ = fold_events(new_match(_info(seed)), rows)
        cpu["live"] += t1 - t0
        cpu["replay"] += time.thread_time() - t1
        unequal += live_state != replayed
        unfinished += live_state.status is not MatchStatus.FINISHED
    cpu_share = round((time.thread_time() - cpu0) / (time.perf_counter() - wall0), 2)
    p50, p99 = _us(ns)
    rate = len(ns) / cpu["live"]
    details: dict[str, Any] = {
        "cpu_share": cpu_share,
        "p50_us": p50,
        "p99_us": p99,
        "reports_per_s": round(rate),
        "replay_us_per_report": round(cpu["replay"] / len(ns) * 1e6, 2),
        "reports": len(ns),
        "unequal_states": unequal,
        "unfinished": unfinished,
    }
    return Result(
        name=NAME,
        unit="reports/s",
        ours=round(rate),
        baseline=None,
        target="no target; replay equals live, matches finished",
        passed=unequal == 0 and unfinished == 0,
        sizes={**sz, "best_of": 7, "reports": len(ns)},
        details=details,
        notes=[
            "live: report_to_dict + apply_event(device.report) per report; replay: fold_events over each "
            "match's rows, the same reducer",
            "cpu_share: this thread's CPU time over wall time while measuring; below ~0.95 other processes "
            "had the CPU part of the time, and the figures (a p99 most) include their time",
        ],
    )
