"""Backgammon resignations and matches resumed at a score: each value accepted and rejected, with the cube up
and in the Crawford game; the `.mat` of resigned games read back by GNU Backgammon to the same score; the
Match ID and XGID after a resigned game; `start_score` in the venue file and `score` on the check's match
line; bad input flagged (live) or refused naming the line (check), nothing lost."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_backgammon_match import Table, finish_turn, opened, run_check, to_b_roll
from test_backgammon_moves import run_gnubg_python

from devices.observations import BackgammonBoardEvent
from devices.wire.backgammon_board import decode_backgammon_event
from devices.wire.bodies import BodyError
from hub.articles import CATALOGUE
from hub.matches import EventKind, MatchInfo, apply_event, new_match
from hub.referee import ActionInvalid, check_input, console_view
from hub.rules import backgammon as bg
from hub.rules.backgammon.export import match_to_mat
from hub.rules.backgammon.ids import decode_match_id, decode_xgid
from hub.rules.registry import SPORTS
from hub.venue import VenueError, parse_venue

ACCEPT, REJECT = bg.ResignAnswer.ACCEPT, bg.ResignAnswer.REJECT


def cube_at(value: int) -> Table:
    """A 15-point match in its first game with the cube at `value` (1, 2 or 4), B to roll."""
    table = opened((3, 1), length=15)
    to_b_roll(table)
    if value >= 2:
        table(bg.Cube(bg.CubeAction.DOUBLE, 1))
        table(bg.Cube(bg.CubeAction.TAKE, 0))
    if value >= 4:
        table(bg.Roll(1, (6, 5)))
        finish_turn(table, 1, [(24, 18, False), (18, 13, False)])
        table(bg.Cube(bg.CubeAction.DOUBLE, 0))
        table(bg.Cube(bg.CubeAction.TAKE, 1))
        table(bg.Roll(0, (2, 1)))
        finish_turn(table, 0, [(13, 11, False), (6, 5, False)])
    assert table.state.cube_value == value and table.state.phase is bg.Phase.AWAIT_ROLL
    return table


# --- the rules ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("cube", [1, 2, 4])
@pytest.mark.parametrize("value", [1, 2, 3])
def test_an_accepted_resignation_ends_the_game_with_value_times_cube(value: int, cube: int) -> None:
    table = cube_at(cube)
    resigner = table.state.turn
    assert table(bg.Resign(resigner, value)) == []
    assert table.state.resign_offer == (resigner, value)
    assert table(bg.ResignReply(ACCEPT, 1 - resigner)) == []
    winner = 1 - resigner
    expected = [0, 0]
    expected[winner] = value * cube
    assert table.state.score == tuple(expected)
    assert table.state.phase is bg.Phase.OPENING and table.state.resign_offer is None
    game = table.state.games[-1]
    assert (game.winner, game.points, game.resigned) == (winner, value * cube, value)
    fact = next(f for f in table.facts if f.kind == "game")
    assert fact.data["win"] == {1: "single", 2: "gammon", 3: "backgammon"}[value] and fact.data["resigned"]


@pytest.mark.parametrize("value", [1, 2, 3])
def test_a_rejected_resignation_is_play_on(value: int) -> None:
    table = cube_at(2)
    before = table.state
    assert table(bg.Resign(1, value)) == []
    assert table(bg.ResignReply(REJECT, 0)) == []
    assert table.state.resign_offer is None
    assert (table.state.score, table.state.phase, table.state.position) == (
        before.score,
        before.phase,
        before.position,
    )
    assert table(bg.Roll(1, (6, 5))) == []  # play goes on, in turn
    assert finish_turn(table, 1, [(24, 18, False), (18, 13, False)]) == []
    kinds = [a.kind for a in table.state.actions]
    assert kinds[kinds.index("resign") :] == ["resign", "reject", "move"]
    assert table.state.score == (0, 0)


def test_a_resignation_while_a_double_is_offered_counts_the_cube_before_the_double() -> None:
    table = cube_at(2)
    table(bg.Cube(bg.CubeAction.DOUBLE, 1))  # B redoubles to 4; A resigns a gammon instead of answering
    assert table(bg.Resign(0, 2)) == [] and table(bg.ResignReply(ACCEPT, 1)) == []
    assert table.state.score == (0, 4)


def test_resigning_in_the_crawford_game_and_the_post_crawford_game_after_it() -> None:
    table = Table(length=5)
    table.state = bg.initial(5, score=(4, 2))  # resumed where A is one point from the match
    table(bg.Opening((3, 1)))
    assert table.state.crawford
    to_b_roll(table)
    assert table(bg.Resign(0, 3)) == [] and table(bg.ResignReply(ACCEPT, 1)) == []  # backgammon: 3 points
    assert table.state.score == (4, 5) and table.state.winner == 1  # the match is B's

    table = Table(length=5)
    table.state = bg.initial(5, score=(4, 2))
    table(bg.Opening((3, 1)))
    to_b_roll(table)
    assert table(bg.Resign(1, 1)) == [] and table(bg.ResignReply(REJECT, 0)) == []  # play on
    assert table(bg.Resign(1, 2)) == [] and table(bg.ResignReply(ACCEPT, 0)) == []
    assert table.state.score == (6, 2) and table.state.winner == 0

    table = Table(length=5)
    table.state = bg.initial(5, score=(4, 2))
    table(bg.Opening((3, 1)))
    to_b_roll(table)
    table(bg.Resign(0, 1))
    table(bg.ResignReply(ACCEPT, 1))  # B wins the Crawford game: 4-3
    assert table.state.score == (4, 3) and not table.state.crawford and table.state.games[-1].crawford
    table(bg.Opening((3, 1)))
    assert not table.state.crawford and table.state.post_crawford  # the cube is back
    to_b_roll(table)
    assert table(bg.Cube(bg.CubeAction.DOUBLE, 1)) == [] and table(bg.Cube(bg.CubeAction.TAKE, 0)) == []
    assert table(bg.Resign(0, 2)) == [] and table(bg.ResignReply(ACCEPT, 1)) == []
    assert table.state.score == (4, 7) and table.state.winner == 1


@pytest.mark.parametrize(
    ("start", "crawford"), [((0, 0), False), ((3, 1), False), ((4, 1), True), ((1, 4), True), ((4, 4), True)]
)
def test_crawford_is_judged_from_the_starting_score(start: tuple[int, int], crawford: bool) -> None:
    table = Table(length=5)
    table.state = bg.initial(5, score=start)
    table(bg.Opening((3, 1)))
    assert table.state.crawford is crawford
    assert table.state.games == () and table.state.score == start


def test_a_starting_score_not_below_the_length_is_refused() -> None:
    for score in ((5, 0), (0, 7), (-1, 0)):
        with pytest.raises(ValueError, match="starting score"):
            bg.initial(5, score=score)


def test_bad_resignations_are_flagged_and_change_nothing() -> None:
    table = cube_at(2)
    before = table.state
    assert table(bg.Resign(1, 4)) == ["bg.resign_value"]  # a value no resignation has
    assert table(bg.ResignReply(ACCEPT, 0)) == ["bg.resign_no_offer"]  # nothing offered
    table(bg.Resign(1, 1))
    assert table(bg.ResignReply(ACCEPT, 1)) == ["bg.resign_no_offer"]  # the resigner cannot accept
    assert table.state.resign_offer == (1, 1) and table.state.score == before.score
    table(bg.ResignReply(ACCEPT, 0))
    assert table(bg.Resign(1, 2)) == ["bg.resign_no_game"]  # the game has ended
    assert table(bg.ResignReply(REJECT, 0)) == ["bg.resign_no_offer"]
    assert table.state.score == (2, 0)
    table.state = bg.initial(1)
    table(bg.Opening((3, 1)))
    table(bg.Resign(1, 1))
    table(bg.ResignReply(ACCEPT, 0))
    assert table.state.phase is bg.Phase.MATCH_OVER
    assert table(bg.Resign(1, 3)) == ["bg.resign_no_game"]  # after the match, too
    assert table(bg.ResignReply(ACCEPT, 0)) == ["bg.resign_no_offer"]
    assert table.state.score == (1, 0)
    for code in ("bg.resign_value", "bg.resign_no_game", "bg.resign_no_offer"):
        rule = CATALOGUE[code]
        assert rule.en and rule.tr and rule.document.en == "Backgammon Tournament Rules"


def test_an_offer_and_resigned_games_survive_the_state_as_data() -> None:
    table = cube_at(2)
    table(bg.Resign(1, 2))
    assert bg.from_dict(bg.to_dict(table.state)) == table.state
    assert bg.to_dict(table.state)["resign"] == {"side": "B", "value": 2}
    table(bg.ResignReply(ACCEPT, 0))
    data = bg.to_dict(table.state)
    assert bg.from_dict(data) == table.state
    assert data["resign"] is None and data["games"][0]["resigned"] == 2
    assert [m["kind"] for m in data["games"][0]["actions"]][-2:] == ["resign", "accept"]


def test_match_id_and_xgid_after_a_resigned_game_carry_the_new_score_and_crawford() -> None:
    table = Table(length=5)
    table.state = bg.initial(5, score=(2, 1))
    table(bg.Opening((3, 1)))
    to_b_roll(table)
    table(bg.Resign(1, 2))
    table(bg.ResignReply(ACCEPT, 0))  # 4-1: the next game is the Crawford game
    table(bg.Opening((5, 2)))
    x = decode_xgid(bg.xgid(table.state))
    assert x.score == (4, 1) and x.crawford and x.length == 5
    key = decode_match_id(bg.gnubg_id(table.state).split(":")[1])
    assert key.crawford and key.length == 5
    assert key.score == (1, 4)  # gnubg's player 1 is the side on roll (A)


# --- device reports and referee inputs ------------------------------------------------------------------


def test_the_wire_reads_resign_accept_and_reject_and_refuses_value_4_naming_it() -> None:
    assert decode_backgammon_event(
        {"kind": "resign", "data": {"side": 1, "value": 3}}
    ) == BackgammonBoardEvent("resign", {"side": 1, "value": 3})
    for kind in ("accept", "reject"):
        assert decode_backgammon_event({"kind": kind, "data": {"side": 0}}).data == {"side": 0}
    with pytest.raises(BodyError, match=r"event.data \(resign\).value must be 1 \(single\).*got 4"):
        decode_backgammon_event({"kind": "resign", "data": {"side": 1, "value": 4}})
    with pytest.raises(BodyError, match="value"):
        decode_backgammon_event({"kind": "resign", "data": {"side": 1}})


BG = MatchInfo("BG-R", "backgammon", "T5", 1, ("Hakan Yıldız", "Levent Şen"), length=5, start_score=(3, 1))


def fold(info: MatchInfo, inputs: list[tuple[EventKind, dict[str, Any]]]):
    """The match after each input, as the hall folds them (device reports and referee inputs alike)."""
    state = new_match(info)
    for offset, (kind, body) in enumerate(inputs, start=1):
        state = apply_event(state, kind, body, offset, float(offset), None).state
    return state


def report(kind: str, **data: Any) -> tuple[EventKind, dict[str, Any]]:
    return EventKind.DEVICE_REPORT, {
        "report": SPORTS["backgammon"].input_to_dict(BackgammonBoardEvent(kind, data))
    }


def test_a_board_resignation_in_the_hub_scores_from_the_venue_start_score_and_flags_bad_answers() -> None:
    match = fold(
        BG,
        [
            report("opening", dice=[3, 1]),
            report("accept", side=0),  # no offer: flagged, kept
            report("resign", side=1, value=2),
            report("reject", side=0),
            report("resign", side=1, value=1),
            report("accept", side=0),  # 4-1
            report("resign", side=1, value=1),  # between games: flagged
        ],
    )
    assert match.sport_state.score == (4, 1) and match.sport_state.games[0].resigned == 1
    view = console_view(match, at=10.0)
    assert {"resign", "accept", "reject"} <= set(view["offers"])  # the console offers them while it is live
    codes = sorted(a["code"] for a in view["anomalies"])
    assert codes == ["bg.resign_no_game", "bg.resign_no_offer"]
    for anomaly in view["anomalies"]:
        assert anomaly["rule"] is not None
        assert "Hakan Yıldız" in anomaly["message_en"] or "Levent Şen" in anomaly["message_en"]
    assert match.version == 7  # every report kept in the log's order


def test_a_referee_resignation_is_checked_and_rebuilt_and_value_4_is_refused_naming_the_field() -> None:
    match = fold(BG, [report("opening", dice=[3, 1])])
    event = check_input(match, {"type": "resign", "side": 1, "value": 3})
    assert event.body == {"input": {"type": "resign", "side": 1, "value": 3}}
    with pytest.raises(ActionInvalid, match='"value" must be 1'):
        check_input(match, {"type": "resign", "side": 1, "value": 4})
    with pytest.raises(ActionInvalid, match='"value" is missing'):
        check_input(match, {"type": "resign", "side": 1})
    with pytest.raises(ActionInvalid, match="accept takes no 'value'"):
        check_input(match, {"type": "accept", "side": 0, "value": 1})
    match = apply_event(match, event.kind, event.body, 2, 2.0, "referee").state
    accept = check_input(match, {"type": "accept", "side": 0})
    match = apply_event(match, accept.kind, accept.body, 3, 3.0, "referee").state
    assert match.sport_state.score == (6, 1) and match.sport_state.winner == 0  # 3 + a backgammon


# --- the venue file ------------------------------------------------------------------------------------

HALL = Path("hall.toml")
VENUE = """
[venue]
name = "Salon"
[[tables]]
id = "T5"
sport = "backgammon"
device = "socket://127.0.0.1:9"
[[matches]]
id = "BG-1"
table = "T5"
length = 5
{extra}
"""


def test_start_score_in_the_venue_file() -> None:
    venue = parse_venue(VENUE.format(extra="start_score = [3, 1]"), HALL)
    info = venue.matches[0]
    assert info.start_score == (3, 1)
    state = SPORTS["backgammon"].initial(SPORTS["backgammon"].config(info))
    assert state.score == (3, 1) and state.length == 5
    assert parse_venue(VENUE.format(extra=""), HALL).matches[0].start_score == (0, 0)


@pytest.mark.parametrize("bad", ["[5, 1]", "[3]", '["3", 1]', "[-1, 0]", "3", "[true, 0]"])
def test_a_bad_start_score_is_refused_naming_the_line_and_field(bad: str) -> None:
    with pytest.raises(VenueError) as caught:
        parse_venue(VENUE.format(extra=f"start_score = {bad}"), HALL)
    text = str(caught.value)
    assert text.startswith("hall.toml:12: matches[1].start_score: ") and "below the length" in text, text


def test_start_score_is_a_backgammon_key_only() -> None:
    text = VENUE.replace('sport = "backgammon"', 'sport = "tabletennis"').replace("length = 5\n", "")
    with pytest.raises(VenueError, match="start_score is for backgammon matches"):
        parse_venue(text.format(extra="start_score = [1, 0]"), HALL)


# --- boardcast check backgammon ------------------------------------------------------------------------


def test_check_reads_resignations_and_a_starting_score() -> None:
    proc = run_check(
        [
            {"match": {"length": 5, "score": {"A": 3, "B": 1}}},
            {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}},
            {"at": 2, "event": "accept", "side": "A"},
            {"at": 3, "event": "resign", "side": "B", "value": 2},
            {"at": 4, "event": "reject", "side": "A"},
            {"at": 5, "event": "resign", "side": "B", "value": 1},
            {"at": 6, "event": "accept", "side": "A"},
            {"at": 7, "event": "resign", "side": "B", "value": 1},
        ]
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    anomalies = [(o["code"], o["line"]) for o in out if o["type"] == "anomaly"]
    assert anomalies == [("bg.resign_no_offer", 3), ("bg.resign_no_game", 8)]
    game = next(o for o in out if o.get("kind") == "game")
    assert game["resigned"] and game["score"] == {"A": 4, "B": 1} and game["line"] == 7
    assert out[-1] == {"type": "result", "score": {"A": 4, "B": 1}, "winner": None}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"at": 2, "event": "resign", "side": "B", "value": 4}, 'line 3: "value" must be 1 (single)'),
        ({"at": 2, "event": "resign", "side": "B"}, 'line 3: "value"'),
        (
            {"at": 2, "event": "accept", "side": "A", "value": 1},
            'line 3: "value" is not a field of this line',
        ),
        ({"at": 2, "event": "reject", "side": "C"}, 'line 3: "side" must be "A" or "B"'),
    ],
)
def test_check_refuses_an_unreadable_resignation_naming_the_line(line: dict[str, Any], said: str) -> None:
    proc = run_check(
        [{"match": {"length": 5}}, {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}}, line]
    )
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert '"kind": "opening"' in proc.stdout  # what was printed before stays


@pytest.mark.parametrize(
    "score", [{"A": 5, "B": 0}, {"A": 1}, {"A": 1, "B": 1, "C": 0}, {"A": -1, "B": 0}, [3, 1]]
)
def test_check_refuses_a_bad_starting_score_naming_line_1(score: Any) -> None:
    proc = run_check([{"match": {"length": 5, "score": score}}])
    assert proc.returncode == 2 and "line 1: " in proc.stderr and "match.score" in proc.stderr, proc.stderr


def test_the_first_opening_line_may_carry_the_starting_score_and_later_ones_must_agree() -> None:
    opening = {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}, "score": {"A": 4, "B": 1}}
    proc = run_check(
        [
            {"match": {"length": 5}},
            opening,
            {"at": 2, "event": "resign", "side": "B", "value": 1},
            {"at": 3, "event": "accept", "side": "A"},
        ]
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[-1]["score"] == {"A": 5, "B": 1} and out[-1]["winner"] == "A"  # 4-1 in a 5: the Crawford game
    wrong = {"at": 4, "event": "opening", "dice": {"A": 6, "B": 2}, "score": {"A": 0, "B": 0}}
    proc = run_check(
        [
            {"match": {"length": 7}},
            {**opening, "score": {"A": 2, "B": 1}},
            {"at": 2, "event": "resign", "side": "B", "value": 1},
            {"at": 3, "event": "accept", "side": "A"},
            wrong,
        ]
    )
    assert proc.returncode == 2 and "line 5: " in proc.stderr and "stands at A 3, B 1" in proc.stderr, (
        proc.stderr
    )
    proc = run_check([{"match": {"length": 5}}, {**opening, "score": {"A": 5, "B": 0}}])
    assert proc.returncode == 2 and "line 2: " in proc.stderr and "below the length 5" in proc.stderr


# --- the .mat read back by GNU Backgammon ------------------------------------------------------------------


def resigning_match(seed: int, length: int, start: tuple[int, int]) -> bg.BackgammonState:
    """A match of random legal plays, doubles and takes where the first, third… games mostly end by a
    resignation (some refused first) and the others are played out, starting at `start`."""
    rng = random.Random(seed)
    state = bg.initial(length, score=start)
    t = 0.0

    def send(event: bg.Event) -> None:
        nonlocal state, t
        t += 1
        out = bg.apply(state, event, t)
        assert out.anomalies == (), (event, out.anomalies)
        state = out.state

    while state.phase is not bg.Phase.MATCH_OVER:
        if state.phase is bg.Phase.OPENING:
            a, b = rng.sample(range(1, 7), 2)
            send(bg.Opening((a, b)))
            continue
        side = state.turn
        if state.phase is bg.Phase.AWAIT_ROLL:
            moves = sum(1 for a in state.actions if a.kind == "move")
            if moves >= 4 and len(state.games) % 2 == 0 and rng.random() < 0.25:  # odd games played out
                resigner = rng.randrange(2)
                send(bg.Resign(resigner, (seed + len(state.games)) % 3 + 1))  # game by game, each value
                send(bg.ResignReply(REJECT if rng.random() < 0.3 else ACCEPT, 1 - resigner))
                continue
            if (
                not state.crawford
                and state.cube_owner in (None, side)
                and state.cube_value < 4
                and rng.random() < 0.1
            ):
                send(bg.Cube(bg.CubeAction.DOUBLE, side))
                send(bg.Cube(bg.CubeAction.TAKE, 1 - side))
                continue
            send(bg.Roll(side, (rng.randint(1, 6), rng.randint(1, 6))))
            continue
        assert state.turn_start is not None and state.dice is not None
        plays = bg.legal_plays(state.turn_start, *state.dice)
        if plays:
            result = rng.choice(plays).result
            send(bg.BoardSnapshot(result.points, result.bar, result.off))
        if state.phase is bg.Phase.MOVING:
            send(bg.ClockPress(side))
    return state


def test_gnubg_reads_our_mat_of_resigned_games_to_the_same_score(tmp_path: Path) -> None:
    terms = ((1, 11, (0, 0)), (2, 7, (3, 5)), (3, 7, (6, 2)), (4, 9, (0, 0)))
    matches = [resigning_match(seed, length, start) for seed, length, start in terms]
    games = [g for m in matches for g in m.games]
    resigned = [g for g in games if g.resigned]
    assert (
        len(resigned) >= 5 and {g.resigned for g in resigned} == {1, 2, 3} and len(games) - len(resigned) >= 3
    )
    assert any(g.crawford and g.resigned for g in games) and any(g.crawford and not g.resigned for g in games)
    assert any(a.kind == "reject" for m in matches for g in m.games for a in g.actions)
    files = []
    for i, state in enumerate(matches):
        mat = tmp_path / f"match{i}.mat"
        mat.write_text(match_to_mat(state))
        files.append(str(mat))
    script = f"""
    import gnubg
    for path in {files!r}:
        gnubg.command('import mat ' + path)
        for g in gnubg.match()['games']:
            i = g['info']
            print('RES', path, i['score-X'], i['score-O'], i.get('winner'), i.get('points-won'), i.get('resigned', False))
    """
    lines = run_gnubg_python(script, tmp_path)
    for path, state in zip(files, matches, strict=True):
        theirs = [line.split()[1:] for line in lines if line.split()[0] == path]
        assert len(theirs) == len(state.games)
        for row, game in zip(theirs, state.games, strict=True):
            x, o, winner, points, was_resigned = row
            assert (int(x), int(o)) == game.score_before
            assert winner == ("X", "O")[game.winner] and int(points) == game.points
            assert (was_resigned == "True") == bool(game.resigned), (row, game)
        last = state.games[-1]
        final = list(last.score_before)
        final[last.winner] += last.points
        assert tuple(final) == state.score  # gnubg's last game plus its points: our final score


def test_gnubg_shows_the_same_match_id_while_a_resignation_is_offered(tmp_path: Path) -> None:
    """gnubg `set xgid` to the position before the offer, then `resign …` by the side on roll: its GNUbgID
    is ours for the state with the offer standing (value and the answering side in the Match ID)."""
    cases = []
    for cube, roll_first, value in ((1, False, 1), (2, False, 2), (4, True, 3), (2, True, 1)):
        table = cube_at(cube)
        if roll_first:
            table(bg.Roll(table.state.turn, (5, 2)))
        before = bg.xgid(table.state)
        assert table(bg.Resign(table.state.turn, value)) == []
        cases.append((before, ("single", "gammon", "backgammon")[value - 1], bg.gnubg_id(table.state)))
    script = f"""
    import gnubg
    for c in ('set player 0 human', 'set player 1 human', 'new match 15'):
        gnubg.command(c)
    for xgid, word, _ in {cases!r}:
        gnubg.command('set xgid ' + xgid)
        gnubg.command('resign ' + word)
        print('RES', gnubg.positionid() + ':' + gnubg.matchid())
    """
    theirs = run_gnubg_python(script, tmp_path)
    assert len(theirs) == len(cases)
    for (_, _, ours), text in zip(cases, theirs, strict=True):
        pid, mid = text.split(":")
        assert pid == ours.split(":")[0]
        key = decode_match_id(mid)
        assert key == decode_match_id(ours.split(":")[1]) and key.resigned in (1, 2, 3)  # bit 67 aside
