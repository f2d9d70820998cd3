"""`boardcast demo`: a venue of simulated table-tennis scoreboards on real pseudo-terminals.

The scoreboards speak Boardcast Wire over a pty pair exactly as a USB scoreboard would over /dev/ttyACM0;
the hub reads the other end through pyserial. On a restart over the same data directory each scoreboard
picks up where its match stood, as a real board that stayed on while the hub was down would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from devices.observations import ScoreboardState
from devices.simulators.pty import PtyPair, open_pty_pair
from devices.simulators.tabletennis import TableTennisScoreboard
from hub.auth import hash_token, new_token
from hub.hall import CLOSED
from hub.matches import MatchInfo, MatchStatus
from hub.venue import RefereeConfig, TableConfig, Venue

PLAYERS = [
    ("Ayşe Yılmaz", "Elif Kaya"),
    ("Mehmet Demir", "Can Öztürk"),
    ("Zeynep Şahin", "Deniz Arslan"),
    ("Emre Çelik", "Burak Aydın"),
    ("Selin Koç", "Ece Kurt"),
    ("Kerem Aksoy", "Ozan Polat"),
    ("İrem Güneş", "Derya Erdem"),
    ("Oğuz Tekin", "Umut Bulut"),
]
ROUNDS = 2


@dataclass(slots=True)
class DemoVenue:
    """The demo's venue, its referee token and the simulated boards behind its tables."""

    venue: Venue
    token: str
    ptys: list[PtyPair]


def build_demo_venue(tables: int = 4) -> DemoVenue:
    """A venue of `tables` table-tennis tables, each wired to a fresh pseudo-terminal, two rounds each."""
    ptys = [open_pty_pair() for _ in range(tables)]
    table_configs = tuple(
        TableConfig(id=f"T{i + 1}", sport="tabletennis", device=pty.slave_path, device_id=f"tt-sim-{i + 1}")
        for i, pty in enumerate(ptys)
    )
    matches = tuple(
        MatchInfo(
            id=f"TT-R{rnd}-T{i + 1}",
            sport="tabletennis",
            table=f"T{i + 1}",
            round=rnd,
            players=PLAYERS[(i + (rnd - 1) * tables) % len(PLAYERS)],
            best_of=5,
        )
        for rnd in range(1, ROUNDS + 1)
        for i in range(tables)
    )
    token = new_token()
    referee = RefereeConfig(name="Demo Hakem / Demo Referee", role="chief", token_sha256=hash_token(token))
    venue = Venue("Boardcast Demo Salonu / Demo Hall", table_configs, matches, (referee,))
    return DemoVenue(venue, token, ptys)


def scoreboards_for(demo: DemoVenue, working: dict, *, speed: float, seed: int | None = None) -> list:
    """One simulated scoreboard per table, resuming the table's open match from the hub's state."""
    rng = random.Random(seed)
    boards = []
    for table, pty in zip(demo.venue.tables, demo.ptys, strict=True):
        on_table = sorted(
            (m for m in working.values() if m.info.table == table.id), key=lambda m: m.info.round
        )
        remaining = [m for m in on_table if m.status not in CLOSED]
        shown = (
            remaining[0] if remaining else on_table[-1]
        )  # a board whose matches are over keeps its last display
        start = None
        if shown.status is not MatchStatus.SCHEDULED:
            s = shown.sport_state
            start = ScoreboardState(points=s.points, games=s.games, game_scores=s.game_scores)
        board = TableTennisScoreboard(
            table.device_id or table.id,
            seed=rng.randrange(2**32),
            speed=speed,
            best_of=5,
            matches=max(1, len(remaining)),
            start=start,
        )
        boards.append((board, pty))
    return boards


def demo_data_dir(path: str | None) -> Path:
    """Where the demo keeps its log."""
    return Path(path or "./boardcast-data")
