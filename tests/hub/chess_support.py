"""Shared by the chess rules tests: a table whose e-board and clock feed the reducer, and the real captures."""

from __future__ import annotations

import base64
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from boardcast_sim.chess_motion import MotionStyle, motions, takeback_motions
from devices.dgt.reader import DgtReader, DgtReport
from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules import chess as rc
from hub.rules.base import Anomaly, Fact

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DGT = FIXTURES / "dgt"
GAMES = FIXTURES / "chess" / "games.pgn"


class Table:
    """One table: what the e-board shows and the clock reads, folded through the reducer with time `t`."""

    def __init__(self, config: rc.ChessConfig | None = None) -> None:
        self.state = rc.initial(config or rc.ChessConfig())
        self.placement = chess.BaseBoard()
        self.board = chess.Board()  # the game as played at the table (the truth the reducer must find)
        self.t = 0.0
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []
        self.clock_ms = [0, 0]

    # -- feeding ------------------------------------------------------------------------------------------

    def feed(self, item: Any, dt: float = 0.0) -> tuple[list[Fact], list[Anomaly]]:
        """Fold one input `dt` seconds after the last; return what it produced."""
        self.t += dt
        outcome = rc.apply(self.state, item, self.t)
        self.state = outcome.state
        self.facts.extend(outcome.facts)
        self.anomalies.extend(outcome.anomalies)
        return list(outcome.facts), list(outcome.anomalies)

    def tick(self, dt: float) -> tuple[list[Fact], list[Anomaly]]:
        return self.feed(rc.Tick(), dt)

    def square(self, name: str, symbol: str | None, dt: float = 0.1) -> tuple[list[Fact], list[Anomaly]]:
        """One square changes on the board (`None` empties it)."""
        square = chess.parse_square(name)
        if symbol is None:
            self.placement.remove_piece_at(square)
        else:
            self.placement.set_piece_at(square, chess.Piece.from_symbol(symbol))
        return self.feed(ChessBoardState(self.placement.board_fen()), dt)

    def show(self, fen: str, dt: float = 0.1) -> tuple[list[Fact], list[Anomaly]]:
        """The board shows a whole placement at once."""
        self.placement = chess.BaseBoard(fen)
        return self.feed(ChessBoardState(fen), dt)

    def clock(
        self, left_s: float, right_s: float, running: int | None, dt: float = 0.0, **kw: Any
    ) -> tuple[list[Fact], list[Anomaly]]:
        """A clock reading (seconds, as a DGT 3000 shows them)."""
        self.clock_ms = [round(left_s * 1000), round(right_s * 1000)]
        report = ChessClockState((self.clock_ms[0], self.clock_ms[1]), running, **kw)
        return self.feed(report, dt)

    def press_event(self, side: int, left_s: float, right_s: float, dt: float = 0.0) -> Any:
        """A Boardcast Wire clock's press event."""
        self.clock_ms = [round(left_s * 1000), round(right_s * 1000)]
        return self.feed(DeviceEvent("press", {"side": side, "remaining_ms": list(self.clock_ms)}), dt)

    def play(
        self,
        uci: str,
        rng: random.Random | None = None,
        *,
        style: MotionStyle = MotionStyle.CLEAN,
        think: float = 2.0,
    ) -> None:
        """The player at the table makes `uci` the way a hand does; then `think` seconds pass."""
        move = chess.Move.from_uci(uci)
        for motion in motions(self.board, move, rng or random.Random(0), style=style):
            if motion.piece is None:
                self.placement.remove_piece_at(motion.square)
            else:
                self.placement.set_piece_at(motion.square, motion.piece)
            self.feed(ChessBoardState(self.placement.board_fen()), motion.delay_s)
        self.board.push(move)
        if think:
            self.tick(think)

    def take_back(self, plies: int, rng: random.Random | None = None, *, think: float = 2.0) -> None:
        """The players set the board back `plies` plies (hands in any order)."""
        before = self.board.copy()
        for _ in range(plies):
            self.board.pop()
        for motion in takeback_motions(before, self.board, rng or random.Random(0)):
            if motion.piece is None:
                self.placement.remove_piece_at(motion.square)
            else:
                self.placement.set_piece_at(motion.square, motion.piece)
            self.feed(ChessBoardState(self.placement.board_fen()), motion.delay_s)
        if think:
            self.tick(think)

    # -- reading ------------------------------------------------------------------------------------------

    @property
    def moves(self) -> list[str]:
        return [m.uci for m in self.state.moves]

    def kinds(self, kind: str) -> list[Fact]:
        return [f for f in self.facts if f.kind == kind]

    def codes(self) -> list[str]:
        return [a.code for a in self.anomalies]


def read_games(path: Path = GAMES) -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


def capture(name: str) -> list[tuple[float, Any]]:
    """A real DGT capture as timed reports, the way `boardcast check chess` times them."""
    from hub.rules.chess.check import timed_reports

    lines = (DGT / f"{name}.inbytes").read_text().splitlines()
    return [(t.at, t.item.report) for t in timed_reports(lines) if isinstance(t.item, DgtReport)]


def capture_reports_untimed(name: str) -> list[Any]:
    """The reports of a capture straight from the DGT reader, read by read."""
    reader = DgtReader()
    out = []
    for line in (DGT / f"{name}.inbytes").read_text().splitlines():
        out.extend(i.report for i in reader.feed(base64.b64decode(line)) if isinstance(i, DgtReport))
    return out


def fold(
    items: Iterable[tuple[float, Any]], config: rc.ChessConfig | None = None
) -> tuple[rc.ChessState, list[Fact], list[Anomaly]]:
    """Fold timed inputs from a fresh game; a Tick two seconds after the last settles the board."""
    state = rc.initial(config or rc.ChessConfig())
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    t = 0.0
    for t, item in items:
        outcome = rc.apply(state, item, t)
        state = outcome.state
        facts.extend(outcome.facts)
        anomalies.extend(outcome.anomalies)
    outcome = rc.apply(state, rc.Tick(), t + 2.0)
    facts.extend(outcome.facts)
    anomalies.extend(outcome.anomalies)
    return outcome.state, facts, anomalies
