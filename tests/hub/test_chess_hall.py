"""Chess in the hall: board snapshots become moves through the log, the team match adds up, the live PGN
grows with every move, and the broadcast delay holds every spectator path back, across a restart too."""

from __future__ import annotations

import io
import random
from pathlib import Path

import chess
import chess.pgn

from boardcast_sim.chess_motion import MotionStyle, apply_motions, motions
from devices.observations import ChessBoardState, ChessClockState, DeviceHello, Observation
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import EventKind, MatchInfo, MatchStatus
from hub.rules.chess.pgn_feed import game_pgn, round_pgn
from hub.venue import TableConfig, TeamMatchConfig, Venue

MOVES = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
START = 1_000_000.0  # an arbitrary wall-clock second


def chess_venue(delay_s: float = 0.0) -> Venue:
    tables = (TableConfig("C1", "chess"), TableConfig("C2", "chess"))
    games = (
        MatchInfo("G1", "chess", "C1", 1, ("Ayşe", "Elif"), clock="300+3", board=1, team_match="TM"),
        MatchInfo("G2", "chess", "C2", 1, ("Can", "Mehmet"), clock="300+3", board=2, team_match="TM"),
    )
    return Venue(
        "Satranç Salonu",
        tables,
        games,
        team_matches=(TeamMatchConfig("TM", 1, ("Ankara", "İzmir")),),
        broadcast_delay_s=delay_s,
    )


def feed_game(hall: Hall, venue: Venue, moves: list[str], at: float = START) -> float:
    """A DGT-like board (clean lift and place) and its clock for table C1; returns the time after the last."""
    sink = Ingest(hall).sink_for(venue.tables[0])
    seq = 0

    def send(report: object, when: float) -> None:
        nonlocal seq
        sink.observe(Observation("dgt-1", 1, seq, when, report))
        seq += 1

    send(DeviceHello("dgt-1", "chess-board", "DGT", "1.7", 1, 1), at)
    board = chess.Board()
    send(ChessBoardState(board.board_fen()), at)
    left, right = 303_000, 303_000
    send(ChessClockState((left, right), running=0, time_per_move=True), at)
    rng = random.Random(1)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        placement = chess.BaseBoard(board.board_fen())
        at += 5.0
        for change in motions(board, move, rng, style=MotionStyle.CLEAN):
            at += change.delay_s
            placement = apply_motions(placement, [change])
            send(ChessBoardState(placement.board_fen()), at)
        at += 0.5
        hall.tick(at)  # the board settled
        mover = 0 if board.turn == chess.WHITE else 1
        if mover == 0:
            left += 3_000 - 5_000
        else:
            right += 3_000 - 5_000
        board.push(move)
        send(ChessClockState((left, right), running=1 - mover, time_per_move=True), at)
    return at


async def test_snapshots_become_moves_a_pgn_and_a_team_score(tmp_path: Path) -> None:
    venue = chess_venue()
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(venue, log, Fanout())
    hall.load()
    log.start()
    feed_game(hall, venue, MOVES)
    await log.flush()
    game = hall.match("G1")
    state = game.info.rules.to_dict(game.sport_state)
    assert [m["uci"] for m in state["moves"]] == MOVES
    assert [m["san"] for m in state["moves"]][:3] == ["e4", "e5", "Nf3"]
    assert game.status is MatchStatus.LIVE
    assert not [a for a in game.anomalies if a.code.startswith("chess.")], game.anomalies

    text = game_pgn(hall.public_match("G1"), venue)
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed is not None
    assert [m.uci() for m in parsed.mainline_moves()] == MOVES
    assert parsed.headers["White"] == "Ayşe" and parsed.headers["WhiteTeam"] == "Ankara"
    assert parsed.headers["Round"] == "1.1" and parsed.headers["Result"] == "*"
    assert "[%clk" in text
    assert round_pgn(hall.public_matches(), venue, 1).count("[Event ") == 2

    await hall.record(
        "G1",
        EventKind.REFEREE_INPUT,
        {"input": {"type": "set_result", "result": "1-0", "reason": "resigned"}},
        START + 100,
        actor="Hakem",
    )
    await hall.record(
        "G2",
        EventKind.REFEREE_INPUT,
        {"input": {"type": "set_result", "result": "1/2-1/2", "reason": "agreed"}},
        START + 100,
        actor="Hakem",
    )
    await log.flush()
    team = hall.team_view("TM")
    # board 1: the home team has White and won; board 2: a draw
    assert team["score"] == [1.5, 0.5]
    assert team["complete"] and team["match_points"] == [2, 0]
    assert [b["category_en"] for b in team["boards"]] == ["open", "open"]
    assert game_pgn(hall.public_match("G1"), venue).count('[Result "1-0"]') == 1
    await log.close()


async def test_the_broadcast_delay_holds_back_every_public_path_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    venue = chess_venue(delay_s=60.0)
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(venue, log, Fanout())
    hall.load(now=START)
    log.start()
    end = feed_game(hall, venue, MOVES)
    await log.flush()
    live = hall.match("G1").info.rules.to_dict(hall.match("G1").sport_state)
    assert len(live["moves"]) == len(MOVES)  # the referee sees everything at once
    public = hall.public_match("G1")
    assert public.status is MatchStatus.SCHEDULED  # spectators see nothing yet
    assert "1. e4" not in game_pgn(public, venue)
    assert hall.spectator_view(public)["broadcast_delay_s"] == 60.0  # screens run the clock that much late

    cut = START + 5.0 + 60.0 + 2.0  # a minute after the first move was made
    assert hall.release(cut) > 0
    halfway = hall.public_match("G1")
    shown = halfway.info.rules.to_dict(halfway.sport_state)["moves"]
    assert 0 < len(shown) < len(MOVES)
    assert all(m["at"] <= cut - 60.0 for m in shown)  # nothing younger than the delay
    await log.close()

    # a restart rebuilds the public state as of the same cut, and holds the rest back
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    again = Hall(venue, log, Fanout())
    again.load(now=cut)
    assert again.public_match("G1").version == halfway.version
    assert len(again.match("G1").info.rules.to_dict(again.match("G1").sport_state)["moves"]) == len(MOVES)
    again.release(end + 60.0)
    assert again.public_match("G1").version == again.match("G1").version
    await log.close()
