"""latency-analysis: the `latency` benchmark run twice in one process, without and with the analysis engines
busy inside the hub, to show that spectators' analysis costs the hall's live path nothing it needs.

The second run's hub also runs, on its own event loop as a hall would, the chess evaluation (Stockfish,
`hub.rules.chess.evaluation`) of 8 boards at blitz pace (a move every 2.5 s on each, the positions of real
games from `tests/fixtures/chess/games.pgn`) and the backgammon performance ratings (GNU Backgammon,
`hub.rules.backgammon.analysis`) of 4 simulated boards, each report of play through the backgammon rules.
Both engines run as processes of their own at the lowest priority with the venue's defaults (300 ms a
position, one thread; 0 ply). The figures are the two runs' p50 and p99 and how much each engine did.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from benchmarks.common import Result, say
from benchmarks.common import sizes as pick_sizes
from benchmarks.latency import FULL, SMOKE, holds, measure
from boardcast_sim.backgammon_match import BackgammonMatchSim, MatchOptions
from hub.rules.backgammon.analysis import AnalysisService, find_gnubg
from hub.rules.backgammon.boards import BackgammonConfig
from hub.rules.chess.evaluation import EvaluationService, find_stockfish
from hub.rules.registry import SPORTS
from hub.server.app import HubRuntime
from hub.venue.model import EngineSettings, PerformanceSettings

NAME = "latency-analysis"
GAMES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "chess" / "games.pgn"
CHESS_BOARDS = 8
BG_BOARDS = 4
MOVE_EVERY_S = 2.5  # blitz: a move every few seconds on each board
SPEED = 4.0  # the backgammon boards' play, faster than a person's (more for the analysis to do)


class Positioned:
    """What the evaluation reads of a chess match's state: its game's board."""

    def __init__(self, board: chess.Board) -> None:
        self.game = self
        self.board = board


def real_games(count: int) -> list[list[chess.Board]]:
    """Each of `count` real games as its positions after each move."""
    games: list[list[chess.Board]] = []
    with GAMES.open() as file:
        while len(games) < count and (game := chess.pgn.read_game(file)) is not None:
            board, positions = game.board(), []
            for move in game.mainline_moves():
                board.push(move)
                positions.append(board.copy(stack=False))
            if len(positions) >= 20:
                games.append(positions)
    return games


class AnalysisLoad:
    """The engines' work, run inside the hub: what they did, for the result."""

    def __init__(self) -> None:
        self.evaluated = 0
        self.analysed = 0
        self.chess_positions = 0
        self.bg_states = 0
        self.notes: list[str] = []

    async def run(self, runtime: HubRuntime) -> None:
        """Feed both engines until cancelled (the hub stops)."""
        stockfish, gnubg = find_stockfish(), find_gnubg()
        if stockfish is None or gnubg is None:
            self.notes.append(f"missing engine: stockfish={stockfish}, gnubg={gnubg}")
        evaluation = EvaluationService(lambda _: None, 0.0, EngineSettings(), stockfish)
        analysis = AnalysisService(lambda _: None, 0.0, PerformanceSettings(), gnubg)
        evaluation.start()
        analysis.start()
        try:
            async with asyncio.TaskGroup() as tg:
                for index, positions in enumerate(real_games(CHESS_BOARDS)):
                    tg.create_task(self._chess(evaluation, f"C{index}", positions, index))
                for index in range(BG_BOARDS):
                    tg.create_task(self._backgammon(analysis, f"B{index}", index))
        finally:
            self.evaluated, self.analysed = evaluation.evaluated, analysis.analysed
            evaluation.close()
            analysis.close()

    async def _chess(
        self, service: EvaluationService, game: str, positions: list[chess.Board], n: int
    ) -> None:
        await asyncio.sleep(MOVE_EVERY_S * n / CHESS_BOARDS)  # the boards' moves spread over the interval
        while True:
            for board in positions:
                service.note(game, Positioned(board), time.time())
                self.chess_positions += 1
                await asyncio.sleep(MOVE_EVERY_S)

    async def _backgammon(self, service: AnalysisService, match: str, seed: int) -> None:
        sport = SPORTS["backgammon"]
        while True:
            sim = BackgammonMatchSim(seed, MatchOptions(length=7))
            state = sport.initial(BackgammonConfig(7))
            while steps := sim.step():
                for seconds, report in steps:
                    await asyncio.sleep(seconds / SPEED)
                    state = sport.apply(state, report, time.time()).state
                    service.note(match, state, time.time())
                    self.bg_states += 1
            seed += BG_BOARDS


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    say(f"{NAME}: the latency run without the engines")
    plain, notes = await measure(sizes, smoke)
    load = AnalysisLoad()
    say(f"{NAME}: the latency run with {CHESS_BOARDS} chess and {BG_BOARDS} backgammon boards analysed")
    loaded, loaded_notes = await measure(sizes, smoke, jobs=(load.run,))
    details: dict[str, Any] = {
        "p50_ms_without": plain["p50_ms"],
        "p99_ms_without": plain["p99_ms"],
        "p50_ms_with": loaded["p50_ms"],
        "p99_ms_with": loaded["p99_ms"],
        "timed_frames_with": loaded["timed_frames"],
        "chess_positions_noted": load.chess_positions,
        "chess_positions_evaluated": load.evaluated,
        "backgammon_states_noted": load.bg_states,
        "backgammon_analyses": load.analysed,
        "clients_connected_with": loaded["clients_connected"],
    }
    return Result(
        name=NAME,
        unit="ms p50 with the engines",
        ours=loaded["p50_ms"],
        baseline=plain["p50_ms"],
        target="with the engines: p50 ≤ 10 ms, p99 ≤ 50 ms",
        passed=holds(loaded, sizes) and load.evaluated > 0 and load.analysed > 0,
        sizes={
            **sizes,
            "chess_boards": CHESS_BOARDS,
            "backgammon_boards": BG_BOARDS,
            "move_every_s": MOVE_EVERY_S,
        },
        details=details,
        notes=[*notes, *loaded_notes, *load.notes],
    )
