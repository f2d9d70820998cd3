"""A scoreboard STATE read straight from its bytes (`read_scoreboard_state`) is the general reading or nothing.

The general path is `msgpack.unpackb` then `decode_scoreboard_state`; the reader may decline (None) and leave a
body to it, but whatever it reads must be the very state the general path reads, field types included.
"""

from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.observations import DeviceFamily, ScoreboardState
from devices.wire.codec import Frame, FrameError, WireCodec, decode_frame
from devices.wire.messages import (
    BodyError,
    decode_report,
    decode_scoreboard_state,
    encode_report,
    read_scoreboard_state,
    state_reader,
)
from tests.devices.test_wire_codec import crafted
from tests.devices.test_wire_messages import _STATE_BODY

TT = DeviceFamily.TT_SCOREBOARD.value
FIELDS = {"points", "games", "server", "game_scores", "ends", "expedite", "server_player"}


def general(body: bytes) -> ScoreboardState | str:
    """What the general path makes of a body: the state, or the error it names."""
    try:
        return decode_scoreboard_state(msgpack.unpackb(body, raw=False))
    except (ValueError, msgpack.UnpackException, BodyError) as exc:
        return f"{type(exc).__name__}: {exc}"


def assert_same_or_declined(body: bytes) -> ScoreboardState | None:
    read = read_scoreboard_state(body)
    if read is not None:
        expected = general(body)
        assert read == expected
        assert [type(getattr(read, f)) for f in read.__slots__] == [
            type(getattr(expected, f)) for f in read.__slots__
        ]
    return read


@given(
    _STATE_BODY, st.dictionaries(st.sampled_from(["x", "score", "token"]), st.integers(-99, 99), max_size=2)
)
def test_whatever_the_reader_reads_the_general_path_reads_the_same(body: dict[str, Any], extra) -> None:
    assert_same_or_declined(msgpack.packb(body, use_bin_type=True))
    assert_same_or_declined(msgpack.packb({**body, **extra}, use_bin_type=True))


@given(_STATE_BODY)
def test_a_body_the_general_path_reads_is_read_by_the_reader(body: dict[str, Any]) -> None:
    """The reader is not a path that always declines: every usual body goes through it."""
    packed = msgpack.packb(body, use_bin_type=True)
    if isinstance(general(packed), ScoreboardState) and set(body) <= FIELDS:
        assert assert_same_or_declined(packed) is not None


def _map(*pairs: tuple[bytes, bytes]) -> bytes:
    """A msgpack map written key by key (so a key may repeat, or be of any type)."""
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def _p(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


POINTS, GAMES = (_p("points"), _p([3, 4])), (_p("games"), _p([1, 0]))


@pytest.mark.parametrize(
    ("body", "read"),
    [
        (_map(POINTS, GAMES, (_p("points"), _p([5, 6]))), True),  # a repeated key: the last, as in a dict
        (_map((_p(b"points"), _p([3, 4])), GAMES), False),  # a bytes key
        (_map(POINTS, GAMES, (_p(1), _p(None))), False),  # an integer key (msgpack refuses it)
        (_map(POINTS, GAMES) + b"\x00", False),  # a second value after the body
        (_map(POINTS, GAMES, (_p("ends"), b"\xa2\xff\xfe")), False),  # not UTF-8
        (_map(POINTS, GAMES, (_p("ends"), _p(msgpack.ExtType(5, b"ab")))), False),
        (_map(POINTS, GAMES, (_p("junk"), _p(msgpack.ExtType(5, b"ab")))), False),  # not a field: left alone
        (_map(POINTS, (_p("games"), b"\x92\xd3" + (1).to_bytes(8, "big") + b"\x00")), True),  # int64 for 1
        (_map(POINTS, (_p("games"), _p([2**64 - 1, 0]))), True),
        (_map(POINTS, (_p("games"), _p([True, 0]))), False),
        (_map(POINTS, (_p("games"), _p([1.0, 0]))), False),
        (_map(POINTS, (_p("games"), _p([-1, 0]))), False),
        (_map(POINTS, GAMES, (_p("game_scores"), _p([[11, -1]]))), False),
        (_map(POINTS, GAMES, (_p("game_scores"), _p(None))), False),
        (_map(POINTS, GAMES, (_p("server"), _p(2))), False),
        (_map(POINTS, GAMES, (_p("ends"), _p("left"))), False),
        (_map(POINTS, GAMES, (_p("server_player"), _p("C1"))), False),
        (_map(POINTS, GAMES, (_p("expedite"), _p(0))), False),
        (_p([3, 4]), False),
        (b"", False),
    ],
)
def test_edge_bodies_are_read_the_same_or_left_to_the_general_path(body: bytes, read: bool) -> None:
    assert (assert_same_or_declined(body) is not None) is read


def test_a_codec_with_the_reader_hands_the_report_and_checks_the_frame_as_before() -> None:
    state = ScoreboardState((7, 5), (1, 0), 1, ((11, 8),), "swapped", False, None)
    wire = encode_report(state, 9)
    plain = WireCodec().feed(wire)
    fast = WireCodec(state_reader(TT)).feed(wire)
    assert [type(f) for f in plain + fast] == [Frame, Frame]
    assert fast[0].report == state and fast[0].body is None
    assert (fast[0].type, fast[0].seq, fast[0].raw) == (plain[0].type, plain[0].seq, plain[0].raw)
    assert decode_report(fast[0], TT) == decode_report(plain[0], TT) == state
    for broken in (wire[:3] + bytes([wire[3] ^ 0x40]) + wire[4:], wire[:-3] + b"\x00"):
        assert decode_frame(broken, state_reader(TT)) == decode_frame(broken)
        assert isinstance(decode_frame(broken), FrameError)


@pytest.mark.parametrize(
    "body", [b"\xc1", b"\x01\x02", b"\x92\x01", b"\xc0", _map(POINTS, GAMES) + b"\x01"], ids=repr
)
def test_a_state_frame_the_reader_declines_is_the_frame_it_was(body: bytes) -> None:
    """Bodies msgpack cannot read (one value, not one) and bodies that are not a state: the same frame or
    frame error with the reader as without it."""
    raw = crafted(b"\x01\x02\x00\x01" + body)
    assert decode_frame(raw, state_reader(TT)) == decode_frame(raw)


def test_a_frame_read_for_one_family_is_read_again_for_another() -> None:
    """A HELLO may change a device's family between a frame's decoding and its report."""
    wire = encode_report(ScoreboardState((1, 0), (0, 0)), 4)
    (fast,) = WireCodec(state_reader(TT)).feed(wire)
    assert fast.report is not None
    with pytest.raises(BodyError) as raised:
        decode_report(fast, DeviceFamily.BACKGAMMON_BOARD.value)
    with pytest.raises(BodyError) as expected:
        decode_report(WireCodec().feed(wire)[0], DeviceFamily.BACKGAMMON_BOARD.value)
    assert str(raised.value) == str(expected.value)


def test_frames_are_decoded_one_at_a_time_so_a_reader_set_midway_reads_the_rest() -> None:
    states = [ScoreboardState((n, 0), (0, 0)) for n in range(3)]
    chunk = b"".join(encode_report(s, i) for i, s in enumerate(states))
    codec = WireCodec()
    frames = []
    for frame in codec.frames(chunk):
        frames.append(frame)
        codec.state_reader = state_reader(TT)  # as a session does on a HELLO
    assert [f.report for f in frames] == [None, states[1], states[2]]
    assert frames[0].body == WireCodec().feed(encode_report(states[0], 0))[0].body  # read the general way
    assert codec.frames_ok == 3


def test_only_the_scoreboard_family_has_a_reader() -> None:
    assert state_reader(TT) is read_scoreboard_state
    assert state_reader(DeviceFamily.BACKGAMMON_BOARD.value) is None
    assert state_reader(None) is None
