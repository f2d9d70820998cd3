"""`boardcast check tabletennis FILE` through a real process: JSON lines in, JSON lines out, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def check(path: Path | str, stdin: str | None = None) -> tuple[int, list[dict], str]:
    done = subprocess.run(
        [sys.executable, "-m", "hub", "check", "tabletennis", str(path)],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def write(tmp_path: Path, lines: list[dict | str]) -> Path:
    path = tmp_path / "match.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def serving(first: str, game: int, a: int, b: int) -> str:
    """Singles ITTF: the first server alternates by game; service changes every 2 points, every point from 10-10."""
    game_first = first if game % 2 == 1 else ("B" if first == "A" else "A")
    changes = (a + b) // 2 if (a + b) < 20 else 10 + (a + b - 20)
    return game_first if changes % 2 == 0 else ("B" if game_first == "A" else "A")


def clean_match(games: list[tuple[int, int]], best_of: int = 3, first: str = "A") -> list[dict]:
    """Report lines of a legal match: one per rally, one per new game, indicators right."""
    lines: list[dict] = [
        {"match": {"best_of": best_of, "doubles": False, "first_server": first, "ruleset": "ittf"}}
    ]
    at = 0.0
    won = [0, 0]
    for number, (a, b) in enumerate(games, start=1):
        winner = 0 if a > b else 1
        order = [1 - winner, winner] * min(a, b) + [winner] * abs(a - b)
        points = [0, 0]
        swapped, reached_five = number % 2 == 0, False  # ends change after each game
        lines.append(
            {
                "at": at,
                "score": [0, 0],
                "games": list(won),
                "server": serving(first, number, 0, 0),
                "ends": "swapped" if swapped else "normal",
            }
        )
        for side in order:
            at += 4.0
            points[side] += 1
            if number == best_of and not reached_five and max(points) == 5:
                reached_five, swapped = True, not swapped  # ends change at 5 in the last possible game
            line = {
                "at": at,
                "score": list(points),
                "games": list(won),
                "ends": "swapped" if swapped else "normal",
            }
            if not (max(points) >= 11 and abs(points[0] - points[1]) >= 2):
                line["server"] = serving(first, number, *points)
            lines.append(line)
        won[winner] += 1
        at += 30.0
    lines.append({"at": at, "score": [0, 0], "games": list(won)})
    return lines


def test_a_clean_match_prints_no_anomaly_and_the_result(tmp_path: Path) -> None:
    lines = clean_match([(11, 7), (4, 11), (11, 9)])
    lines.insert(5, {"at": 14.5, "event": "timeout", "side": "B"})
    lines.insert(9, {"at": 25.5, "event": "card", "side": "A", "card": "yellow"})
    code, out, err = check(write(tmp_path, lines))
    assert code == 0, err
    assert [o for o in out if o["type"] == "anomaly"] == []
    assert out[-1] == {
        "type": "result",
        "games": [2, 1],
        "scores": [[11, 7], [4, 11], [11, 9]],
        "winner": "A",
    }
    facts = [o for o in out if o["type"] == "fact"]
    assert sum(1 for f in facts if f["kind"] == "point") == 11 + 7 + 4 + 11 + 11 + 9
    assert {"timeout", "card", "game", "match"} <= {f["kind"] for f in facts}


def test_a_match_with_errors_prints_each_anomaly_with_its_code_line_and_time(tmp_path: Path) -> None:
    lines: list[dict] = [
        {"match": {"best_of": 3, "doubles": False, "first_server": "A", "ruleset": "ittf"}},
        {"at": 0, "score": [0, 0], "games": [0, 0], "server": "A"},
        {"at": 4, "score": [1, 0], "games": [0, 0], "server": "A"},
        {"at": 8, "score": [3, 0], "games": [0, 0]},  # two points in one report
        {"at": 12, "score": [4, 0], "games": [0, 0], "server": "B"},  # 4 played: A serves
        {"at": 13, "event": "timeout", "side": "A"},
        {"at": 14, "event": "timeout", "side": "A"},
        {"at": 15, "score": [3, 0], "games": [0, 0]},  # down with no correction
        {"at": 16, "event": "card", "side": "B", "card": "yellow_red"},
        {"at": 20, "score": [4, 0], "games": [0, 0]},  # the penalty point, shown: fine
        {"at": 24, "score": [0, 0], "games": [1, 0]},  # game given at 4-0
        {"at": 30, "event": "expedite", "ball_in_play": True},
        {"at": 34, "score": [0, 0], "games": [1, 0], "expedite": True},
        {"at": 40, "score": [0, 0], "games": [2, 1]},
    ]
    code, out, err = check(write(tmp_path, lines))
    assert code == 0, err
    anomalies = [(o["code"], o["line"]) for o in out if o["type"] == "anomaly"]
    assert anomalies == [
        ("tt.score_jump", 4),
        ("tt.wrong_server", 5),
        ("tt.second_timeout", 7),
        ("tt.score_decrease", 8),
        ("tt.penalty_without_warning", 9),
        ("tt.illegal_game_end", 11),
        ("tt.games_mismatch", 14),
    ]
    first = next(o for o in out if o["type"] == "anomaly")
    assert first["at"] == 8.0 and "1-0" in first["message"] and first["message_tr"]
    assert out[-1]["type"] == "result" and out[-1]["games"] == [2, 1] and out[-1]["winner"] == "A"


def test_an_unfinished_match_has_a_null_winner_and_stdin_works() -> None:
    text = "\n".join(
        json.dumps(line)
        for line in [
            {"match": {"best_of": 5}},
            {"at": 1, "score": [0, 0], "games": [0, 0]},
            {"at": 5, "score": [1, 0], "games": [0, 0]},
        ]
    )
    code, out, _ = check("-", stdin=text)
    assert code == 0
    assert out[0]["type"] == "fact" and out[0]["kind"] == "toss" and out[0]["source"] == "assumed"
    assert out[-1] == {"type": "result", "games": [0, 0], "scores": [], "winner": None}


def test_doubles_with_players_and_a_wrong_server_player(tmp_path: Path) -> None:
    match = {
        "best_of": 3,
        "doubles": True,
        "players": {"A": ["A1", "A2"], "B": ["B1", "B2"]},
        "first_server": "A1",
        "first_receiver": "B1",
    }
    lines = [
        {"match": match},
        {"at": 0, "score": [0, 0], "games": [0, 0], "server": "A1"},
        {"at": 4, "score": [1, 0], "games": [0, 0], "server": "A1"},
        {"at": 8, "score": [2, 0], "games": [0, 0], "server": "B2"},  # B1 serves (2.13.5)
    ]
    code, out, err = check(write(tmp_path, lines))
    assert code == 0, err
    assert [(o["code"], o["line"]) for o in out if o["type"] == "anomaly"] == [("tt.wrong_server", 4)]


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ('{"at": 8, "score": [2, 0], "games": [0, 0]', "line 3: not JSON"),
        ('{"score": [2, 0], "games": [0, 0]}', 'line 3: "at" is missing'),
        ('{"at": 8, "score": "2-0", "games": [0, 0]}', 'line 3: "score" must be two non-negative integers'),
        ('{"at": 8, "event": "timeout", "side": 0}', 'line 3: "side" must be "A" or "B"'),
        ('{"at": 8, "event": "card", "side": "A", "card": "green"}', 'line 3: "card" must be one of'),
        ("[1, 2]", "line 3: must be a JSON object"),
        ('{"at": 8, "score": [2, 0], "games": [0, 0], "sever": "A"}', 'line 3: "sever" is not a field'),
        ('{"at": 8, "evnt": "timeout", "side": "A"}', 'line 3: "evnt" is not a field'),
    ],
)
def test_unreadable_input_exits_2_naming_the_line_and_keeps_what_was_printed(
    tmp_path: Path, bad: str, says: str
) -> None:
    lines = [{"match": {"best_of": 3, "first_server": "A"}}, {"at": 4, "score": [1, 0], "games": [0, 0]}, bad]
    code, out, err = check(write(tmp_path, lines))
    assert code == 2
    assert says in err
    assert [o["kind"] for o in out] == ["point"]  # line 2's fact was printed before the bad line


def test_bytes_that_are_not_utf8_exit_2_naming_their_line_after_what_came_before(tmp_path: Path) -> None:
    good = [{"match": {"best_of": 3, "first_server": "A"}}, {"at": 4, "score": [1, 0], "games": [0, 0]}]
    path = write(tmp_path, good)
    path.write_bytes(path.read_bytes() + b'{"at": 8, "score": [2, 0], "games": [0, 0], "ends": "\xed\xa0"}\n')
    code, out, err = check(path)
    assert code == 2 and "line 3: not UTF-8 text (byte 0xed" in err
    assert [o["kind"] for o in out] == ["point"]


def test_a_misspelt_match_key_is_named_with_the_keys_it_may_be(tmp_path: Path) -> None:
    code, out, err = check(write(tmp_path, [{"match": {"best_of": 3, "frist_server": "A"}}]))
    assert code == 2 and out == []
    assert '"match.frist_server" is not a field' in err and "first_server" in err


def test_a_missing_match_line_exits_2(tmp_path: Path) -> None:
    code, out, err = check(write(tmp_path, [{"at": 1, "score": [0, 0], "games": [0, 0]}]))
    assert code == 2 and "line 1" in err and '"match"' in err and out == []


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    code, _, err = check(tmp_path / "nope.jsonl")
    assert code == 2 and "nope.jsonl" in err
