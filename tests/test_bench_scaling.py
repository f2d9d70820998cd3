"""The scaling benchmark's pure parts: which points it runs, what it owes, and how it reads `ss`."""

from __future__ import annotations

from benchmarks.hubprocess import SOCKET
from benchmarks.scaling import FULL, _marginal, _owed, points_of

SS = """0      0      127.0.0.1:8000 127.0.0.1:51000
\t skmem:(r0,rb131072,t0,tb2626560,f4096,w0,o0,bl0,d0)
0      1200   127.0.0.1:8000 127.0.0.1:51001
\t skmem:(r0,rb131072,t0,tb2626560,f0,w2304,o0,bl0,d0)
300    0      127.0.0.1:51000 127.0.0.1:8000
\t skmem:(r768,rb131072,t0,tb2626560,f3328,w0,o0,bl0,d0)
"""


def test_points_are_the_two_sweeps_each_once() -> None:
    points = points_of(FULL)
    assert points == [(1000, 200), (2000, 200), (5000, 200), (10000, 200), (2000, 50), (2000, 800)]


def test_owed_is_each_tables_writes_in_the_window_times_its_watchers() -> None:
    writes = {"tt-1": [[0, 0, 1, 0, 10.5], [0, 0, 2, 0, 11.5]], "tt-2": [[0, 0, 1, 0, 9.0]]}
    # 5 spectators on 2 tables: clients 0, 2, 4 watch T1, clients 1, 3 watch T2
    assert _owed(writes, 5, 10.0, 12.0) == 3 * 2
    assert _owed(writes, 5, 8.0, 11.0) == 3 * 1 + 2 * 1


def test_ss_entries_are_told_apart_by_local_port() -> None:
    entries = [tuple(map(int, m.groups())) for m in SOCKET.finditer(SS)]
    assert [(e[2], e[3] + e[4] + e[5] + e[6]) for e in entries] == [(8000, 4096), (8000, 2304), (51000, 4096)]
    assert [e[1] for e in entries if e[2] == 8000] == [0, 1200]  # Send-Q: unsent by the hub
    assert [e[0] for e in entries if e[2] != 8000] == [300]  # Recv-Q: unread by a client


def test_marginal_cost_is_the_steps_added_cpu_over_its_added_messages() -> None:
    points = [
        {"spectators": 2000, "tables": 200, "hub_cpu_s": 2.0, "delivered": 16000, "delivered_share": 1.0},
        {"spectators": 1000, "tables": 200, "hub_cpu_s": 1.9, "delivered": 8000, "delivered_share": 1.0},
        {"spectators": 2000, "tables": 50, "hub_cpu_s": 1.0, "delivered": 16000, "delivered_share": 1.0},
        {"spectators": 5000, "tables": 200, "hub_cpu_s": 2.1, "delivered": 30000, "delivered_share": 0.75},
    ]
    _marginal(points, 200)
    assert points[0]["marginal_cpu_us_per_message"] == 12.5
    assert "marginal_cpu_us_per_message" not in points[1] and "marginal_cpu_us_per_message" not in points[2]
    assert points[3]["marginal_cpu_us_per_message"] is None  # behind its work: its CPU is not yet spent
