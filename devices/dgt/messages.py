"""What a DGT e-board and its DGT 3000 clock report, as frozen values in python-chess terms.

Squares are python-chess square indices (a1 = 0 … h8 = 63); the codec converts from the board's own field
numbering (a8 = 0 … h1 = 63) with `square_from_field`. Clock sides are left and right as the clock stands on
the table, never white and black: binding them to colours is the hub's job. Nothing here imports `hub`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import chess


def square_from_field(field: int) -> chess.Square:
    """The python-chess square of a DGT field number.

    The board numbers its fields row by row from the top-left as seen from White: a8 = 0, b8 = 1, … h8 = 7,
    a7 = 8, … h1 = 63 (dgtbrd.h; checked on the real captures, where field 0x34 empties on 1. e4). python-chess
    counts a1 = 0, b1 = 1, … h8 = 63, so only the rank is mirrored: square = field XOR 56. The board never
    rotates its numbering when Black sits at the connector; a rotated board is the hub's concern.
    """
    if not 0 <= field <= 63:
        raise ValueError(f"a DGT field number is 0..63, got {field}")
    return chess.square_mirror(field)


def field_from_square(square: chess.Square) -> int:
    """The DGT field number of a python-chess square; the inverse of `square_from_field`."""
    if not 0 <= square <= 63:
        raise ValueError(f"a python-chess square is 0..63, got {square}")
    return chess.square_mirror(square)


class DgtPiece(enum.IntEnum):
    """A piece code as the board sends it (dgtbrd.h); 0x0d..0x0f are DGT's magic result pieces."""

    EMPTY = 0x00
    WHITE_PAWN = 0x01
    WHITE_ROOK = 0x02
    WHITE_KNIGHT = 0x03
    WHITE_BISHOP = 0x04
    WHITE_KING = 0x05
    WHITE_QUEEN = 0x06
    BLACK_PAWN = 0x07
    BLACK_ROOK = 0x08
    BLACK_KNIGHT = 0x09
    BLACK_BISHOP = 0x0A
    BLACK_KING = 0x0B
    BLACK_QUEEN = 0x0C
    MAGIC_DRAW = 0x0D
    MAGIC_WHITE_WINS = 0x0E
    MAGIC_BLACK_WINS = 0x0F

    @property
    def symbol(self) -> str | None:
        """The python-chess symbol ("P", "n", …); None for an empty square or a magic piece."""
        return _SYMBOLS.get(self)

    @property
    def is_magic(self) -> bool:
        """True for the draw / white-wins / black-wins pieces, which python-chess cannot place."""
        return self >= DgtPiece.MAGIC_DRAW

    def to_chess(self) -> chess.Piece | None:
        """The python-chess piece; None for an empty square or a magic piece."""
        symbol = self.symbol
        return chess.Piece.from_symbol(symbol) if symbol else None

    @classmethod
    def from_symbol(cls, symbol: str | None) -> DgtPiece:
        """The code of a python-chess symbol; None or "." is an empty square."""
        if symbol is None or symbol == ".":
            return cls.EMPTY
        try:
            return _CODES[symbol]
        except KeyError:
            raise ValueError(f"{symbol!r} is not a chess piece symbol (PNBRQK, pnbrqk)") from None


_SYMBOLS = {
    DgtPiece.WHITE_PAWN: "P",
    DgtPiece.WHITE_ROOK: "R",
    DgtPiece.WHITE_KNIGHT: "N",
    DgtPiece.WHITE_BISHOP: "B",
    DgtPiece.WHITE_KING: "K",
    DgtPiece.WHITE_QUEEN: "Q",
    DgtPiece.BLACK_PAWN: "p",
    DgtPiece.BLACK_ROOK: "r",
    DgtPiece.BLACK_KNIGHT: "n",
    DgtPiece.BLACK_BISHOP: "b",
    DgtPiece.BLACK_KING: "k",
    DgtPiece.BLACK_QUEEN: "q",
}
_CODES = {symbol: code for code, symbol in _SYMBOLS.items()}


@dataclass(frozen=True, slots=True)
class BoardDump:
    """The whole board (reply to SEND_BRD). `pieces[square]` is indexed by python-chess square, a1 first."""

    pieces: tuple[DgtPiece, ...]
    raw: bytes = b""

    def piece_at(self, square: chess.Square) -> chess.Piece | None:
        """The python-chess piece on a square; None when empty or a magic piece."""
        return self.pieces[square].to_chess()

    def board_fen(self) -> str:
        """The placement part of a FEN, e.g. "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"; magic pieces read as empty."""
        return self.to_board().board_fen()

    def to_board(self) -> chess.BaseBoard:
        """A python-chess piece placement of this dump; magic pieces are left out."""
        board = chess.BaseBoard.empty()
        for square, code in enumerate(self.pieces):
            piece = code.to_chess()
            if piece is not None:
                board.set_piece_at(square, piece)
        return board

    @property
    def magic_pieces(self) -> tuple[tuple[chess.Square, DgtPiece], ...]:
        """The squares holding a magic result piece, a1 first."""
        return tuple((square, code) for square, code in enumerate(self.pieces) if code.is_magic)


@dataclass(frozen=True, slots=True)
class FieldUpdate:
    """One square changed (update modes). `piece` is EMPTY when a piece was lifted. Never a move on its own."""

    square: chess.Square
    piece: DgtPiece
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class SerialNumber:
    """The board's serial number: 5 ASCII digits (SERIALNR) or 10 (LONG_SERIALNR)."""

    serial: str
    long: bool = False
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class Version:
    """The board's firmware version, e.g. 1.02 as major 1, minor 2."""

    major: int
    minor: int
    raw: bytes = b""

    def __str__(self) -> str:
        return f"{self.major}.{self.minor:02d}"


@dataclass(frozen=True, slots=True)
class BusAddress:
    """The board's 14-bit bus address (reply to RETURN_BUSADRES)."""

    address: int
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class Trademark:
    """The board's trademark text (reply to SEND_TRADEMARK)."""

    text: str
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class BatteryStatus:
    """A Bluetooth board's battery (reply to BATTERY_STATUS); `details` keeps the bytes after the percentage."""

    percent: int
    details: bytes = b""
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class EepromMoves:
    """The board's EEPROM event log (reply to SEND_EE_MOVES), undecoded; it ends with 0x6b (EE_EOF)."""

    data: bytes
    raw: bytes = b""


class ClockSide(enum.StrEnum):
    """A side of the clock as it stands on the table."""

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, slots=True)
class ClockDisplay:
    """One side of a BWTIME reading: the time shown, at one-second resolution, and that side's flag bits."""

    hours: int
    minutes: int
    seconds: int
    final_flag: bool = False  # D4: flag fallen and the clock blocked at zero
    time_per_move: bool = False  # D5: the Fischer/Bronstein icon is on
    flag: bool = False  # D6: flag shown while the clock still runs (e.g. the next period started)

    @property
    def remaining_s(self) -> int:
        """The time shown, in seconds."""
        return self.hours * 3600 + self.minutes * 60 + self.seconds


@dataclass(frozen=True, slots=True)
class ClockTimes:
    """A BWTIME clock reading: both sides' times, and the status byte.

    `left_turn`/`right_turn` are the status bits D3/D4 as the real captures use them (D3 while the left time
    runs down), whatever the 2015 header says; `running_side` derives the side from the lever (D1), which agrees
    with them in both captures. An all-zero reading (`is_blank`) is what a BT 2.10 board may send after a clock
    command; it says nothing about the clock.
    """

    left: ClockDisplay
    right: ClockDisplay
    running: bool = False  # D0: counting (not stopped by start/stop)
    right_high: bool = False  # D1: lever high on the right side, so the right clock is the one to run
    battery_low: bool = False  # D2
    left_turn: bool = False  # D3
    right_turn: bool = False  # D4
    no_clock: bool = False  # D5: no clock connected, the reading is invalid
    raw: bytes = b""

    @property
    def running_side(self) -> ClockSide | None:
        """The side whose time runs: the lever's high side while the clock runs; None if stopped or absent."""
        if not self.running or self.no_clock:
            return None
        return ClockSide.RIGHT if self.right_high else ClockSide.LEFT

    @property
    def is_blank(self) -> bool:
        """True for the all-zero reading a BT 2.10 board may send after a clock command; ignore it."""
        zero = ClockDisplay(0, 0, 0)
        status = (
            self.running,
            self.right_high,
            self.battery_low,
            self.left_turn,
            self.right_turn,
            self.no_clock,
        )
        return self.left == zero and self.right == zero and not any(status)


class ClockButton(enum.IntEnum):
    """A DGT 3000 button, as a spontaneous clock acknowledgement reports it in ack3."""

    BACK = 0x31
    PLUS = 0x32
    RUN = 0x33
    MINUS = 0x34
    OK = 0x35


@dataclass(frozen=True, slots=True)
class ClockAck:
    """A clock acknowledgement: a BWTIME frame carrying four ack bytes instead of times.

    ack0 0x10 is OK and 0x40 an error (e.g. SETNRUN outside mode 23). If ack1 has its top bit set the clock
    sent it on its own (0x81 ready, 0x88 button, 0x8a mode); otherwise ack1 is the clock command acknowledged.
    """

    ack0: int
    ack1: int
    ack2: int
    ack3: int
    raw: bytes = b""

    @property
    def ok(self) -> bool:
        return self.ack0 == 0x10

    @property
    def error(self) -> bool:
        return self.ack0 == 0x40

    @property
    def spontaneous(self) -> bool:
        """True when the clock sent this on its own (ready, button, mode), not in reply to a command."""
        return bool(self.ack1 & 0x80)

    @property
    def command(self) -> int | None:
        """The clock command byte acknowledged (0x01 display, 0x0a SETNRUN, 0x0c ASCII, …); None if spontaneous."""
        return None if self.spontaneous else self.ack1

    @property
    def button(self) -> ClockButton | None:
        """The button a spontaneous button ack (ack1 0x88) names; None otherwise or if ack3 is unknown."""
        if self.ack1 != 0x88:
            return None
        try:
            return ClockButton(self.ack3)
        except ValueError:
            return None

    @property
    def clock_version(self) -> tuple[int, int] | None:
        """(main, sub) from the ack to the clock VERSION command; None for any other ack."""
        if self.ack1 != 0x09:
            return None
        return self.ack2 >> 4, self.ack2 & 0x0F


DgtMessage = (
    BoardDump
    | FieldUpdate
    | ClockTimes
    | ClockAck
    | SerialNumber
    | Version
    | BusAddress
    | Trademark
    | BatteryStatus
    | EepromMoves
)
