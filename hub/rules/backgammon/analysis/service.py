"""Live performance ratings for spectators: each backgammon match analysed by GNU Backgammon as it is played,
shown behind the broadcast delay.

Every state spectators see is `note`d with how far its match has gone (a `Marker`: games finished, records
of the game being played). The worker analyses a match's newest state (latest wins: states noted while it
works on another match wait as one); a finished game is analysed once and kept, the game being played again
each time (gnubg's analysis of a play does not depend on what came after it). Screens show (`shown`) the
figures of the newest state that is at least the delay old and analysed, counted up to that state only, so a
player never learns the verdict on a play still on the board (players may not use analysis).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from hub.rules.backgammon.analysis.decisions import GameAnalysis, Marker, game_analysis, summarise
from hub.rules.backgammon.analysis.worker import AnalysisError, GnubgProcess
from hub.rules.backgammon.export import match_to_mat, written
from hub.rules.backgammon.state import BackgammonState
from hub.venue.model import PerformanceSettings

log = logging.getLogger(__name__)

HISTORY = 256  # states kept per match, newest last: more than a broadcast delay covers
LARGEST = 8  # the report's largest errors shown as boards
REST_AT_LEAST_S = 0.05  # between two analyses: a board's checkers moved one by one wait as one job


def marker_of(state: BackgammonState) -> Marker:
    """How far a match has gone: its finished games, and the records of the game being played."""
    return len(state.games), written(state.actions)


class AnalysisService:
    """The `SpectatorExtra` of backgammon's performance ratings: `note` a state, `shown` what may be seen now,
    `report` a match's whole analysis."""

    def __init__(
        self,
        resend: Callable[[str], None],
        delay_s: float,
        settings: PerformanceSettings,
        path: str | None,
    ) -> None:
        self._resend = resend
        self.delay_s = delay_s
        self.settings = settings
        self.path = path
        self._worker = GnubgProcess(path) if path else None
        self._seen: dict[str, deque[tuple[float, Marker]]] = {}  # match -> (since when, marker), newest last
        self._wanted: dict[str, BackgammonState] = {}  # match -> its newest state, to analyse next
        self._games: dict[str, dict[int, GameAnalysis]] = {}  # match -> game index -> its analysis
        self._final: dict[str, set[int]] = {}  # match -> its games analysed after they ended
        self._covered: dict[str, Marker] = {}  # match -> how far its analysis goes
        self._over: dict[str, bool] = {}  # match -> whether its newest analysed state ended the match
        self._summaries: dict[str, dict[Marker, dict[str, Any]]] = {}  # match -> marker -> its figures
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.analysed = 0
        self.failed = 0
        self.error = "" if path else "GNU Backgammon is not installed / GNU Backgammon kurulu değil"

    def start(self) -> None:
        """Start analysing (a hub without gnubg says so and runs on)."""
        if self._worker is None:
            log.warning("performance ratings are off: %s", self.error)
            return
        self._task = asyncio.get_running_loop().create_task(self._run(), name="backgammon analysis")

    def note(self, match_id: str, state: Any, at: float) -> None:
        """A state spectators now see, since `at`: its match is analysed that far next."""
        if not isinstance(state, BackgammonState) or not (state.games or state.actions):
            return
        marker = marker_of(state)
        seen = self._seen.setdefault(match_id, deque(maxlen=HISTORY))
        if seen and seen[-1][1] == marker:
            return
        seen.append((at, marker))
        if self._worker is None:
            return
        self._wanted[match_id] = state
        self._wake.set()
        if self.delay_s > 0:
            asyncio.get_running_loop().call_later(self.delay_s, self._resend, match_id)

    def shown(self, match_id: str, now: float) -> dict[str, Any] | None:
        """Each player's figures up to the newest state at least the delay old that is analysed, with that
        state's time; None before there is one."""
        covered = self._covered.get(match_id)
        if covered is None:
            return None
        for at, marker in reversed(self._seen.get(match_id, ())):
            if at > now - self.delay_s or marker > covered:
                continue
            summary = self._summary(match_id, marker)
            if all(p["pr"] is None for p in summary["players"]):
                return None  # no decision yet (or a match scored by hand): nothing to rate
            return {**summary, "at": at}
        return None

    def _summary(self, match_id: str, marker: Marker) -> dict[str, Any]:
        known = self._summaries.setdefault(match_id, {})
        found = known.get(marker)
        if found is None:
            players = summarise(self._games.get(match_id, {}).values(), self.settings.ply, marker)
            found = known[marker] = {"players": [p.to_dict() for p in players], "ply": self.settings.ply}
        return found

    def report(self, match_id: str) -> dict[str, Any] | None:
        """A match's whole analysis as far as it goes (the report page and the referees' download): each
        player's figures, every decision in order, and the largest errors first; None if not analysed."""
        covered = self._covered.get(match_id)
        if covered is None:
            return None
        games = [self._games[match_id][i] for i in sorted(self._games.get(match_id, {}))]
        decisions = [d for g in games for d in g.upto(covered)[0]]
        largest = sorted((d for d in decisions if d.error > 0), key=lambda d: -d.error)[:LARGEST]
        return {
            "match": match_id,
            "engine": "GNU Backgammon",
            "ply": self.settings.ply,
            "complete": self._over.get(match_id, False),
            "players": [p.to_dict() for p in summarise(games, self.settings.ply, covered)],
            "largest": [d.to_dict() for d in largest],
            "decisions": [d.to_dict() for d in decisions],
        }

    def annotate(self, position: str) -> str | None:
        """None: the analysis comments on no game record."""
        return None

    def health(self) -> dict[str, Any]:
        """For /api/health: running or why not, the ply, how many analyses were made and failed."""
        running = self._task is not None and not self._task.done()
        return {
            "running": running,
            "path": self.path,
            "error": self.error or None,
            "ply": self.settings.ply,
            "analysed": self.analysed,
            "failed": self.failed,
            "waiting": len(self._wanted),
        }

    def close(self) -> None:
        """Stop analysing; an analysis in hand is dropped."""
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        assert self._worker is not None
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._wanted:
                    match_id = next(iter(self._wanted))
                    started = loop.time()
                    await self._analyse(match_id, self._wanted.pop(match_id))
                    # rest as long as it worked: the analysis takes at most half a core, however many boards
                    # play (their newest states wait as one job each, so a busy hall is analysed less often)
                    await asyncio.sleep(max(REST_AT_LEAST_S, loop.time() - started))
        finally:
            await self._worker.close()

    async def _analyse(self, match_id: str, state: BackgammonState) -> None:
        """Analyse a match as far as `state`: the finished games not analysed yet, and the game being played."""
        assert self._worker is not None
        known = self._games.setdefault(match_id, {})
        final = self._final.setdefault(match_id, set())
        first = next((i for i in range(len(state.games)) if i not in final), len(state.games))
        mat = match_to_mat(state, current=True)
        try:
            games = await self._worker.analyse(mat, first, self.settings.ply)
        except AnalysisError as error:
            self.failed += 1
            log.warning("match %s could not be analysed: %s", match_id, error)
            return
        for game in games:
            index = int(game["index"])
            known[index] = game_analysis(index, game["records"])
            if index < len(state.games):
                final.add(index)
        for index in [
            i for i in known if i > len(state.games) or (i == len(state.games) and not state.actions)
        ]:
            del known[index]  # a game that a correction took back
        marker = marker_of(state)
        self._covered[match_id] = marker
        self._over[match_id] = state.winner is not None
        self._summaries.pop(match_id, None)  # counted again from the new analysis
        self.analysed += 1
        self._resend(match_id)
