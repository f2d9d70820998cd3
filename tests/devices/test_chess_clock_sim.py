"""The simulated Wire chess clock: its time accounting checked against an independent model of each time
control, its faults found by that model, and the device read over a real pty by a real `DeviceSession`."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

import pytest

from boardcast_sim.chess_clock import (
    TICK_MS,
    ChessClock,
    ChessClockSim,
    ClockOptions,
    Fault,
    TimeControl,
    Timing,
    main,
)
from boardcast_sim.pty import open_pty_pair
from devices.observations import ChessClockState, DeviceEvent, DeviceHello, Heartbeat
from devices.wire.codec import Frame, decode_frame
from devices.wire.messages import Command, report_to_body
from devices.wire.session import DeviceSession
from tests.devices.support import EPOCH, FAST, RecordingSink, eventually, running

QUICK = ClockOptions(time_control=TimeControl.parse("1+1"), moves=(8, 12), start_after_ms=2000)


def play(sim: ChessClockSim) -> list[tuple[int, ChessClockState | DeviceEvent]]:
    """The whole game: every report with the clock time it was sent at."""
    out: list[tuple[int, ChessClockState | DeviceEvent]] = [(0, sim.state())]
    while not sim.finished:
        out += [(sim.now_ms, report) for report in sim.fire()]  # type: ignore[misc]
        assert len(out) < 100_000
    assert sim.ms_to_next_event() is None and sim.fire() == []
    return out


@dataclass
class Misfit:
    """A STATE the model did not expect: at a press or at a tick, and by how much."""

    at_press: bool
    diff: int


def check(control: TimeControl, timeline: list[tuple[int, ChessClockState | DeviceEvent]]) -> list[Misfit]:
    """Replay the reports through an independent model of the time control; return where they differ."""
    misfits: list[Misfit] = []
    first = timeline[0][1]
    assert isinstance(first, ChessClockState)
    assert first.remaining_ms == (control.start_ms,) * 2 and first.running is None and first.moves == (0, 0)
    turn: tuple[int, int, int] | None = None  # side, when its turn began, its time then
    shown = first
    pressed: DeviceEvent | None = None
    for at, report in timeline[1:]:
        if isinstance(report, DeviceEvent):
            assert report.kind == "press" and turn is not None and report.data["side"] == turn[0]
            pressed = report
            continue
        if turn is not None:
            side, began, start = turn
            used = at - began
            other = 1 - side
            if control.timing is Timing.DELAY:
                expected = start - max(0, used - control.increment_ms)
            else:
                expected = start - used
            if report.flags[side]:
                assert report.remaining_ms[side] == 0 and report.running is None and expected <= 0
                assert at == timeline[-1][0] and report is timeline[-1][1]
                expected = 0
            if pressed is not None:
                moves = report.moves[side]
                assert moves == shown.moves[side] + 1 and report.moves[other] == shown.moves[other]
                gain = {
                    Timing.FISCHER: control.increment_ms,
                    Timing.BRONSTEIN: min(used, control.increment_ms),
                    Timing.DELAY: 0,
                }[control.timing]
                expected += gain + sum(add for count, add in control.periods if count == moves)
                assert pressed.data["remaining_ms"] == list(report.remaining_ms)
            else:
                assert report.moves == shown.moves
            assert report.remaining_ms[other] == shown.remaining_ms[other]
            diff = report.remaining_ms[side] - expected
            if diff:
                misfits.append(Misfit(pressed is not None, diff))
                turn = (side, began, start + diff)  # go on from what the clock shows
        if report.running is not None and (turn is None or pressed is not None):
            turn = (report.running, at, report.remaining_ms[report.running])
        if report.running is None:
            turn = None
        shown, pressed = report, None
    return misfits


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("timing", list(Timing))
def test_every_state_matches_the_time_control(seed: int, timing: Timing) -> None:
    control = TimeControl.parse("3+2", timing)
    sim = ChessClockSim(seed, ClockOptions(time_control=control, moves=(10, 40)))
    timeline = play(sim)
    assert check(control, timeline) == []
    states = [r for _, r in timeline if isinstance(r, ChessClockState)]
    presses = [r for _, r in timeline if isinstance(r, DeviceEvent)]
    assert len(presses) == sum(states[-1].moves)
    assert [p.data["side"] for p in presses][:2] == [sim.white, 1 - sim.white]  # White's clock starts
    timed = [(at, r) for at, r in timeline if isinstance(r, ChessClockState)]
    gaps = [b - a for (a, x), (b, _) in itertools.pairwise(timed) if x.running is not None]
    assert max(gaps) <= TICK_MS  # a STATE at least every second while a side runs
    last = states[-1]
    assert last.running is None
    assert (sim.flag is None) == (sim.loser_on_time is None)
    if sim.flag is None:
        assert last.moves == (sim.target_moves, sim.target_moves)  # both played their moves; clock stopped
    else:
        assert sim.flag == sim.loser_on_time and last.flags[sim.flag] and last.remaining_ms[sim.flag] == 0


def test_fischer_adds_the_first_increment_before_move_1() -> None:
    sim = ChessClockSim(1, ClockOptions(time_control=TimeControl.parse("90+30")))
    assert sim.state().remaining_ms == (5_430_000, 5_430_000)
    assert TimeControl.parse("90+30", Timing.DELAY).start_ms == 5_400_000
    assert TimeControl(60_000, 2000, pre_add=False).start_ms == 60_000


def test_games_end_by_flag_and_by_moves_and_the_same_seed_plays_the_same_game() -> None:
    ends = set()
    for seed in range(12):
        sim = ChessClockSim(seed, ClockOptions(flag_chance=0.5))
        play(sim)
        ends.add("flag" if sim.flag is not None else "moves")
    assert ends == {"flag", "moves"}
    assert play(ChessClockSim(7)) == play(ChessClockSim(7))
    assert play(ChessClockSim(7)) != play(ChessClockSim(8))


def test_a_second_period_is_added_at_its_move_count() -> None:
    control = TimeControl.parse("2+1,10/1")
    assert control.periods == ((10, 60_000),)
    sim = ChessClockSim(3, ClockOptions(time_control=control, moves=(15, 15), flag_chance=0))
    timeline = play(sim)
    assert check(control, timeline) == []
    periods = [r.period for _, r in timeline if isinstance(r, ChessClockState)]
    assert periods[0] == 1 and periods[-1] == 2 and sorted(periods) == periods


@pytest.mark.parametrize("seed", range(6))
def test_each_fault_happens_once_a_game_and_the_model_finds_it(seed: int) -> None:
    control = TimeControl.parse("3+2")
    sim = ChessClockSim(
        seed, ClockOptions(time_control=control, moves=(30, 40), flag_chance=0, faults=frozenset(Fault))
    )
    misfits = check(control, play(sim))
    assert sorted(f for f, _ in sim.injected) == sorted(Fault)
    at_press = sorted(m.diff for m in misfits if m.at_press)
    assert at_press == [-2000, 2000]  # the missing increment and the doubled one
    jumps = [m.diff for m in misfits if not m.at_press]
    assert len(jumps) == 1 and 10_000 <= abs(jumps[0]) <= 60_000


def test_delay_faults_show_in_the_next_turn() -> None:
    control = TimeControl.parse("3+5", Timing.DELAY)
    sim = ChessClockSim(
        2,
        ClockOptions(
            time_control=control, moves=(30, 40), flag_chance=0, faults=frozenset({Fault.NO_INCREMENT})
        ),
    )
    misfits = check(control, play(sim))
    assert sim.injected and misfits and all(m.diff < 0 for m in misfits)


def test_set_clock_sets_times_and_the_running_side() -> None:
    sim = ChessClockSim(4, QUICK)
    sim.fire()  # the start
    sim.advance(1500)
    sim.set_clock((30_000, 45_000), 1)
    assert sim.state().remaining_ms == (30_000, 45_000) and sim.running == 1
    sim.advance(400)
    assert sim.state().remaining_ms == (30_000, 44_600)
    sim.set_clock((30_000, 44_600), None)
    assert sim.ms_to_next_event() is None and sim.fire() == []  # paused: nothing happens
    sim.set_clock((30_000, 44_600), 0)
    while not sim.finished:
        sim.fire()
    with pytest.raises(ValueError, match="is over"):
        sim.set_clock((1000, 1000), 0)
    with pytest.raises(ValueError, match="backwards"):
        sim.advance(-1)


def test_time_controls_are_read_and_checked() -> None:
    assert TimeControl.parse("5") == TimeControl(300_000, 0)
    assert TimeControl.parse("0.5+1.5", Timing.BRONSTEIN) == TimeControl(30_000, 1500, Timing.BRONSTEIN)
    for bad in ("", "90+", "+30", "90-30", "90+30,40"):
        with pytest.raises(ValueError, match="is not minutes\\+seconds"):
            TimeControl.parse(bad)
    with pytest.raises(ValueError, match="growing positive move counts"):
        TimeControl(60_000, periods=((40, 1000), (40, 1000)))
    with pytest.raises(SystemExit):
        main(["--pty", "--time", "ninety"])


# -- the device, over a real pty, read by a real DeviceSession ----------------------------------------


def session_on(path: str, sink: RecordingSink) -> DeviceSession:
    return DeviceSession.for_url(f"serial://{path}?baud=115200&protocol=wire", sink, backoff=FAST)


def clock_reports(sink: RecordingSink) -> list[ChessClockState | DeviceEvent]:
    return [o.report for o in sink.observations if isinstance(o.report, ChessClockState | DeviceEvent)]


def is_subsequence(part: list, whole: list) -> bool:
    items = iter(whole)
    return all(any(x == y for y in items) for x in part)


async def test_a_session_reads_the_clocks_states_and_presses_over_a_pty() -> None:
    options = ClockOptions(time_control=TimeControl.parse("1+1"), moves=(6, 8), flag_chance=0)
    with open_pty_pair() as pair:
        clock = ChessClock("clk-07", seed=5, speed=150, boot_epoch=EPOCH, options=options, games=2)
        sink = RecordingSink()
        async with running(clock.run_on_fd(pair.master_fd), session_on(pair.slave_path, sink).run()):
            await asyncio.wait_for(clock.done.wait(), 30)
            await eventually(lambda: clock_reports(sink)[-1] == clock.sent[-1])

    hello = sink.observations[0]
    assert isinstance(hello.report, DeviceHello)
    assert (hello.device_id, hello.boot_epoch, hello.report.family) == ("clk-07", EPOCH, "chess-clock")
    assert "set_clock" in hello.report.capabilities
    assert sink.errors == []
    seen = [r for r in clock_reports(sink) if not (isinstance(r, DeviceEvent) and r.kind == "ack")]
    assert is_subsequence(clock.sent, seen)  # every state and press, in order (plus resync repeats)
    presses = [r for r in seen if isinstance(r, DeviceEvent)]
    assert presses == [r for r in clock.sent if isinstance(r, DeviceEvent)]
    assert len(presses) == sum(sum(s.moves) for s in (sim.state() for sim in clock.sims))
    assert clock.matches_played == 2 and all(sim.finished for sim in clock.sims)
    for observation in sink.observations:
        frame = decode_frame(observation.raw)
        assert isinstance(frame, Frame) and (frame.type, frame.body) == report_to_body(observation.report)
    assert any(isinstance(o.report, Heartbeat) for o in sink.observations)  # between the games


async def test_set_clock_is_acknowledged_and_shown_at_once_and_a_bad_one_is_refused() -> None:
    options = ClockOptions(time_control=TimeControl.parse("10+5"), moves=(30, 30), flag_chance=0)
    with open_pty_pair() as pair:
        clock = ChessClock("clk-08", seed=2, speed=2, boot_epoch=EPOCH, options=options)
        sink = RecordingSink()
        session = session_on(pair.slave_path, sink)
        async with running(clock.run_on_fd(pair.master_fd), session.run()):
            await eventually(
                lambda: any(
                    isinstance(r, ChessClockState) and r.running is not None for r in clock_reports(sink)
                )
            )
            ack = await session.command(Command.set_clock((90_000, 120_000), 1))
            assert ack.ok is True
            await eventually(
                lambda: any(
                    isinstance(r, ChessClockState) and r.remaining_ms[0] == 90_000
                    for r in clock_reports(sink)
                )
            )
            bad = await session.command(Command("set_clock", {"remaining_ms": [1, -1], "running": 0}))
            resync = await session.command(Command.resync())
    shown = next(
        r for r in clock_reports(sink) if isinstance(r, ChessClockState) and r.remaining_ms[0] == 90_000
    )
    assert shown.running == 1 and 119_000 <= shown.remaining_ms[1] <= 120_000
    assert bad.ok is False and "remaining_ms [a, b]" in bad.error
    assert resync.ok is True and clock.set_clocks == [Command.set_clock((90_000, 120_000), 1)]
    assert sink.errors == []
