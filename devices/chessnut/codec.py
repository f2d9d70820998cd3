"""Chessnut notification values, sans-I/O: values of both notify characteristics in, reports and errors out.

A Chessnut Air (Air+, Pro and Go share the protocol) notifies on two characteristics (research notes §2;
`egdels/moveapiece:tools/chessnut-sniffer/CHESSNUT_PROTOCOL.md`, a hardware capture). Every message is
``<code> <length> <length bytes>``:

- ``01 24`` + 32 board bytes + a 4-byte little-endian counter (seconds since power-on): the board report,
  ~10 a second while reports are enabled, changed or not. Two squares a byte, **low nibble first**, nibble
  index 0 = h8, 1 = g8 … 7 = a8, 8 = h7 … 63 = a1, so nibble index = 63 - python-chess square.
- ``23 01 <status>``: the acknowledgement of a command (status 0 after every command seen so far).
- ``2a 02 <level> <flag>``: the battery level in percent (the flag's meaning is unverified; it stays in
  the raw bytes).
- ``0f 01 <code>``: a button; 02 is NEW GAME (sent once on press and once more on a long press's release).

The board repeats its report whether or not anything changed, so the codec reports a placement only when it
differs from the last one it reported, and counts the repeats. `reconnected()` forgets the last placement,
so the first report of a connection is always delivered. Each value is one message (notifications are not
a stream); a value that is no message, or a message that makes no sense, comes back as a `ChessnutError`
naming what is wrong, never as an exception. A report cut short (a link MTU under 41) says so.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

import chess

from devices.observations import ChessBoardState, DeviceEvent, Heartbeat

BOARD_REPORT_SIZE = 38  # 01 24, 32 board bytes, 4-byte counter
MIN_MTU = BOARD_REPORT_SIZE + 3  # a notification carries at most MTU - 3 bytes
_BOARD_BYTES = 32

# Nibble value to piece symbol; 0 is an empty square, 0xd..0xf are no piece.
PIECE_CODES: dict[int, str] = {
    0x1: "q",
    0x2: "k",
    0x3: "b",
    0x4: "p",
    0x5: "n",
    0x6: "R",
    0x7: "P",
    0x8: "r",
    0x9: "B",
    0xA: "N",
    0xB: "Q",
    0xC: "K",
}
_CODE_OF = {symbol: code for code, symbol in PIECE_CODES.items()}
_PIECES = {code: chess.Piece.from_symbol(symbol) for code, symbol in PIECE_CODES.items()}


class MessageCode(enum.IntEnum):
    """The first byte of a message from the board."""

    BOARD = 0x01
    BUTTON = 0x0F
    ACK = 0x23
    BATTERY = 0x2A


class CommandCode(enum.IntEnum):
    """The first byte of a command to the board (written to the command characteristic)."""

    LEDS = 0x0A
    BEEP = 0x0B
    ENABLE_REPORTS = 0x21
    BATTERY = 0x29


_LENGTHS = {MessageCode.BOARD: 0x24, MessageCode.BUTTON: 1, MessageCode.ACK: 1, MessageCode.BATTERY: 2}
_NAMES = {
    MessageCode.BOARD: "board report",
    MessageCode.BUTTON: "button message",
    MessageCode.ACK: "acknowledgement",
    MessageCode.BATTERY: "battery message",
}
BUTTON_NAMES = {0x02: "new_game"}


class ChessnutErrorKind(enum.StrEnum):
    """Why a notification value was not used."""

    EMPTY = "empty"  # a notification with no bytes
    UNKNOWN_MESSAGE = "unknown_message"  # a first byte this codec does not know
    BAD_LENGTH = "bad_length"  # a known message of the wrong size (a cut report, a wrong length byte)
    UNKNOWN_PIECE = "unknown_piece"  # a square nibble 0xd..0xf
    BAD_VALUE = "bad_value"  # a well-formed message with an impossible value (battery 180 %)


@dataclass(frozen=True, slots=True)
class ChessnutError:
    """A notification value that was not used; detail is one English sentence, raw the value as received."""

    kind: ChessnutErrorKind
    detail: str
    raw: bytes


@dataclass(frozen=True, slots=True)
class ChessnutStats:
    """Counters of one codec since it was made."""

    board_reports: int  # well-formed board reports, repeats included
    placements: int  # board reports delivered (the placement changed, or first of a connection)
    repeats: int  # board reports dropped because the placement was unchanged
    acks: int
    batteries: int
    buttons: int
    errors: int


ChessnutItem = ChessBoardState | Heartbeat | DeviceEvent | ChessnutError


def square_of_nibble(index: int) -> chess.Square:
    """The python-chess square of nibble index 0..63 (0 = h8, 63 = a1)."""
    return 63 - index


class ChessnutCodec:
    """One board's notification values to reports; collapses unchanged board reports. No I/O, never raises."""

    def __init__(self) -> None:
        self._last_board: bytes | None = None  # the 32 board bytes last delivered
        self.uptime_s: int | None = None  # the counter of the last well-formed board report
        self.battery: int | None = None
        self._board_reports = self._placements = self._repeats = 0
        self._acks = self._batteries = self._buttons = self._errors = 0

    @property
    def stats(self) -> ChessnutStats:
        """A snapshot of the counters."""
        return ChessnutStats(
            self._board_reports,
            self._placements,
            self._repeats,
            self._acks,
            self._batteries,
            self._buttons,
            self._errors,
        )

    @property
    def board_reports(self) -> int:
        """Well-formed board reports seen, repeats included (a session's sign of life)."""
        return self._board_reports

    def reconnected(self) -> None:
        """Forget the last placement (and counter): the next board report is delivered even if unchanged."""
        self._last_board = None
        self.uptime_s = None  # the board may have restarted while the link was down

    def feed(self, value: bytes) -> list[ChessnutItem]:
        """One notification value, from either characteristic; return what it says (at most one item)."""
        value = bytes(value)
        if not value:
            return [self._error(ChessnutErrorKind.EMPTY, "Chessnut notification was empty.", value)]
        try:
            code = MessageCode(value[0])
        except ValueError:
            return [
                self._error(
                    ChessnutErrorKind.UNKNOWN_MESSAGE,
                    f"Chessnut notification {_hex(value)} starts with 0x{value[0]:02x}, which is no message "
                    "this hub knows (01 board, 23 ack, 2a battery, 0f button).",
                    value,
                )
            ]
        problem = _length_problem(code, value)
        if problem is not None:
            return [self._error(ChessnutErrorKind.BAD_LENGTH, problem, value)]
        match code:
            case MessageCode.BOARD:
                return self._board(value)
            case MessageCode.ACK:
                self._acks += 1
                return [DeviceEvent("ack", {"status": value[2]})]
            case MessageCode.BATTERY:
                level = value[2]
                if level > 100:
                    return [
                        self._error(
                            ChessnutErrorKind.BAD_VALUE,
                            f"Chessnut battery message {_hex(value)} gives level {level}; a level is 0-100 %.",
                            value,
                        )
                    ]
                self._batteries += 1
                self.battery = level
                return [Heartbeat(battery=level, uptime_s=self.uptime_s)]
            case MessageCode.BUTTON:
                self._buttons += 1
                button = value[2]
                return [
                    DeviceEvent("button", {"button": BUTTON_NAMES.get(button, "unknown"), "code": button})
                ]
        raise AssertionError(code)  # pragma: no cover - every MessageCode is handled above

    def _board(self, value: bytes) -> list[ChessnutItem]:
        board = value[2 : 2 + _BOARD_BYTES]
        bad = [
            (index, nibble)
            for index, nibble in enumerate(_nibbles(board))
            if nibble != 0 and nibble not in PIECE_CODES
        ]
        if bad:
            squares = ", ".join(
                f"{chess.square_name(square_of_nibble(index))} 0x{nibble:x}" for index, nibble in bad[:4]
            )
            more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
            return [
                self._error(
                    ChessnutErrorKind.UNKNOWN_PIECE,
                    f"Chessnut board report has no piece for code {squares}{more}; codes are 0 (empty) "
                    "and 1-c.",
                    value,
                )
            ]
        self._board_reports += 1
        self.uptime_s = int.from_bytes(value[2 + _BOARD_BYTES :], "little")
        if board == self._last_board:
            self._repeats += 1
            return []
        self._last_board = board
        self._placements += 1
        return [ChessBoardState(decode_placement(board))]

    def _error(self, kind: ChessnutErrorKind, detail: str, raw: bytes) -> ChessnutError:
        self._errors += 1
        return ChessnutError(kind, detail, raw)


def decode_placement(board: bytes) -> str:
    """The board FEN of 32 board bytes; raise ValueError on a code that is no piece."""
    if len(board) != _BOARD_BYTES:
        raise ValueError(f"a Chessnut board is {_BOARD_BYTES} bytes, got {len(board)}")
    pieces: dict[chess.Square, chess.Piece] = {}
    for index, nibble in enumerate(_nibbles(board)):
        if nibble:
            piece = _PIECES.get(nibble)
            if piece is None:
                raise ValueError(f"nibble {index} holds 0x{nibble:x}, which is no Chessnut piece")
            pieces[square_of_nibble(index)] = piece
    placement = chess.BaseBoard.empty()
    placement.set_piece_map(pieces)
    return placement.board_fen()


def encode_placement(board_fen: str) -> bytes:
    """The 32 board bytes of a board FEN (as a simulated board sends them); raise ValueError if it is no FEN."""
    placement = chess.BaseBoard(board_fen)
    nibbles = [0] * 64
    for square, piece in placement.piece_map().items():
        nibbles[63 - square] = _CODE_OF[piece.symbol()]
    return bytes(nibbles[i] | nibbles[i + 1] << 4 for i in range(0, 64, 2))


def encode_board_report(board_fen: str, uptime_s: int = 0) -> bytes:
    """A whole board report value: ``01 24``, the placement and the counter (for simulators and tests)."""
    if not 0 <= uptime_s <= 0xFFFFFFFF:
        raise ValueError(f"uptime_s must fit in 32 bits, got {uptime_s}")
    return bytes([MessageCode.BOARD, 0x24]) + encode_placement(board_fen) + uptime_s.to_bytes(4, "little")


def encode_enable_reports() -> bytes:
    """Ask for real-time board reports (``21 01 00``); needed again after every connect."""
    return bytes([CommandCode.ENABLE_REPORTS, 0x01, 0x00])


def encode_battery_request() -> bytes:
    """Ask for the battery level (``29 01 00``); the board answers ``2a 02 <level> <flag>``."""
    return bytes([CommandCode.BATTERY, 0x01, 0x00])


def encode_leds(squares: Iterable[chess.Square | str]) -> bytes:
    """Light exactly these squares (``0a 08`` + 64 bits, bit = nibble index); no squares turns all off."""
    bits = 0
    for square in squares:
        number = chess.parse_square(square) if isinstance(square, str) else square
        if not 0 <= number < 64:
            raise ValueError(f"not a square: {square!r}")
        bits |= 1 << (63 - number)
    return bytes([CommandCode.LEDS, 0x08]) + bits.to_bytes(8, "little")


def encode_beep(frequency_hz: int, duration_ms: int) -> bytes:
    """Beep (``0b 04`` + frequency and duration, both 16-bit big-endian, unlike the report counter)."""
    for name, number in (("frequency_hz", frequency_hz), ("duration_ms", duration_ms)):
        if not 0 <= number <= 0xFFFF:
            raise ValueError(f"{name} must be 0..65535, got {number}")
    return bytes([CommandCode.BEEP, 0x04]) + frequency_hz.to_bytes(2, "big") + duration_ms.to_bytes(2, "big")


def _length_problem(code: MessageCode, value: bytes) -> str | None:
    name = _NAMES[code]
    expected = 2 + _LENGTHS[code]
    if len(value) == expected and value[1] == _LENGTHS[code]:
        return None
    hint = ""
    if code is MessageCode.BOARD and len(value) < expected:
        hint = f" A report cut short usually means the link's MTU is under {MIN_MTU}."
    length = f", length byte 0x{value[1]:02x}" if len(value) > 1 else ""
    return (
        f"Chessnut {name} {_hex(value)} is {len(value)} bytes{length}; it must be {expected} bytes with "
        f"length byte 0x{_LENGTHS[code]:02x}.{hint}"
    )


def _nibbles(board: bytes) -> Iterable[int]:
    for byte in board:
        yield byte & 0x0F
        yield byte >> 4


def _hex(value: bytes, limit: int = 40) -> str:
    text = value[:limit].hex(" ")
    return text + " …" if len(value) > limit else text
