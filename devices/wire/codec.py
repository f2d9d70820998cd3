"""Boardcast Wire framing, sans-I/O: bytes from any transport in, frames and frame errors out.

On the wire a frame is ``COBS(payload) + b"\\x00"`` where the payload is
``version:u8 | type:u8 | seq:u16 BE | msgpack body | crc16:u16 BE`` and the CRC-16/CCITT-FALSE covers
version through body. The codec never does I/O and never reads a clock, so serial, BLE notifications,
TCP and replay from the log all use it the same way.
"""

from __future__ import annotations

import enum
import struct
from binascii import crc_hqx
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import msgpack

from devices.wire import cobs
from devices.wire.crc import INITIAL, crc16_ccitt_false

PROTOCOL_VERSION = 1
DELIMITER = b"\x00"
MAX_FRAME = 4096  # decoded payload bytes, header and CRC included
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1  # the longest COBS encoding of a MAX_FRAME payload
_HEADER = struct.Struct(">BBH")
_CRC = struct.Struct(">H")
MIN_FRAME = _HEADER.size + 1 + _CRC.size  # a msgpack body is at least one byte
_RAW_KEPT_WHEN_TOO_LONG = 64


class MessageType(enum.IntEnum):
    """What a frame carries; the type byte on the wire."""

    HELLO = 1
    STATE = 2
    EVENT = 3
    HEARTBEAT = 4
    COMMAND = 5
    ACK = 6
    ERROR = 7


class FrameErrorKind(enum.StrEnum):
    """Why a run of bytes between delimiters is not a frame."""

    BAD_COBS = "bad_cobs"
    TOO_SHORT = "too_short"
    BAD_CRC = "bad_crc"
    BAD_VERSION = "bad_version"
    UNKNOWN_TYPE = "unknown_type"
    BAD_BODY = "bad_body"
    TOO_LONG = "too_long"
    WRONG_DEVICE = "wrong_device"  # raised by a session, never by the codec
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"  # a HELLO naming a protocol this hub does not speak


@dataclass(frozen=True, slots=True)
class Frame:
    """One intact frame; raw is the COBS bytes with the trailing 0x00, exactly as received.

    `report` is set (and `body` is None) when a `StateReader` read a STATE body straight into its report;
    `devices.wire.messages.decode_report` returns it as it is."""

    type: MessageType
    seq: int
    body: Any
    version: int = PROTOCOL_VERSION
    raw: bytes = b""
    report: Any = None


# Reads a STATE body (its msgpack bytes) straight into a report, or answers None when it is not sure the
# body is one it reads exactly as the general path would; the frame is then decoded the general way.
StateReader = Callable[[bytes], Any]


@dataclass(frozen=True, slots=True)
class FrameError:
    """Bytes that did not make a frame; detail is one English sentence saying what was wrong."""

    kind: FrameErrorKind
    detail: str
    raw: bytes


_Item = TypeVar("_Item", bound=Frame | FrameError)  # what the codec yields, counted as it goes


def encode_frame(type: MessageType, seq: int, body: Any, version: int = PROTOCOL_VERSION) -> bytes:
    """Encode one frame, delimiter included; raise ValueError if seq or the payload size is out of range."""
    if not 0 <= seq <= 0xFFFF:
        raise ValueError(f"seq must fit in 16 bits (0..65535), got {seq}")
    if not 0 <= version <= 0xFF:
        raise ValueError(f"version must fit in 8 bits (0..255), got {version}")
    payload = _HEADER.pack(version, int(type), seq) + msgpack.packb(body, use_bin_type=True)
    payload += _CRC.pack(crc16_ccitt_false(payload))
    if len(payload) > MAX_FRAME:
        raise ValueError(f"frame payload is {len(payload)} bytes, the limit is {MAX_FRAME}")
    return cobs.encode(payload) + DELIMITER


def decode_frame(raw: bytes, state_reader: StateReader | None = None) -> Frame | FrameError:
    """Decode one delimited frame (COBS bytes with or without the trailing 0x00); never raises.

    With a `state_reader` (a session sets its device family's), a STATE body it reads becomes the frame's
    `report` without being decoded twice; everything else about the frame is checked as always."""
    # The intact frame, checked in as few steps as it takes; anything wrong is read again by
    # `_checked_frame`, which names what. The CRC over the payload with its own CRC (big-endian) is 0
    # exactly when that CRC is right (CRC-16/CCITT-FALSE reflects nothing and XORs nothing at the end).
    try:
        payload = cobs.decode(raw[:-1] if raw[-1:] == DELIMITER else raw)
    except cobs.CobsDecodeError:
        return _checked_frame(raw)
    if not MIN_FRAME <= len(payload) <= MAX_FRAME or crc_hqx(payload, INITIAL):
        return _checked_frame(raw)
    version, type_code, seq = _HEADER.unpack_from(payload)
    message_type = _TYPES.get(type_code)
    if version != PROTOCOL_VERSION or message_type is None:
        return _checked_frame(raw)
    if state_reader is not None and message_type is _STATE:
        report = state_reader(payload[_HEADER.size : -_CRC.size])
        if report is not None:
            return Frame(message_type, seq, None, version, raw, report)
    try:
        body = msgpack.unpackb(payload[_HEADER.size : -_CRC.size], raw=False)
    except (ValueError, msgpack.UnpackException):
        return _checked_frame(raw)
    return Frame(message_type, seq, body, version, raw, None)


def _checked_frame(raw: bytes) -> Frame | FrameError:
    """`decode_frame` step by step, with the error that says what is wrong."""
    encoded = raw[:-1] if raw.endswith(DELIMITER) else raw
    try:
        payload = cobs.decode(encoded)
    except cobs.CobsDecodeError as exc:
        return FrameError(FrameErrorKind.BAD_COBS, f"COBS decoding failed: {exc}.", raw)
    if len(payload) > MAX_FRAME:
        return FrameError(
            FrameErrorKind.TOO_LONG,
            f"Frame is {len(payload)} bytes after decoding, the limit is {MAX_FRAME}.",
            raw,
        )
    if len(payload) < MIN_FRAME:
        return FrameError(
            FrameErrorKind.TOO_SHORT,
            f"Frame is {len(payload)} bytes after COBS decoding, at least {MIN_FRAME} are needed "
            "(version, type, seq, body, CRC).",
            raw,
        )
    (said,) = _CRC.unpack_from(payload, len(payload) - _CRC.size)
    computed = crc16_ccitt_false(memoryview(payload)[: -_CRC.size])
    if said != computed:
        return FrameError(
            FrameErrorKind.BAD_CRC, f"CRC mismatch: frame says 0x{said:04X}, computed 0x{computed:04X}.", raw
        )
    version, type_code, seq = _HEADER.unpack_from(payload)
    if version != PROTOCOL_VERSION:
        return FrameError(
            FrameErrorKind.BAD_VERSION,
            f"Protocol version {version} is not supported; this hub speaks version {PROTOCOL_VERSION}.",
            raw,
        )
    message_type = _TYPES.get(type_code)
    if message_type is None:
        return FrameError(
            FrameErrorKind.UNKNOWN_TYPE,
            f"Message type {type_code} is unknown; known types are 1 to {max(MessageType)}.",
            raw,
        )
    try:
        body = msgpack.unpackb(payload[_HEADER.size : -_CRC.size], raw=False)
    except (ValueError, msgpack.UnpackException) as exc:
        return FrameError(
            FrameErrorKind.BAD_BODY,
            f"Body of {message_type.name} frame seq {seq} is not one msgpack value: {exc}.",
            raw,
        )
    return Frame(message_type, seq, body, version, raw, None)


_TYPES = {t.value: t for t in MessageType}
_STATE = MessageType.STATE


class WireCodec:
    """Boardcast Wire: bytes in any chunking in, frames and frame errors out. No I/O, no clock."""

    def __init__(self, state_reader: StateReader | None = None) -> None:
        self.state_reader = state_reader  # STATE bodies read straight into reports (see `decode_frame`)
        self._buffer = bytearray()
        self._discarding = False  # inside a run longer than MAX_ENCODED, dropping bytes until the next 0x00
        self.frames_ok = 0
        self.frame_errors = 0

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Take any chunk of bytes; return every frame or frame error completed by it, in order."""
        return list(self.frames(data))

    def frames(self, data: bytes) -> Iterator[Frame | FrameError]:
        """`feed`, one frame at a time: each is decoded when asked for, so a `state_reader` set on seeing one
        frame (a HELLO) reads the frames after it in the same chunk."""
        start = 0
        size = len(data)
        while start < size:
            end = data.find(0, start)
            if end == -1:
                yield from self._accumulate(data[start:])
                break
            if not self._buffer and not self._discarding and 0 < end - start <= MAX_ENCODED:
                # a whole frame inside this chunk (the usual case): decoded from a slice, not the buffer
                raw = data[start : end + 1]
                start = end + 1
                yield self._count(decode_frame(raw if type(raw) is bytes else bytes(raw), self.state_reader))
                continue
            yield from self._accumulate(data[start:end])
            start = end + 1  # an empty run (consecutive 0x00) is idle fill and skipped silently
            if self._discarding:
                self._discarding = False
            elif self._buffer:
                raw = bytes(self._buffer) + DELIMITER
                self._buffer.clear()
                yield self._count(decode_frame(raw, self.state_reader))

    def encode(self, type: MessageType, seq: int, body: Any, version: int = PROTOCOL_VERSION) -> bytes:
        """Encode one frame, delimiter included."""
        return encode_frame(type, seq, body, version)

    def reset(self) -> None:
        """Forget any partial frame, e.g. after the transport reconnects."""
        self._buffer.clear()
        self._discarding = False

    def _accumulate(self, chunk: bytes) -> Iterator[FrameError]:
        if self._discarding or not chunk:
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_ENCODED:
            kept = bytes(self._buffer[:_RAW_KEPT_WHEN_TOO_LONG])
            self._buffer.clear()
            self._discarding = True
            yield self._count(
                FrameError(
                    FrameErrorKind.TOO_LONG,
                    f"No frame delimiter within {MAX_ENCODED} bytes (frames are at most {MAX_FRAME} "
                    f"bytes decoded); bytes are dropped up to the next 0x00; raw keeps {len(kept)}.",
                    kept,
                )
            )

    def _count(self, item: _Item) -> _Item:
        if type(item) is Frame:
            self.frames_ok += 1
        else:
            self.frame_errors += 1
        return item
