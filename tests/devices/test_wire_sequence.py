"""Unwrapping 16-bit device frame counters."""

import pytest

from devices.wire.sequence import SeqUnwrapper


def unwrap_all(values: list[int]) -> list[int]:
    unwrapper = SeqUnwrapper()
    return [unwrapper.unwrap(value) for value in values]


def test_counter_keeps_growing_across_the_65535_to_0_wrap() -> None:
    assert unwrap_all([65534, 65535, 0, 1]) == [65534, 65535, 65536, 65537]


def test_counter_keeps_growing_across_several_wraps() -> None:
    values = [(step * 20000) % 65536 for step in range(10)]
    assert unwrap_all(values) == [step * 20000 for step in range(10)]


def test_a_duplicate_maps_to_the_same_value() -> None:
    assert unwrap_all([7, 8, 8, 9]) == [7, 8, 8, 9]


def test_a_small_reorder_stays_in_place() -> None:
    assert unwrap_all([10, 12, 11, 13]) == [10, 12, 11, 13]


def test_a_reorder_across_the_wrap_stays_in_place() -> None:
    assert unwrap_all([65535, 1, 0, 2]) == [65535, 65537, 65536, 65538]


def test_reset_starts_a_new_boot_from_the_raw_value() -> None:
    unwrapper = SeqUnwrapper()
    for seq in (65535, 0, 1):
        unwrapper.unwrap(seq)
    unwrapper.reset()
    assert unwrapper.highest is None
    assert unwrapper.unwrap(3) == 3


def test_values_outside_16_bits_are_refused() -> None:
    with pytest.raises(ValueError, match="65536"):
        SeqUnwrapper().unwrap(65536)
