"""Boardcast Wire bodies to reports and back, and bodies that name the field they got wrong."""

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.observations import DeviceEvent, DeviceHello, Heartbeat, ScoreboardState
from devices.wire.codec import Frame, MessageType, WireCodec, encode_frame
from devices.wire.messages import (
    BodyError,
    Command,
    CommandName,
    decode_report,
    decode_scoreboard_state,
    encode_report,
    report_to_body,
)

TT = "tt-scoreboard"
HELLO_BODY = {
    "device_id": "tt-07",
    "family": TT,
    "model": "BC-TT1",
    "firmware": "1.4.2",
    "protocol": 1,
    "boot_epoch": 1_700_000_000,
    "capabilities": ["resync", "show_text"],
}
STATE_BODY = {"points": [7, 5], "games": [1, 0], "server": 1, "game_scores": [[11, 8]]}


def frame(message_type: MessageType, body: Any) -> Frame:
    return Frame(message_type, 1, body)


def test_hello_body_becomes_a_device_hello() -> None:
    assert decode_report(frame(MessageType.HELLO, HELLO_BODY)) == DeviceHello(
        device_id="tt-07",
        family=TT,
        model="BC-TT1",
        firmware="1.4.2",
        protocol=1,
        boot_epoch=1_700_000_000,
        capabilities=("resync", "show_text"),
    )


def test_scoreboard_state_body_becomes_a_scoreboard_state() -> None:
    assert decode_report(frame(MessageType.STATE, STATE_BODY), TT) == ScoreboardState(
        points=(7, 5), games=(1, 0), server=1, game_scores=((11, 8),)
    )


def test_state_server_and_game_scores_may_be_left_out() -> None:
    state = decode_report(frame(MessageType.STATE, {"points": [0, 0], "games": [0, 0]}), TT)
    assert state == ScoreboardState(points=(0, 0), games=(0, 0), server=None, game_scores=())


def test_the_optional_tt_keys_are_read_and_written_only_when_known() -> None:
    body = {**STATE_BODY, "ends": "swapped", "expedite": True, "server_player": "B2"}
    state = decode_report(frame(MessageType.STATE, body), TT)
    assert state == ScoreboardState(
        points=(7, 5),
        games=(1, 0),
        server=1,
        game_scores=((11, 8),),
        ends="swapped",
        expedite=True,
        server_player="B2",
    )
    assert report_to_body(state)[1] == body
    nulls = decode_report(frame(MessageType.STATE, {**STATE_BODY, "ends": None, "expedite": None}), TT)
    assert (nulls.ends, nulls.expedite, nulls.server_player) == (None, None, None)
    assert report_to_body(nulls)[1] == STATE_BODY  # a version-1 board's body, key for key


def test_heartbeat_fields_may_be_null() -> None:
    body = {"battery": None, "uptime_s": 12}
    assert decode_report(frame(MessageType.HEARTBEAT, body)) == Heartbeat(battery=None, uptime_s=12)


def test_event_body_becomes_a_device_event() -> None:
    body = {"kind": "timeout", "data": {"side": 0}}
    assert decode_report(frame(MessageType.EVENT, body)) == DeviceEvent("timeout", {"side": 0})


@pytest.mark.parametrize(
    "report",
    [
        DeviceHello("tt-07", TT, "BC-TT1", "1.4.2", 1, 5, ("resync",)),
        Heartbeat(battery=80, uptime_s=3600),
        ScoreboardState(
            points=(10, 10), games=(2, 2), server=0, game_scores=((11, 9), (8, 11), (11, 4), (3, 11))
        ),
        ScoreboardState(
            points=(5, 3),
            games=(2, 2),
            server=1,
            game_scores=((11, 9), (8, 11), (11, 4), (3, 11)),
            ends="swapped",
            expedite=True,
            server_player="B2",
        ),
        ScoreboardState(points=(0, 0), games=(0, 0), ends="normal", expedite=False),
        DeviceEvent("button", {"id": 2}),
        DeviceEvent("card", {"side": 1, "card": "yellow_red", "player": "B1"}),
    ],
)
def test_every_report_survives_the_wire(report: Any) -> None:
    (received,) = WireCodec().feed(encode_report(report, 42))
    assert isinstance(received, Frame)
    assert received.type is report_to_body(report)[0]
    assert decode_report(received, TT) == report


@pytest.mark.parametrize(
    ("message_type", "body", "message"),
    [
        (
            MessageType.STATE,
            {**STATE_BODY, "points": [1]},
            "state.points must be two non-negative integers, got [1]",
        ),
        (
            MessageType.STATE,
            {**STATE_BODY, "games": [-1, 0]},
            "state.games must be two non-negative integers",
        ),
        (MessageType.STATE, {**STATE_BODY, "points": [True, 0]}, "state.points must be two non-negative"),
        (MessageType.STATE, {**STATE_BODY, "server": 2}, "state.server must be 0, 1 or null, got 2"),
        (
            MessageType.STATE,
            {**STATE_BODY, "game_scores": [[11, 8], [11, "x"]]},
            "state.game_scores[1] must be two non-negative integers, got [11, 'x']",
        ),
        (MessageType.STATE, [1, 2], "state body must be a map, got list [1, 2]"),
        (
            MessageType.STATE,
            {**STATE_BODY, "ends": "left"},
            "state.ends must be 'normal', 'swapped' or null, got 'left'",
        ),
        (
            MessageType.STATE,
            {**STATE_BODY, "expedite": 1},
            "state.expedite must be true, false or null, got 1",
        ),
        (
            MessageType.STATE,
            {**STATE_BODY, "server_player": "C1"},
            "state.server_player must be 'A1', 'A2', 'B1', 'B2' or null, got 'C1'",
        ),
        (MessageType.HELLO, {**HELLO_BODY, "device_id": 7}, "hello.device_id must be a string, got 7"),
        (MessageType.HELLO, {"family": TT}, "hello.device_id must be a string, got None"),
        (MessageType.HELLO, {**HELLO_BODY, "capabilities": ("resync",)}, "hello.capabilities must be a list"),
        (MessageType.HELLO, {**HELLO_BODY, "device_id": ""}, "hello.device_id must be 1-64 letters"),
        (
            MessageType.HELLO,
            {**HELLO_BODY, "boot_epoch": -1},
            "hello.boot_epoch must be a non-negative integer",
        ),
        (MessageType.HELLO, {**HELLO_BODY, "capabilities": "resync"}, "hello.capabilities must be a list"),
        (MessageType.HEARTBEAT, {"battery": 101}, "heartbeat.battery must be an integer percentage 0..100"),
        (MessageType.HEARTBEAT, {"uptime_s": "1h"}, "heartbeat.uptime_s must be a non-negative integer"),
        (MessageType.EVENT, {"data": {}}, "event.kind must be a non-empty string, got None"),
        (MessageType.EVENT, {"kind": "x", "data": [1]}, "event.data must be a map, got [1]"),
        (MessageType.COMMAND, {"cmd": "resync"}, "command frames go from the hub to a device"),
    ],
)
def test_a_bad_body_names_the_field(message_type: MessageType, body: Any, message: str) -> None:
    with pytest.raises(BodyError) as caught:
        decode_report(frame(message_type, body), TT)
    assert str(caught.value).startswith(message)


def test_state_of_an_unknown_family_is_refused_by_name() -> None:
    with pytest.raises(BodyError, match="family 'dart-board' are not supported"):
        decode_report(frame(MessageType.STATE, STATE_BODY), "dart-board")


def test_command_round_trips_with_its_arguments() -> None:
    command = Command(CommandName.SHOW_TEXT.value, {"text": "Masa 4 / Table 4", "seconds": 5})
    (received,) = WireCodec().feed(command.encode(seq=65535))
    assert isinstance(received, Frame) and received.seq == 65535
    assert received.body == {"cmd": "show_text", "text": "Masa 4 / Table 4", "seconds": 5}
    assert Command.decode(received) == command


def test_resync_command_has_no_arguments() -> None:
    assert Command.resync().to_body() == {"cmd": "resync"}


def test_command_without_cmd_is_refused() -> None:
    with pytest.raises(BodyError, match=r"command\.cmd must be a non-empty string, got None"):
        Command.decode(Frame(MessageType.COMMAND, 1, {"text": "hi"}))


def test_a_report_frame_is_not_a_command() -> None:
    (received,) = WireCodec().feed(encode_frame(MessageType.STATE, 1, STATE_BODY))
    assert isinstance(received, Frame)
    with pytest.raises(BodyError, match="expected a COMMAND frame, got STATE"):
        Command.decode(received)


# -- any scoreboard body is read whole or refused naming its field ----------------------------------------

_SCORE = st.one_of(st.integers(-2, 30), st.booleans(), st.none(), st.text(max_size=2), st.floats(0, 3))
_PAIR = st.one_of(st.lists(_SCORE, min_size=0, max_size=3), st.tuples(_SCORE, _SCORE), _SCORE)
_STATE_BODY = st.fixed_dictionaries(
    {},
    optional={
        "points": _PAIR,
        "games": _PAIR,
        "server": st.one_of(st.sampled_from([0, 1, 2, None, True, False, "0"]), st.floats(0, 1)),
        "game_scores": st.one_of(st.lists(_PAIR, max_size=4), st.none(), st.tuples(_PAIR)),
        "ends": st.sampled_from(["normal", "swapped", "left", None, 1, True]),
        "expedite": st.sampled_from([True, False, None, 0, 1, "yes"]),
        "server_player": st.sampled_from(["A1", "A2", "B1", "B2", "C1", None, 1]),
    },
)


_FIELD_NAMED = re.compile(
    r"state(\.(points|games|server|game_scores(\[\d+\])?|ends|expedite|server_player) must be | body must be a map)"
)


@given(st.one_of(_STATE_BODY, st.lists(st.integers(), max_size=2), st.none()))
def test_a_scoreboard_body_is_read_whole_or_refused_naming_a_field(body) -> None:
    try:
        state = decode_scoreboard_state(body)
    except BodyError as exc:
        assert _FIELD_NAMED.match(str(exc)), str(exc)
        return
    assert decode_scoreboard_state(report_to_body(state)[1]) == state
    assert {type(n) for pair in (state.points, state.games, *state.game_scores) for n in pair} <= {int}


def test_a_usual_scoreboard_body_is_read_field_for_field() -> None:
    body = {"points": [3, 4], "games": [1, 0], "server": 1, "game_scores": [[11, 7]], "ends": "swapped"}
    assert decode_scoreboard_state(body) == ScoreboardState((3, 4), (1, 0), 1, ((11, 7),), "swapped")


def test_a_key_that_is_not_a_string_is_skipped_as_a_lookup_by_name_skips_it() -> None:
    assert decode_scoreboard_state({**STATE_BODY, b"points": [0, 0], 3: "x"}) == decode_scoreboard_state(
        STATE_BODY
    )


def test_game_scores_must_be_a_list_not_a_tuple() -> None:
    with pytest.raises(
        BodyError, match=re.escape("state.game_scores must be a list of score pairs, got ((11, 8),)")
    ):
        decode_scoreboard_state({**STATE_BODY, "game_scores": ((11, 8),)})
