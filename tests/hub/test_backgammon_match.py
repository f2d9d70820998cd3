"""The backgammon match reducer: every anomaly code with a near miss that must stay quiet, a clean simulated
match, the `.mat` export read back by GNU Backgammon, and the `check backgammon` contract."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_backgammon_moves import run_gnubg_python

from hub.rules import backgammon as bg
from hub.rules import clock as clk
from hub.rules.backgammon.export import match_to_mat

ROOT = Path(__file__).resolve().parents[2]


# --- a small driver --------------------------------------------------------------------------------


class Table:
    """Feeds events to the reducer and keeps what came out."""

    def __init__(self, length: int = 5, clock: clk.TimeControl | None = None) -> None:
        self.state = bg.initial(length, clock)
        self.t = 0.0
        self.facts: list[Any] = []
        self.anomalies: list[Any] = []

    def __call__(self, event: bg.Event, dt: float = 1.0) -> list[str]:
        self.t += dt
        out = bg.apply(self.state, event, self.t)
        self.state = out.state
        self.facts += out.facts
        self.anomalies += out.anomalies
        return [a.code for a in out.anomalies]

    def board(self, pos: bg.Position, dt: float = 1.0) -> list[str]:
        return self(bg.BoardSnapshot(pos.points, pos.bar, pos.off), dt)

    def play(self, steps, dt: float = 1.0) -> list[str]:
        """Show the board after the side on roll moves `steps` from the turn's start."""
        start = self.state.turn_start
        assert start is not None
        return self.board(bg.play_steps(start, steps), dt)

    def codes(self) -> list[str]:
        return [a.code for a in self.anomalies]


def opened(dice=(3, 1), length: int = 5) -> Table:
    """A table after the opening roll (A wins 3-1 by default)."""
    table = Table(length)
    assert table(bg.Opening(dice)) == []
    return table


def finish_turn(table: Table, side: int, steps) -> list[str]:
    return table.play(steps) + table(bg.ClockPress(side))


# --- moves and rolls ---------------------------------------------------------------------------------


def test_opening_higher_die_plays_both_and_a_legal_move_is_quiet() -> None:
    table = opened((3, 1))
    assert table.state.turn == 0 and table.state.dice == (3, 1)
    assert finish_turn(table, 0, [(8, 5, False), (6, 5, False)]) == []
    move = [f for f in table.facts if f.kind == "move"][-1]
    assert move.data["move"] == "8/5 6/5" and move.data["legal"]


def test_opening_tie_is_rerolled_quietly_but_flagged_when_played_on() -> None:
    table = Table()
    assert table(bg.Opening((4, 4))) == []
    assert table(bg.Opening((2, 6))) == []  # near miss: rerolled
    assert table.state.turn == 1
    table = Table()
    table(bg.Opening((4, 4)))
    assert "bg.opening_tie" in table.board(bg.play_steps(bg.START, [(13, 9, False), (13, 9, False)]))


def test_illegal_move_is_flagged_at_once_and_resolved_when_corrected_before_the_roll() -> None:
    table = opened((3, 1))
    assert table.play([(13, 8, False)]) == ["bg.illegal_move"]  # a 5 was not rolled
    assert table.play([(8, 5, False), (6, 5, False)]) == []
    assert any(f.kind == "anomaly_resolved" for f in table.facts)
    assert table(bg.ClockPress(0)) == []
    assert table(bg.Roll(1, (6, 5))) == []


def test_illegal_move_corrected_after_the_press_but_before_the_roll_is_resolved() -> None:
    table = opened((3, 1))
    assert finish_turn(table, 0, [(13, 8, False)]) == ["bg.illegal_move"]
    start = bg.START
    assert table.board(bg.play_steps(start, [(8, 5, False), (6, 5, False)])) == []
    assert any(f.kind == "move_corrected" for f in table.facts)
    assert table(bg.Roll(1, (6, 5))) == []  # nothing stands


def test_illegal_move_stands_once_the_opponent_rolls() -> None:
    table = opened((3, 1))
    assert finish_turn(table, 0, [(13, 8, False)]) == ["bg.illegal_move"]
    assert table(bg.Roll(1, (6, 5))) == ["bg.illegal_move_stood"]
    assert table.state.position.points[7] == 4  # the wrong move stands: 13/8 with 3-1


def test_partial_move_is_tentative_until_the_press_then_incomplete_is_illegal() -> None:
    table = opened((3, 1))
    assert table.play([(8, 5, False)]) == []  # a prefix of 8/5 6/5: tentative, quiet
    assert table(bg.ClockPress(0)) == ["bg.illegal_move"]  # pressed with the 1 unplayed


def test_must_play_the_larger_die_when_only_one_can_be_played() -> None:
    table = Table()
    table.state = bg.BackgammonState(length=5)
    pos = bg.Position.from_position_id("/x8AABj/PwAEAA", 0)
    table.state = bg.BackgammonState(
        length=5, phase=bg.Phase.MOVING, game=1, position=pos, turn=0, dice=(6, 5), turn_start=pos
    )
    assert table.play([(13, 8, False)]) == ["bg.illegal_move"]  # the smaller die
    assert table.play([(13, 7, False)]) == []


def test_board_inconsistent_snapshot() -> None:
    table = opened()
    points = list(bg.START.points)
    points[5] = 4  # one checker vanished
    assert table(bg.BoardSnapshot(tuple(points), (0, 0), (0, 0))) == ["bg.board_inconsistent"]
    points[5] = 5
    assert table(bg.BoardSnapshot(tuple(points), (0, 0), (0, 0))) == []  # near miss: the start again


def test_roll_out_of_turn_and_premature_roll() -> None:
    table = opened((3, 1))
    assert table(bg.Roll(1, (6, 5))) == ["bg.roll_out_of_turn"]  # A is still moving
    assert finish_turn(table, 0, [(8, 5, False), (6, 5, False)]) == []
    assert table(bg.Roll(0, (2, 2))) == ["bg.roll_out_of_turn"]  # B's turn
    assert table(bg.Roll(1, (6, 5))) == []


def test_invalid_dice_are_rerolled() -> None:
    table = opened((3, 1))
    finish_turn(table, 0, [(8, 5, False), (6, 5, False)])
    table(bg.Roll(1, (6, 5)))
    assert table(bg.InvalidDice(1)) == []
    assert table.state.phase is bg.Phase.AWAIT_ROLL
    assert table(bg.Roll(1, (2, 1))) == []
    assert table.state.dice == (2, 1)


# --- the cube ----------------------------------------------------------------------------------------


def to_b_roll(table: Table) -> None:
    finish_turn(table, 0, [(8, 5, False), (6, 5, False)])


def test_double_take_drop_and_ownership() -> None:
    table = opened((3, 1))
    to_b_roll(table)
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 1)) == []
    assert table(bg.Cube(bg.CubeAction.TAKE, 0)) == []
    assert (table.state.cube_value, table.state.cube_owner) == (2, 0)
    table(bg.Roll(1, (6, 5)))
    finish_turn(table, 1, [(24, 18, False), (18, 13, False)])
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 0)) == []  # near miss: the owner redoubles
    assert table(bg.Cube(bg.CubeAction.DROP, 1)) == []
    assert table.state.score == (2, 0)  # the value before the double


def test_cube_after_roll_and_not_owner() -> None:
    table = opened((3, 1))
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 0)) == ["bg.cube_after_roll"]
    to_b_roll(table)
    table(bg.Cube(bg.CubeAction.DOUBLE, 1))
    table(bg.Cube(bg.CubeAction.TAKE, 0))  # A owns the cube
    table(bg.Roll(1, (6, 5)))
    finish_turn(table, 1, [(24, 18, False), (18, 13, False)])
    table(bg.Roll(0, (2, 1)))
    finish_turn(table, 0, [(13, 11, False), (6, 5, False)])
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 1)) == ["bg.cube_not_owner"]


def test_crawford_game_has_no_cube_and_post_crawford_has() -> None:
    table = Table(length=3)
    table.state = bg.BackgammonState(length=3, score=(2, 0))
    table(bg.Opening((3, 1)))
    assert table.state.crawford
    to_b_roll(table)
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 1)) == ["bg.crawford_double"]
    table(bg.Cube(bg.CubeAction.DROP, 0))
    assert table.state.score == (2, 1) and not table.state.crawford
    table(bg.Opening((3, 1)))
    assert not table.state.crawford and table.state.post_crawford
    to_b_roll(table)
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 1)) == []  # near miss: post-Crawford


def test_gammon_and_backgammon_scoring_with_no_jacoby() -> None:
    def end(b_points: list[tuple[int, int]], b_bar: int, b_off: int) -> tuple[int, int]:
        points = [0] * 24
        points[0] = 1  # A's last checker on its 1-point
        for p, n in b_points:
            points[p - 1] -= n
        pos = bg.Position(tuple(points), (0, b_bar), (14, b_off))
        table = Table(length=7)
        table.state = bg.BackgammonState(
            length=7, phase=bg.Phase.MOVING, game=1, position=pos, turn=0, dice=(2, 1), turn_start=pos
        )
        assert table.board(bg.play_steps(pos, [(1, 0, False)])) == []
        return table.state.score

    assert end([(24, 14)], 0, 1) == (1, 0)  # single
    assert end([(12, 15)], 0, 0) == (2, 0)  # gammon (undoubled)
    assert end([(3, 1), (12, 14)], 0, 0) == (3, 0)  # backgammon: a checker in A's home board
    assert end([(12, 14)], 1, 0) == (3, 0)  # backgammon: on the bar


def test_time_forfeit_loses_the_match() -> None:
    table = Table(length=5, clock=clk.TimeControl.delay(60, 12))
    table(bg.Opening((3, 1)), dt=0)
    assert table.play([(8, 5, False), (6, 5, False)], dt=70) == []  # 12 s delay + 60 s reserve: not yet
    codes = table(bg.ClockPress(0), dt=3)
    assert codes == ["bg.time_forfeit"]
    assert table.state.winner == 1 and table.state.score == (0, 5)


# --- a clean simulated match -----------------------------------------------------------------------


def simulate(seed: int, length: int = 5) -> list[dict[str, Any]]:
    """A whole match of random legal plays, doubles, takes and drops, partial snapshots and tied openings,
    as `check backgammon` JSON lines."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = [
        {"match": {"length": length, "clock": {"mode": "simple", "reserve_s": 3600, "delay_s": 12}}}
    ]
    state = bg.initial(length, clk.TimeControl.delay(3600, 12))
    t = 0.0

    def send(line: dict[str, Any], event: bg.Event) -> None:
        nonlocal state, t
        t += rng.uniform(1, 15)
        line["at"] = round(t, 3)
        lines.append(line)
        out = bg.apply(state, event, line["at"])
        assert out.anomalies == (), (line, out.anomalies)
        state = out.state

    def board(pos: bg.Position) -> None:
        send(
            {"event": "board", "points": list(pos.points), "bar": list(pos.bar), "off": list(pos.off)},
            bg.BoardSnapshot(pos.points, pos.bar, pos.off),
        )

    names = "AB"
    while state.phase is not bg.Phase.MATCH_OVER:
        if state.phase is bg.Phase.OPENING:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            send({"event": "opening", "dice": {"A": a, "B": b}}, bg.Opening((a, b)))
            if a != b:
                board(bg.START)
            continue
        side = state.turn
        if state.phase is bg.Phase.AWAIT_ROLL:
            may_double = not state.crawford and state.cube_owner in (None, side) and state.cube_value < 64
            if may_double and rng.random() < 0.08:
                send({"event": "double", "side": names[side]}, bg.Cube(bg.CubeAction.DOUBLE, side))
                answer = "take" if rng.random() < 0.7 else "drop"
                send({"event": answer, "side": names[1 - side]}, bg.Cube(bg.CubeAction(answer), 1 - side))
                continue
            if rng.random() < 0.05:
                d = (rng.randint(1, 6), rng.randint(1, 6))
                send({"event": "roll", "side": names[side], "dice": list(d)}, bg.Roll(side, d))
                send({"event": "invalid_dice", "side": names[side]}, bg.InvalidDice(side))
            d = (rng.randint(1, 6), rng.randint(1, 6))
            send({"event": "roll", "side": names[side], "dice": list(d)}, bg.Roll(side, d))
            continue
        assert state.phase is bg.Phase.MOVING and state.turn_start is not None and state.dice is not None
        plays = bg.legal_plays(state.turn_start, *state.dice)
        if plays:
            play = rng.choice(plays)
            if len(play.moves) > 1 and rng.random() < 0.3:
                board(bg.play_steps(state.turn_start, play.moves[:1]))
            board(play.result)
        if state.phase is bg.Phase.MOVING:
            send({"event": "clock", "side": names[side]}, bg.ClockPress(side))
    return lines


def test_a_clean_simulated_match_has_no_anomaly() -> None:
    for seed in range(4):
        lines = simulate(seed, length=3 + 2 * (seed % 2))
        assert len(lines) > 50


def run_check(lines: list[Any]) -> subprocess.CompletedProcess[str]:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from hub.rules.backgammon.check import run; sys.exit(run(sys.stdin, sys.stdout))",
        ],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_check_contract_on_a_clean_match() -> None:
    lines = simulate(5)
    proc = run_check(lines)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert not [o for o in out if o["type"] == "anomaly"]
    result = out[-1]
    assert result["type"] == "result" and result["winner"] in ("A", "B")
    assert result["score"][result["winner"]] >= 5
    moves = [o for o in out if o["type"] == "fact" and o["kind"] == "move"]
    assert moves and all({"dice", "move", "side"} <= set(m) for m in moves)
    games = [o for o in out if o["type"] == "fact" and o["kind"] == "game"]
    assert games and all(g["win"] in ("single", "gammon", "backgammon", "drop") for g in games)


def test_check_contract_reports_anomalies_with_exit_0() -> None:
    lines: list[Any] = [
        {"match": {"length": 3}},
        {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}},
        {"at": 2, "event": "double", "side": "A"},
        {
            "at": 3,
            "event": "board",
            "points": list(bg.play_steps(bg.START, [(13, 8, False)]).points),
            "bar": [0, 0],
            "off": [0, 0],
        },
        {"at": 4, "event": "clock", "side": "A"},
        {"at": 5, "event": "roll", "side": "B", "dice": [6, 5]},
    ]
    proc = run_check(lines)
    assert proc.returncode == 0, proc.stderr
    codes = [json.loads(line).get("code") for line in proc.stdout.splitlines()]
    assert (
        codes.count("bg.cube_after_roll") == 1
        and "bg.illegal_move" in codes
        and "bg.illegal_move_stood" in codes
    )
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last == {"type": "result", "score": {"A": 0, "B": 0}, "winner": None}
    anomaly = next(json.loads(line) for line in proc.stdout.splitlines() if "illegal_move" in line)
    assert anomaly["message"] and anomaly["message_tr"] and anomaly["line"] == 4


def test_check_contract_unreadable_input_exits_2_naming_the_line() -> None:
    proc = run_check(
        [{"match": {"length": 3}}, {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}}, "{oops"]
    )
    assert proc.returncode == 2
    assert "line 3" in proc.stderr
    proc = run_check([{"match": {"length": 3}}, {"at": 1, "event": "roll", "side": "C", "dice": [1, 2]}])
    assert proc.returncode == 2 and "line 2" in proc.stderr and '"side"' in proc.stderr
    proc = run_check([{"at": 1}])
    assert proc.returncode == 2 and "line 1" in proc.stderr


# --- the .mat export -------------------------------------------------------------------------------


def played_state(seed: int, length: int) -> bg.BackgammonState:
    lines = simulate(seed, length)
    state = bg.initial(length)
    from hub.rules.backgammon.check import read_event

    for number, line in enumerate(lines[1:], start=2):
        at, event = read_event(line, number)
        state = bg.apply(state, event, at).state
    return state


def test_mat_export_layout() -> None:
    state = played_state(1, 3)
    text = match_to_mat(state)
    assert text.startswith(" 3 point match\n\n Game 1\n A : 0")
    assert "Wins" in text
    assert text.count(" Game ") == len(state.games)


def test_gnubg_imports_our_mat_file_and_replays_it_to_the_same_result(tmp_path: Path) -> None:
    state = played_state(2, 5)
    mat = tmp_path / "match.mat"
    mat.write_text(match_to_mat(state))
    script = f"""
    import gnubg
    gnubg.command('import mat {mat}')
    m = gnubg.match()
    games = m['games']
    for g in games:
        info = g['info']
        moves = sum(1 for a in g['game'] if a.get('action') == 'move')
        print('RES', info.get('winner'), info.get('points-won'), moves)
    """
    lines = run_gnubg_python(script, tmp_path)
    assert len(lines) == len(state.games)
    for line, game in zip(lines, state.games, strict=True):
        winner, points, moves = line.split()
        assert int(points) == game.points
        assert int(moves) == sum(1 for a in game.actions if a.kind == "move")  # every play replayed
        assert winner == ("X", "O")[game.winner]  # gnubg names the .mat left column X
