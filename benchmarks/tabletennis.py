"""tabletennis: a scoreboard report folded into its match, µs per report, live and on replay.

Matches: best-of-7 matches as a scoreboard shows them (`common.tt_rallies`: 0-0, then the display after each
rally, to the end; the simulator's legal matches, seeded), a rally every 12 s of match time.

Ours, per report, live: what the hub does with one scoreboard report once it is read: `report_to_dict` for
the log body and the match reducer's `apply_event(match, "device.report", …)`, which takes a report that is
one plain rally through the sport's rally shortcut (`hub.rules.tabletennis.fastpath`, `fold_reports`) and
anything else through the rules' `apply`. Timed report by report (wall clock): p50, p99; and match by match
(this thread's CPU time, so that another process holding the CPU is not counted): reports/s.

Baseline, same run, same matches, interleaved match by match: the same calls with the shortcut switched off
(`fold_reports` None: every report through the plain reducer, the rules' `apply`, the specification the
shortcut is differential-tested against). The final match states of both sides are checked equal.

Replay (`fold_events` over each match's log rows, runs of rallies in one step) is timed the same two ways and
reported per report (`replay_us_per_report`, `replay_plain_us_per_report`). No target is set for table
tennis: pass means both sides finished every match in equal states.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from benchmarks.common import Result, say, tt_rallies
from benchmarks.common import sizes as pick_sizes
from hub.matches import MatchInfo, MatchState, MatchStatus, apply_event, fold_events, new_match
from hub.rules.registry import SPORTS, report_to_dict

NAME = "tabletennis"
FULL = {"matches": 600}
SMOKE = {"matches": 40}
RALLY_S = 12.0
REPORT = "device.report"
Row = tuple[int, str, float, str | None, Any]


@contextmanager
def plain_reducer() -> Iterator[None]:
    """The hub without the rally shortcut: every report through the rules' `apply`."""
    with mock.patch.object(SPORTS["tabletennis"], "fold_reports", None):
        yield


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


def _both(
    seed: int, reports: list[Any], rows: list[Row], ns: list[int], cpu: dict[str, float], suffix: str
) -> tuple[MatchState, MatchState]:
    """The match live (each report's wall time into `ns`) and replayed; each one's CPU time into `cpu`."""
    t0 = time.thread_time()  # CPU time: a share of the CPU taken by another process is not counted
    live_state = live(seed, reports, ns)
    t1 = time.thread_time()
    replayed, _ = fold_events(new_match(_info(seed)), rows)
    t2 = time.thread_time()
    cpu["live" + suffix] += t1 - t0
    cpu["replay" + suffix] += t2 - t1
    return live_state, replayed


def _us(ns: list[int]) -> tuple[float, float]:
    cuts = statistics.quantiles(ns, n=100, method="inclusive")
    return round(cuts[49] / 1000, 2), round(cuts[98] / 1000, 2)


async def run(smoke: bool) -> Result:
    """Every match both ways, live and on replay, in alternating order."""
    sz = pick_sizes(FULL, SMOKE, smoke)
    matches = [tt_rallies(seed) for seed in range(int(sz["matches"]))]
    say(f"{NAME}: {len(matches)} matches, {sum(map(len, matches))} reports")
    ours: list[int] = []
    plain: list[int] = []
    cpu = {"live": 0.0, "live_plain": 0.0, "replay": 0.0, "replay_plain": 0.0}
    unequal = unfinished = 0
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    for seed, reports in enumerate(matches):
        rows = rows_of(reports)
        for side in (0, 1) if seed % 2 == 0 else (1, 0):  # alternate who runs first
            if side == 0:
                fast, fast_replay = _both(seed, reports, rows, ours, cpu, "")
            else:
                with plain_reducer():
                    slow, slow_replay = _both(seed, reports, rows, plain, cpu, "_plain")
        unequal += not (fast == slow == fast_replay == slow_replay)
        unfinished += fast.status is not MatchStatus.FINISHED
    cpu_share = round((time.thread_time() - cpu0) / (time.perf_counter() - wall0), 2)
    p50, p99 = _us(ours)
    base50, base99 = _us(plain)
    rate = len(ours) / cpu["live"]
    base_rate = len(plain) / cpu["live_plain"]
    details: dict[str, Any] = {
        "cpu_share": cpu_share,
        "p50_us": p50,
        "p99_us": p99,
        "reports_per_s": round(rate),
        "plain_p50_us": base50,
        "plain_p99_us": base99,
        "plain_reports_per_s": round(base_rate),
        "replay_us_per_report": round(cpu["replay"] / len(ours) * 1e6, 2),
        "replay_plain_us_per_report": round(cpu["replay_plain"] / len(plain) * 1e6, 2),
        "reports": len(ours),
        "unequal_states": unequal,
        "unfinished": unfinished,
    }
    return Result(
        name=NAME,
        unit="reports/s",
        ours=round(rate),
        baseline=round(base_rate),
        target="no target; states equal, matches finished",
        passed=unequal == 0 and unfinished == 0,
        sizes={**sz, "best_of": 7, "reports": len(ours)},
        details=details,
        notes=[
            "ours: report_to_dict + apply_event(device.report) per report, rally shortcut on; baseline: the "
            "same with the shortcut off (every report through the rules' apply)",
            "replay: fold_events over each match's rows, shortcut on and off",
            "cpu_share: this thread's CPU time over wall time while measuring; below ~0.95 other processes "
            "had the CPU part of the time, and the figures (a p99 most) include their time",
        ],
    )
