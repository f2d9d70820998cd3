"""Position ID, Match ID, GNUbgID and XGID: round trips, the manual's known states, and agreement with GNU
Backgammon itself (gnubg-nn for Position IDs, the Debian gnubg CLI for `set xgid` → posid:matchid)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_backgammon_moves import gnubg, random_board, run_gnubg_python  # noqa: F401 (fixture)

from hub.rules import backgammon as bg
from hub.rules.backgammon.ids import (
    IdError,
    MatchKey,
    Xgid,
    board_from_position_id,
    decode_match_id,
    decode_xgid,
    encode_xgid,
    match_id,
    position_id,
    xgid_board,
    xgid_to_gnubg_id,
)


def test_start_position_id_and_xgid() -> None:
    assert position_id(bg.START.board()) == "4HPwATDgc/ABMA"
    x = Xgid(points=bg.START.points, length=0)
    assert encode_xgid(x).startswith("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:")
    assert decode_xgid(encode_xgid(x)) == x


def test_manual_match_id_example() -> None:
    """gnubg manual: 2-4 in a 9-point match, player 0 holds a 2-cube, player 1 rolled 52."""
    key = decode_match_id("QYkqASAAIAAA")
    assert key == MatchKey(
        cube_value=2, cube_owner=0, on_roll=1, turn=1, dice=(5, 2), length=9, score=(2, 4), game_state=1
    )
    assert match_id(key) == "QYkqASAAIAAA"
    assert match_id(
        MatchKey(cube_value=2, cube_owner=0, on_roll=1, turn=1, dice=(2, 5), length=9, score=(2, 4))
    ) == ("QYkqASAAIAAA")  # higher die first, as gnubg stores it


def test_double_offered_flips_turn_and_sets_the_doubled_bit() -> None:
    before = decode_match_id("cAmgAEAAEAAA")
    after = decode_match_id("cBGgAEAAEAAA")
    assert (before.turn, before.double_offered) == (1, False)
    assert (after.turn, after.double_offered, after.on_roll) == (0, True, before.on_roll)
    assert decode_match_id("cBGgAEAAEAAE") == after  # gnubg's "not Jacoby" bit 67 is ignored


def random_xgid(rng: random.Random) -> Xgid:
    opp, me = random_board(rng, ("any", "bar", "bearoff")[rng.randrange(3)])
    turn = rng.randrange(2)
    pos = bg.Position.from_board((opp, me), turn)
    length = rng.choice((1, 3, 5, 7, 9, 11, 15))
    score = (rng.randrange(length), rng.randrange(length))
    crawford = length > 1 and length - 1 in score and rng.random() < 0.5
    if crawford:
        score = (
            (length - 1, rng.randrange(length - 1))
            if rng.random() < 0.5
            else (rng.randrange(length - 1), length - 1)
        )
    cube_log = 0 if crawford else rng.randrange(5)
    owner = None if cube_log == 0 else rng.choice((None, 0, 1))
    if cube_log and owner is None:
        owner = rng.randrange(2)
    rolled = rng.random() < 0.6
    dice = (rng.randint(1, 6), rng.randint(1, 6)) if rolled else (0, 0)
    return Xgid(
        points=pos.points,
        bar=pos.bar,
        cube_value=1 << cube_log,
        cube_owner=owner,
        turn=turn,
        dice=dice,
        score=score,
        crawford=crawford,
        length=length,
    )


def test_ids_round_trip_on_random_states() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        board = random_board(rng, ("any", "bar", "bearoff")[rng.randrange(3)])
        assert board_from_position_id(position_id(board)) == board
        x = random_xgid(rng)
        assert decode_xgid(encode_xgid(x)) == x
        key = MatchKey(
            cube_value=x.cube_value,
            cube_owner=x.cube_owner,
            on_roll=x.turn,
            crawford=x.crawford,
            turn=rng.randrange(2),
            double_offered=rng.random() < 0.2,
            resigned=rng.randrange(4),
            dice=tuple(sorted(x.dice, reverse=True)),  # type: ignore[arg-type]
            length=x.length,
            score=x.score,
            game_state=rng.randrange(5),
        )
        assert decode_match_id(match_id(key)) == key


def test_position_ids_agree_with_gnubg_nn(gnubg) -> None:  # noqa: F811
    rng = random.Random(5)
    for _ in range(2000):
        board = random_board(rng, ("any", "bar", "bearoff")[rng.randrange(3)])
        pid = position_id(board)
        assert gnubg.position_id([list(s) for s in board]) == pid
        assert tuple(tuple(s) for s in gnubg.board_from_position_id(pid)) == board


def test_gnubg_reads_our_xgids_as_the_same_posid_and_matchid(tmp_path: Path) -> None:
    """Debian GNU Backgammon parses each XGID we write (`set xgid`) and prints its own GNUbgID."""
    rng = random.Random(21)
    states = [random_xgid(rng) for _ in range(300)]
    xgids = [encode_xgid(x) for x in states]
    script = f"""
    import gnubg
    for c in ('set player 0 human', 'set player 1 human', 'new match 7'):
        gnubg.command(c)
    for x in {xgids!r}:
        gnubg.command('set xgid ' + x)
        print('RES', x, gnubg.positionid() + ':' + gnubg.matchid())
    """
    theirs = dict(line.split() for line in run_gnubg_python(script, tmp_path))
    mismatches = []
    for x, text in zip(states, xgids, strict=True):
        ours = xgid_to_gnubg_id(x)
        # gnubg sets bit 67 ("not Jacoby") in its Match IDs; the decoded fields must be equal.
        pid, mid = theirs[text].split(":")
        if pid != ours.split(":")[0] or decode_match_id(mid) != decode_match_id(ours.split(":")[1]):
            mismatches.append((text, ours, theirs[text]))
    assert mismatches == []
    assert len(theirs) == len(set(xgids))


def test_state_exports_use_the_side_on_roll() -> None:
    state = bg.initial(5)
    out = bg.apply(state, bg.Opening((3, 5)), 0.0)
    assert bg.gnubg_id(out.state).startswith("4HPwATDgc/ABMA:")
    x = decode_xgid(bg.xgid(out.state))
    assert x.turn == 1 and x.dice == (5, 3) and x.length == 5
    assert xgid_board(x) == bg.START.with_turn(1).board()


def test_bad_ids_are_named() -> None:
    with pytest.raises(IdError, match="Match ID"):
        decode_match_id("short")
    with pytest.raises(IdError, match="26 characters"):
        decode_xgid("XGID=abc:0:0:1:00:0:0:0:5:10")
    with pytest.raises(IdError, match="dice"):
        decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:7x:0:0:0:5:10")
