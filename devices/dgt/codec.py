"""DGT e-board serial protocol, sans-I/O: board bytes in any chunking in, messages and errors out; commands out.

A board message is ``[id | 0x80] [length bits 13..7] [length bits 6..0] payload…`` where the length counts
the three header bytes and every byte after the id has its top bit clear (dgtbrd.h). So a byte with the top
bit set always starts a message: that is the resynchronisation rule. Bytes outside a message, an unknown id,
a length the id cannot have, or a message cut short by the next id come back as one `DgtError` per bad run,
never as an exception. A run of skipped bytes is reported when the next message starts (or on `flush()`), so
the results do not depend on how the transport chunked the bytes.

Commands to the board are single bytes (`Command`); clock commands travel inside the clock wrapper
``2b <size> 03 <cmd> <body…> 00`` where size counts the bytes after itself. Clock commands carry no checksum;
the only DGT checksum is the bus-mode one (`bus_checksum`). The codec never does I/O and never reads a clock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import chess

from devices.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    ClockDisplay,
    ClockTimes,
    DgtMessage,
    DgtPiece,
    EepromMoves,
    FieldUpdate,
    SerialNumber,
    Trademark,
    Version,
    field_from_square,
    square_from_field,
)

MESSAGE_BIT = 0x80
HEADER_SIZE = 3
MAX_MESSAGE = 0x3FFF  # the 14-bit length field
_RAW_KEPT = 64  # bytes of a skipped run kept in its error


class MessageId(enum.IntEnum):
    """A board-to-PC message id, top bit included, as it appears on the wire."""

    BOARD_DUMP = 0x86
    BWTIME = 0x8D
    FIELD_UPDATE = 0x8E
    EE_MOVES = 0x8F
    BUSADRES = 0x90
    SERIALNR = 0x91
    TRADEMARK = 0x92
    VERSION = 0x93
    BATTERY_STATUS = 0xA0
    LONG_SERIALNR = 0xA2


# Total message sizes (header included) each id may have. Fixed sizes are dgtbrd.h's; the battery message's
# size is inconsistent there (7, yet nine data bytes are described), so any size from one data byte is taken.
_SIZES: dict[int, range] = {
    MessageId.BOARD_DUMP: range(67, 68),
    MessageId.BWTIME: range(10, 11),
    MessageId.FIELD_UPDATE: range(5, 6),
    MessageId.EE_MOVES: range(HEADER_SIZE, 0x1F03 + 1),
    MessageId.BUSADRES: range(5, 6),
    MessageId.SERIALNR: range(8, 9),
    MessageId.TRADEMARK: range(HEADER_SIZE, 0x200),
    MessageId.VERSION: range(5, 6),
    MessageId.BATTERY_STATUS: range(4, 0x40),
    MessageId.LONG_SERIALNR: range(13, 14),
}


class DgtErrorKind(enum.StrEnum):
    """Why bytes from a board did not make a message."""

    NOISE = "noise"  # bytes with the top bit clear outside any message
    UNKNOWN_ID = "unknown_id"  # a top-bit byte that is no message id this codec knows
    BAD_LENGTH = "bad_length"  # a known id with a length it cannot have
    TRUNCATED = "truncated"  # a message cut short by the next top-bit byte, or by flush()
    BAD_PAYLOAD = "bad_payload"  # a well-framed message whose content is impossible (piece 0x1f, minute 61)


@dataclass(frozen=True, slots=True)
class DgtError:
    """Bytes that did not make a message; detail is one English sentence; raw keeps the bytes (a skipped run: its first 64)."""

    kind: DgtErrorKind
    detail: str
    raw: bytes


class DgtCodec:
    """One board's byte stream to messages and errors, in any chunking. No I/O, no clock, never raises."""

    def __init__(self) -> None:
        self._frame = bytearray()  # the message being collected, id byte first
        self._size = 0  # its total size once the two length bytes are in
        self._skip_kind: DgtErrorKind | None = None  # a bad run being skipped up to the next top-bit byte
        self._skip_detail = ""
        self._skip_raw = bytearray()
        self._skip_count = 0
        self.messages_ok = 0
        self.errors = 0

    def feed(self, data: bytes) -> list[DgtMessage | DgtError]:
        """Take any chunk of bytes; return every message or error completed by it, in stream order."""
        out: list[DgtMessage | DgtError] = []
        for byte in data:
            if byte & MESSAGE_BIT:
                self._start(byte, out)
            elif self._frame:
                self._collect(byte, out)
            else:
                self._skip(byte, DgtErrorKind.NOISE, "")
        return out

    def flush(self) -> list[DgtMessage | DgtError]:
        """Report what is pending at the end of a stream (a skipped run, a partial message) and forget it."""
        out: list[DgtMessage | DgtError] = []
        self._end_skip(out)
        if self._frame:
            self._truncated("the stream ended", out)
        return out

    def reset(self) -> None:
        """Forget any partial message and skipped run without reporting them, e.g. after a reconnect."""
        self._frame.clear()
        self._size = 0
        self._skip_kind = None
        self._skip_raw.clear()
        self._skip_count = 0

    # -- decoding state machine -------------------------------------------------------------------------

    def _start(self, byte: int, out: list[DgtMessage | DgtError]) -> None:
        self._end_skip(out)
        if self._frame:
            self._truncated(f"byte 0x{byte:02x} with the top bit set started a new message", out)
        if byte in _SIZES:
            self._frame.append(byte)
        else:
            self._skip(
                byte,
                DgtErrorKind.UNKNOWN_ID,
                f"Message id 0x{byte:02x} is unknown; its bytes are skipped up to the next byte with the top bit set.",
            )

    def _collect(self, byte: int, out: list[DgtMessage | DgtError]) -> None:
        frame = self._frame
        frame.append(byte)
        if len(frame) == HEADER_SIZE:
            size = (frame[1] << 7) | frame[2]
            if size not in _SIZES[frame[0]]:
                allowed = _SIZES[frame[0]]
                expected = (
                    f"{allowed.start}" if len(allowed) == 1 else f"{allowed.start} to {allowed.stop - 1}"
                )
                detail = (
                    f"{MessageId(frame[0]).name} message says it is {size} bytes long; it must be {expected}; "
                    "its bytes are skipped up to the next byte with the top bit set."
                )
                raw = bytes(frame)
                frame.clear()
                for kept in raw:
                    self._skip(kept, DgtErrorKind.BAD_LENGTH, detail)
                return
            self._size = size
        if len(frame) == self._size:
            raw = bytes(frame)
            frame.clear()
            self._size = 0
            self._count(decode_message(raw), out)

    def _truncated(self, why: str, out: list[DgtMessage | DgtError]) -> None:
        raw = bytes(self._frame)
        name = MessageId(raw[0]).name
        wanted = f"of {self._size} " if self._size else ""
        self._frame.clear()
        self._size = 0
        self._count(
            DgtError(
                DgtErrorKind.TRUNCATED,
                f"{name} message cut short after {len(raw)} bytes {wanted}because {why}.",
                raw[:_RAW_KEPT],
            ),
            out,
        )

    def _skip(self, byte: int, kind: DgtErrorKind, detail: str) -> None:
        if self._skip_kind is None:
            self._skip_kind = kind
            self._skip_detail = detail
        if len(self._skip_raw) < _RAW_KEPT:
            self._skip_raw.append(byte)
        self._skip_count += 1

    def _end_skip(self, out: list[DgtMessage | DgtError]) -> None:
        if self._skip_kind is None:
            return
        detail = self._skip_detail or (
            f"{self._skip_count} byte(s) with the top bit clear arrived outside any message and were skipped."
        )
        self._count(DgtError(self._skip_kind, detail, bytes(self._skip_raw)), out)
        self._skip_kind = None
        self._skip_raw.clear()
        self._skip_count = 0

    def _count(self, item: DgtMessage | DgtError, out: list[DgtMessage | DgtError]) -> None:
        if isinstance(item, DgtError):
            self.errors += 1
        else:
            self.messages_ok += 1
        out.append(item)


# -- decoding one framed message ----------------------------------------------------------------------------


def decode_message(raw: bytes) -> DgtMessage | DgtError:
    """Decode one whole message, header included; never raises."""
    if len(raw) < HEADER_SIZE or raw[0] not in _SIZES:
        return DgtError(DgtErrorKind.UNKNOWN_ID, "Not a DGT message: no known id and length header.", raw)
    message_id = MessageId(raw[0])
    size = (raw[1] << 7) | raw[2]
    if size != len(raw) or size not in _SIZES[message_id]:
        return DgtError(
            DgtErrorKind.BAD_LENGTH,
            f"{message_id.name} message header says {size} bytes, {len(raw)} were given.",
            raw[:_RAW_KEPT],
        )
    if any(byte & MESSAGE_BIT for byte in raw[1:]):
        return DgtError(
            DgtErrorKind.TRUNCATED, f"{message_id.name} message holds a byte with the top bit set.", raw
        )
    payload = raw[HEADER_SIZE:]
    match message_id:
        case MessageId.BOARD_DUMP:
            return _board_dump(payload, raw)
        case MessageId.FIELD_UPDATE:
            return _field_update(payload, raw)
        case MessageId.BWTIME:
            return _bwtime(payload, raw)
        case MessageId.SERIALNR | MessageId.LONG_SERIALNR:
            return _serial(payload, raw, long=message_id is MessageId.LONG_SERIALNR)
        case MessageId.VERSION:
            return Version(payload[0], payload[1], raw)
        case MessageId.BUSADRES:
            return BusAddress((payload[0] << 7) | payload[1], raw)
        case MessageId.TRADEMARK:
            return Trademark(payload.decode("ascii"), raw)
        case MessageId.BATTERY_STATUS:
            return BatteryStatus(payload[0], bytes(payload[1:]), raw)
        case MessageId.EE_MOVES:
            return EepromMoves(bytes(payload), raw)
    return DgtError(DgtErrorKind.UNKNOWN_ID, f"No decoder for {message_id.name}.", raw[:_RAW_KEPT])


def _bad(raw: bytes, detail: str) -> DgtError:
    return DgtError(
        DgtErrorKind.BAD_PAYLOAD, detail, raw
    )  # whole: no message with a payload check exceeds 67


def _board_dump(payload: bytes, raw: bytes) -> BoardDump | DgtError:
    bad = [(field, code) for field, code in enumerate(payload) if code > DgtPiece.MAGIC_BLACK_WINS]
    if bad:
        field, code = bad[0]
        return _bad(
            raw,
            f"BOARD_DUMP has piece code 0x{code:02x} on {chess.square_name(square_from_field(field))} "
            f"({len(bad)} bad square(s)); codes are 0x00 to 0x0f.",
        )
    pieces = [DgtPiece.EMPTY] * 64
    for field, code in enumerate(payload):
        pieces[square_from_field(field)] = DgtPiece(code)
    return BoardDump(tuple(pieces), raw)


def _field_update(payload: bytes, raw: bytes) -> FieldUpdate | DgtError:
    field, code = payload
    if field > 63:
        return _bad(raw, f"FIELD_UPDATE names field {field}; fields are 0 to 63.")
    if code > DgtPiece.MAGIC_BLACK_WINS:
        return _bad(raw, f"FIELD_UPDATE has piece code 0x{code:02x}; codes are 0x00 to 0x0f.")
    return FieldUpdate(square_from_field(field), DgtPiece(code), raw)


def _bcd(byte: int) -> int | None:
    high, low = byte >> 4, byte & 0x0F
    if high > 5 or low > 9:
        return None
    return high * 10 + low


def _display(h: int, m: int, s: int) -> ClockDisplay | None:
    minutes, seconds = _bcd(m), _bcd(s)
    if (h & 0x0F) > 9 or minutes is None or seconds is None:
        return None
    return ClockDisplay(
        hours=h & 0x0F,
        minutes=minutes,
        seconds=seconds,
        final_flag=bool(h & 0x10),
        time_per_move=bool(h & 0x20),
        flag=bool(h & 0x40),
    )


def _bwtime(payload: bytes, raw: bytes) -> ClockTimes | ClockAck | DgtError:
    r1, r2, r3, l1, l2, l3, status = payload
    if (r1 & 0x0F) == 0x0A or (l1 & 0x0F) == 0x0A:
        return ClockAck(
            ack0=(r2 & 0x7F) | ((l1 << 3) & 0x80),
            ack1=(r3 & 0x7F) | ((l1 << 2) & 0x80),
            ack2=(l2 & 0x7F) | ((r1 << 3) & 0x80),
            ack3=(l3 & 0x7F) | ((r1 << 2) & 0x80),
            raw=raw,
        )
    right, left = _display(r1, r2, r3), _display(l1, l2, l3)
    if right is None or left is None:
        return _bad(
            raw,
            f"BWTIME holds a time that is no clock time (right {r1 & 0x0F:x}:{r2:02x}:{r3:02x}, "
            f"left {l1 & 0x0F:x}:{l2:02x}:{l3:02x}; hours 0-9, minutes and seconds BCD 00-59).",
        )
    return ClockTimes(
        left=left,
        right=right,
        running=bool(status & 0x01),
        right_high=bool(status & 0x02),
        battery_low=bool(status & 0x04),
        left_turn=bool(status & 0x08),
        right_turn=bool(status & 0x10),
        no_clock=bool(status & 0x20),
        raw=raw,
    )


def _serial(payload: bytes, raw: bytes, *, long: bool) -> SerialNumber | DgtError:
    text = payload.decode("ascii")  # every byte is below 0x80 by now
    if not text.isprintable():
        return _bad(raw, f"Serial number {text!r} holds characters that are not printable.")
    return SerialNumber(text, long, raw)


# -- board side: messages as a board sends them (simulator, tests) ------------------------------------------


def _message_bytes(message_id: MessageId, payload: bytes) -> bytes:
    size = HEADER_SIZE + len(payload)
    return bytes([message_id, (size >> 7) & 0x7F, size & 0x7F]) + payload


def _bcd_byte(value: int) -> int:
    return (value // 10) << 4 | value % 10


def _display_bytes(side: ClockDisplay) -> bytes:
    if not (0 <= side.hours <= 9 and 0 <= side.minutes <= 59 and 0 <= side.seconds <= 59):
        raise ValueError(
            f"a DGT clock shows 0:00:00 to 9:59:59, got {side.hours}:{side.minutes}:{side.seconds}"
        )
    hours = side.hours | (0x10 * side.final_flag) | (0x20 * side.time_per_move) | (0x40 * side.flag)
    return bytes([hours, _bcd_byte(side.minutes), _bcd_byte(side.seconds)])


def encode_message(message: DgtMessage) -> bytes:
    """The bytes a board sends for a message; its `raw` is ignored. Raise ValueError on what cannot be sent."""
    match message:
        case BoardDump(pieces=pieces):
            if len(pieces) != 64:
                raise ValueError(f"a board dump has 64 squares, got {len(pieces)}")
            return _message_bytes(
                MessageId.BOARD_DUMP, bytes(pieces[square_from_field(f)] for f in range(64))
            )
        case FieldUpdate(square=square, piece=piece):
            return _message_bytes(MessageId.FIELD_UPDATE, bytes([field_from_square(square), piece]))
        case ClockTimes():
            status = (
                message.running
                | message.right_high << 1
                | message.battery_low << 2
                | message.left_turn << 3
                | message.right_turn << 4
                | message.no_clock << 5
            )
            body = _display_bytes(message.right) + _display_bytes(message.left) + bytes([status])
            return _message_bytes(MessageId.BWTIME, body)
        case ClockAck(ack0=a0, ack1=a1, ack2=a2, ack3=a3):
            r1 = 0x0A | (a2 & 0x80) >> 3 | (a3 & 0x80) >> 2
            l1 = 0x0A | (a0 & 0x80) >> 3 | (a1 & 0x80) >> 2
            return _message_bytes(
                MessageId.BWTIME, bytes([r1, a0 & 0x7F, a1 & 0x7F, l1, a2 & 0x7F, a3 & 0x7F, 0])
            )
        case SerialNumber(serial=serial, long=long):
            wanted = 10 if long else 5
            if len(serial) != wanted or not serial.isascii():
                raise ValueError(f"a {'long ' if long else ''}serial number is {wanted} ASCII characters")
            return _message_bytes(
                MessageId.LONG_SERIALNR if long else MessageId.SERIALNR, serial.encode("ascii")
            )
        case Version(major=major, minor=minor):
            if not (0 <= major <= 0x7F and 0 <= minor <= 0x7F):
                raise ValueError(f"version numbers are 0..127, got {major}.{minor}")
            return _message_bytes(MessageId.VERSION, bytes([major, minor]))
    raise ValueError(f"{type(message).__name__} has no board-side encoder")


def board_dump_from_fen(board_fen: str) -> BoardDump:
    """A BoardDump of a FEN placement ("rnbqkbnr/…" or a whole FEN), for simulators and tests."""
    board = chess.BaseBoard(board_fen.split()[0])
    pieces = tuple(
        DgtPiece.from_symbol(p.symbol() if p else None) for p in map(board.piece_at, chess.SQUARES)
    )
    return BoardDump(pieces)


# -- PC side: commands the hub sends ------------------------------------------------------------------------


class Command(enum.IntEnum):
    """A one-byte command to the board (dgtbrd.h)."""

    SEND_RESET = 0x40  # idle: no automatic messages
    SEND_CLK = 0x41  # one BWTIME
    SEND_BRD = 0x42  # one BOARD_DUMP
    SEND_UPDATE = 0x43  # field updates, and the clock at least every second
    SEND_UPDATE_BRD = 0x44  # field updates only
    RETURN_SERIALNR = 0x45
    RETURN_BUSADRES = 0x46
    SEND_TRADEMARK = 0x47
    SEND_EE_MOVES = 0x49
    SEND_UPDATE_NICE = 0x4B  # field updates, and the clock only when it changes
    SEND_BATTERY_STATUS = 0x4C  # Bluetooth boards
    SEND_VERSION = 0x4D
    RETURN_LONG_SERIALNR = 0x55


class UpdateMode(enum.IntEnum):
    """What the board sends on its own once told; clock acks come only in UPDATE and UPDATE_NICE."""

    UPDATE = Command.SEND_UPDATE
    UPDATE_BOARD = Command.SEND_UPDATE_BRD
    UPDATE_NICE = Command.SEND_UPDATE_NICE


def encode_command(command: Command) -> bytes:
    """The byte of a one-byte command, e.g. SEND_BRD -> 42."""
    return bytes([Command(command)])


def encode_update_mode(mode: UpdateMode) -> bytes:
    """43 (UPDATE), 44 (UPDATE_BOARD) or 4b (UPDATE_NICE)."""
    return bytes([UpdateMode(mode)])


CLOCK_MESSAGE = 0x2B
CLOCK_START = 0x03
CLOCK_END = 0x00


class ClockCommand(enum.IntEnum):
    """A clock command inside the 2b wrapper; an ack names it in ack1."""

    DISPLAY = 0x01  # XL 7-segment text
    ICONS = 0x02
    END = 0x03  # back to showing the times
    BUTTON = 0x08
    VERSION = 0x09
    SETNRUN = 0x0A
    BEEP = 0x0B
    ASCII = 0x0C  # DGT 3000 8-character text


class ClockRun(enum.IntFlag):
    """The last byte of SETNRUN: which side counts down, or pause; TOGGLE_ON_LEVER lets the lever switch it."""

    LEFT = 0x01
    RIGHT = 0x02
    PAUSE = 0x04
    TOGGLE_ON_LEVER = 0x08


def encode_clock_command(command: ClockCommand, body: bytes = b"") -> bytes:
    """``2b <size> 03 <command> <body…> 00`` where size = len(body) + 3 counts the bytes after it."""
    if any(byte & MESSAGE_BIT for byte in body):
        raise ValueError("clock command bytes must be below 0x80")
    return bytes([CLOCK_MESSAGE, len(body) + 3, CLOCK_START, ClockCommand(command), *body, CLOCK_END])


def encode_clock_text(text: str, beep: int = 0) -> bytes:
    """DGT 3000 text, 8 characters padded with spaces: ``2b 0c 03 0c c1..c8 beep 00``; beep 0 (none) to 15."""
    if len(text) > 8 or not all(" " <= ch <= "~" for ch in text):
        raise ValueError(f"DGT 3000 text is up to 8 printable ASCII characters, got {text!r}")
    if not 0 <= beep <= 15:
        raise ValueError(f"beep is 0 (none) to 15, got {beep}")
    return encode_clock_command(ClockCommand.ASCII, text.ljust(8).encode("ascii") + bytes([beep]))


def encode_clock_end_text() -> bytes:
    """End a text and show the times again: ``2b 03 03 03 00``."""
    return encode_clock_command(ClockCommand.END)


def _hms(seconds: int) -> bytes:
    if not 0 <= seconds < 10 * 3600:
        raise ValueError(f"a DGT clock holds 0 to 9:59:59, got {seconds} s")
    return bytes([seconds // 3600, seconds // 60 % 60, seconds % 60])


def encode_clock_set_and_run(left_s: int, right_s: int, run: ClockRun) -> bytes:
    """Set both times and run: ``2b 0a 03 0a lh lm ls rh rm rs run 00``; times in binary, clock mode 23 only."""
    return encode_clock_command(ClockCommand.SETNRUN, _hms(left_s) + _hms(right_s) + bytes([ClockRun(run)]))


def bus_checksum(data: bytes) -> int:
    """Bus-mode checksum: the byte sum & 0x7f (dgtbrd.h: 81 10 06 -> 17). Clock commands carry none."""
    return sum(data) & 0x7F
