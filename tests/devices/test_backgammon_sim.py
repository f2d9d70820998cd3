"""The backgammon board simulator: its own move generator agrees with the hub's engine, its matches are legal
when replayed through the hub's reducer, its faults are the ones the referee is shown, and it speaks
Boardcast Wire `backgammon-board` (HELLO, STATE, EVENTs, resync)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from boardcast_sim.backgammon import BackgammonBoard, Board, Fault, MatchOptions, plays
from boardcast_sim.backgammon_match import BackgammonMatchSim, apply_steps
from devices.observations import BackgammonBoardEvent, BackgammonBoardState, DeviceHello
from devices.wire.codec import MessageType, WireCodec, decode_frame
from devices.wire.messages import (
    BodyError,
    Command,
    decode_backgammon_event,
    decode_backgammon_state,
    decode_report,
    encode_report,
)
from hub.rules import backgammon as bg
from hub.rules.registry import BACKGAMMON


def _hub_position(board: Board, side: int) -> bg.Position:
    return bg.Position(board.points, board.bar, board.off, side)


def _random_board(rng: random.Random, kind: str) -> Board:
    """A random legal board: anywhere, bar-heavy, or both sides bearing off."""
    while True:
        points = [0] * 24
        bar, off = [0, 0], [0, 0]
        for side, sign in ((0, 1), (1, -1)):
            for _ in range(15):
                roll = rng.random()
                if kind == "bar" and roll < 0.2:
                    bar[side] += 1
                    continue
                if kind == "bearoff" and roll < 0.3:
                    off[side] += 1
                    continue
                home = range(0, 6) if side == 0 else range(18, 24)
                spots = list(home) if kind == "bearoff" else list(range(24))
                for _ in range(20):
                    i = rng.choice(spots)
                    if points[i] * sign >= 0:
                        points[i] += sign
                        break
                else:
                    off[side] += 1
        board = Board(tuple(points), (bar[0], bar[1]), (off[0], off[1]))
        if bg.board_problem(board.points, board.bar, board.off) is None:
            return board


@pytest.mark.parametrize("kind", ["any", "bar", "bearoff"])
def test_the_simulators_generator_agrees_with_the_hubs_on_random_positions(kind: str) -> None:
    rng = random.Random(5 if kind == "any" else 6 if kind == "bar" else 7)
    for _ in range(300):
        board = _random_board(rng, kind)
        side = rng.randrange(2)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ours = {_hub_position(b, side) for b in plays(board, side, dice)}
        theirs = set(bg.legal_results(_hub_position(board, side), *dice))
        assert ours == theirs, (board, side, dice)


def test_each_play_step_by_step_passes_only_through_legal_prefixes() -> None:
    rng = random.Random(3)
    for _ in range(200):
        board, side = _random_board(rng, "any"), rng.randrange(2)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        start = _hub_position(board, side)
        partial = bg.partial_results(start, *dice)
        for result, steps in plays(board, side, dice).items():
            shown = board
            for step in steps[:-1]:
                shown = apply_steps(shown, side, [step])
                assert _hub_position(shown, side) in partial
            assert apply_steps(shown, side, [steps[-1]]) == result


def replay(sim: BackgammonMatchSim, length: int, clock: str = "") -> tuple[bg.BackgammonState, list[str]]:
    """Play the simulated match through the hub's backgammon adapter, via the log encoding."""
    state = BACKGAMMON.initial(bg.BackgammonConfig.from_text(length, clock))
    at, codes = 1000.0, []
    while not sim.finished:
        for pause, report in sim.step():
            at += pause
            logged = BACKGAMMON.report_from_dict(BACKGAMMON.input_to_dict(report))
            assert logged == report
            outcome = BACKGAMMON.apply(state, logged, at)
            state = outcome.state
            codes += [a.code for a in outcome.anomalies]
    return state, codes


@pytest.mark.parametrize("seed", range(8))
def test_simulated_matches_are_legal_and_score_as_the_hub_scores_them(seed: int) -> None:
    sim = BackgammonMatchSim(seed, MatchOptions(length=5, clock=("simple", 600, 12)))
    state, codes = replay(sim, 5, "simple:600:12")
    assert codes == []
    assert state.winner == sim.winner and state.score == tuple(sim.score)
    assert [g.points for g in state.games] == [g["points"] for g in sim.games]
    assert BACKGAMMON.from_dict(BACKGAMMON.to_dict(state)) == state


def test_matches_use_the_cube_and_show_moves_checker_by_checker() -> None:
    actions, stepwise = Counter(), 0
    for seed in range(8):
        sim = BackgammonMatchSim(seed, MatchOptions(length=7))
        while not sim.finished:
            reports = [r for _, r in sim.step()]
            actions.update(r.data.get("action") for r in reports if isinstance(r, BackgammonBoardEvent))
            boards = [r for r in reports if isinstance(r, BackgammonBoardState) and r.dice is not None]
            stepwise += len({(r.points, r.bar, r.off) for r in boards}) > 1
    assert actions["double"] and actions["take"] and actions["drop"]
    assert stepwise > 20


def test_faults_reach_the_hub_as_their_anomaly_codes() -> None:
    seen = Counter()
    for seed in range(6):
        sim = BackgammonMatchSim(seed, MatchOptions(length=5, faults=set(Fault)))
        state, codes = replay(sim, 5)
        seen.update(codes)
        assert state.score == tuple(sim.score)
        assert {f for f, _ in sim.injected} >= {Fault.CUBE_AFTER_ROLL, Fault.COCKED_DICE}
    assert seen["bg.illegal_move"] >= 5
    assert seen["bg.cube_after_roll"] == 6 and seen["bg.cube_not_owner"] >= 1
    assert set(seen) <= {
        "bg.illegal_move",
        "bg.illegal_move_stood",
        "bg.cube_after_roll",
        "bg.cube_not_owner",
    }


# -- the wire ---------------------------------------------------------------------------------------------

STATE = BackgammonBoardState(
    points=bg.START.points,
    bar=(0, 1),
    off=(2, 0),
    dice=(6, 4),
    dice_source="app",
    cube_value=2,
    cube_owner=1,
    turn=0,
)


def test_backgammon_reports_round_trip_over_the_wire() -> None:
    for report in (
        STATE,
        BackgammonBoardState(points=bg.START.points),
        BackgammonBoardEvent("press", {"side": 0, "remaining_ms": [1000, 2000]}),
        BackgammonBoardEvent("cube", {"side": 1, "action": "take"}),
        BackgammonBoardEvent("roll", {"side": 1, "dice": [3, 3], "source": "keypad"}),
        BackgammonBoardEvent("invalid_dice", {"side": 0}),
        BackgammonBoardEvent("opening", {"dice": [5, 2]}),
    ):
        frame = decode_frame(encode_report(report, 9)[:-1])
        assert decode_report(frame, "backgammon-board") == report


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"points": [0] * 23}, "state.points must be a list of 24 integers"),
        ({"bar": [0, -1]}, "state.bar must be two non-negative integers"),
        ({"dice": [0, 7]}, "state.dice must be two dice 1..6"),
        ({"dice_source": "guess"}, "state.dice_source must be 'keypad', 'app', 'camera' or null"),
        ({"cube": {"value": 3, "owner": None}}, "state.cube.value must be a power of two"),
        ({"cube": {"value": 2, "owner": 2}}, "state.cube.owner must be 0, 1 or null"),
        ({"turn": "A"}, "state.turn must be 0, 1 or null"),
    ],
)
def test_a_malformed_backgammon_state_names_its_field(change: dict, message: str) -> None:
    body = {
        "points": list(bg.START.points),
        "bar": [0, 0],
        "off": [0, 0],
        "dice": None,
        "dice_source": None,
        "cube": {"value": 1, "owner": None},
        "turn": None,
    }
    with pytest.raises(BodyError, match=message.replace("(", r"\(").replace(".", r"\.")):
        decode_backgammon_state({**body, **change})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"kind": "button", "data": {}}, "event.kind of a backgammon-board must be one of press, cube"),
        ({"kind": "press", "data": {"side": 2}}, r"event.data \(press\).side must be 0 or 1"),
        ({"kind": "cube", "data": {"side": 0, "action": "redouble"}}, r"\.action must be 'double', 'take'"),
        ({"kind": "roll", "data": {"side": 0, "dice": [7, 1]}}, r"event.data \(roll\).dice must be two dice"),
        ({"kind": "opening", "data": {"dice": [1]}}, r"event.data \(opening\).dice must be two dice"),
    ],
)
def test_a_malformed_backgammon_event_names_its_field(body: dict, message: str) -> None:
    with pytest.raises(BodyError, match=message):
        decode_backgammon_event(body)


async def test_the_board_says_hello_sends_states_and_events_and_answers_resync() -> None:
    board = BackgammonBoard("bg-7", seed=4, speed=500, boot_epoch=77, options=MatchOptions(length=1))
    hub_side, device_side = await _stream_pair()
    reader, writer = hub_side
    task = asyncio.create_task(board.run_on_streams(*device_side))
    codec, frames = WireCodec(), []

    async def collect(until) -> None:
        async with asyncio.timeout(20):
            while not until():
                frames.extend(f for f in codec.feed(await reader.read(4096)) if hasattr(f, "type"))

    await collect(lambda: any(f.type is MessageType.EVENT for f in frames))
    hello = decode_report(frames[0])
    assert isinstance(hello, DeviceHello) and hello.family == "backgammon-board" and hello.boot_epoch == 77
    assert decode_report(frames[1], "backgammon-board") == BackgammonBoardState(points=bg.START.points)
    count = len(frames)
    writer.write(Command.resync().encode(0))
    await writer.drain()
    await collect(
        lambda: sum(f.type is MessageType.HELLO for f in frames[count:]) >= 1 and len(frames) > count + 2
    )
    tail = [f.type for f in frames[count:]]
    assert MessageType.ACK in tail and MessageType.HELLO in tail
    await asyncio.wait_for(board.done.wait(), 30)
    assert board.sim.finished and board.matches_played == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def _stream_pair():
    """Two connected asyncio stream pairs over a local socket."""
    ready: asyncio.Future = asyncio.get_running_loop().create_future()

    async def on_connect(r, w) -> None:
        ready.set_result((r, w))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.open_connection("127.0.0.1", port)
    device = await ready
    server.close()
    return client, device
