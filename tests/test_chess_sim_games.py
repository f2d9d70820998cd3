"""The DGT simulator replays real games on real pseudo-terminals, the hub reads them through the DGT
session, and every game comes back move for move: castling both ways, en passant, promotions and
under-promotions, with the DGT 3000 pressed after every move."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

from boardcast_sim.dgt_board import DgtBoard
from boardcast_sim.pty import PtyPair, open_pty_pair
from hub.matches import MatchInfo
from hub.venue import TableConfig, Venue
from tests.hubsupport import running_hub, until

GAMES_FILE = Path(__file__).parent / "fixtures" / "chess" / "games.pgn"


def pick_games() -> list[chess.pgn.Game]:
    """Short real games that between them hold every special move, so the test stays quick."""
    games = []
    with GAMES_FILE.open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    wanted: dict[str, chess.pgn.Game] = {}
    for game in sorted(games, key=lambda g: len(list(g.mainline_moves()))):
        board = game.board()
        kinds = set()
        for move in game.mainline_moves():
            if board.is_kingside_castling(move):
                kinds.add("O-O")
            if board.is_queenside_castling(move):
                kinds.add("O-O-O")
            if board.is_en_passant(move):
                kinds.add("ep")
            if move.promotion == chess.QUEEN:
                kinds.add("=Q")
            if move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK):
                kinds.add("under")
            board.push(move)
        for kind in kinds:
            wanted.setdefault(kind, game)
    assert set(wanted) == {"O-O", "O-O-O", "ep", "=Q", "under"}, set(wanted)
    return list({id(g): g for g in wanted.values()}.values())


async def test_real_games_replayed_by_the_dgt_simulator_come_back_exactly(tmp_path: Path) -> None:
    games = pick_games()
    ptys: list[PtyPair] = [open_pty_pair() for _ in games]
    tables = tuple(
        TableConfig(f"C{i}", "chess", device=f"serial://{pty.slave_path}?protocol=dgt")
        for i, pty in enumerate(ptys)
    )
    matches = tuple(
        MatchInfo(f"G{i}", "chess", f"C{i}", 1, ("W", "B"), clock="900+10") for i in range(len(games))
    )
    boards = [
        DgtBoard(
            [game],
            long_serial=f"{1000000000 + i}",
            time_control="900+10",
            speed=40,
            seed=i,
            between_games_s=10**6,
        )
        for i, game in enumerate(games)
    ]
    jobs = [lambda b=b, p=p: b.run_on_fd(p.master_fd) for b, p in zip(boards, ptys, strict=True)]
    try:
        async with running_hub(tmp_path, Venue("Satranç", tables, matches), *jobs) as url:
            for i, game in enumerate(games):
                expected = [m.uci() for m in game.mainline_moves()]
                plies = len(expected)
                done = await until(
                    url + f"api/matches/G{i}",
                    lambda m, n=plies: len(m["state"]["moves"]) >= n,
                    within=90,
                )
                assert [m["uci"] for m in done["state"]["moves"]] == expected, game.headers
                wrong = [a["code"] for a in done["anomalies"] if a["code"] not in ("chess.flag_fall",)]
                assert wrong == [], (game.headers["White"], wrong)
    finally:
        for pty in ptys:
            pty.close()
