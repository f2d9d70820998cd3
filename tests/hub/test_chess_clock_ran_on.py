"""A clock that ran on while the hub was away (a restart, a lost link): presses it did not see explain the time
each side gained, so there is no `chess.time_increased` and no press judged across the gap; time set by hand is
still flagged."""

from __future__ import annotations

from hub.rules import chess as rc
from tests.hub.chess_support import Table


def started(control: str = "180+10") -> Table:
    """A table whose clock shows 3:10 each and runs for the left side (White)."""
    table = Table(rc.ChessConfig.from_text(control))
    table.clock(190, 190, None)
    table.clock(190, 190, 0, dt=1.0)
    return table


def test_two_presses_missed_while_the_clock_ran_on_are_not_time_increased() -> None:
    table = started()
    # 6 s away: left used 2 s (+10), right used 3 s (+10), left has used 1 s since; left runs again
    facts, anomalies = table.clock(197, 197, 0, dt=6.0)
    assert anomalies == []
    ran_on = [f for f in facts if f.kind == "clock_ran_on"]
    assert len(ran_on) == 1 and ran_on[0].data["presses"] == 2
    assert rc.to_dict(table.state)["clock"]["white_ms"] == 197000


def test_three_presses_missed_are_one_change_of_side_and_no_press_is_judged() -> None:
    table = started()
    # 9 s away: three presses (left, right, left): left 190-4+20 = 206, right 190-3+10 = 197, right runs
    facts, anomalies = table.clock(206, 197, 1, dt=9.0)
    assert anomalies == [], [a.code for a in anomalies]
    assert [f.data["presses"] for f in facts if f.kind == "clock_ran_on"] == [3]


def test_time_added_by_hand_across_a_gap_is_still_time_increased() -> None:
    table = started()
    # 6 s away, but the right side shows two minutes more than any presses could give
    _, anomalies = table.clock(197, 317, 0, dt=6.0)
    assert {a.code for a in anomalies} == {"chess.time_increased"}
    assert "right" in {a.data["side"] for a in anomalies}


def test_a_stopped_clock_does_not_run_on() -> None:
    table = started()
    table.clock(189, 190, None, dt=1.0)  # the arbiter stops the clock
    _, anomalies = table.clock(199, 200, None, dt=30.0)  # and sets ten seconds more on each side
    assert sorted(a.code for a in anomalies) == ["chess.time_increased", "chess.time_increased"]


def test_without_an_increment_a_clock_that_ran_on_never_gains() -> None:
    table = started("190")
    _, anomalies = table.clock(195, 186, 0, dt=6.0)
    assert [a.code for a in anomalies] == ["chess.time_increased"]


def test_a_small_increment_is_counted_with_the_parity_of_the_side_change() -> None:
    table = Table(rc.ChessConfig.from_text("300+3"))  # the demo's blitz: 3 s, near two displays' rounding
    table.clock(303, 303, None)
    table.clock(303, 303, 0, dt=1.0)
    # 10 s away, four presses: left 303-1+3-1+3-4 = 303, right 303-2+3-2+3 = 305 (two seconds up)
    facts, anomalies = table.clock(303, 305, 0, dt=10.0)
    assert anomalies == []
    assert [f.data["presses"] for f in facts if f.kind == "clock_ran_on"] == [4]


def test_an_increment_within_the_displays_rounding_is_not_counted() -> None:
    table = Table(rc.ChessConfig.from_text("180+2"))  # 2 s: a press cannot be told from rounding
    table.clock(182, 182, None)
    table.clock(182, 182, 0, dt=1.0)
    _, anomalies = table.clock(181, 187, 0, dt=4.0)  # so a gain across a gap stays time_increased
    assert [a.code for a in anomalies] == ["chess.time_increased"]
