"""Every codec and `check` reader under Hypothesis: random bytes, and real inputs with bytes mutated.

The long run outside CI is `python -m tests.reliability.fuzz_long --minutes 10`.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reliability.conftest import Tried
from tests.reliability.fuzz_targets import SEEDS, TARGETS, mutate

inputs: Counter[str] = Counter()
OBSERVED = {
    **dict.fromkeys(
        ["wire codec", "DGT codec", "DGT reader"], "no crash; the same items however the bytes were cut"
    ),
    **dict.fromkeys(
        ["check tabletennis reader", "check backgammon reader", "check chess reader"],
        "no crash; every run ended with exit code 0, 1 or 2",
    ),
}


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=600))
def test_random_bytes(name: str, data: bytes) -> None:
    inputs[name] += 1
    TARGETS[name](data)


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=150, deadline=None)
@given(which=st.integers(0, 10), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 12))
def test_mutated_real_inputs(name: str, which: int, seed: int, rounds: int) -> None:
    seeds = SEEDS[name]
    inputs[name] += 1
    TARGETS[name](mutate(seeds[which % len(seeds)], random.Random(seed), rounds))


def test_zz_fuzz_ledger(tried: Tried) -> None:
    """Runs after the fuzz tests above (file order): their figures go into the reliability report."""
    if not inputs:
        pytest.skip("records the fuzz tests above; run with them")
    assert set(inputs) == set(TARGETS) and all(n >= 100 for n in inputs.values())
    for name, count in sorted(inputs.items()):
        tried(
            f"fuzz: {name} (random and mutated real inputs)",
            area="fuzzing",
            count=count,
            observed=OBSERVED.get(name, "no crash"),
            test="test_random_bytes, test_mutated_real_inputs",
        )
