"""A chess engine's evaluation for spectators: Stockfish, over UCI (python-chess's `chess.engine`), in a process
of its own at low priority, never on the event loop's time. Each game's latest position wins: a new move stops
the search of the old one. Screens show the evaluation of the newest position at least the venue's broadcast
delay old (players may not use analysis: they never see the current position's), with its depth and the best
line's first moves in SAN; a hall screen shows none (`PublicHall`, `?hall=1`).

`Evaluation` is the value (pawns from White's side, or a mate in N), with lichess's PGN comment (`[%eval 0.35]`,
`[%eval #-3]`). `EvaluationService` is the `SpectatorExtra`: `note` a position, `shown` what may be seen now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chess
import chess.engine

from hub.rules.sport import lower_priority, shown_behind
from hub.venue.model import EngineSettings

log = logging.getLogger(__name__)

STOCKFISH_PATHS = ("stockfish", "/usr/games/stockfish")
HISTORY = 64  # positions kept per game, newest last: more than a broadcast delay covers
KEEP = 4096  # evaluations remembered: a hall's current positions many times over
PV_MOVES = 4  # the best line's first moves shown
DEFAULT_SETTINGS = EngineSettings()


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An engine's verdict on a position, from White's side: centipawns, or a mate in `mate` moves (negative:
    Black mates); the depth searched and the best line's first moves in SAN."""

    cp: int | None
    mate: int | None
    depth: int
    pv: tuple[str, ...] = ()
    result: str | None = None  # a finished game's position: its result, not a search ("1-0", "½-½")

    @property
    def text(self) -> str:
        """As a broadcast shows it: "+0.35", "-1.20", "#3" (White mates in 3), "#-2"; a result once over."""
        if self.result is not None:
            return self.result
        if self.mate is not None:
            return f"#{self.mate}"
        return f"{(self.cp or 0) / 100:+.2f}"

    def pgn_comment(self) -> str | None:
        """lichess's PGN annotation: `[%eval 0.35]` or `[%eval #-3]`; none on a finished game's position."""
        if self.result is not None:
            return None
        if self.mate is not None:
            return f"[%eval #{self.mate}]"
        return f"[%eval {(self.cp or 0) / 100:.2f}]"

    def to_dict(self) -> dict[str, Any]:
        """As screens get it."""
        return {
            "cp": self.cp,
            "mate": self.mate,
            "depth": self.depth,
            "pv": list(self.pv),
            "text": self.text,
            "result": self.result,
        }


FINAL_CP = 100_000  # a won position's bar: full to the winner


def final_evaluation(board: chess.Board) -> Evaluation:
    """The position a game ended in (mate, stalemate, a draw by rule): its result fills the bar, no search."""
    outcome = board.outcome(claim_draw=True)
    winner = None if outcome is None else outcome.winner
    if winner is None:
        return Evaluation(0, None, 0, (), "½-½")
    return Evaluation(FINAL_CP if winner else -FINAL_CP, None, 0, (), "1-0" if winner else "0-1")


def evaluation_of(board: chess.Board, info: chess.engine.InfoDict) -> Evaluation | None:
    """An engine's analysis of `board` as an `Evaluation`; None when it gave no score."""
    score = info.get("score")
    if score is None:
        return None
    white = score.white()
    pv: list[str] = []
    line = board.copy(stack=False)
    for move in info.get("pv", [])[:PV_MOVES]:
        if move not in line.legal_moves:
            break
        pv.append(line.san(move))
        line.push(move)
    mate = white.mate()
    return Evaluation(None if mate is not None else white.score(), mate, int(info.get("depth", 0)), tuple(pv))


def find_stockfish() -> str | None:
    """Where Stockfish is installed (Debian puts it in /usr/games), or None."""
    for name in STOCKFISH_PATHS:
        found = shutil.which(name)
        if found:
            return found
    return None


class EvaluationService:
    """The engine for a hall's chess screens: the positions spectators see, evaluated newest first per game."""

    def __init__(
        self,
        resend: Callable[[str], None],
        delay_s: float = 0.0,
        settings: EngineSettings = DEFAULT_SETTINGS,
        path: str | None = None,
    ) -> None:
        self._resend = resend
        self.delay_s = delay_s
        self.settings = settings
        self.path = path
        self._known: dict[str, Evaluation] = {}  # FEN -> its evaluation
        self._seen: dict[str, deque[tuple[float, str]]] = {}  # game -> (since when, FEN), newest last
        self._wanted: dict[str, str] = {}  # game -> the FEN to search next
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.evaluated = 0
        self.error = "" if path else "Stockfish is not installed / Stockfish kurulu değil"

    def start(self) -> None:
        """Start the engine's process and its loop (a hub without Stockfish says so and runs on)."""
        if not self.path:
            log.warning("chess evaluation is off: %s", self.error)
            return
        self._task = asyncio.get_running_loop().create_task(self._run(), name="chess engine")

    def note(self, match_id: str, state: Any, at: float) -> None:
        """A position spectators now see, since `at`: searched next for its game (instead of an older one)."""
        board: chess.Board = state.game.board
        fen = board.fen()
        seen = self._seen.setdefault(match_id, deque(maxlen=HISTORY))
        if seen and seen[-1][1] == fen:
            return
        seen.append((at, fen))
        if board.is_game_over():  # nothing to search: the result is the verdict (not the last search's)
            self._known[fen] = final_evaluation(board)
        if fen in self._known:
            self._soon(match_id)
            return
        self._wanted[match_id] = fen
        self._wake.set()

    def shown(self, match_id: str, now: float) -> dict[str, Any] | None:
        """The evaluation of the game's newest position that is at least the delay old and evaluated, with that
        position's time; None before there is one."""
        return shown_behind(self._seen.get(match_id, ()), self._known, now, self.delay_s)

    def annotate(self, position: str) -> str | None:
        """A game record's `[%eval]` for a position (its FEN) the engine has evaluated, or None. The records go
        out behind the broadcast delay, so their positions are old enough to show."""
        found = self._known.get(position)
        return None if found is None else found.pgn_comment()

    def report(self, match_id: str) -> dict[str, Any] | None:
        """None: no report beyond what the screens show."""
        return None

    def health(self) -> dict[str, Any]:
        """For /api/health: whether the engine runs, what it was given, how many positions it evaluated."""
        running = self._task is not None and not self._task.done() and not self.error
        return {
            "running": running,
            "path": self.path,
            "error": self.error or None,
            "evaluated": self.evaluated,
            "movetime_ms": self.settings.movetime_ms,
            "threads": self.settings.threads,
            "hash_mb": self.settings.hash_mb,
        }

    def close(self) -> None:
        """Stop the engine; a search in hand is dropped."""
        if self._task is not None:
            self._task.cancel()

    def _soon(self, match_id: str) -> None:
        """Show the game's screens again once what they may see has changed (its position is old enough)."""
        if self.delay_s > 0:
            asyncio.get_running_loop().call_later(self.delay_s, self._resend, match_id)
        else:
            self._resend(match_id)

    async def _run(self) -> None:
        assert self.path is not None
        try:
            _, engine = await chess.engine.popen_uci(self.path, preexec_fn=lower_priority)
        except (OSError, chess.engine.EngineError) as exc:
            self.error = f"Stockfish could not start: {exc} / Stockfish başlatılamadı"
            log.warning("chess evaluation is off: %s", self.error)
            return
        try:
            await engine.configure({"Threads": self.settings.threads, "Hash": self.settings.hash_mb})
            limit = chess.engine.Limit(time=self.settings.movetime_ms / 1000)
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._wanted:
                    match_id, fen = next(iter(self._wanted.items()))
                    del self._wanted[match_id]
                    await self._search(engine, match_id, fen, limit)
        except chess.engine.EngineError as exc:
            self.error = f"Stockfish stopped: {exc} / Stockfish durdu"
            log.warning("chess evaluation stopped: %s", self.error)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(engine.quit(), 2.0)

    async def _search(
        self, engine: chess.engine.UciProtocol, match_id: str, fen: str, limit: chess.engine.Limit
    ) -> None:
        """Search one position, stopped early when its game has moved on (the new position is searched next)."""
        if fen in self._known:
            self._soon(match_id)
            return
        board = chess.Board(fen)
        info: chess.engine.InfoDict = {}
        with await engine.analysis(board, limit) as analysis:
            async for update in analysis:
                info.update(update)
                if match_id in self._wanted:  # a new move: this position's search stops here
                    analysis.stop()
        found = evaluation_of(board, info)
        if found is None:
            return
        self._known[fen] = found
        self.evaluated += 1
        while len(self._known) > KEEP:
            del self._known[next(iter(self._known))]
        self._soon(match_id)
