"""Chess clock rules: time-control text, Fischer increments (also before move 1), Bronstein and simple delay,
periods with move counts, presses, clock sides, and flag fall. Each anomaly has a test that triggers it and a
near miss that must not."""

from __future__ import annotations

import chess
import pytest

from devices.observations import DeviceEvent
from hub.rules import chess as rc
from hub.rules import clock as clk
from tests.hub.chess_support import Table

# A random game (seed 2389) that leaves White with a bare king and Black with pieces, Black to move.
BARE_KING = [
    "f2f3",
    "g8h6",
    "b2b3",
    "f7f6",
    "g2g4",
    "e7e6",
    "d2d4",
    "g7g6",
    "e2e3",
    "f8a3",
    "f1b5",
    "h6f5",
    "b1c3",
    "a7a5",
    "g1e2",
    "e6e5",
    "d1d3",
    "b8c6",
    "h1f1",
    "a8a6",
    "d3e4",
    "h8g8",
    "g4g5",
    "d7d5",
    "c3a4",
    "a3b4",
    "e1d1",
    "b4d6",
    "e4g4",
    "f5h4",
    "c1a3",
    "a6b6",
    "g4f5",
    "g8f8",
    "f1g1",
    "d8d7",
    "b5d3",
    "e8f7",
    "f5f6",
    "f7g8",
    "e2c1",
    "h4f5",
    "f6h8",
    "g8h8",
    "g1g3",
    "f5e3",
    "d1d2",
    "b6b3",
    "g3g1",
    "e3c2",
    "g1g4",
    "d7f5",
    "d3e4",
    "e5d4",
    "a1b1",
    "d5e4",
    "c1d3",
    "c6d8",
    "d3f4",
    "d6c5",
    "g4h4",
    "h8g8",
    "f4h3",
    "f8f7",
    "a4b6",
    "b3b6",
    "h4h7",
    "c5e7",
    "a3d6",
    "e7d6",
    "a2a3",
    "b6b4",
    "h7f7",
    "b7b5",
    "h3f4",
    "c7c5",
    "f7a7",
    "b4b3",
    "b1b2",
    "f5d5",
    "a7f7",
    "d5g5",
    "h2h3",
    "d8e6",
    "a3a4",
    "c8a6",
    "f7f5",
    "d6f8",
    "b2b3",
    "g5h4",
    "a4b5",
    "h4h7",
    "b3c3",
    "h7g7",
    "d2c1",
    "d4d3",
    "f4h5",
    "c2e3",
    "f5f8",
    "e6f8",
    "h5g7",
    "e3g2",
    "f3e4",
    "g8h7",
    "g7h5",
    "a6c8",
    "c3c5",
    "c8b7",
    "h5f6",
    "h7g7",
    "c1d1",
    "g7f6",
    "b5b6",
    "f8d7",
    "c5c6",
    "f6e5",
    "c6c5",
    "e5e4",
    "c5c4",
    "e4d5",
    "c4f4",
    "g2f4",
    "d1d2",
    "f4h3",
    "d2e1",
    "d7b6",
    "e1d1",
]


def clocked(control: str | None = "180+2", **config: object) -> Table:
    """A table whose clock shows the control's start, then is started with the left side running."""
    cfg = rc.ChessConfig.from_text(control)
    table = Table(rc.ChessConfig(cfg.control, **config))  # type: ignore[arg-type]
    start = 182 if control == "180+2" else 0
    if start:
        table.clock(start, start, None)
        table.clock(start, start, 0, dt=1.0)
    return table


def white_plays_and_presses(table: Table, uci: str, before: float, after: float, right: float) -> list:
    """White (left) moves, the clock ticks down to `before`, and the press shows `after`."""
    table.play(uci, think=0)
    table.clock(before, right, 0, dt=0.4)
    _, anomalies = table.clock(after, right, 1, dt=0.3)
    return anomalies


# --- the time-control text ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, periods",
    [
        ("5400+30", [clk.Period(5400, increment_s=30)]),
        ("180", [clk.Period(180)]),
        ("300d5", [clk.Period(300, delay_s=5, delay_mode=clk.DelayMode.SIMPLE)]),
        ("300b5", [clk.Period(300, delay_s=5, delay_mode=clk.DelayMode.BRONSTEIN)]),
        ("40/6000+30:1800+30", [clk.Period(6000, 40, increment_s=30), clk.Period(1800, increment_s=30)]),
        (
            "40/7200:20/3600:900+30",
            [clk.Period(7200, 40), clk.Period(3600, 20), clk.Period(900, increment_s=30)],
        ),
    ],
)
def test_time_control_text_is_read_and_written_back(text: str, periods: list[clk.Period]) -> None:
    control = rc.parse_time_control(text)
    assert list(control.periods) == periods and control.increment_before_first_move
    assert rc.time_control_text(control) == text
    assert rc.ChessConfig.from_text(text).time_control == text


@pytest.mark.parametrize(
    "text", ["", "abc", "90+x", "40/6000", "6000:1800", "0+5", "0/60:30", "300d", "5400+30+1"]
)
def test_bad_time_control_text_says_what_is_wrong_in_english_and_turkish(text: str) -> None:
    with pytest.raises(ValueError, match="time control") as raised:
        rc.ChessConfig.from_text(text)
    assert "süre kontrolü" in str(raised.value)


def test_clock_white_must_be_a_side() -> None:
    assert rc.ChessConfig.from_text(None, "right").clock_white == "right"
    with pytest.raises(ValueError, match="clock_white"):
        rc.ChessConfig.from_text("180+2", "white")


# --- increments and delays ----------------------------------------------------------------------------------


def test_the_increment_is_recognised_at_every_press() -> None:
    table = clocked("180+2")
    anomalies = white_plays_and_presses(table, "e2e4", before=179, after=181, right=182)  # 2:59 -> 3:01
    assert anomalies == []
    table.play("e7e5", think=0)
    table.clock(181, 180, 1, dt=1.0)
    table.clock(181, 182, 0, dt=0.3)  # 3:00 -> 3:02
    assert table.anomalies == []
    assert [m.clock_ms for m in table.state.moves] == [181000, 182000]
    presses = table.kinds("press")
    assert [p.data["colour"] for p in presses] == ["white", "black"]


def test_a_press_that_adds_nothing_is_an_increment_missing() -> None:
    table = clocked("180+2")
    anomalies = white_plays_and_presses(table, "e2e4", before=179, after=179, right=182)
    assert [a.code for a in anomalies] == ["chess.increment_missing"]
    assert anomalies[0].data["before_ms"] == 179000 and anomalies[0].data["after_ms"] == 179000
    assert anomalies[0].data["colour"] == "white"


def test_a_double_increment_is_an_increment_wrong() -> None:
    table = clocked("180+2")
    anomalies = white_plays_and_presses(table, "e2e4", before=179, after=183, right=182)
    assert [a.code for a in anomalies] == ["chess.increment_wrong"]


def test_the_time_between_readings_is_allowed_for() -> None:
    table = clocked("180+2")
    table.play("e2e4", think=0)
    table.clock(179, 182, 0, dt=0.4)
    _, anomalies = table.clock(173, 182, 1, dt=8.0)  # no reading for 8 s: 2:59 - 8 s + 2 s = 2:53
    assert anomalies == []
    table.play("e7e5", think=0)
    table.clock(173, 180, 1, dt=0.4)
    _, anomalies = table.clock(173, 168, 0, dt=8.0)  # 3:00 - 8 s and no increment: 2:48 (would be 2:54)
    assert [a.code for a in anomalies] == ["chess.increment_missing"]


def test_bronstein_gives_back_what_was_used_up_to_the_delay() -> None:
    table = clocked("300b5")
    table.clock(300, 300, None)
    table.clock(300, 300, 0, dt=1.0)
    anomalies = white_plays_and_presses(table, "e2e4", before=297, after=300, right=300)  # 3 s used, 3 back
    assert anomalies == []
    table.play("e7e5", think=0)
    table.clock(300, 290, 1, dt=10.0)
    _, anomalies = table.clock(300, 295, 0, dt=0.3)  # 10 s used, 5 back
    assert anomalies == []
    anomalies = white_plays_and_presses(table, "g1f3", before=298, after=303, right=295)  # above the start
    assert [a.code for a in anomalies] == ["chess.increment_wrong"]


def test_bronstein_without_the_refund_is_missing() -> None:
    table = clocked("300b5")
    table.clock(300, 300, None)
    table.clock(300, 300, 0, dt=1.0)
    anomalies = white_plays_and_presses(table, "e2e4", before=296, after=296, right=300)
    assert [a.code for a in anomalies] == ["chess.increment_missing"]


def test_simple_delay_adds_nothing_at_the_press() -> None:
    table = clocked("300d5")
    table.clock(300, 300, None)
    table.clock(300, 300, 0, dt=1.0)
    assert white_plays_and_presses(table, "e2e4", before=300, after=300, right=300) == []
    table.play("e7e5", think=0)
    table.clock(300, 296, 1, dt=9.0)
    _, anomalies = table.clock(300, 301, 0, dt=0.3)  # a delay clock gave time back
    assert [a.code for a in anomalies] == ["chess.increment_wrong"]


def test_the_control_is_learned_from_the_clock_when_none_was_given() -> None:
    table = clocked(None)
    table.clock(305, 305, None)
    table.clock(305, 305, 0, dt=1.0)
    white_plays_and_presses(table, "e2e4", before=304, after=309, right=305)
    (learned,) = table.kinds("time_control")
    assert learned.data["text"] == "300+5" and learned.data["learned"]
    assert rc.to_dict(table.state)["time_control"] == "300+5"
    table.play("e7e5", think=0)
    table.clock(309, 303, 1, dt=2.0)
    _, anomalies = table.clock(309, 303, 0, dt=0.3)  # now judged against 300+5
    assert [a.code for a in anomalies] == ["chess.increment_missing"]


# --- periods ------------------------------------------------------------------------------------------------


def two_moves_each(table: Table) -> None:
    for white, black in (("e2e4", "e7e5"), ("g1f3", "b8c6")):
        table.play(white, think=0)
        table.clock(table.clock_ms[0] / 1000, table.clock_ms[1] / 1000, 1, dt=0.3)
        table.play(black, think=0)
        table.clock(table.clock_ms[0] / 1000, table.clock_ms[1] / 1000, 0, dt=0.3)


def test_a_dgt_clock_adds_the_next_period_at_zero_and_the_hub_checks_the_move_count() -> None:
    table = clocked("2/60:30")
    table.clock(60, 60, None)
    table.clock(60, 60, 0, dt=1.0)
    two_moves_each(table)  # White has made 2 moves: the control is reached
    table.clock(1, 59, 0, dt=56.0)
    _, anomalies = table.clock(30, 59, 0, dt=1.0, period_flags=(True, False))  # 0:00 -> +0:30, flag shown
    assert anomalies == []
    assert table.kinds("period")[0].data == {
        "side": "left",
        "colour": "white",
        "period": 2,
        "remaining_ms": 30000,
    }


def test_a_period_flag_before_the_move_count_is_a_flag_fall() -> None:
    table = clocked("2/60:30")
    table.clock(60, 60, None)
    table.clock(60, 60, 0, dt=1.0)
    table.play("e2e4", think=0)
    table.clock(60, 60, 1, dt=0.3)
    table.play("e7e5", think=0)
    table.clock(60, 60, 0, dt=0.3)
    table.clock(1, 60, 0, dt=58.0)
    _, anomalies = table.clock(30, 60, 0, dt=1.0, period_flags=(True, False))  # only 1 of 2 moves made
    assert [a.code for a in anomalies] == ["chess.flag_fall"]
    assert anomalies[0].data["source"] == "period" and rc.result(table.state) == "0-1"


def test_a_clock_that_adds_the_period_at_the_move_count_is_accepted() -> None:
    table = clocked("2/60:30")
    table.clock(60, 60, None)
    table.clock(60, 60, 0, dt=1.0)
    table.play("e2e4", think=0)
    table.clock(60, 60, 1, dt=0.3)
    table.play("e7e5", think=0)
    table.clock(60, 60, 0, dt=0.3)
    table.play("g1f3", think=0)
    table.clock(90, 60, 1, dt=0.3)  # White's 2nd move completes the period: +30 s at once
    assert table.anomalies == [] and table.kinds("period")[0].data["period"] == 2


# --- presses and clock sides --------------------------------------------------------------------------------


def test_a_move_answered_with_no_press_between_is_flagged() -> None:
    table = clocked("180+2")
    table.play("e2e4")  # no press
    table.play("e7e5")
    assert table.codes() == ["chess.move_without_press"]
    assert table.anomalies[0].data == {"ply": 1, "san": "e4", "colour": "white"}


def test_a_pressed_move_answered_is_no_anomaly() -> None:
    table = clocked("180+2")
    white_plays_and_presses(table, "e2e4", before=181, after=183, right=182)
    table.play("e7e5")
    assert table.anomalies == []


def test_the_side_running_before_whites_first_move_is_whites() -> None:
    table = Table()
    table.clock(300, 300, None)
    table.clock(300, 300, 1, dt=1.0)  # the right side runs: White sits on the right
    assert table.kinds("clock_sides")[0].data == {"white_side": "right", "source": "start"}
    table.play("e2e4", think=0)
    table.clock(300, 299, 0, dt=0.3)
    view = rc.to_dict(table.state)["clock"]
    assert view["white_side"] == "right" and view["white_ms"] == 299000 and view["running"] == "black"


def test_a_press_by_the_wrong_side_is_flagged_and_the_arbiter_sets_the_sides() -> None:
    table = Table(rc.ChessConfig(clock_white="right"))
    table.clock(300, 300, None)
    table.clock(300, 300, 0, dt=1.0)  # the left side runs although White was said to sit right
    table.play("e2e4", think=0)
    _, anomalies = table.clock(299, 300, 1, dt=0.3)
    assert [a.code for a in anomalies] == ["chess.clock_sides"]
    facts, _ = table.feed(rc.ClockSides("left"), 1.0)
    assert [f.kind for f in facts] == ["anomaly_resolved", "clock_sides"]
    table.play("e7e5", think=0)
    _, anomalies = table.clock(299, 299, 0, dt=0.3)
    assert anomalies == [] and rc.to_dict(table.state)["clock"]["white_ms"] == 299000


def test_a_clock_press_event_from_a_wire_clock_is_one_press() -> None:
    table = clocked("180+2")
    table.play("e2e4", think=0)
    table.clock(179, 182, 0, dt=0.4)
    facts, anomalies = table.press_event(0, 181, 182, dt=0.3)
    assert anomalies == [] and [f.kind for f in facts if f.kind == "press"] == ["press"]
    facts, _ = table.clock(181, 182, 1, dt=0.05)  # the state frame that follows the event
    assert [f.kind for f in facts] == []
    _, anomalies = table.feed(DeviceEvent("press", {}), 0.1)
    assert [a.code for a in anomalies] == ["chess.bad_event"]


# --- time going up, start time, flag fall -------------------------------------------------------------------


def test_time_going_up_with_no_reason_is_flagged() -> None:
    table = clocked("180+2")
    table.clock(181, 183, 0, dt=1.0)  # the right clock, not running, gains a second: the display's step
    assert table.anomalies == []
    _, anomalies = table.clock(180, 190, 0, dt=1.0)  # +7 s with no press
    assert [a.code for a in anomalies] == ["chess.time_increased"]
    assert anomalies[0].data["side"] == "right" and anomalies[0].data["after_ms"] == 190000


def test_a_clock_not_set_to_the_control_is_flagged() -> None:
    table = Table(rc.ChessConfig.from_text("180+2"))
    _, anomalies = table.clock(300, 300, None)
    assert [a.code for a in anomalies] == ["chess.clock_setting"]
    assert anomalies[0].data["expected_ms"] == [180000, 182000]


@pytest.mark.parametrize("start", [182, 180])
def test_a_clock_set_with_or_without_the_first_increment_is_right(start: int) -> None:
    table = Table(rc.ChessConfig.from_text("180+2"))
    table.clock(start, start, None)
    table.clock(start - 3, start, 0, dt=3.0)
    assert table.anomalies == []


def test_a_fallen_flag_loses() -> None:
    table = clocked("180+2")
    white_plays_and_presses(table, "e2e4", before=181, after=183, right=182)
    table.clock(183, 1, 1, dt=181.0)
    _, anomalies = table.clock(183, 0, None, dt=1.0, flags=(False, True))
    assert [a.code for a in anomalies] == ["chess.flag_fall"]
    assert anomalies[0].severity.value == "info"
    assert anomalies[0].data["colour"] == "black" and anomalies[0].data["result"] == "1-0"
    assert rc.result(table.state) == "1-0" and table.state.result_reason == "flag_fall"
    table.play("e7e5")  # moves after the flag are not part of the game
    assert table.moves == ["e2e4"]


def test_a_flag_is_a_draw_when_the_opponent_cannot_mate() -> None:
    state = rc.initial(rc.ChessConfig.from_text("180+2", "left"))
    data = rc.to_dict(state)
    data["moves"] = [
        {"ply": i, "uci": u, "san": u, "clock_ms": None, "at": 0.0} for i, u in enumerate(BARE_KING, 1)
    ]
    board = chess.Board()
    for uci in BARE_KING:
        board.push_uci(uci)
    assert board.has_insufficient_material(chess.WHITE) and board.turn == chess.BLACK
    data["board_fen"] = board.board_fen()
    table = Table()
    table.state = rc.from_dict(data)
    table.clock(50, 2, 1, dt=1.0)
    _, anomalies = table.clock(50, 0, None, dt=2.0, flags=(False, True))
    assert [a.code for a in anomalies] == ["chess.flag_fall"]
    assert anomalies[0].data["draw"] and rc.result(table.state) == "1/2-1/2"


def test_a_flag_noticed_by_the_hub_when_the_clock_stops_reporting() -> None:
    table = clocked("180+2")
    white_plays_and_presses(table, "e2e4", before=181, after=183, right=182)
    table.clock(183, 3, 1, dt=179.0)
    _, anomalies = table.tick(4.5)  # 3 s left 4.5 s ago: past zero, but within the slack
    assert anomalies == []
    _, anomalies = table.tick(1.0)
    assert [a.code for a in anomalies] == ["chess.flag_fall"]
    assert anomalies[0].data["source"] == "estimate"


def test_a_clock_reading_that_cannot_be_right_is_an_anomaly_not_a_crash() -> None:
    from devices.observations import ChessClockState

    table = clocked("180+2")
    _, anomalies = table.feed(ChessClockState((180000, 180000), 5), 0.5)  # running side 5
    assert [a.code for a in anomalies] == ["chess.bad_event"]
    _, anomalies = table.feed(ChessClockState((180000,), 0), 0.5)  # type: ignore[arg-type]
    assert [a.code for a in anomalies] == ["chess.bad_event"]
    _, anomalies = table.clock(181, 182, 0, dt=0.5)
    assert anomalies == []
