"""The chess evaluation for spectators, with the real Stockfish: known positions give the expected verdict, the
PGN comment reads back with python-chess, a spectator sees a position's evaluation only once the broadcast
delay has passed, a new move stops the old position's search, and the venue's engine settings are checked."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path
from types import SimpleNamespace

import chess
import chess.pgn
import pytest

from hub.rules.chess.evaluation import Evaluation, EvaluationService, find_stockfish
from hub.venue import VenueError, parse_venue
from hub.venue.model import EngineSettings

STOCKFISH = find_stockfish()
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
BLACK_MATES = "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1"  # ...Ra1#


@pytest.fixture(autouse=True)
def _stockfish_is_installed() -> None:
    if STOCKFISH is None:
        pytest.fail("Stockfish is required (Debian package 'stockfish'); scripts/test.sh installs it")


def _state(fen: str) -> SimpleNamespace:
    """What the service reads of a chess state: its game's board."""
    return SimpleNamespace(game=SimpleNamespace(board=chess.Board(fen)))


async def _evaluated(service: EvaluationService, match_id: str, fen: str, within: float = 10.0) -> dict:
    service.note(match_id, _state(fen), time.time())
    async with asyncio.timeout(within):
        while (shown := service.shown(match_id, time.time() + service.delay_s)) is None:
            await asyncio.sleep(0.02)
    return shown


async def test_known_positions_give_the_expected_verdict() -> None:
    resent: list[str] = []
    service = EvaluationService(resent.append, 0.0, EngineSettings(movetime_ms=200), STOCKFISH)
    service.start()
    try:
        white = await _evaluated(service, "G1", MATE_IN_ONE)
        assert white["mate"] == 1 and white["text"] == "#1" and white["pv"][0] == "Ra8#"
        black = await _evaluated(service, "G2", BLACK_MATES)
        assert black["mate"] == -1 and black["text"] == "#-1" and black["pv"][0] == "Ra1#"
        start = await _evaluated(service, "G3", chess.STARTING_FEN)
        assert start["mate"] is None and abs(start["cp"]) <= 50 and start["depth"] >= 5
        assert set(resent) >= {"G1", "G2", "G3"}  # each game's screens were told
        assert service.health()["running"] and service.health()["evaluated"] >= 3
    finally:
        service.close()


async def test_a_finished_games_position_shows_its_result_not_the_last_search() -> None:
    service = EvaluationService(lambda _: None, 0.0, EngineSettings(movetime_ms=100), STOCKFISH)
    service.start()
    try:
        before = await _evaluated(service, "G1", MATE_IN_ONE)
        assert before["text"] == "#1"
        mated = chess.Board(MATE_IN_ONE)
        mated.push_san("Ra8#")
        after = await _evaluated(service, "G1", mated.fen())
        assert (after["text"], after["result"], after["mate"]) == ("1-0", "1-0", None) and after["cp"] > 0
        assert service.annotate(mated.fen()) is None  # the PGN's last move carries no [%eval]
        drawn = await _evaluated(service, "G2", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # stalemate
        assert (drawn["text"], drawn["cp"]) == ("½-½", 0)
    finally:
        service.close()


async def test_a_spectator_sees_a_position_only_once_the_delay_has_passed() -> None:
    service = EvaluationService(lambda _: None, 2.0, EngineSettings(movetime_ms=100), STOCKFISH)
    service.start()
    try:
        at = time.time()
        service.note("G1", _state(MATE_IN_ONE), at)
        async with asyncio.timeout(10):
            while service.shown("G1", at + 10) is None:  # evaluated, whenever it may be shown
                await asyncio.sleep(0.02)
        assert service.shown("G1", at + 1.9) is None  # the position is not yet 2 s old
        assert service.shown("G1", at + 2.0)["mate"] == 1
        # a newer position is not shown before its own delay: the screens keep the older one's
        service.note("G1", _state(chess.STARTING_FEN), at + 1.0)
        async with asyncio.timeout(10):
            while service.shown("G1", at + 20)["mate"] is not None:
                await asyncio.sleep(0.02)
        assert service.shown("G1", at + 2.5)["mate"] == 1
    finally:
        service.close()


async def test_a_new_move_stops_the_old_positions_search() -> None:
    service = EvaluationService(lambda _: None, 0.0, EngineSettings(movetime_ms=5000), STOCKFISH)
    service.start()
    try:
        service.note("G1", _state(chess.STARTING_FEN), time.time())
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        service.note("G1", _state(MATE_IN_ONE), time.time())
        async with asyncio.timeout(
            20
        ):  # until the new position's own evaluation shows (the old one's may first)
            while (service.shown("G1", time.time()) or {}).get("mate") != 1:
                await asyncio.sleep(0.02)
        # the 5 s search of the start position stopped at the move; the new one was searched at once
        assert time.perf_counter() - started < 5.0
    finally:
        service.close()


def test_a_hub_without_stockfish_runs_and_says_so() -> None:
    service = EvaluationService(lambda _: None, 0.0, EngineSettings(), None)
    service.start()
    assert service.health() == {
        "running": False, "path": None, "error": "Stockfish is not installed / Stockfish kurulu değil",
        "evaluated": 0, "movetime_ms": 300, "threads": 1, "hash_mb": 64,
    }  # fmt: skip


def test_the_pgn_comment_is_lichess_s_and_reads_back() -> None:
    for evaluation, said in (
        (Evaluation(35, None, 20), "[%eval 0.35]"),
        (Evaluation(-120, None, 20), "[%eval -1.20]"),
        (Evaluation(None, 3, 30), "[%eval #3]"),
        (Evaluation(None, -2, 30), "[%eval #-2]"),
    ):
        assert evaluation.pgn_comment() == said
        game = chess.pgn.read_game(io.StringIO(f"1. e4 {{ {said} }} *"))
        assert game is not None
        score = game.next().eval()
        assert score is not None
        if evaluation.mate is None:
            assert score.white().score() == evaluation.cp
        else:
            assert score.white().mate() == evaluation.mate


VENUE = """[venue]
name = "Satranç"
{engine}

[[tables]]
id = "T1"
sport = "chess"
"""


def test_the_venue_sets_the_engine_and_a_mistake_is_named() -> None:
    venue = parse_venue(VENUE.format(engine="engine = { movetime_ms = 500, hash_mb = 32 }"), Path("v.toml"))
    assert venue.engine == EngineSettings(True, 500, 1, 32)
    assert parse_venue(VENUE.format(engine=""), Path("v.toml")).engine == EngineSettings()
    for engine, said in (
        ("engine = { movetime = 500 }", "did you mean"),
        ("engine = { threads = 0 }", "engine.threads"),
        ("engine = { hash_mb = 1e3 }", "engine.hash_mb"),
        ("engine = { enabled = 1 }", "engine.enabled"),
        ('engine = "on"', "must be a table"),
    ):
        with pytest.raises(VenueError, match=said):
            parse_venue(VENUE.format(engine=engine), Path("v.toml"))


async def test_a_halls_chess_screens_get_the_evaluation_behind_the_delay() -> None:
    from dataclasses import replace

    from hub.feed.fanout import Fanout
    from hub.hall.spectators import PublicHall
    from hub.matches import new_match
    from hub.rules.chess.pgn_feed import game_pgn
    from hub.rules.registry import attach_spectator_extras
    from tests.hub.chess_support import Table

    venue = parse_venue(
        VENUE.format(engine="broadcast_delay_s = 1\nengine = { movetime_ms = 100 }")
        + '\n[[matches]]\nid = "G1"\ntable = "T1"\nplayers = ["A", "B"]\n',
        Path("v.toml"),
    )
    hall = PublicHall(venue, Fanout())
    attach_spectator_extras(hall)
    [(key, service)] = hall.extras["chess"].items()
    assert key == "evaluation"
    service.start()
    try:
        table = Table()
        for uci in ("f2f3", "e7e5", "g2g4"):  # White has walked into a mate in one (…Qh4#)
            table.play(uci)
        match = replace(new_match(venue.matches[0]), sport_state=table.state, updated_at=time.time())
        hall.public[match.info.id] = match
        hall._publish_public(match)
        assert hall.spectator_view(match)["evaluation"] is None  # not a second old yet
        async with asyncio.timeout(10):
            while (shown := hall.spectator_view(match)["evaluation"]) is None:
                await asyncio.sleep(0.05)
        assert shown["mate"] == -1 and shown["pv"][0] == "Qh4#"
        assert shown["at"] <= time.time() - 1.0
        # the live PGN carries it as lichess writes it, on the move that reached the position
        text = game_pgn(match, venue, None, hall.annotator("chess"))
        assert "2. g4 {[%eval #-1]}" in text.replace("\n", " ")
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None and game.end().eval() is not None and game.end().eval().white().mate() == -1
        assert "%eval" not in game_pgn(match, venue)  # without an engine, no comment
    finally:
        service.close()
