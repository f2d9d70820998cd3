"""The shared game clock: Fischer with the increment before move 1, Bronstein, simple delay, multi-period
controls with move counts, and flag fall. Time is always an argument."""

from __future__ import annotations

import pytest

from hub.rules import clock as clk


def test_fischer_90_plus_30_starts_at_1_30_30_and_adds_30_per_move() -> None:
    state = clk.start(clk.TimeControl.fischer(90 * 60, 30))
    assert state.remaining_s == (5430.0, 5430.0)  # 1:30:30
    state = clk.start_side(state, 0, at=0.0)
    state = clk.press(state, 0, at=100.0)
    assert state.remaining_s[0] == 5430 - 100 + 30
    assert state.running == 1 and state.moves == (1, 0)
    assert clk.remaining(state, 1, at=110.0) == 5420.0


def test_fischer_without_the_first_increment() -> None:
    control = clk.TimeControl((clk.Period(600, increment_s=5),), increment_before_first_move=False)
    assert clk.start(control).remaining_s == (600.0, 600.0)


def test_simple_delay_does_not_count_the_first_seconds() -> None:
    state = clk.start_side(clk.start(clk.TimeControl.delay(120, 12)), 0, at=0.0)
    assert clk.remaining(state, 0, at=10.0) == 120.0  # inside the delay
    state = clk.press(state, 0, at=10.0)
    assert state.remaining_s[0] == 120.0
    state = clk.press(state, 1, at=40.0)  # B used 30 s: 18 s count
    assert state.remaining_s[1] == 102.0


def test_bronstein_gives_back_what_was_used_up_to_the_delay() -> None:
    state = clk.start_side(clk.start(clk.TimeControl.delay(120, 12, "bronstein")), 0, at=0.0)
    assert clk.remaining(state, 0, at=5.0) == 115.0  # the clock runs at once
    state = clk.press(state, 0, at=5.0)
    assert state.remaining_s[0] == 120.0  # 5 s back
    state = clk.press(state, 1, at=35.0)
    assert state.remaining_s[1] == 102.0  # 30 used, 12 back


def test_multi_period_adds_the_next_period_after_the_move_count() -> None:
    control = clk.TimeControl(
        (clk.Period(3600, moves=2, increment_s=30), clk.Period(900, increment_s=30)),
    )
    state = clk.start_side(clk.start(control), 0, at=0.0)
    assert state.remaining_s[0] == 3630
    state = clk.press(state, 0, at=10.0)
    state = clk.press(state, 1, at=20.0)
    assert state.period == (0, 0)
    state = clk.press(state, 0, at=30.0)  # A's 2nd move completes period 1
    assert state.period == (1, 0)
    assert state.remaining_s[0] == pytest.approx(3630 - 10 + 30 - 10 + 30 + 900)


def test_flag_fall_is_detected_at_the_moment_time_runs_out() -> None:
    state = clk.start_side(clk.start(clk.TimeControl.delay(60, 12)), 1, at=100.0)
    assert clk.flag_time(state) == 172.0
    assert clk.check_flag(state, 171.9).flagged is None
    flagged = clk.check_flag(state, 172.0)
    assert flagged.flagged == 1 and flagged.flag_at == 172.0
    late = clk.press(state, 1, at=200.0)  # a press after the flag fell does not save the player
    assert late.flagged == 1 and late.running == 1


def test_pause_keeps_the_remaining_time() -> None:
    state = clk.start_side(clk.start(clk.TimeControl.fischer(300, 0)), 0, at=0.0)
    state = clk.stop(state, at=50.0)
    assert state.running is None and clk.remaining(state, 0, at=1000.0) == 250.0
    assert clk.flag_time(state) is None
