"""Boardcast Wire framing: round trips, arbitrary chunking, resynchronisation and every frame error."""

import struct
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.wire import cobs
from devices.wire.codec import (
    MAX_FRAME,
    Frame,
    FrameError,
    FrameErrorKind,
    MessageType,
    WireCodec,
    decode_frame,
    encode_frame,
)
from devices.wire.crc import crc16_ccitt_false

msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
frames = st.tuples(st.sampled_from(MessageType), st.integers(0, 0xFFFF), msgpack_values)


def crafted(payload_without_crc: bytes) -> bytes:
    """A delimited frame around any payload, with a correct CRC."""
    payload = payload_without_crc + struct.pack(">H", crc16_ccitt_false(payload_without_crc))
    return cobs.encode(payload) + b"\x00"


def only(items: list[Frame | FrameError]) -> Frame | FrameError:
    assert len(items) == 1, items
    return items[0]


@pytest.mark.parametrize("message_type", list(MessageType))
def test_every_message_type_round_trips(message_type: MessageType) -> None:
    body = {"kind": "x", "n": [1, 2, None], "blob": b"\x00\x01"}
    wire = encode_frame(message_type, 513, body)
    frame = only(WireCodec().feed(wire))
    assert frame == Frame(message_type, 513, body, 1, wire)


def test_frame_on_the_wire_is_cobs_of_header_body_crc_then_zero() -> None:
    wire = encode_frame(MessageType.HEARTBEAT, 0x0102, {"battery": 50})
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    payload = cobs.decode(wire[:-1])
    assert payload[:4] == b"\x01\x04\x01\x02"
    assert msgpack.unpackb(payload[4:-2]) == {"battery": 50}
    assert struct.unpack(">H", payload[-2:])[0] == crc16_ccitt_false(payload[:-2])


def test_consecutive_zeros_are_idle_fill_not_frames() -> None:
    codec = WireCodec()
    wire = encode_frame(MessageType.HEARTBEAT, 1, {})
    items = codec.feed(b"\x00\x00\x00" + wire + b"\x00\x00")
    assert [type(item) for item in items] == [Frame]
    assert (codec.frames_ok, codec.frame_errors) == (1, 0)


@given(st.lists(frames, max_size=8), st.data())
def test_frames_split_at_random_points_decode_to_the_same_frames(
    sent: list[tuple[MessageType, int, Any]], data: st.DataObject
) -> None:
    stream = b"".join(encode_frame(t, seq, body) for t, seq, body in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    codec = WireCodec()
    received: list[Frame | FrameError] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        received += codec.feed(stream[start:end])
    assert all(isinstance(item, Frame) for item in received)
    assert [(f.type, f.seq, f.body) for f in received] == sent  # type: ignore[union-attr]


@given(st.lists(frames, min_size=1, max_size=6), st.data())
def test_inserted_garbage_never_raises_and_every_intact_frame_is_recovered(
    sent: list[tuple[MessageType, int, Any]], data: st.DataObject
) -> None:
    encoded = [encode_frame(t, seq, body) for t, seq, body in sent]
    stream = b"".join(encoded)
    at = data.draw(st.integers(0, len(stream)), label="insert at")
    garbage = data.draw(st.binary(min_size=1, max_size=300), label="garbage")
    damaged = stream[:at] + garbage + stream[at:]
    # A frame survives if the garbage is not inside it and is not glued to its front without a delimiter.
    starts = [sum(len(e) for e in encoded[:i]) for i in range(len(encoded))]
    intact = [
        (t, seq, body)
        for (t, seq, body), start, frame in zip(sent, starts, encoded, strict=True)
        if not (start < at < start + len(frame)) and not (at == start and not garbage.endswith(b"\x00"))
    ]
    codec = WireCodec()
    cut = data.draw(st.integers(0, len(damaged)), label="chunk boundary")
    received = codec.feed(damaged[:cut]) + codec.feed(damaged[cut:])
    decoded = [(f.type, f.seq, f.body) for f in received if isinstance(f, Frame)]
    position = 0
    for expected in intact:  # intact frames appear in order (garbage may, in theory, hide a valid frame)
        assert expected in decoded[position:], (expected, decoded)
        position = decoded.index(expected, position) + 1


@given(st.lists(frames, min_size=3, max_size=6), st.data())
def test_a_corrupted_byte_costs_at_most_the_frames_it_touches(
    sent: list[tuple[MessageType, int, Any]], data: st.DataObject
) -> None:
    encoded = [encode_frame(t, seq, body) for t, seq, body in sent]
    victim = data.draw(st.integers(0, len(encoded) - 1), label="victim frame")
    frame = bytearray(encoded[victim])
    index = data.draw(st.integers(0, len(frame) - 2), label="byte")  # not the delimiter
    frame[index] ^= data.draw(st.integers(1, 255), label="flip")
    stream = b"".join([*encoded[:victim], bytes(frame), *encoded[victim + 1 :]])
    received = WireCodec().feed(stream)
    decoded = [(f.type, f.seq, f.body) for f in received if isinstance(f, Frame)]
    others = [item for i, item in enumerate(sent) if i != victim]
    assert [item for item in decoded if item in others] == others
    assert any(isinstance(item, FrameError) for item in received)


def test_bad_cobs_is_reported_with_its_raw_bytes() -> None:
    error = only(WireCodec().feed(b"\x05\x11\x22\x00"))
    assert isinstance(error, FrameError)
    assert error.kind is FrameErrorKind.BAD_COBS
    assert "code byte 0x05 at offset 0" in error.detail
    assert error.raw == b"\x05\x11\x22\x00"


def test_too_short_names_the_length() -> None:
    error = only(WireCodec().feed(cobs.encode(b"\x01\x02\x00") + b"\x00"))
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.TOO_SHORT
    assert error.detail.startswith("Frame is 3 bytes after COBS decoding, at least 7 are needed")


def test_bad_crc_says_both_values() -> None:
    payload = bytearray(b"\x01\x02\x00\x07" + msgpack.packb({"points": [1, 0]}))
    good_crc = crc16_ccitt_false(payload)
    payload[-1] ^= 0x01
    wire = cobs.encode(bytes(payload) + struct.pack(">H", good_crc)) + b"\x00"
    error = only(WireCodec().feed(wire))
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.BAD_CRC
    computed = crc16_ccitt_false(payload)
    assert error.detail == f"CRC mismatch: frame says 0x{good_crc:04X}, computed 0x{computed:04X}."


def test_bad_version_is_checked_after_the_crc() -> None:
    error = only(WireCodec().feed(crafted(b"\x02\x02\x00\x01" + msgpack.packb({}))))
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.BAD_VERSION
    assert "version 2 is not supported" in error.detail


def test_unknown_type_names_the_type() -> None:
    error = only(WireCodec().feed(crafted(b"\x01\x09\x00\x01" + msgpack.packb({}))))
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.UNKNOWN_TYPE
    assert "Message type 9 is unknown" in error.detail


@pytest.mark.parametrize(
    "body", [b"\xc1", b"\x01\x02", b"\x92\x01"], ids=["never-used", "two-values", "truncated"]
)
def test_bad_body_when_the_body_is_not_one_msgpack_value(body: bytes) -> None:
    error = only(WireCodec().feed(crafted(b"\x01\x02\x00\x01" + body)))
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.BAD_BODY
    assert "Body of STATE frame seq 1" in error.detail


def test_too_long_run_is_reported_once_and_the_next_frame_survives() -> None:
    codec = WireCodec()
    good = encode_frame(MessageType.HEARTBEAT, 9, {"battery": 3})
    items: list[Frame | FrameError] = []
    for _ in range(10):  # 10 000 bytes without a delimiter, fed in chunks
        items += codec.feed(b"\x01" * 1000)
    items += codec.feed(b"\x00" + good)
    assert [type(item) for item in items] == [FrameError, Frame]
    assert isinstance(items[0], FrameError) and items[0].kind is FrameErrorKind.TOO_LONG
    assert isinstance(items[1], Frame) and items[1].seq == 9
    assert (codec.frames_ok, codec.frame_errors) == (1, 1)


def test_a_frame_of_exactly_the_maximum_size_passes() -> None:
    overhead = 4 + 3 + 2  # header, msgpack bin16 prefix, CRC
    wire = encode_frame(MessageType.EVENT, 1, b"\x07" * (MAX_FRAME - overhead))
    frame = decode_frame(wire)
    assert isinstance(frame, Frame) and len(frame.body) == MAX_FRAME - overhead
    with pytest.raises(ValueError, match="limit is 4096"):
        encode_frame(MessageType.EVENT, 1, b"\x07" * (MAX_FRAME - overhead + 1))


def test_encode_refuses_a_seq_outside_16_bits() -> None:
    with pytest.raises(ValueError, match="65536"):
        encode_frame(MessageType.STATE, 65536, {})
