"""slow-client's statistics: the bootstrap's p99 walk agrees with `percentile_ms`, the phases are balanced."""

from __future__ import annotations

import random

from benchmarks.common import percentile_ms
from benchmarks.slow_client import _bootstrap, _t_interval, _Tail, phases


def test_tail_p99_is_percentile_ms_of_the_weighted_pool() -> None:
    rng = random.Random(1)
    for _ in range(300):
        hists = [
            {rng.randrange(300): rng.randrange(1, 50) for _ in range(rng.randrange(1, 80))} for _ in range(4)
        ]
        times = [rng.randrange(3) for _ in hists]
        if not any(times):
            continue
        pooled: dict[int, int] = {}
        for hist, t in zip(hists, times, strict=True):
            for k, v in hist.items():
                if t:
                    pooled[k] = pooled.get(k, 0) + v * t
        assert _Tail(hists).p99(times) == percentile_ms(pooled, 0.99)


def test_phases_alternate_in_a_balanced_order() -> None:
    kinds = phases(4)
    assert kinds == ["with", "without", "without", "with"] * 2
    assert all(sorted(kinds[2 * i : 2 * i + 2]) == ["with", "without"] for i in range(4))


def test_intervals_hold_the_ratio_when_pairs_agree_and_widen_when_they_do_not() -> None:
    same = [({100: 99, 200: 1}, {100: 99, 200: 1})] * 6
    assert _bootstrap(same) == (1.0, 1.0)
    spread = [({100: 98, 100 + 20 * i: 2}, {100: 99, 200: 1}) for i in range(1, 7)]
    low, high = _bootstrap(spread)
    assert low < high
    geomean, t_low, t_high = _t_interval([0.9, 1.0, 1.1, 1.2])
    assert t_low < geomean < t_high
