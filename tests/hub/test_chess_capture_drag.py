"""A capture made the way many players make it: the captured piece lifted first, then the capturing slider
dragged over the empty squares to it, the hand pausing on each. A pause shows a board the game does not
explain in one ply (the opponent's piece gone, the slider part way), which a gap of three plies can also give
(the opponent's piece moved onto the slider's line and was taken there); it is a hand at work, read as nothing
until the slider lands. Driven through the match reducer with the hub's report bodies and quarter-second
ticks, as the hub folds an e-board."""

from __future__ import annotations

import chess

from devices.observations import ChessBoardState
from hub.matches import MatchInfo, MatchState, apply_event, new_match
from hub.rules.base import Anomaly, Fact
from hub.rules.registry import report_to_dict
from tests.hub.chess_support import read_games

TICK_S = 0.25  # `ChessSport.tick_every_s`


class Hub:
    """One chess match fed e-board reports and ticks through `apply_event`, as the hub feeds it."""

    def __init__(self) -> None:
        self.match: MatchState = new_match(MatchInfo("G1", "chess", "B1", players=("White", "Black")))
        self.placement = chess.BaseBoard()
        self.offset = 0
        self.t = 0.0
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []

    def _fold(self, kind: str, body: dict[str, object], at: float) -> None:
        self.offset += 1
        outcome = apply_event(self.match, kind, body, self.offset, at, None)
        self.match = outcome.state
        self.facts.extend(outcome.facts)
        self.anomalies.extend(outcome.anomalies)

    def wait(self, seconds: float) -> None:
        """`seconds` pass; the hub ticks the match every quarter second of them."""
        end = self.t + seconds
        k = int(self.t / TICK_S) + 1
        while k * TICK_S <= end:
            self._fold("clock.tick", {}, k * TICK_S)
            k += 1
        self.t = end

    def square(self, name: str, symbol: str | None, pause: float) -> None:
        """One square changes `pause` seconds after the last report."""
        self.wait(pause)
        square = chess.parse_square(name)
        if symbol is None:
            self.placement.remove_piece_at(square)
        else:
            self.placement.set_piece_at(square, chess.Piece.from_symbol(symbol))
        report = report_to_dict(ChessBoardState(self.placement.board_fen()))
        self._fold(
            "device.report",
            {"device_id": "board-1", "boot_epoch": 1, "seq": self.offset, "report": report},
            self.t,
        )

    def play(self, move: chess.Move, board: chess.Board) -> None:
        """A plain lift and place (the rook too when castling), then the player thinks 2 s."""
        after = board.copy(stack=False)
        after.push(move)
        for square in chess.SQUARES:
            if after.piece_at(square) is None and board.piece_at(square) is not None:
                self.square(chess.square_name(square), None, 0.2)
        for square in chess.SQUARES:
            placed = after.piece_at(square)
            if placed is not None and placed != board.piece_at(square):
                self.square(chess.square_name(square), placed.symbol(), 0.2)
        self.wait(2.0)

    @property
    def moves(self) -> list[str]:
        return [m.uci for m in self.match.sport_state.moves]

    def kinds(self, kind: str) -> list[Fact]:
        return [f for f in self.facts if f.kind == kind]


def game_before(number: int, white: str, plies: int, san: str) -> tuple[Hub, list[chess.Move]]:
    """The fixture's game `number` played up to ply `plies`, whose move is `san`; the line including it."""
    game = read_games()[number]
    assert game.headers["White"] == white
    moves = list(game.mainline_moves())
    hub, board = Hub(), chess.Board()
    for move in moves[:plies]:
        hub.play(move, board)
        board.push(move)
    assert hub.moves == [m.uci() for m in moves[:plies]] and hub.anomalies == []
    assert board.san(moves[plies]) == san
    return hub, moves[: plies + 1]


def kasparov_deep_blue_before_30_qxg6() -> tuple[Hub, list[chess.Move]]:
    """Kasparov – Deep Blue, New York 1997 (the fixture's 5th game), played up to 30.Qxg6."""
    hub, line = game_before(4, "Garry Kasparov", 58, "Qxg6")
    return hub, line


def test_a_slider_dragged_to_a_piece_lifted_first_is_the_capture_not_a_gap() -> None:
    hub, line = kasparov_deep_blue_before_30_qxg6()
    hub.square("g6", None, 0.12)  # Black's queen taken off first
    hub.square("c2", None, 0.22)  # White's queen lifted, dragged c2-d3-e4-f5-g6, pausing on each
    for square, pause in (("d3", 0.67), ("e4", 0.76), ("f5", 0.47)):
        hub.square(square, "Q", 0.3)
        hub.wait(pause)
        assert hub.moves == [m.uci() for m in line[:-1]], f"read during the pause on {square}"
        hub.square(square, None, 0.0)
    hub.square("g6", "Q", 0.55)
    hub.wait(2.0)
    assert hub.moves == [m.uci() for m in line]
    assert hub.kinds("board_gap") == [] and hub.kinds("takeback") == [] and hub.anomalies == []


def test_a_hand_holding_the_drag_for_long_is_still_no_move() -> None:
    """Even a pause far beyond the settling and extending waits is not read as 30.Qd3 Qe4 31.Qxe4."""
    hub, line = kasparov_deep_blue_before_30_qxg6()
    hub.square("g6", None, 0.3)
    hub.square("c2", None, 0.3)
    hub.square("e4", "Q", 0.3)
    hub.wait(5.0)
    assert hub.moves == [m.uci() for m in line[:-1]] and hub.kinds("board_gap") == []
    hub.square("e4", None, 0.3)
    hub.square("g6", "Q", 0.3)
    hub.wait(1.0)
    assert hub.moves == [m.uci() for m in line] and hub.anomalies == []


def test_a_capturer_held_after_the_piece_it_takes_is_not_a_capture_and_recapture() -> None:
    """Nepomniachtchi – Ding, 2023, 45.Nxc6: with the c6 pawn and the d4 knight both in the hand, the board
    is also 45.Nxb5 cxb5 (b5 holds a black pawn either way); it waits for the knight to land."""
    hub, line = game_before(7, "Nepomniachtchi, Ian", 88, "Nxc6")
    hub.square("c6", None, 0.67)
    hub.square("d4", None, 0.25)
    hub.wait(0.9)  # longer than a board takes to settle (0.3 s)
    assert hub.moves == [m.uci() for m in line[:-1]]
    hub.square("c6", "N", 0.0)
    hub.wait(2.0)
    assert hub.moves == [m.uci() for m in line]
    assert hub.kinds("takeback") == [] and hub.anomalies == []
