"""The Boardcast Wire `chess-clock` family: STATE bodies to `ChessClockState` and back, `press` EVENTs, the
bodies that name the field they got wrong, and the checked-in vectors read through the same decoder."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devices.observations import ChessClockState, DeviceEvent
from devices.wire.codec import Frame, MessageType, decode_frame
from devices.wire.messages import (
    MAX_CLOCK_MS,
    BodyError,
    decode_chess_clock_event,
    decode_chess_clock_state,
    decode_report,
    encode_report,
    report_to_body,
)

CLOCK = "chess-clock"
BODY = {"remaining_ms": [300000, 295500], "running": 1, "moves": [12, 11], "flag": None, "period": 1}
VECTORS = json.loads(
    (Path(__file__).resolve().parents[2] / "firmware-protocols" / "vectors" / "frames.json").read_text(
        "utf-8"
    )
)["vectors"]


def state(**changes: Any) -> ChessClockState:
    fields: dict[str, Any] = {"remaining_ms": (300000, 295500), "running": 1, "moves": (12, 11), "period": 1}
    return ChessClockState(**{**fields, "resolution_ms": 1, **changes})


def test_a_state_body_becomes_a_chess_clock_state() -> None:
    assert decode_report(Frame(MessageType.STATE, 3, BODY), CLOCK) == state()


def test_flag_null_values_and_absent_keys() -> None:
    flagged = decode_chess_clock_state({**BODY, "remaining_ms": [0, 41250], "running": None, "flag": 0})
    assert (
        flagged.flags == (True, False) and flagged.running is None and flagged.period_flags == (False, False)
    )
    assert decode_chess_clock_state({**BODY, "flag": 1}).flags == (False, True)
    bare = decode_chess_clock_state({"remaining_ms": [1000, 2000]})
    assert bare == ChessClockState((1000, 2000), running=None, resolution_ms=1, moves=None, period=None)
    assert bare.time_per_move is None  # a Wire clock shows no icon; the time control is the hub's business


@pytest.mark.parametrize(
    ("report", "body"),
    [
        (state(), BODY),
        (
            state(remaining_ms=(0, 41250), running=None, flags=(True, False), moves=(37, 38)),
            {"remaining_ms": [0, 41250], "running": None, "moves": [37, 38], "flag": 0, "period": 1},
        ),
        (
            ChessClockState((MAX_CLOCK_MS, 0), resolution_ms=1),
            {"remaining_ms": [MAX_CLOCK_MS, 0], "running": None, "moves": None, "flag": None, "period": None},
        ),
    ],
)
def test_a_state_is_written_as_the_spec_body_and_read_back(report: ChessClockState, body: dict) -> None:
    assert report_to_body(report) == (MessageType.STATE, body)
    frame = decode_frame(encode_report(report, 7))
    assert isinstance(frame, Frame) and list(frame.body) == list(body)  # the key order of the spec
    assert decode_report(frame, CLOCK) == report


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"remaining_ms": None},
            "state.remaining_ms must be two times in milliseconds, 0..4294967295, got None",
        ),
        ({"remaining_ms": [1000]}, "state.remaining_ms must be two times in milliseconds"),
        ({"remaining_ms": [-1, 1000]}, "state.remaining_ms must be two times in milliseconds"),
        ({"remaining_ms": [2**32, 0]}, "state.remaining_ms must be two times in milliseconds"),
        ({"remaining_ms": [1.5, 0]}, "state.remaining_ms must be two times in milliseconds"),
        ({"remaining_ms": [True, 0]}, "state.remaining_ms must be two times in milliseconds"),
        ({"running": 2}, "state.running must be 0, 1 or null (stopped), got 2"),
        ({"running": "left"}, "state.running must be 0, 1 or null (stopped), got 'left'"),
        ({"moves": [3, -1]}, "state.moves must be two non-negative integers, got [3, -1]"),
        ({"moves": 12}, "state.moves must be two non-negative integers, got 12"),
        ({"flag": 2}, "state.flag must be 0, 1 or null (no flag fallen), got 2"),
        ({"flag": [0, 1]}, "state.flag must be 0, 1 or null (no flag fallen), got [0, 1]"),
        ({"period": 0}, "state.period must be an integer from 1 or null, got 0"),
        ({"period": "2"}, "state.period must be an integer from 1 or null, got '2'"),
    ],
)
def test_a_malformed_state_names_its_field(change: dict, message: str) -> None:
    with pytest.raises(BodyError) as caught:
        decode_report(Frame(MessageType.STATE, 1, {**BODY, **change}), CLOCK)
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_state_body_must_be_a_map() -> None:
    with pytest.raises(BodyError, match=r"state body must be a map, got list \[1, 2\]"):
        decode_chess_clock_state([1, 2])


@pytest.mark.parametrize(
    ("report", "says"),
    [
        (state(flags=(True, True)), "at most one fallen flag"),
        (state(period_flags=(False, True)), "no period flags"),
        (state(time_per_move=True), "time-per-move"),
        (state(resolution_ms=1000), "counts milliseconds (resolution_ms=1), got 1000"),
    ],
)
def test_a_state_the_body_cannot_carry_is_refused_not_cut(report: ChessClockState, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        report_to_body(report)


def test_a_press_event_stays_a_device_event_with_its_fields_checked() -> None:
    body = {"kind": "press", "data": {"side": 1, "remaining_ms": [171400, 168250]}}
    event = decode_report(Frame(MessageType.EVENT, 4, body), CLOCK)
    assert event == DeviceEvent("press", {"side": 1, "remaining_ms": [171400, 168250]})
    assert report_to_body(event) == (MessageType.EVENT, body)
    assert decode_chess_clock_event({"kind": "press", "data": {"side": 0}}) == DeviceEvent(
        "press", {"side": 0, "remaining_ms": None}
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"kind": "pause", "data": {}}, "event.kind of a chess-clock must be one of press, got 'pause'"),
        ({"kind": "press", "data": {"side": 2}}, r"event.data (press).side must be 0 or 1, got 2"),
        ({"kind": "press", "data": {}}, r"event.data (press).side must be 0 or 1, got None"),
        (
            {"kind": "press", "data": {"side": 0, "remaining_ms": [5, -5]}},
            "event.data (press).remaining_ms must be two times in milliseconds",
        ),
        ({"kind": "press", "data": [0]}, "event.data must be a map, got [0]"),
    ],
)
def test_a_malformed_press_names_its_field(body: dict, message: str) -> None:
    with pytest.raises(BodyError) as caught:
        decode_report(Frame(MessageType.EVENT, 1, body), CLOCK)
    assert str(caught.value).startswith(message), str(caught.value)


CLOCK_VECTORS = [
    v
    for v in VECTORS
    if v["name"].startswith(("state_chess_clock", "event_chess_clock", "event_clock_press"))
]


def test_the_spec_has_vectors_for_a_running_clock_its_start_a_flag_and_presses() -> None:
    names = {v["name"] for v in CLOCK_VECTORS}
    assert names == {
        "state_chess_clock",
        "state_chess_clock_start",
        "state_chess_clock_flag",
        "event_clock_press",
        "event_chess_clock_press",
    }


@pytest.mark.parametrize("vector", CLOCK_VECTORS, ids=lambda v: v["name"])
def test_every_chess_clock_vector_decodes_and_the_report_rebuilds_its_bytes(vector: dict) -> None:
    wire = bytes.fromhex(vector["hex"])
    frame = decode_frame(wire)
    assert isinstance(frame, Frame)
    report = decode_report(frame, CLOCK)
    assert isinstance(report, ChessClockState | DeviceEvent)
    assert encode_report(report, frame.seq) == wire


times = st.integers(0, MAX_CLOCK_MS)


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(times, times),
    st.sampled_from([None, 0, 1]),
    st.none() | st.tuples(st.integers(0, 500), st.integers(0, 500)),
    st.sampled_from([(False, False), (True, False), (False, True)]),
    st.none() | st.integers(1, 5),
    st.integers(0, 0xFFFF),
)
def test_any_clock_state_survives_the_wire(
    remaining: tuple[int, int],
    running: int | None,
    moves: tuple[int, int] | None,
    flags: tuple[bool, bool],
    period: int | None,
    seq: int,
) -> None:
    report = ChessClockState(remaining, running, flags, resolution_ms=1, moves=moves, period=period)
    frame = decode_frame(encode_report(report, seq))
    assert isinstance(frame, Frame) and frame.seq == seq
    assert decode_report(frame, CLOCK) == report
