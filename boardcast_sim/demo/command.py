"""What `boardcast demo` runs: its venue and simulated boards, and the jobs beside the hub (each simulated board,
the arbiter of the chess games). Its options and banner are `boardcast_sim.demo.options`.

The hub's command (`hub.cli`) runs the hub and these jobs the same way it runs a hall; what the demo simulates,
and which sports and devices it shows, is said here.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import random
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardcast_sim.demo import arbiter as demo_arbiter
from boardcast_sim.demo.run import CHESS_GAMES, DemoVenue, build_demo_venue, demo_token, scoreboards_for
from boardcast_sim.dgt_board import games_from_pgn
from boardcast_sim.pad import SimulatedPad
from hub.hall.live import Hall
from hub.venue.model import EngineSettings, PerformanceSettings

Job = Callable[[], Coroutine[Any, Any, None]]


def prepare(args: argparse.Namespace, data: Path) -> DemoVenue:
    """The demo's venue and referee token (kept in the data directory), its boards' pseudo-terminals open."""
    demo = build_demo_venue(
        args.tables, args.bg_tables, args.chess_boards, pads=args.pads, token=demo_token(data)
    )
    if not args.engine:  # no engine beside the boards (a test's demo: the machine's cores for the test)
        off = (EngineSettings(enabled=False), PerformanceSettings(enabled=False))
        demo.venue = replace(demo.venue, engine=off[0], performance=off[1])
    return demo


def jobs(demo: DemoVenue, hall: Hall, args: argparse.Namespace, url: str) -> list[Job]:
    """What runs beside the hub at `url`: each simulated board on its pseudo-terminal, resuming its table's match,
    each simulated pad scoring its table through the pad's endpoint, and the arbiter who records the results
    the chess games reach off the board (resignation, agreement)."""
    boards = scoreboards_for(demo, hall.working, speed=args.speed, seed=args.seed)
    running: list[Job] = [board_job(pty.slave_path, board.run_on_fd, pty.master_fd) for board, pty in boards]
    rng = random.Random(args.seed)
    for table in demo.pad_tables:
        pad = SimulatedPad(url, table.id, demo.token, table.sport, rng.randrange(2**32), args.speed)
        running.append(pad_job(f"{url}pad/{table.id}", pad))
    if args.chess_boards:
        ends = demo_arbiter.endings(demo.venue, games_from_pgn(CHESS_GAMES.read_text(encoding="utf-8")))
        running.append(lambda: demo_arbiter.run(hall, ends, speed=args.speed))
    return running


def board_job(port: str, run_on_fd: Callable[[int], Awaitable[None]], fd: int) -> Job:
    """A board's (or a pad's) run as a job: started when the hub runs it, reported on stderr if it fails."""
    return lambda: _simulated(port, run_on_fd(fd))


def pad_job(page: str, pad: SimulatedPad) -> Job:
    """A simulated pad's run as a job, as `board_job`."""
    return lambda: _simulated(page, pad.run())


async def _simulated(port: str, board: Awaitable[None]) -> None:
    """Run one simulated board; if it fails, say so and let it stop, as a real board that breaks does: its
    link goes quiet and the hub keeps serving the rest of the hall."""
    try:
        await board
    except Exception as exc:  # a simulator's own error, never the hub's
        logging.getLogger(__name__).exception("simulated board on %s failed", port)
        with contextlib.suppress(OSError):
            print(
                f"Simulated board on {port} stopped: {exc} / {port} üzerindeki simülasyon tahtası durdu: {exc}",
                file=sys.stderr,
                flush=True,
            )
