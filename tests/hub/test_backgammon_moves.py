"""Move legality agrees with GNU Backgammon's own generator: random, bar-heavy and bear-off positions, and the
edge positions of "every playable die must be played" (Backgammon Tournament Rules §6). The oracles are
required: a missing one fails, never skips."""

from __future__ import annotations

import random
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.rules.backgammon import (
    START,
    Position,
    legal_plays,
    legal_position_ids,
    legal_results,
    partial_results,
    play_steps,
)
from hub.rules.backgammon.ids import IdError, board_from_position_id, position_id

try:
    import gnubg_nn
except ImportError:  # the test fails below; it never skips
    gnubg_nn = None

INSTALL = "install it with `bash scripts/test.sh` (or `.venv/bin/pip install -e '.[test]'` and `apt-get install gnubg`)"


@pytest.fixture(scope="module")
def gnubg():
    """GNU Backgammon's move generator from PyPI `gnubg-nn`."""
    if gnubg_nn is None:
        pytest.fail(f"GNU Backgammon's move generator (PyPI gnubg-nn) is missing: {INSTALL}")
    return gnubg_nn


def gnubg_cli() -> str:
    """Path of the Debian `gnubg` binary; fails the test when it is missing."""
    path = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)
    if path is None:
        pytest.fail(f"GNU Backgammon (Debian package gnubg) is missing: {INSTALL}")
    return path


def run_gnubg_python(script: str, tmp_path: Path) -> list[str]:
    """Run a Python script inside the GNU Backgammon CLI; the lines it printed with a `RES ` prefix."""
    file = tmp_path / "gnubg_script.py"
    file.write_text(textwrap.dedent(script))
    proc = subprocess.run(
        [gnubg_cli(), "-t", "-q", "-r", "-p", str(file)], capture_output=True, text=True, timeout=120
    )
    lines = [line[4:] for line in proc.stdout.splitlines() if line.startswith("RES ")]
    assert lines, f"gnubg printed nothing usable:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return lines


def gnubg_ids(g, pid: str, d1: int, d2: int) -> set[str]:
    board = g.board_from_position_id(pid)
    return {g.position_id([list(s) for s in g.board_from_position_key(k)]) for k in g.moves(board, d1, d2)}


# --- position generators -----------------------------------------------------------------------------


def _resolve(b: list[list[int]], rng: random.Random) -> None:
    """No point held by both colours: a side's checkers on a contested point go to its bar."""
    for i in range(24):
        if b[1][i] and b[0][23 - i]:
            loser = rng.randrange(2)
            point = i if loser == 1 else 23 - i
            b[loser][24] += b[loser][point]
            b[loser][point] = 0


def random_board(rng: random.Random, kind: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`(opponent, on_roll)`; kind is "any", "bar" (several on the bar, closed-ish boards) or "bearoff"."""
    b = [[0] * 25, [0] * 25]
    for side in (0, 1):
        count = 15 - (rng.randint(0, 10) if rng.random() < 0.4 else 0)
        for _ in range(count):
            r = rng.random()
            if kind == "bearoff" and side == 1:
                b[side][rng.randint(0, 5)] += 1
            elif kind == "bar" and r < 0.25:
                b[side][24] += 1
            elif kind == "bar" and side == 0 and r < 0.75:
                b[side][rng.randint(0, 5)] += 1  # the opponent's home board, so entries are blocked
            elif r < 0.05:
                b[side][24] += 1
            elif r < 0.4:
                b[side][rng.randint(0, 5)] += 1
            else:
                b[side][rng.randint(0, 23)] += 1
    if kind == "bearoff" and rng.random() < 0.3:  # one straggler just outside, or hit
        src = next((i for i in range(6) if b[1][i]), None)
        if src is not None:
            b[1][src] -= 1
            b[1][rng.choice((6, 7, 24))] += 1
    _resolve(b, rng)
    return tuple(b[0]), tuple(b[1])


def cases(seed: int, n: int) -> list[tuple[str, int, int]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = ("any", "bar", "bearoff")[i % 3]
        out.append((position_id(random_board(rng, kind)), rng.randint(1, 6), rng.randint(1, 6)))
    return out


# --- agreement ---------------------------------------------------------------------------------------


def test_legal_results_agree_with_gnubg_on_random_bar_and_bearoff_positions(gnubg) -> None:
    mismatches = []
    for pid, d1, d2 in cases(2026, 6000):
        ours = legal_position_ids(pid, d1, d2)
        theirs = gnubg_ids(gnubg, pid, d1, d2)
        if ours != theirs:
            mismatches.append((pid, d1, d2, sorted(ours ^ theirs)[:4]))
    assert mismatches == []


def test_every_roll_of_varied_positions_agrees_with_gnubg(gnubg) -> None:
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    for pid, _, _ in cases(7, 60):
        for d1, d2 in rolls:
            assert legal_position_ids(pid, d1, d2) == gnubg_ids(gnubg, pid, d1, d2), (pid, d1, d2)
            assert legal_position_ids(pid, d2, d1) == legal_position_ids(pid, d1, d2)


@st.composite
def boards(draw):
    rng = random.Random(draw(st.integers(0, 2**32)))
    return position_id(random_board(rng, draw(st.sampled_from(["any", "bar", "bearoff"]))))


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(1, 6), st.integers(1, 6))
def test_hypothesis_positions_agree_with_gnubg(pid: str, d1: int, d2: int) -> None:
    if gnubg_nn is None:
        pytest.fail(f"GNU Backgammon's move generator (PyPI gnubg-nn) is missing: {INSTALL}")
    assert legal_position_ids(pid, d1, d2) == gnubg_ids(gnubg_nn, pid, d1, d2)


def test_model_plays_reach_the_same_results_as_the_contract_function() -> None:
    rng = random.Random(3)
    for _ in range(400):
        opp, me = random_board(rng, ("any", "bar", "bearoff")[rng.randrange(3)])
        turn = rng.randrange(2)
        pos = Position.from_board((opp, me), turn)
        assert pos.board() == (opp, me)
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        results = legal_results(pos, d1, d2)
        assert {p.position_id() for p in results} == legal_position_ids(pos.position_id(), d1, d2)
        for play in legal_plays(pos, d1, d2):
            assert play_steps(pos, play.moves) == play.result


# --- edge positions (as GNU Backgammon's generator applies §6: eval.c, GenerateMoves) --------------------

EDGES = [
    ("larger die only", "/x8AABj/PwAEAA", (6, 5), ["13/7"]),
    ("both dice only via smaller first", "/x8AwAD/PwAEAA", (6, 5), ["13/2"]),
    ("doubles, 2 of 4 playable", "/x8AAAb/PwAEAA", (3, 3), ["13/7"]),
    ("bear-off with higher die", "/38AAAAKAAAAAA", (6, 5), ["3/off 2/off"]),
    ("bear-off after coming home", "/38AAADg/xcAAA", (6, 1), ["7/off", "7/1 6/5"]),
    ("not obliged to bear off", "/38AAABIAAAAAA", (5, 1), ["6/off", "6/1 4/3"]),
    ("two on bar, one entry open", "/x8MAADg/wMAYA", (6, 5), ["bar/20"]),
    ("closed board", "27YBBwDg/wcAQA", (6, 6), []),
]


@pytest.mark.parametrize(("case", "pid", "dice", "plays"), EDGES, ids=[e[0] for e in EDGES])
def test_edge_positions_give_exactly_the_documented_plays(gnubg, case, pid, dice, plays) -> None:
    pos = Position.from_position_id(pid)
    found = legal_plays(pos, *dice)
    assert sorted(p.notation for p in found) == sorted(plays)
    assert legal_position_ids(pid, *dice) == gnubg_ids(gnubg, pid, *dice)


@pytest.mark.parametrize(("dice", "count"), [((3, 1), 16), ((6, 6), 11), ((1, 1), 42), ((6, 5), 7)])
def test_opening_position_has_the_documented_number_of_results(gnubg, dice, count) -> None:
    assert START.position_id() == "4HPwATDgc/ABMA"
    assert len(legal_position_ids("4HPwATDgc/ABMA", *dice)) == count
    assert legal_position_ids("4HPwATDgc/ABMA", *dice) == gnubg_ids(gnubg, "4HPwATDgc/ABMA", *dice)


def test_edge_positions_agree_with_the_gnubg_cli_hint_list(tmp_path: Path) -> None:
    """Debian's GNU Backgammon 1.07 lists one hint per distinct legal result; the counts must match."""
    positions = [(pid, dice) for _, pid, dice, _ in EDGES] + [
        ("4HPwATDgc/ABMA", (3, 1)),
        ("4HPwATDgc/ABMA", (1, 1)),
    ]
    script = f"""
    import gnubg
    for c in ('set player 0 human', 'set player 1 human', 'new game',
              'set evaluation chequerplay evaluation plies 0'):
        gnubg.command(c)
    for pid, (d1, d2) in {positions!r}:
        gnubg.command('set board ' + pid)
        gnubg.command('set dice %d %d' % (d1, d2))
        try:
            hints = gnubg.hint(10000)['hint']
        except Exception:
            hints = []
        print('RES', pid, d1, d2, len(hints))
    """
    counts = {}
    for line in run_gnubg_python(script, tmp_path):
        pid, d1, d2, n = line.split()
        counts[(pid, int(d1), int(d2))] = int(n)
    for pid, (d1, d2) in positions:
        assert counts[(pid, d1, d2)] == len(legal_position_ids(pid, d1, d2)), (pid, d1, d2)


def test_partial_moves_are_prefixes_of_legal_plays() -> None:
    after_13_8 = play_steps(START, [(13, 8, False)])
    assert after_13_8 in partial_results(START, 6, 5)  # 13/8 then 13/7 or 8/2
    assert play_steps(START, [(13, 7, False)]) in partial_results(START, 6, 5)
    assert play_steps(START, [(13, 10, False)]) not in partial_results(START, 6, 5)  # a 3 is not rolled
    assert play_steps(START, [(13, 8, False), (13, 7, False)]) not in partial_results(START, 6, 5)  # complete


def test_a_bad_position_id_is_named() -> None:
    with pytest.raises(IdError, match="not a Position ID"):
        legal_position_ids("nope", 3, 1)
    with pytest.raises(ValueError, match="dice must be 1-6"):
        legal_position_ids("4HPwATDgc/ABMA", 0, 1)
    assert board_from_position_id("4HPwATDgc/ABMA") == START.board()
