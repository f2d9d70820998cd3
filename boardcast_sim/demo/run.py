"""`boardcast demo`: a venue of simulated table-tennis scoreboards and backgammon boards on real pseudo-terminals.

The devices speak Boardcast Wire over a pty pair exactly as a USB scoreboard would over /dev/ttyACM0;
the hub reads the other end through pyserial. On a restart over the same data directory each scoreboard
picks up where its match stood, as a real board that stayed on while the hub was down would: a DGT 3000
goes on from its last reading, its running side having used the time the hub was away.
"""

from __future__ import annotations

import os
import random
import stat
import time
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess.pgn

from boardcast_sim import backgammon as bgsim
from boardcast_sim import dgt_board as dgt_sim
from boardcast_sim.dgt_board import DgtBoard, games_from_pgn
from boardcast_sim.pty import PtyPair, open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from boardcast_sim.tabletennis_match import game_over
from boardcast_sim.tabletennis_options import Fault, MatchOptions
from devices.dgt.session import dgt_device_id
from devices.observations import ScoreboardState
from hub.hall.live import CLOSED
from hub.matches import MatchInfo, MatchState, MatchStatus
from hub.referee.tokens import hash_token, new_token
from hub.server.startup import EXIT_BAD_INPUT, StartupError, prepare_data_dir
from hub.tournament.rounds import plan_trf_round
from hub.tournament.trf import load_trf
from hub.venue import RefereeConfig, TableConfig, TeamMatchConfig, TournamentConfig, Venue, parse_venue

PLAYERS = [  # some long on purpose: a hall has them, and screens must not cut them
    ("Ayşe Yıldırımoğlu", "Elif Kaya"),
    ("Mehmet Demir", "Can Öztürk"),
    ("Zeynep Şahin", "Deniz Arslanoğlu"),
    ("Emre Çelik", "Burak Aydın"),
    ("Selin Koç", "Ece Karaosmanoğlu"),
    ("Kerem Aksoy", "Ozan Polat"),
    ("İrem Güneş", "Derya Erdem"),
    ("Oğuz Tekin", "Umut Bulut"),
]
ROUNDS = 2
BG_PLAYERS = [
    ("Hakan Yıldızoğlu", "Levent Şen"),
    ("Gül Aydemir", "Tolga Acaroğlu"),
    ("Cem Karaca", "Nil Özkan"),
    ("Berk Uçar", "Sibel Tan"),
]
BG_LENGTH = 5
PAD_PLAYERS = [  # the players of the tables scored by pads: round 1 and 2 of table tennis, then of backgammon
    ("Nazlı Çınar", "Barış Keskin"),
    ("Pelin Ateş", "Serkan Uysal"),
    ("Orhan Gencer", "Yasemin Bilgin"),
    ("Tuncay Er", "Aslı Karadeniz"),
]
BG_CLOCK = ("simple", 600.0, 12.0)  # 10 minutes of reserve, a 12 s delay each move
BG_FAULTS = frozenset(bgsim.Fault)


CHESS_CONTROL = "300+3"  # the demo plays blitz so that moves come every few seconds; the hall's is 5400+30
CHESS_GAMES = Path(dgt_sim.__file__).parent / "games" / "demo.pgn"  # real games, one per board
# The demo's chess league as its pairing program would export it (four clubs, round 1 played): the demo
# imports round 2 from it as `boardcast round import` does, and its standings follow the boards.
CHESS_EVENT = CHESS_GAMES.with_name("demo.trf")
CHESS_ROUND = 2
CHESS_BOARDS = 8
PAD_SPORTS = ("tabletennis", "backgammon")  # the demo's tables scored by a simulated pad, one of each


@dataclass(slots=True)
class DemoVenue:
    """The demo's venue, its referee token and the simulated boards behind its tables; the tables scored by
    simulated pads (no device) come last."""

    venue: Venue
    token: str
    ptys: list[PtyPair]

    @property
    def device_tables(self) -> tuple[TableConfig, ...]:
        """The tables with a simulated device, in the order of their pseudo-terminals."""
        return tuple(t for t in self.venue.tables if t.device)

    @property
    def pad_tables(self) -> tuple[TableConfig, ...]:
        """The tables scored by a simulated umpire's pad."""
        return tuple(t for t in self.venue.tables if not t.device and t.sport in PAD_SPORTS)


def _plan(table_index: int) -> tuple[bool, Collection[Fault]]:
    """What each demo table plays: (doubles, faults). Every fourth table's board makes mistakes on purpose,
    so the referee topic has something to show; the others play clean ITTF matches."""
    role = table_index % 4
    faults = {Fault.WRONG_SERVER, Fault.SCORE_JUMP, Fault.SECOND_TIMEOUT} if role == 3 else set()
    return role == 1, faults


def _players(i: int, rnd: int, tables: int, doubles: bool) -> tuple[str, ...]:
    """Table i's players in round rnd: the next pair of names in turn (two for doubles), so that no one plays at
    two tables of a round while the hall has names enough."""
    pairs = [2 if _plan(j)[0] else 1 for j in range(tables)]
    start = (rnd - 1) * sum(pairs) + sum(pairs[:i])
    first = PLAYERS[start % len(PLAYERS)]
    if not doubles:
        return first
    second = PLAYERS[(start + 1) % len(PLAYERS)]
    return (first[0], second[0], first[1], second[1])


def _bg_faults(bg_index: int) -> frozenset[bgsim.Fault]:
    """Every second backgammon board errs on purpose (illegal move, cube errors, cocked dice)."""
    return BG_FAULTS if bg_index % 2 == 1 else frozenset()


def _serial(board: int) -> str:
    """The long serial number of the demo's DGT board on a team-match board."""
    return f"{2394600700 + board:010d}"


def _chess_part(
    first_table: int, boards: int, ptys: list[PtyPair]
) -> tuple[
    tuple[TableConfig, ...], tuple[MatchInfo, ...], tuple[TeamMatchConfig, ...], TournamentConfig | None
]:
    """Round 2 of the demo's league, imported from its report file onto DGT boards after the other tables:
    the team match played in the hall on its first `boards` boards (the others have no board in the demo)."""
    if not boards:
        return (), (), (), None
    ids = [f"T{first_table + i}" for i in range(CHESS_BOARDS)]
    floor = "".join(f'[[tables]]\nid = "{table}"\nsport = "chess"\n\n' for table in ids)
    place = CHESS_EVENT.with_name("demo-hall.toml")  # where the event's file is named from: beside it
    plan = plan_trf_round(
        load_trf(CHESS_EVENT),
        CHESS_ROUND,
        parse_venue(floor, place),
        ",".join(ids),
        time_control=CHESS_CONTROL,
        trf_path=CHESS_EVENT,
    )
    imported = parse_venue(floor + plan.toml(), place)
    games = [m for m in imported.matches if m.board is not None and m.board <= boards]
    tables = tuple(
        TableConfig(
            id=game.table,
            sport="chess",
            device=f"serial://{pty.slave_path}?protocol=dgt",
            device_id=dgt_device_id(_serial(game.board or 0)),
        )
        for game, pty in zip(games, ptys, strict=True)
    )
    played = {g.team_match for g in games}  # the match the file decides by forfeit is in the standings only
    return (
        tables,
        tuple(replace(g, clock_white="left") for g in games),
        tuple(t for t in imported.team_matches if t.id in played),
        # two games of the league's three (the national regulations ask seven of nine): one game's
        # performance is never ranked
        None if imported.tournament is None else replace(imported.tournament, board_prize_min_games=2),
    )


TOKEN_FILE = (
    "demo-referee-token"  # in the data directory: the demo referee's token, the same on every restart
)
TOKEN_MODE = 0o600  # it lets whoever reads it act as the chief referee: for the hub's user alone


def demo_token(data: Path) -> str:
    """The demo referee's token for this data directory: the one kept in `TOKEN_FILE` (made 0600 again), or a
    new one stored there (0600) on the first run, so a restart prints the token the console already holds.
    The hub checks only its hash (the venue's `token_sha256`); StartupError when the file cannot be kept."""
    prepare_data_dir(data)
    path = data / TOKEN_FILE
    try:
        kept = path.read_text(encoding="ascii").strip() if path.is_file() else ""
        if kept:
            if stat.S_IMODE(path.stat().st_mode) != TOKEN_MODE:
                path.chmod(TOKEN_MODE)
            return kept
        token = new_token()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, TOKEN_MODE)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(token + "\n")
        path.chmod(TOKEN_MODE)  # a file that was there empty keeps its mode through O_CREAT
        return token
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StartupError(
            f"the data directory {data} (--data) holds {TOKEN_FILE}, which cannot be read or written ({why}); "
            f"delete it to get a new token / veri dizinindeki {TOKEN_FILE} okunamıyor ya da yazılamıyor; "
            f"yeni bir anahtar için silin",
            EXIT_BAD_INPUT,
        ) from None


def build_demo_venue(
    tables: int = 4,
    bg_tables: int = 0,
    chess_boards: int = 0,
    *,
    pads: bool = False,
    token: str | None = None,
) -> DemoVenue:
    """A venue of `tables` table-tennis tables, then `bg_tables` backgammon tables (two rounds each), then a
    chess team match on `chess_boards` DGT boards, each device on a fresh pseudo-terminal, and with `pads` a
    table-tennis and a backgammon table with no device, scored by simulated pads; its chief referee's token is
    `token` (`demo_token`: the data directory's), a fresh one when None."""
    ptys = [open_pty_pair() for _ in range(tables + bg_tables + chess_boards)]
    table_configs = tuple(
        TableConfig(id=f"T{i + 1}", sport="tabletennis", device=pty.slave_path, device_id=f"tt-sim-{i + 1}")
        for i, pty in enumerate(ptys[:tables])
    ) + tuple(
        TableConfig(
            id=f"T{tables + i + 1}", sport="backgammon", device=pty.slave_path, device_id=f"bg-sim-{i + 1}"
        )
        for i, pty in enumerate(ptys[tables : tables + bg_tables])
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
    chess_tables, chess_games, team_matches, event = _chess_part(
        tables + bg_tables + 1, chess_boards, ptys[tables + bg_tables :]
    )
    pad_configs, pad_matches = (
        _pad_part(tables + bg_tables + (CHESS_BOARDS if chess_boards else 0) + 1, clock) if pads else ((), ())
    )
    token = token or new_token()
    referee = RefereeConfig(name="Demo Hakem / Demo Referee", role="chief", token_sha256=hash_token(token))
    venue = Venue(
        "Boardcast Demo Salonu / Demo Hall",
        table_configs + chess_tables + pad_configs,
        matches + chess_games + pad_matches,
        (referee,),
        team_matches=team_matches,
        tournament=event,
    )
    return DemoVenue(venue, token, ptys)


def _pad_part(first: int, bg_clock: str) -> tuple[tuple[TableConfig, ...], tuple[MatchInfo, ...]]:
    """A table-tennis and a backgammon table from number `first` on, with no device: scored by pads (two rounds
    each, their players not at another table of the round)."""
    tt, bg = f"T{first}", f"T{first + 1}"
    tables = (TableConfig(id=tt, sport="tabletennis"), TableConfig(id=bg, sport="backgammon"))
    matches = tuple(
        MatchInfo(f"TT-R{rnd}-{tt}", "tabletennis", tt, rnd, PAD_PLAYERS[rnd - 1], best_of=5)
        for rnd in range(1, ROUNDS + 1)
    ) + tuple(
        MatchInfo(f"BG-R{rnd}-{bg}", "backgammon", bg, rnd, PAD_PLAYERS[ROUNDS + rnd - 1], length=BG_LENGTH)
        for rnd in range(1, ROUNDS + 1)
    )
    return tables, matches


SimulatedBoard = TableTennisScoreboard | bgsim.BackgammonBoard | DgtBoard


def scoreboards_for(
    demo: DemoVenue,
    working: dict[str, MatchState],
    *,
    speed: float,
    seed: int | None = None,
    now: float | None = None,
) -> list[tuple[SimulatedBoard, PtyPair]]:
    """One simulated scoreboard per table, resuming the table's open match from the hub's state; a chess
    clock goes on from its last reading as one that stayed on until `now` (wall-clock seconds) would."""
    rng = random.Random(seed)
    boards: list[tuple[SimulatedBoard, PtyPair]] = []
    for index, (table, pty) in enumerate(zip(demo.device_tables, demo.ptys, strict=True)):
        if table.sport != "tabletennis":
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
    for table, pty in zip(demo.device_tables, demo.ptys, strict=True):
        if table.sport != "backgammon":
            continue
        boards.append((_backgammon_board(table.id, table.device_id, bg_index, working, rng, speed), pty))
        bg_index += 1
    chess_tables = [(t, p) for t, p in zip(demo.device_tables, demo.ptys, strict=True) if t.sport == "chess"]
    if chess_tables:
        games = games_from_pgn(CHESS_GAMES.read_text(encoding="utf-8"))
        for index, (table, pty) in enumerate(chess_tables):
            at = time.time() if now is None else now
            boards.append((_chess_board(table, index, games, working, rng, speed, at), pty))
    return boards


def _from_ply(game: chess.pgn.Game, plies: int) -> chess.pgn.Game:
    """The rest of a game after its first `plies` moves, set up from the position reached."""
    node: chess.pgn.GameNode = game
    for _ in range(plies):
        if not node.variations:
            break
        node = node.variations[0]
    rest = chess.pgn.Game()
    rest.setup(node.board().fen())
    tail: chess.pgn.GameNode = rest
    while node.variations:
        node = node.variations[0]
        assert node.move is not None  # a variation's node is reached by a move
        tail = tail.add_variation(node.move)
    return rest


def _chess_board(
    table: TableConfig,
    index: int,
    games: list[chess.pgn.Game],
    working: dict[str, MatchState],
    rng: random.Random,
    speed: float,
    now: float,
) -> DgtBoard:
    """A simulated DGT board with its DGT 3000 replaying a real game; the last board forgets the increment
    now and then, so the referee has a clock anomaly to look at. A finished game is shown as it ended."""
    on_table = [m for m in working.values() if m.info.table == table.id]
    game = games[index % len(games)]
    clock_start = None
    if on_table:  # resume where the hub's game stands: its moves, and a clock read before move 1 too
        shown = on_table[0].info.rules.to_dict(on_table[0].sport_state)
        if on_table[0].status is not MatchStatus.SCHEDULED:
            game = _from_ply(game, len(shown["moves"]))
        clock_start = clock_went_on(shown["clock"], now, speed)
    faults = (dgt_sim.Fault.NO_INCREMENT,) if index == 7 else ()
    return DgtBoard(
        [game],
        long_serial=_serial(index + 1),
        time_control=CHESS_CONTROL,
        speed=speed,
        seed=rng.randrange(2**32),
        faults=faults,
        between_games_s=10**9,  # one game a board: the team match is one round
        clock_start=clock_start,
    )


def clock_went_on(
    clock: dict[str, Any] | None, now: float, speed: float
) -> tuple[float, float, int | None] | None:
    """Where a DGT 3000 that stayed on stands at `now`, from the hub's last reading of it (`chess.to_dict`'s
    clock): the running side has used the time since, `speed` times faster than the wall clock; a clock
    never read starts afresh (None)."""
    if clock is None:
        return None
    running = {"left": 0, "right": 1}.get(clock["running_side"] or "")
    times = [clock["left_ms"] / 1000, clock["right_ms"] / 1000]
    if running is not None:
        times[running] -= max(0.0, now - clock["as_of"]) * speed
    return times[0], times[1], running


def _backgammon_board(
    table_id: str,
    device_id: str | None,
    bg_index: int,
    working: dict[str, MatchState],
    rng: random.Random,
    speed: float,
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


def resume_point(d: dict[str, Any]) -> bgsim.Resume:
    """Where a backgammon board stood, from the hub's state of its match (`backgammon.to_dict`)."""

    def board(p: dict[str, Any] | None) -> bgsim.Board | None:
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
