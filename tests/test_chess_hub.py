"""A real hub with a chess table: a simulated DGT board and DGT 3000 on a pseudo-terminal, read through
pyserial, rebuilt into the game on the spectator API, the live PGN URLs and the team match topic."""

from __future__ import annotations

import asyncio
import io
import json
import urllib.request
from pathlib import Path

import chess.pgn
import pytest
import websockets

from boardcast_sim.chess_clock import ChessClock
from boardcast_sim.dgt_board import DgtBoard, Fault, games_from_pgn
from boardcast_sim.pty import open_pty_pair
from hub.matches import MatchInfo
from hub.venue import TableConfig, TeamMatchConfig, Venue, VenueError, parse_venue
from tests.conftest import get_json
from tests.hubsupport import running_hub, until

GAME = games_from_pgn((Path(__file__).parent / "fixtures" / "dgt" / "johan.pgn").read_text())[0]
MOVES = [m.uci() for m in GAME.mainline_moves()]


def get_text(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.headers["Content-Type"], response.read().decode()


async def test_a_dgt_board_game_reaches_the_api_the_pgn_urls_and_the_team_topic(tmp_path: Path) -> None:
    pty = open_pty_pair()
    venue = Venue(
        "Satranç",
        (TableConfig("C1", "chess", device=f"serial://{pty.slave_path}?protocol=dgt"),),
        (MatchInfo("G1", "chess", "C1", 1, ("Johan", "Rival"), clock="300+5", board=1, team_match="TM"),),
        team_matches=(TeamMatchConfig("TM", 1, ("Ankara", "İzmir")),),
    )
    board = DgtBoard([GAME], time_control="300+5", speed=60, seed=7, between_games_s=10**6)
    try:
        async with running_hub(tmp_path, venue, lambda: board.run_on_fd(pty.master_fd)) as url:
            async with websockets.connect(url.replace("http", "ws") + "ws") as ws:
                await ws.send(json.dumps({"subscribe": ["team:TM"]}))
                first = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert first["topic"] == "team:TM" and first["data"]["teams"] == ["Ankara", "İzmir"]

            done = await until(
                url + "api/matches/G1",
                lambda m: len(m["state"]["moves"]) == len(MOVES),
                within=60,
            )
            assert [m["uci"] for m in done["state"]["moves"]] == MOVES
            assert not [a for a in done["anomalies"] if a["code"].startswith("chess.")], done["anomalies"]
            assert all(m["clock_ms"] is not None for m in done["state"]["moves"])

            kind, text = await asyncio.to_thread(get_text, url + "pgn/G1.pgn")
            assert kind.startswith("application/x-chess-pgn")
            game = chess.pgn.read_game(io.StringIO(text))
            assert game is not None and [m.uci() for m in game.mainline_moves()] == MOVES
            assert game.headers["WhiteTeam"] == "Ankara" and "[%clk 0:0" in text
            _, round_text = await asyncio.to_thread(get_text, url + "pgn/round-1.pgn")
            assert round_text == text

            team = json.loads((await asyncio.to_thread(get_text, url + "api/team-matches/TM"))[1])
            assert team["boards"][0]["match_id"] == "G1"
    finally:
        pty.close()


VENUE_TOML = """
[venue]
name = "Kulüpler Finali"
broadcast_delay_s = 900

[[tables]]
id = "B1"
sport = "chess"
device = "serial:///dev/ttyACM0?protocol=dgt"

[[tables]]
id = "B2"
sport = "chess"
device = "ble://AA:BB:CC:DD:EE:FF?protocol=chessnut"
clock = "serial:///dev/ttyUSB1"

[[team_matches]]
id = "R1-M1"
round = 1
teams = ["Ankara", "İzmir"]

[[matches]]
id = "R1-M1-B1"
table = "B1"
players = ["Ayşe", "Elif"]
time_control = "5400+30"
team_match = "R1-M1"
board = 1

[[matches]]
id = "R1-M1-B2"
table = "B2"
players = ["Can", "Mehmet"]
time_control = "5400+30"
clock_white = "right"
team_match = "R1-M1"
board = 2
"""


def test_a_chess_venue_file_is_read_with_its_team_match_clock_and_delay() -> None:
    venue = parse_venue(VENUE_TOML, Path("hall.toml"))
    assert venue.broadcast_delay_s == 900
    assert venue.team_matches[0].teams == ("Ankara", "İzmir")
    second = venue.matches[1]
    assert (second.clock, second.clock_white, second.board, second.team_match) == (
        "5400+30",
        "right",
        2,
        "R1-M1",
    )
    assert venue.tables[1].clock == "serial:///dev/ttyUSB1"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        (
            'time_control = "5400+30"\nteam_match',
            'time_control = "90 minutes"\nteam_match',
            "matches[1].time_control",
        ),
        ("board = 2", "board = 9", "matches[2].board"),
        ('team_match = "R1-M1"\nboard = 1', 'team_match = "R9"\nboard = 1', "matches[1].team_match"),
        ('clock_white = "right"', 'clock_white = "up"', "matches[2].clock_white"),
        ('teams = ["Ankara", "İzmir"]', 'teams = ["Ankara"]', "team_matches[1].teams"),
        ("broadcast_delay_s = 900", "broadcast_delay_s = -1", "venue.broadcast_delay_s"),
        (
            'sport = "chess"\ndevice = "serial:///dev/ttyACM0',
            'sport = "tabletennis"\ndevice = "serial:///dev/ttyACM0',
            "tables[1].device",
        ),
        ('clock = "serial:///dev/ttyUSB1"', 'clock = "tcp://0.0.0.0:7000"', "tables[2].clock"),
    ],
)
def test_a_chess_venue_mistake_names_its_line_and_field(old: str, new: str, field: str) -> None:
    text = VENUE_TOML.replace(old, new, 1)
    assert text != VENUE_TOML
    with pytest.raises(VenueError) as error:
        parse_venue(text, Path("hall.toml"))
    assert error.value.field == field
    assert error.value.line is not None
    assert " / " in str(error.value)  # English / Türkçe


async def test_garbage_from_a_dgt_board_is_flagged_once_per_kind_and_the_game_goes_on(tmp_path: Path) -> None:
    pty = open_pty_pair()
    venue = Venue(
        "Satranç",
        (TableConfig("C1", "chess", device=f"serial://{pty.slave_path}?protocol=dgt"),),
        (MatchInfo("G1", "chess", "C1", 1, ("Johan", "Rival"), clock="300+5"),),
    )
    board = DgtBoard(
        [GAME], time_control="300+5", speed=60, seed=3, faults=[Fault.GARBAGE], between_games_s=10**6
    )
    try:
        async with running_hub(tmp_path, venue, lambda: board.run_on_fd(pty.master_fd)) as url:
            done = await until(
                url + "api/matches/G1", lambda m: len(m["state"]["moves"]) == len(MOVES), within=60
            )
            assert [m["uci"] for m in done["state"]["moves"]] == MOVES
            devices = await until(url + "api/devices", lambda d: d["tables"][0]["frame_errors"] >= 2)
            kinds = devices["tables"][0]["errors_by_kind"]
            flagged = [a for a in done["anomalies"] if a["code"] == "device.bad_data"]
            assert sorted(a["data"]["kind"] for a in flagged) == sorted(
                kinds
            )  # each kind once, however often
            assert sum(kinds.values()) > len(flagged)
            assert all(a["data"]["raw_hex"] for a in flagged)
    finally:
        pty.close()


async def test_a_wire_chess_clock_beside_a_board_without_one_times_the_game(tmp_path: Path) -> None:
    board_pty, clock_pty = open_pty_pair(), open_pty_pair()
    venue = Venue(
        "Satranç",
        (
            TableConfig(
                "C1",
                "chess",
                device=f"serial://{board_pty.slave_path}?protocol=dgt",
                clock=clock_pty.slave_path,
                clock_id="clock-1",
            ),
        ),
        (MatchInfo("G1", "chess", "C1", 1, ("Johan", "Rival"), clock="300+3"),),
    )
    board = DgtBoard(
        [GAME], time_control="300+5", speed=5, seed=3, faults=[Fault.NO_CLOCK], between_games_s=10**6
    )
    clock = ChessClock("clock-1", seed=5, speed=5)
    try:
        async with running_hub(
            tmp_path,
            venue,
            lambda: board.run_on_fd(board_pty.master_fd),
            lambda: clock.run_on_fd(clock_pty.master_fd),
        ) as url:
            timed = await until(
                url + "api/matches/G1",
                lambda m: (m["state"]["clock"] or {}).get("running") is not None and m["state"]["moves"],
                within=30,
            )
            assert timed["state"]["clock"]["white_ms"] <= 303_000
            devices = await asyncio.to_thread(get_json, url + "api/devices")
            slots = {d["slot"]: d for d in devices["tables"]}
            assert slots["clock"]["family"] == "chess-clock" and slots["clock"]["device_id"] == "clock-1"
            assert slots[""]["family"] == "chess-board"
    finally:
        board_pty.close()
        clock_pty.close()
