"""`boardcast demo`: a venue of simulated table-tennis scoreboards and backgammon boards on real pseudo-terminals.

The devices speak Boardcast Wire over a pty pair exactly as a USB scoreboard would over /dev/ttyACM0;
the hub reads the other end through pyserial. On a restart over the same data directory each scoreboard
picks up where its match stood, as a real board that stayed on while the hub was down would.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from devices.observations import ScoreboardState
from devices.simulators import backgammon as bgsim
from devices.simulators.pty import PtyPair, open_pty_pair
from devices.simulators.tabletennis import TableTennisScoreboard
from devices.simulators.tabletennis_match import Fault, MatchOptions, game_over
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
BG_PLAYERS = [
    ("Hakan Yıldız", "Levent Şen"),
    ("Gül Aydemir", "Tolga Acar"),
    ("Cem Karaca", "Nil Özkan"),
    ("Berk Uçar", "Sibel Tan"),
]
BG_LENGTH = 5
BG_CLOCK = ("simple", 600.0, 12.0)  # 10 minutes of reserve, a 12 s delay each move
BG_FAULTS = frozenset(bgsim.Fault)


@dataclass(slots=True)
class DemoVenue:
    """The demo's venue, its referee token and the simulated boards behind its tables."""

    venue: Venue
    token: str
    ptys: list[PtyPair]


def _plan(table_index: int) -> tuple[bool, Collection[Fault]]:
    """What each demo table plays: (doubles, faults). Every fourth table's board makes mistakes on purpose,
    so the referee topic has something to show; the others play clean ITTF matches."""
    role = table_index % 4
    faults = {Fault.WRONG_SERVER, Fault.SCORE_JUMP, Fault.SECOND_TIMEOUT} if role == 3 else set()
    return role == 1, faults


def _players(i: int, rnd: int, tables: int, doubles: bool) -> tuple[str, ...]:
    first = PLAYERS[(i + (rnd - 1) * tables) % len(PLAYERS)]
    if not doubles:
        return first
    second = PLAYERS[(i + (rnd - 1) * tables + 1) % len(PLAYERS)]
    return (first[0], second[0], first[1], second[1])


def _bg_faults(bg_index: int) -> frozenset[bgsim.Fault]:
    """Every second backgammon board errs on purpose (illegal move, cube errors, cocked dice)."""
    return BG_FAULTS if bg_index % 2 == 1 else frozenset()


def build_demo_venue(tables: int = 4, bg_tables: int = 0) -> DemoVenue:
    """A venue of `tables` table-tennis tables and then `bg_tables` backgammon tables, each wired to a fresh
    pseudo-terminal, two rounds each."""
    ptys = [open_pty_pair() for _ in range(tables + bg_tables)]
    table_configs = tuple(
        TableConfig(id=f"T{i + 1}", sport="tabletennis", device=pty.slave_path, device_id=f"tt-sim-{i + 1}")
        for i, pty in enumerate(ptys[:tables])
    ) + tuple(
        TableConfig(
            id=f"T{tables + i + 1}", sport="backgammon", device=pty.slave_path, device_id=f"bg-sim-{i + 1}"
        )
        for i, pty in enumerate(ptys[tables:])
    )
    clock = f"{BG_CLOCK[0]}:{BG_CLOCK[1]:g}:{BG_CLOCK[2]:g}"
    bg_matches = tuple(
        MatchInfo(
            id=f"BG-R{rnd}-T{tables + i + 1}",
            sport="backgammon",
            table=f"T{tables + i + 1}",
            round=rnd,
            players=BG_PLAYERS[(i + (rnd - 1) * bg_tables) % len(BG_PLAYERS)],
            clock=clock,
            length=BG_LENGTH,
        )
        for rnd in range(1, ROUNDS + 1)
        for i in range(bg_tables)
    )
    matches = (
        tuple(
            MatchInfo(
                id=f"TT-R{rnd}-T{i + 1}",
                sport="tabletennis",
                table=f"T{i + 1}",
                round=rnd,
                players=_players(i, rnd, tables, _plan(i)[0]),
                best_of=5,
                doubles=_plan(i)[0],
            )
            for rnd in range(1, ROUNDS + 1)
            for i in range(tables)
        )
        + bg_matches
    )
    token = new_token()
    referee = RefereeConfig(name="Demo Hakem / Demo Referee", role="chief", token_sha256=hash_token(token))
    venue = Venue("Boardcast Demo Salonu / Demo Hall", table_configs, matches, (referee,))
    return DemoVenue(venue, token, ptys)


def scoreboards_for(demo: DemoVenue, working: dict, *, speed: float, seed: int | None = None) -> list:
    """One simulated scoreboard per table, resuming the table's open match from the hub's state."""
    rng = random.Random(seed)
    boards = []
    for index, (table, pty) in enumerate(zip(demo.venue.tables, demo.ptys, strict=True)):
        if table.sport == "backgammon":
            continue
        doubles, faults = _plan(index)
        on_table = sorted(
            (m for m in working.values() if m.info.table == table.id), key=lambda m: m.info.round
        )
        remaining = [m for m in on_table if m.status not in CLOSED]
        shown = (
            remaining[0] if remaining else on_table[-1]
        )  # a board whose matches are over keeps its last display
        start, first_server = None, None
        options = MatchOptions.showcase(doubles=doubles, faults=faults)
        if shown.status is not MatchStatus.SCHEDULED:  # resume what the board showed; its incidents are past
            d = shown.info.rules.to_dict(shown.sport_state)
            toss = d.get("toss") or []  # the hub's record of who served first: the board kept the same
            closed = game_over(tuple(d["points"]))  # between games the shown server is the next game's
            start = ScoreboardState(
                points=tuple(d["points"]),
                games=tuple(d["games"]),
                game_scores=tuple(tuple(g) for g in d["game_scores"]),
                server=None if closed else d["server"],
                ends=d["ends"],
                expedite=d["expedite"],
                server_player=None if closed else d["server_player"],
            )
            if len(toss) == 2:
                first_server = 0 if str(toss[0]).startswith("A") else 1
                if doubles:
                    options = MatchOptions(
                        doubles=True,
                        faults=faults,
                        first_server_player=toss[0],
                        first_receiver_player=toss[1],
                    )
            if not (doubles and len(toss) == 2):
                options = MatchOptions(doubles=doubles, faults=faults)
        board = TableTennisScoreboard(
            table.device_id or table.id,
            seed=rng.randrange(2**32),
            speed=speed,
            best_of=5,
            matches=max(1, len(remaining)),
            start=start,
            options=options,
            first_server=first_server,
        )
        boards.append((board, pty))
    bg_index = 0
    for table, pty in zip(demo.venue.tables, demo.ptys, strict=True):
        if table.sport != "backgammon":
            continue
        boards.append((_backgammon_board(table.id, table.device_id, bg_index, working, rng, speed), pty))
        bg_index += 1
    return boards


def _backgammon_board(
    table_id: str, device_id: str | None, bg_index: int, working: dict, rng: random.Random, speed: float
) -> bgsim.BackgammonBoard:
    """A simulated backgammon board for one table, resuming the table's open match from the hub's state."""
    on_table = sorted((m for m in working.values() if m.info.table == table_id), key=lambda m: m.info.round)
    remaining = [m for m in on_table if m.status not in CLOSED]
    shown = remaining[0] if remaining else on_table[-1]
    resume = None
    if shown.status is not MatchStatus.SCHEDULED:
        resume = resume_point(shown.info.rules.to_dict(shown.sport_state))
    options = bgsim.MatchOptions(length=shown.info.length or BG_LENGTH, clock=BG_CLOCK)
    return bgsim.BackgammonBoard(
        device_id or table_id,
        seed=rng.randrange(2**32),
        speed=speed,
        matches=max(1, len(remaining)),
        options=options,
        faults=_bg_faults(bg_index),
        resume=resume,
    )


def resume_point(d: dict) -> bgsim.Resume:
    """Where a backgammon board stood, from the hub's state of its match (`backgammon.to_dict`)."""

    def board(p: dict | None) -> bgsim.Board | None:
        if p is None:
            return None
        return bgsim.Board(tuple(p["points"]), tuple(p["bar"]), tuple(p["off"]))

    side = {"A": 0, "B": 1}
    owner = d["cube"]["owner"]
    return bgsim.Resume(
        score=(d["score"]["A"], d["score"]["B"]),
        board=bgsim.Board(tuple(d["points"]), tuple(d["bar"]), tuple(d["off"])),
        turn=side[d["turn"]],
        phase=d["phase"],
        cube_value=d["cube"]["value"],
        cube_owner=None if owner is None else side[owner],
        crawford=d["crawford"],
        crawford_done=d.get("crawford_done", False),
        dice=None if d["dice"] is None else tuple(d["dice"]),
        turn_start=board(d.get("turn_start")),
        shown_dice=None if d.get("shown_dice") is None else tuple(d["shown_dice"]),
    )


def demo_data_dir(path: str | None) -> Path:
    """Where the demo keeps its log."""
    return Path(path or "./boardcast-data")
