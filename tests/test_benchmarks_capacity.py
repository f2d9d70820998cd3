"""The edges benchmark's capacity model: the fan-out's windows, and the fewest edges a hall needs."""

from __future__ import annotations

import math

import pytest

from benchmarks import capacity
from hub.feed.fanout import MAX_WINDOW_S, WRITES_PER_S

COSTS = capacity.Costs(
    hub_us_per_change=2000.0,
    redis_us_per_change=400.0,
    redis_us_per_change_per_edge=60.0,
    edge_us_per_change=1000.0,
    edge_us_per_message=10.0,
)


def test_few_watchers_get_every_change_and_many_get_one_message_a_window() -> None:
    assert capacity.messages_per_watcher(0.1, watchers=5) == 0.1  # no window: each change at once
    many = capacity.messages_per_watcher(20.0, watchers=WRITES_PER_S)  # past the cap: 160 ms windows
    assert many == pytest.approx(1 / (MAX_WINDOW_S + math.exp(-20 * MAX_WINDOW_S) / 20))
    assert 6.0 < many < 1 / MAX_WINDOW_S
    assert capacity.messages_per_watcher(0.0, watchers=100) == 0.0


def test_a_plan_takes_the_fewest_edges_none_busier_than_planned() -> None:
    hall = capacity.Hall(tables=200, changes_per_table_s=0.1, wall=30_000, one_match=50_000)
    plan = capacity.plan(COSTS, hall)
    assert plan.edges is not None and plan.edges > 1
    for edges in (plan.edges - 1, plan.edges):
        busy = capacity.edge_cpu_s(COSTS, edges, hall.changes_per_s, hall.messages_per_s(edges)) / edges
        assert (busy <= capacity.BUSY) == (edges == plan.edges)
    assert plan.redis_cores == pytest.approx(20 * (400 + plan.edges * 60) / 1e6)
    assert plan.hub_cores == pytest.approx(20 * 2000 / 1e6)


def test_a_hall_whose_changes_alone_fill_an_edge_has_no_plan() -> None:
    hall = capacity.Hall(tables=1000, changes_per_table_s=1.0, wall=10)  # 1,000 changes/s × 1 ms each
    plan = capacity.plan(COSTS, hall)
    assert plan.edges is None
    assert "more than" in capacity.describe(hall, plan)
