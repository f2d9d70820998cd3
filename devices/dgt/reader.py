"""DGT board messages to Boardcast observations, sans-I/O: the board image a stream of updates describes.

The codec (`devices.dgt.codec`) turns bytes into DGT messages; this module keeps what those messages mean
for a spectator: the squares (a board dump replaces the image, a field update changes one square of it) and
the clock (a BWTIME reading, left/right as on the table). Each change becomes one full-state report
(`ChessBoardState`, `ChessClockState`), so a report never depends on the ones before it. The rest (serial
numbers, versions, clock acknowledgements, battery, errors) is passed through for the session to act on.

Before the first board dump the image is unknown: field updates are counted in `updates_before_dump` and
`needs_dump` says the session should ask for one (SEND_BRD). A clock reading that is all zeros (what BT 2.10
boards send after a clock command) or says "no clock connected" is no clock state and makes no report.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from devices.dgt.codec import DgtCodec, DgtError
from devices.dgt.messages import BoardDump, ClockTimes, DgtMessage, DgtPiece, FieldUpdate
from devices.observations import ChessBoardState, ChessClockState

_MAGIC_NAMES = {
    DgtPiece.MAGIC_DRAW: "draw",
    DgtPiece.MAGIC_WHITE_WINS: "white_wins",
    DgtPiece.MAGIC_BLACK_WINS: "black_wins",
}


@dataclass(frozen=True, slots=True)
class DgtReport:
    """A report made from DGT messages, with the bytes of the message that completed it."""

    report: ChessBoardState | ChessClockState
    raw: bytes


def board_state(pieces: tuple[DgtPiece, ...] | list[DgtPiece]) -> ChessBoardState:
    """The board report of 64 DGT piece codes indexed by python-chess square (a1 first)."""
    board = chess.BaseBoard.empty()
    magic = []
    for square, code in enumerate(pieces):
        if code in _MAGIC_NAMES:
            magic.append(f"{chess.square_name(square)}={_MAGIC_NAMES[code]}")
            continue
        piece = code.to_chess()
        if piece is not None:
            board.set_piece_at(square, piece)
    return ChessBoardState(board.board_fen(), tuple(magic))


def clock_state(times: ClockTimes) -> ChessClockState | None:
    """The clock report of a BWTIME reading; None for a blank reading or when no clock is connected."""
    if times.is_blank or times.no_clock:
        return None
    side = times.running_side
    return ChessClockState(
        remaining_ms=(times.left.remaining_s * 1000, times.right.remaining_s * 1000),
        running=None if side is None else (0 if side.value == "left" else 1),
        flags=(times.left.final_flag, times.right.final_flag),
        period_flags=(times.left.flag, times.right.flag),
        time_per_move=times.left.time_per_move or times.right.time_per_move,
        resolution_ms=1000,
    )


class DgtReader:
    """One board's stream: `feed(bytes)` returns reports, and the other messages and errors, in stream order."""

    def __init__(self) -> None:
        self.codec = DgtCodec()
        self._pieces: list[DgtPiece] | None = None
        self._board: ChessBoardState | None = None
        self._clock: ChessClockState | None = None
        self.updates_before_dump = 0

    @property
    def needs_dump(self) -> bool:
        """True until a board dump has given the whole image."""
        return self._pieces is None

    @property
    def board(self) -> ChessBoardState | None:
        """The last board reported, if any."""
        return self._board

    def feed(self, data: bytes) -> list[DgtReport | DgtMessage | DgtError]:
        """Take any chunk of bytes; return reports for each change, other messages and errors, in order."""
        return self._read(self.codec.feed(data))

    def flush(self) -> list[DgtReport | DgtMessage | DgtError]:
        """Report what is pending at the end of the stream."""
        return self._read(self.codec.flush())

    def reconnected(self) -> None:
        """Forget the image and any partial message: after a reconnect the board must be read again."""
        self.codec.reset()
        self._pieces = None
        self._clock = None

    def _read(self, items: list[DgtMessage | DgtError]) -> list[DgtReport | DgtMessage | DgtError]:
        out: list[DgtReport | DgtMessage | DgtError] = []
        for item in items:
            if isinstance(item, BoardDump):
                self._pieces = list(item.pieces)
                self._report_board(item.raw, out, always=True)
            elif isinstance(item, FieldUpdate):
                if self._pieces is None:
                    self.updates_before_dump += 1
                    continue
                self._pieces[item.square] = item.piece
                self._report_board(item.raw, out)
            elif isinstance(item, ClockTimes):
                state = clock_state(item)
                if state is not None and state != self._clock:
                    self._clock = state
                    out.append(DgtReport(state, item.raw))
            else:
                out.append(item)
        return out

    def _report_board(
        self, raw: bytes, out: list[DgtReport | DgtMessage | DgtError], *, always: bool = False
    ) -> None:
        assert self._pieces is not None
        state = board_state(self._pieces)
        if always or state != self._board:  # a dump is always news: the session asked for it
            self._board = state
            out.append(DgtReport(state, raw))
