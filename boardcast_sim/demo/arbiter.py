"""The demo's arbiter: records the results its chess games reach off the board, as a hall's arbiter would.

The demo's boards replay real games, most of which ended by resignation or agreement: the board shows no
mate, so without an arbiter those games would stay live and the team match would never reach match points.
Once a board has played its game to the end and stayed quiet a moment, this arbiter sends the game's result
through the same checks as `POST /api/matches/{id}/actions` (`hub.referee.prepare`), logged under its own
name, so the console's audit shows the demo's arbiter did it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import chess.pgn

from hub.hall.live import Hall
from hub.matches import ActionRefused, MatchStatus
from hub.referee import ActionInvalid, Role, prepare
from hub.venue import Venue

log = logging.getLogger(__name__)

DEMO_ARBITER = "Demo hakemi (otomatik) / Demo arbiter (automatic)"
QUIET_S = 2.0  # how long (in the game's time at speed 1) a finished board stays quiet before the result
LEAST_QUIET_S = 0.5  # however fast the demo runs: the board's last reading has settled by then
EVERY_S = 0.5


@dataclass(frozen=True, slots=True)
class Ending:
    """How a demo game ends: after `plies` plies, with `result` (a PGN result token)."""

    plies: int
    result: str


def endings(venue: Venue, games: list[chess.pgn.Game]) -> dict[str, Ending]:
    """Each chess game of the demo's team match with the ending of the real game its board replays (board n
    replays game n, as `boardcast_sim.demo.run.scoreboards_for` sets them up)."""
    found: dict[str, Ending] = {}
    for info in venue.matches:
        if info.sport != "chess" or info.board is None:
            continue
        game = games[(info.board - 1) % len(games)]
        found[info.id] = Ending(len(list(game.mainline_moves())), game.headers.get("Result", "*"))
    return found


def _how(result: str) -> str:
    return "agreement" if result == "1/2-1/2" else "resignation"


async def run(hall: Hall, games: dict[str, Ending], speed: float = 1.0) -> None:
    """Watch the games; record each one's result once its board has played it out and gone quiet.

    The quiet moment is in the game's time, as the demo's clocks run: at speed 60, two seconds of real time
    are two minutes on a clock, and a player who resigned with less than that would lose on time first."""
    quiet_s = max(LEAST_QUIET_S, QUIET_S / max(speed, 1e-9))
    every_s = min(EVERY_S, quiet_s / 2)
    done_since: dict[str, float] = {}
    while True:
        now = time.time()
        for match_id, ending in games.items():
            match = hall.working.get(match_id)
            if (
                match is None
                or match.status is not MatchStatus.LIVE
                or ending.result not in ("1-0", "0-1", "1/2-1/2")
            ):
                continue
            state = match.sport_state
            if state.result is not None or len(state.moves) < ending.plies:
                done_since.pop(match_id, None)
                continue
            since = done_since.setdefault(match_id, now)
            if now - since < quiet_s:
                continue
            how = _how(ending.result)
            request = {
                "action": "result",
                "result": ending.result,
                "how": how,
                "reason": f"demo: the game ended by {how}, as the original did / demo: oyun özgün oyundaki gibi bitti",
            }
            try:  # the console's checks: a game the arbiter may no longer touch is left alone
                event = prepare(match, request, role=Role.REFEREE, at=now)
            except (ActionInvalid, ActionRefused) as exc:
                log.warning("demo arbiter: %s not recorded for %s: %s", how, match_id, exc)
                games = {k: v for k, v in games.items() if k != match_id}
                continue
            await hall.record(match_id, event.kind, event.body, now, actor=DEMO_ARBITER)
            log.info("demo arbiter: %s %s recorded for %s", ending.result, how, match_id)
        await asyncio.sleep(every_s)
