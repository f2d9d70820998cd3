"""A Wire session end to end on real pseudo-terminals through pyserial: states, silence, unplug and replug.

What the session decides (HELLO, seq, resync, garbage, refusals) is tested without a pty in
`test_wire_protocol.py`; these check that the shell wires it to a real port.
"""

import asyncio
import contextlib
import itertools
import os
import random
from pathlib import Path
from typing import Any

from boardcast_sim.pty import PtyPair, open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from boardcast_sim.tabletennis_match import MatchOptions
from devices.link import Backoff
from devices.observations import DeviceHello, Heartbeat, LinkState, ScoreboardState
from devices.wire.codec import Frame, decode_frame
from devices.wire.messages import Command, encode_report, report_to_body
from devices.wire.session import DeviceSession
from tests.devices.support import EPOCH, FAST, RecordingSink, eventually, running


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def without_repeats(states: list[ScoreboardState]) -> list[ScoreboardState]:
    """Displays with resync repeats folded; a rally always changes the display."""
    return [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]


def is_run_of(seen: list[ScoreboardState], shown: list[ScoreboardState]) -> bool:
    """Whether seen is a contiguous run of what the board showed."""
    return any(shown[i : i + len(seen)] == seen for i in range(len(shown) - len(seen) + 1))


def session_on(pair: PtyPair | Path, sink: RecordingSink, **options: Any) -> DeviceSession:
    path = pair.slave_path if isinstance(pair, PtyPair) else str(pair)
    return DeviceSession.for_url(f"serial://{path}?baud=115200&protocol=wire", sink, backoff=FAST, **options)


async def test_session_sees_hello_then_the_states_the_scoreboard_showed() -> None:
    with open_pty_pair() as pair:
        board = TableTennisScoreboard("tt-07", seed=7, speed=200, boot_epoch=EPOCH, first_seq=65500)
        sink = RecordingSink()
        session = session_on(pair, sink)
        async with running(board.run_on_fd(pair.master_fd), session.run()):
            await eventually(lambda: len(sink.states()) >= 40)

    first = sink.observations[0]
    assert isinstance(first.report, DeviceHello)
    assert (first.device_id, first.boot_epoch, first.report.family) == ("tt-07", EPOCH, "tt-scoreboard")
    assert all((o.device_id, o.boot_epoch) == ("tt-07", EPOCH) for o in sink.observations)
    seen = without_repeats(sink.states())
    assert len(seen) >= 30 and is_run_of(seen, board.history)
    seqs = [o.seq for o in sink.observations]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert seqs[-1] > 65535  # the u16 counter wrapped on the wire and kept growing here
    for observation in sink.observations:  # raw is the frame exactly as the device sent it
        frame = decode_frame(observation.raw)
        assert isinstance(frame, Frame) and (frame.type, frame.body) == report_to_body(observation.report)
    assert sink.errors == []
    assert LinkState.CONNECTED in sink.link_states()
    assert board.commands[0] == Command.resync()


async def test_matches_end_with_the_result_then_a_new_match_then_heartbeats() -> None:
    with open_pty_pair() as pair:
        board = TableTennisScoreboard("tt-07", seed=5, speed=2000, boot_epoch=EPOCH, best_of=3, matches=2)
        sink = RecordingSink()
        async with running(board.run_on_fd(pair.master_fd), session_on(pair, sink).run()):
            await asyncio.wait_for(board.done.wait(), 5)
            await eventually(lambda: any(isinstance(o.report, Heartbeat) for o in sink.observations))
            await eventually(lambda: sink.states()[-1] == board.state)

    assert board.matches_played == 2
    results = [s for s in sink.states() if max(s.games) == 2]
    assert results and all(r.server is None and len(r.game_scores) == sum(r.games) for r in results)
    first_result = sink.states().index(results[0])
    fresh = ScoreboardState((0, 0), (0, 0), server=(5 + 1) % 2, ends="normal", expedite=False)
    assert fresh in sink.states()[first_result:]  # the second match starts from 0-0, games 0-0
    assert sink.states()[-1] == results[-1] != results[0]
    heartbeat = next(o.report for o in sink.observations if isinstance(o.report, Heartbeat))
    assert heartbeat.battery == 87


async def test_silence_drops_the_connection_and_reconnects() -> None:
    with open_pty_pair() as pair:
        sink = RecordingSink()
        session = session_on(pair, sink, silence_timeout=0.2)
        async with running(session.run()):
            await eventually(lambda: sink.link_states().count(LinkState.CONNECTED) >= 2)

    dropped = next(change for change in sink.links if change.state is LinkState.DISCONNECTED)
    assert dropped.detail.startswith("no data from the device for 0.2 s; reconnecting; retrying in ")
    assert " / cihazdan 0.2 sn veri gelmedi" in dropped.detail
    assert session.stats.reconnects >= 1


async def test_a_missing_port_retries_with_backoff_until_it_is_plugged_in(tmp_path: Path) -> None:
    port = tmp_path / "ttyBC0"
    sink = RecordingSink()
    session = session_on(port, sink)
    async with running(session.run()):
        await eventually(lambda: sink.link_states().count(LinkState.DISCONNECTED) >= 4)
        failures = [change for change in sink.links if change.state is LinkState.DISCONNECTED]
        with open_pty_pair() as pair:
            board = TableTennisScoreboard("tt-07", seed=2, speed=200, boot_epoch=EPOCH)
            os.symlink(pair.slave_path, port)  # the cable goes in
            async with running(board.run_on_fd(pair.master_fd)):
                await eventually(lambda: len(sink.states()) >= 3)

    assert all(f"serial port {port} does not exist" in change.detail for change in failures)
    assert all(f"seri port {port} yok" in change.detail for change in failures)
    assert [change.attempt for change in failures[:4]] == [1, 2, 3, 4]
    connecting = [c.at for c in sink.links if c.state is LinkState.CONNECTING][:4]
    gaps = [later - earlier for earlier, later in itertools.pairwise(connecting)]
    assert gaps[0] < gaps[1] < gaps[2]  # 0.04-0.05 s, 0.08-0.1 s, 0.16-0.2 s
    assert LinkState.CONNECTED in sink.link_states()
    assert isinstance(sink.observations[0].report, DeviceHello)


async def test_unplugging_the_device_is_noticed_and_reconnection_is_tried() -> None:
    pair = open_pty_pair()
    try:
        board = TableTennisScoreboard("tt-07", seed=6, speed=200, boot_epoch=EPOCH)
        sink = RecordingSink()
        session = session_on(pair, sink)
        async with running(session.run()):
            async with asyncio.TaskGroup() as group:
                device = group.create_task(board.run_on_fd(pair.master_fd))
                await eventually(lambda: len(sink.states()) >= 3)
                await stop(device)
            unplugged_at = len(sink.links)
            pair.close_master()  # the cable comes out
            await eventually(lambda: sink.link_states()[unplugged_at:].count(LinkState.DISCONNECTED) >= 2)
    finally:
        pair.close()

    after = sink.links[unplugged_at:]
    assert after[0].state is LinkState.DISCONNECTED and after[0].device_id == "tt-07"
    assert after[1].state is LinkState.CONNECTING and after[1].attempt == 2
    assert "does not exist" in after[2].detail
    assert not session.connected


def test_backoff_grows_by_the_factor_up_to_the_maximum_with_bounded_jitter() -> None:
    backoff = Backoff()
    rng = random.Random(1)
    for attempt, base in [(1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0), (7, 30.0), (50, 30.0)]:
        delays = [backoff.delay(attempt, rng) for _ in range(200)]
        assert all(0.8 * base <= delay <= base for delay in delays)
        assert max(delays) - min(delays) > 0.1 * base  # jitter is really there
    assert Backoff(jitter=0.0).delay(3, rng) == 2.0


async def test_what_one_read_brings_reaches_the_sink_in_one_call_and_in_wire_order() -> None:
    """A burst (a device catching up, a gateway that batches) is handed over together, so the hub can fold it
    as a run; a bad frame inside it splits the burst where it stood, so nothing is reordered."""
    with open_pty_pair() as pair:
        sink = RecordingSink()
        session = session_on(pair, sink)
        hello = DeviceHello("tt-09", "tt-scoreboard", "m", "f", 1, EPOCH)
        states = [ScoreboardState((n, 0), (0, 0), server=0) for n in range(30)]
        burst = b"\x00" + encode_report(hello, 0)
        burst += b"".join(encode_report(s, n + 1) for n, s in enumerate(states[:15]))
        burst += b"\x07\x01\x02\x03\x00"  # not a frame
        burst += b"".join(encode_report(s, n + 16) for n, s in enumerate(states[15:]))
        async with running(session.run()):
            await eventually(lambda: session.connected)
            os.write(pair.master_fd, burst)
            await eventually(lambda: len(sink.states()) == 30)

    assert sink.states() == states
    assert len(sink.errors) == 1
    error_at = sink.trail.index(sink.errors[0])
    before = [o.report for o in sink.trail[:error_at]]
    assert before == [hello, *states[:15]]  # the error stands where its bytes stood
    assert max(sink.batches) >= 10  # frames of one read went over together, not one call each
    assert len(sink.batches) < 10


async def test_a_board_resumed_with_its_toss_plays_its_next_matches_with_tosses_of_their_own() -> None:
    """The demo resumes a doubles board with the toss its match had (B1 served first); the next match has
    its own toss (side 0 serves first with seed 5), which the first match's players must not decide."""
    options = MatchOptions(doubles=True, first_server_player="B1", first_receiver_player="A1")
    with open_pty_pair() as pair:
        board = TableTennisScoreboard(
            "tt-09", seed=5, speed=2000, best_of=3, matches=2, options=options, first_server=1
        )
        sink = RecordingSink()
        async with running(board.run_on_fd(pair.master_fd), session_on(pair, sink).run()):
            await asyncio.wait_for(board.done.wait(), 20)
    starts = [i for i, s in enumerate(board.history) if s.points == (0, 0) and s.games == (0, 0)]
    assert len(starts) == 2  # both matches played
    assert board.history[starts[1]].server == 0 and board.history[starts[1]].server_player == "A1"
