"""Properties of the chess rules: random legal games played square by square come back exactly; the state
and every input survive plain data (JSON) unchanged; a reducer resumed from a snapshot carries on as if it had
never stopped (the hub snapshots, restarts and replays)."""

from __future__ import annotations

import json
import random
from typing import Any

import chess
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from boardcast_sim.chess_motion import MotionStyle, motions
from devices.observations import ChessBoardState, ChessClockState, DeviceEvent
from hub.rules import chess as rc
from hub.rules import clock as clk

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(rng: random.Random, plies: int) -> list[chess.Move]:
    """A legal game that favours the moves a board finds hard: castling, en passant, promotions, captures."""
    board = chess.Board()
    moves = []
    while len(moves) < plies and not board.is_game_over():
        legal = list(board.legal_moves)
        special = [
            m
            for m in legal
            if board.is_castling(m) or board.is_en_passant(m) or m.promotion or board.is_capture(m)
        ]
        forward = [m for m in legal if board.piece_type_at(m.from_square) == chess.PAWN]
        pool = (
            special
            if special and rng.random() < 0.5
            else forward
            if forward and rng.random() < 0.3
            else legal
        )
        move = rng.choice(pool)
        moves.append(move)
        board.push(move)
    return moves


def stream(
    moves: list[chess.Move], rng: random.Random, style: MotionStyle, clock: bool
) -> list[tuple[float, Any]]:
    """The timed inputs a table produces for `moves`: board snapshots, and presses on a 15+10 clock."""
    board = chess.Board()
    placement = chess.BaseBoard()
    control = clk.TimeControl.fischer(900, 10)
    model = clk.start_side(clk.start(control), 0, at=0.0)
    t = 0.0
    items: list[tuple[float, Any]] = []

    def reading(running: int) -> ChessClockState:
        shown = [int(clk.remaining(model, side, t)) * 1000 for side in (0, 1)]
        return ChessClockState((shown[0], shown[1]), running)

    if clock:
        items.append((t, reading(0)))
    for ply, move in enumerate(moves):
        for motion in motions(board, move, rng, style=style):
            t += motion.delay_s
            if motion.piece is None:
                placement.remove_piece_at(motion.square)
            else:
                placement.set_piece_at(motion.square, motion.piece)
            items.append((t, ChessBoardState(placement.board_fen())))
        board.push(move)
        if clock:
            t += rng.uniform(0.05, 0.5)
            model = clk.press(model, ply % 2, t)
            items.append((t, reading(1 - ply % 2)))
        t += rng.uniform(1.2, 5.0)
        items.append((t, rc.Tick()))
    return items


def fold(items: list[tuple[float, Any]], state: rc.ChessState | None = None) -> tuple[rc.ChessState, list]:
    state = state or rc.initial(rc.ChessConfig())
    seen = []
    for t, item in items:
        outcome = rc.apply(state, item, t)
        state = outcome.state
        seen.append((outcome.facts, outcome.anomalies))
    return state, seen


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(1, 90),
    style=st.sampled_from(list(MotionStyle)),
    clock=st.booleans(),
)
@example(seed=61, plies=61, style=MotionStyle.REALISTIC, clock=True)  # readings only at presses
def test_random_legal_games_come_back_exactly(seed: int, plies: int, style: MotionStyle, clock: bool) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, plies)
    state, seen = fold(stream(moves, rng, style, clock))
    assert [m.uci for m in state.moves] == [m.uci() for m in moves]
    assert [a for _, anomalies in seen for a in anomalies] == []


def json_round_trip(state: rc.ChessState) -> rc.ChessState:
    return rc.from_dict(json.loads(json.dumps(rc.to_dict(state))))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 40), cut=st.floats(0.0, 1.0))
def test_a_reducer_resumed_from_a_snapshot_carries_on_the_same(seed: int, plies: int, cut: float) -> None:
    rng = random.Random(seed)
    items = stream(random_game(rng, plies), rng, MotionStyle.REALISTIC, clock=rng.random() < 0.5)
    # referee inputs and odd device events in the stream too
    for extra in (
        rc.TakeBack(1),
        rc.SetResult("1/2-1/2", "agreed"),
        rc.SetResult("*"),
        rc.ClockSides("left"),
    ):
        at = rng.uniform(0, items[-1][0])
        items.append((at, extra))
    items.sort(key=lambda pair: pair[0])
    at = int(cut * len(items))
    state, _ = fold(items[:at])
    restored = json_round_trip(state)
    assert restored == state and rc.to_dict(restored) == rc.to_dict(state)
    assert restored.game.placements == state.game.placements
    a, seen_a = fold(items[at:], state)
    b, seen_b = fold(items[at:], restored)
    assert seen_a == seen_b and rc.to_dict(a) == rc.to_dict(b)


def test_every_step_of_a_real_capture_survives_a_snapshot() -> None:
    from tests.hub.chess_support import capture

    state = rc.initial(rc.ChessConfig.from_text("300+5"))
    for t, report in capture("johan"):
        state = rc.apply(state, report, t).state
        assert json_round_trip(state) == state


boards = st.builds(lambda seed, n: random_board_fen(seed, n), st.integers(0, 2**32 - 1), st.integers(0, 60))


def random_board_fen(seed: int, plies: int) -> str:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        board.push(rng.choice(legal))
    return board.board_fen()


sides = st.sampled_from([0, 1])
flags = st.tuples(st.booleans(), st.booleans())
inputs = st.one_of(
    st.builds(
        ChessBoardState,
        boards,
        st.lists(st.sampled_from(["e4=white_wins", "d5=draw", "a1=black_wins"]), max_size=2).map(tuple),
    ),
    st.builds(
        ChessClockState,
        st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)),
        st.one_of(st.none(), sides),
        flags,
        flags,
        st.one_of(st.none(), st.booleans()),
        st.sampled_from([100, 1000]),
        st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(0, 200))),
        st.one_of(st.none(), st.integers(0, 3)),
    ),
    st.builds(
        lambda side, a, b: DeviceEvent("press", {"side": side, "remaining_ms": [a, b]}),
        sides,
        st.integers(0, 10**7),
        st.integers(0, 10**7),
    ),
    st.just(rc.Tick()),
    st.just(rc.KeepIllegal()),
    st.builds(rc.SetResult, st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"]), st.text(max_size=20)),
    st.builds(rc.TakeBack, st.integers(1, 400)),
    st.builds(rc.ClockSides, st.sampled_from(["left", "right"])),
)


@settings(max_examples=300, deadline=None)
@given(item=inputs)
def test_every_input_survives_plain_data(item: Any) -> None:
    data = json.loads(json.dumps(rc.input_to_dict(item)))
    assert "type" in data and rc.input_from_dict(data) == item


@pytest.mark.parametrize(
    "data, field",
    [
        ({"type": "board", "board_fen": "rnbqkbnr/ppp", "magic": []}, "board_fen"),
        ({"type": "clock", "remaining_ms": [1, -2], "running": 0, "flags": [False, False]}, "remaining_ms"),
        ({"type": "take_back", "plies": 0}, "plies"),
        ({"type": "set_result", "result": "2-0"}, "result"),
        ({"type": "clock_sides", "white": "top"}, "white"),
        ({"type": "castle"}, "unknown chess input type"),
    ],
)
def test_bad_plain_data_names_what_is_wrong(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        rc.input_from_dict(data)


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.tuples(st.floats(0.0, 30.0), inputs), max_size=40))
def test_no_input_sequence_makes_the_rules_raise(items: list[tuple[float, Any]]) -> None:
    state = rc.initial(rc.ChessConfig.from_text("180+2"))
    t = 0.0
    for dt, item in items:
        t += dt
        outcome = rc.apply(state, item, t)
        state = outcome.state
        assert rc.from_dict(json.loads(json.dumps(rc.to_dict(state)))) == state
