"""Joining a match under way (the hub started after the devices, restarted, or a device reconnected): the
first report after the join is where the match stands, never a rule violation; only what follows is judged.
Pure reducer tests for backgammon and chess; the hub end to end is in tests/test_joining_hub.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import pytest

from boardcast_sim.backgammon import BackgammonMatchSim, MatchOptions
from devices.observations import ChessBoardState, ChessClockState, LinkChange, LinkState
from hub.rules import backgammon as bg
from hub.rules import chess as rc
from hub.rules.registry import BACKGAMMON, CHESS
from tests.hub.chess_support import Table
from tests.hub.test_ingest import HELLO, obs, open_hub
from tests.hub.test_ingest import state as score


def _bg_reports(seed: int, length: int = 3) -> list[tuple[float, Any]]:
    """A whole simulated match's board reports, with the time each is sent."""
    sim = BackgammonMatchSim(seed, MatchOptions(length=length))
    at, out = 0.0, []
    while not sim.finished:
        for pause, report in sim.step():
            at += pause
            out.append((at, report))
    return out


def _fold(
    state: bg.BackgammonState, reports: list[tuple[float, Any]], codes: list[str]
) -> bg.BackgammonState:
    for at, report in reports:
        outcome = BACKGAMMON.apply(state, report, at)
        state = outcome.state
        codes += [a.code for a in outcome.anomalies]
    return state


@pytest.mark.parametrize("seed", [5, 6, 7])
@pytest.mark.parametrize("seen", [0, 9, 30])
def test_a_backgammon_hub_that_joins_late_or_after_a_gap_raises_nothing(seed: int, seen: int) -> None:
    """The hub saw the first `seen` reports (none: it started after the board), missed a stretch of play
    (down, restarting), and joins at every later report in turn: nothing is flagged, the match ends as the
    board played it."""
    reports = _bg_reports(seed)
    config = bg.BackgammonConfig(3)
    before: list[str] = []
    seen_state = _fold(BACKGAMMON.initial(config), reports[:seen], before)
    for join_at in range(seen + 1, min(len(reports), seen + 60), 4):
        codes: list[str] = []
        state = seen_state
        at, first = reports[join_at]
        joined = BACKGAMMON.join(state, first, at)
        codes += [a.code for a in joined.anomalies]
        facts = [f.kind for f in joined.facts]
        state = joined.state
        for at, report in reports[join_at + 1 : join_at + 120]:
            outcome = BACKGAMMON.apply(state, report, at)
            state = outcome.state
            facts += [f.kind for f in outcome.facts]
            codes += [a.code for a in outcome.anomalies]
        assert facts.count("joined") == 1
        assert codes == [] == before, (join_at, codes)


@pytest.mark.parametrize("seed", [5, 6])
def test_a_press_lost_with_the_hub_away_ends_the_turn_it_joined(seed: int) -> None:
    """The hub joins at the board's last state of a turn and the clock press that ended it never reaches the
    hub (sent while it was down): the board showing the other side on roll ends that turn, unjudged."""
    reports = _bg_reports(seed)
    presses = [n for n, (_, r) in enumerate(reports) if getattr(r, "kind", None) == "press"][2:40:3]
    assert presses
    for press in presses:
        at, first = reports[press - 1]
        outcome = BACKGAMMON.join(BACKGAMMON.initial(bg.BackgammonConfig(3)), first, at)
        codes = [a.code for a in outcome.anomalies]
        state = _fold(outcome.state, reports[press + 1 : press + 80], codes)
        assert codes == [], (press, codes)
        assert state.game >= 1


def test_a_board_that_reads_on_from_the_hub_is_judged_as_ever() -> None:
    """A reconnect with nothing missed: the first report is read as any other, so an illegal play in it is
    still flagged once the next report shows it went on (only the catch-up itself is never judged)."""
    reports = _bg_reports(5)
    codes: list[str] = []
    state = _fold(BACKGAMMON.initial(bg.BackgammonConfig(3)), reports[:20], codes)
    at, report = reports[20]
    joined = BACKGAMMON.join(state, report, at)
    plain = BACKGAMMON.apply(state, report, at)
    assert joined.state == plain.state and joined.facts[-1].kind == "joined"
    assert joined.facts[-1].data["caught_up"] is False and codes == []


def test_a_backgammon_catch_up_takes_the_boards_dice_cube_and_turn() -> None:
    points = list(bg.START.points)
    points[7], points[4] = 2, 1  # A has played 8/5 earlier in the game
    report_cls = type(
        BACKGAMMON.report_from_dict(
            {"type": "board", "points": list(bg.START.points), "bar": [0, 0], "off": [0, 0]}
        )
    )
    report = report_cls(tuple(points), (0, 0), (0, 0), (6, 2), "keypad", 2, 1, 1)
    state = BACKGAMMON.initial(bg.BackgammonConfig(5, start_score=(1, 2)))
    out = BACKGAMMON.join(state, report, 10.0)
    caught = out.state
    assert out.anomalies == () and out.facts[0].kind == "joined" and out.facts[0].data["caught_up"]
    assert (caught.phase, caught.turn, caught.dice, caught.game) == (bg.Phase.MOVING, 1, (6, 2), 1)
    assert (caught.cube_value, caught.cube_owner, caught.score) == (2, 1, (1, 2))
    assert out.facts[0].data["message_en"] == "Joined at game 1, 1–2, B to play 6-2."
    assert out.facts[0].data["message_tr"] == "1. oyun, 1–2, B 6-2 oynuyor durumunda katılındı."
    assert BACKGAMMON.from_dict(BACKGAMMON.to_dict(caught)) == caught
    # the same report without the join is what the hub used to do: B's 6-2 read as the opening roll, A to play
    plain = BACKGAMMON.apply(state, report, 10.0)
    assert plain.state.turn == 0 and plain.state.turn_start == bg.START


def _chess_join(table: Table, report: Any, dt: float) -> tuple[list[str], list[str]]:
    """The hub joins the table's device at `report`, `dt` seconds after its last input: (facts, codes)."""
    table.t += dt
    outcome = CHESS.join(table.state, report, table.t)
    table.state = outcome.state
    table.facts.extend(outcome.facts)
    table.anomalies.extend(outcome.anomalies)
    return [f.kind for f in outcome.facts], [a.code for a in outcome.anomalies]


def _chess_started(control: str) -> Table:
    """A game whose clock shows the control's start and runs for the left side (White)."""
    table = Table(rc.ChessConfig.from_text(control))
    base = rc.ChessConfig.from_text(control).control
    assert base is not None
    start_s = base.periods[0].time_s
    table.clock(start_s, start_s, None)
    table.clock(start_s, start_s, 0, dt=1.0)
    return table


def test_a_chess_clocks_first_reading_after_the_join_is_where_it_stands() -> None:
    """90+2: an increment too small to count missed presses by. While the hub was away each side pressed
    twice, the right side quickly, so its time went up by 3 s: read plainly that is time added by hand."""
    gap = ChessClockState((5396_000, 5403_000), 0)
    plain = _chess_started("5400+2")
    assert [a.code for a in CHESS.apply(plain.state, gap, plain.t + 10).anomalies] == ["chess.time_increased"]

    table = _chess_started("5400+2")
    facts, codes = _chess_join(table, gap, 10.0)
    assert codes == [] and "joined" in facts
    joined = next(f for f in table.facts if f.kind == "joined")
    assert joined.data["message_en"] == "Joined the clock at 1:29:56 – 1:30:03 (left – right)."
    assert joined.data["message_tr"] == "Saate 1:29:56 – 1:30:03 (sol – sağ) durumunda katılındı."
    assert rc.to_dict(table.state)["clock"]["left_ms"] == 5396_000
    # what follows is judged: the left side presses after 4 s and gets no increment
    _, anomalies = table.clock(5392, 5403, 1, dt=4.0)
    assert [a.code for a in anomalies] == ["chess.increment_missing"]


def test_a_join_at_a_board_report_leaves_the_clocks_first_reading_to_catch_up() -> None:
    table = _chess_started("5400+2")
    _, codes = _chess_join(table, ChessBoardState(chess.STARTING_BOARD_FEN), 1.0)
    assert codes == [] and table.state.clock_joined
    _, anomalies = table.clock(5396, 5403, 0, dt=9.0)
    assert anomalies == [] and not table.state.clock_joined
    assert "joined" in [f.kind for f in table.facts]


def test_plies_a_chess_board_shows_when_the_hub_joins_are_a_gap_not_moves_without_a_press() -> None:
    """e4 e5 were played while the hub was away: the board's first position after the join shows both, and
    the hub enters them without `chess.move_without_press`."""
    board = chess.Board()
    for uci in ("e2e4", "e7e5"):
        board.push_uci(uci)
    for join in (False, True):
        table = _chess_started("5400+2")
        report = ChessBoardState(board.board_fen())
        if join:
            _chess_join(table, report, 5.0)
        else:
            table.feed(report, 5.0)
        table.tick(3.0)
        codes = [a.code for a in table.anomalies]
        assert table.moves == ["e2e4", "e7e5"]
        assert ("chess.move_without_press" in codes) is not join, codes
    # the clock runs for White, to move: Black's e5 was pressed before the join, so White's next move is
    # judged as any other and is no move without a press
    assert table.state.unpressed == 0 and rc.to_dict(table.state)["clock"]["white_side"] == "left"


async def test_ingest_marks_the_first_report_after_each_join(tmp_path: Path) -> None:
    """The hub's start (a new session), a link that comes back and a new HELLO each make the device's next
    report for a match the one it joins at; a resent frame does not take the mark."""
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    try:
        sink = ingest.sink_for(hall.venue.tables[0])
        sink.observe(obs(0, HELLO))
        sink.observe(score(1, (0, 0)))
        sink.observe(score(2, (1, 0)))
        sink.link_changed(LinkChange("pty", LinkState.DISCONNECTED, 3.0, "unplugged"))
        sink.link_changed(LinkChange("pty", LinkState.CONNECTED, 4.0, "back"))
        sink.observe(score(2, (1, 0)))  # resent: logged as late, never applied
        sink.observe(score(3, (2, 0)))
        sink.observe(score(4, (3, 0)))
        await hall.log.flush()
        reports = [e for e in hall.log.events() if e.kind == "device.report"]
        assert [(e.seq, e.body.get("joined", False)) for e in reports] == [
            (1, True),
            (2, False),
            (3, True),
            (4, False),
        ]
        assert hall.match("M1").sport_state.points == (3, 0)
    finally:
        await hall.log.close()
