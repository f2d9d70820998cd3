"""A round's results back out: the last round of a published Swiss (held_swiss_9) is blanked, played again in a
real hub (the arbiter's result and confirm actions over HTTP), and exported from the data directory while the
hub runs: the report file read back by our reader and by the independent `trf` reader from PyPI gives the
published round and totals; official results only unless --live; PGN and CSV too; each refusal is one line."""

from __future__ import annotations

import argparse
import asyncio
import csv
import hashlib
import io
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path

import chess.pgn
import pytest
import trf

from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.log.eventlog import LOG_FILE, EventLog
from hub.matches import EventKind, MatchInfo, MatchStatus, new_match
from hub.referee import prepare
from hub.referee.tokens import hash_token
from hub.rules.backgammon.state import BackgammonState, GameRecord, Phase
from hub.tournament.export import ExportError, round_csv, trf_with_round
from hub.tournament.export_cli import add_export_parser, run_round_export
from hub.tournament.hallresults import round_results
from hub.tournament.model import Outcome, Tournament
from hub.tournament.trf import load_trf, parse_trf
from hub.venue import load_venue
from tests.hubsupport import REFEREE_TOKEN, post_json, running_hub
from tests.test_referee_workflow import tt_reports

HELD = Path(__file__).resolve().parents[1] / "fixtures" / "trf" / "held_swiss_9.trf"
ROUND = 9
RESULTS = {Outcome.WIN: "1-0", Outcome.LOSS: "0-1", Outcome.DRAW: "1/2-1/2"}
CONFIRMED = 5  # the first five games (by id) are confirmed; the other three wait
RESULT_COLUMN = 91 + 10 * (ROUND - 1) + 7  # round 9's result character on a 001 line


def blanked(original: Tournament, text: str) -> str:
    """The file as the pairing program wrote it once round 9 was paired: no results, totals after round 8."""
    lines = []
    for line in text.splitlines():
        if line.startswith("001"):
            player = original.players[int(line[4:8])]
            chars = list(line.ljust(RESULT_COLUMN + 1))
            chars[RESULT_COLUMN] = " "
            chars[80:84] = f"{float(player.points(ROUND - 1)):>4.1f}"
            line = "".join(chars)
        lines.append(line)
    return "\n".join(lines) + "\n"


def round_games(original: Tournament) -> list[tuple[int, int, str]]:
    """Round 9 of the published file as (White, Black, result), White's starting rank first."""
    games = []
    for number, player in sorted(original.players.items()):
        entry = player.entry(ROUND)
        assert entry is not None and entry.opponent is not None
        if entry.colour.value == "w":
            games.append((number, entry.opponent, RESULTS[entry.outcome]))
    return games


def venue_text(original: Tournament, games: list[tuple[int, int, str]], tournament: bool = True) -> str:
    """A hall: round 9's chess games with their pairing, a round-1 chess game, table tennis, backgammon."""
    name = {n: p.name for n, p in original.players.items()}
    parts = ['[venue]\nname = "Held Open"\n']
    if tournament:
        parts.append('[tournament]\ntrf = "event.trf"\n')
    for n in range(1, len(games) + 1):
        parts.append(f'[[tables]]\nid = "C{n}"\nsport = "chess"\n')
    parts.append(
        '[[tables]]\nid = "T1"\nsport = "tabletennis"\n\n[[tables]]\nid = "T2"\nsport = "tabletennis"\n'
    )
    parts.append('[[tables]]\nid = "B1"\nsport = "backgammon"\n')
    for n, (white, black, _) in enumerate(games, start=1):
        parts.append(
            f'[[matches]]\nid = "G{n}"\ntable = "C{n}"\nround = {ROUND}\nplayers = ["{name[white]}", '
            f'"{name[black]}"]\npairing = [{white}, {black}]\ntime_control = "5400+30"\n'
        )
    parts.append('[[matches]]\nid = "G0"\ntable = "C1"\nround = 1\nplayers = ["Alyx", "Bruno"]\n')
    parts.append(
        f'[[matches]]\nid = "TT9"\ntable = "T1"\nround = {ROUND}\nplayers = ["Ayşe Yılmaz", "Elif Kaya"]\n'
        f"best_of = 3\n"
    )
    parts.append(
        f'[[matches]]\nid = "TT9-D"\ntable = "T2"\nround = {ROUND}\ndoubles = true\n'
        f'players = ["Ali", "Veli", "Can", "Cem"]\nfirst_server = "A1"\nfirst_receiver = "B1"\n'
    )
    parts.append(
        f'[[matches]]\nid = "BG9"\ntable = "B1"\nround = {ROUND}\nplayers = ["Hakan", "Levent"]\nlength = 5\n'
    )
    parts.append(
        '[[matches]]\nid = "TT10"\ntable = "T1"\nround = 10\nplayers = ["Ayşe Yılmaz", "Elif Kaya"]\n'
    )
    parts.append(
        f'[[referees]]\nname = "Hakem"\nrole = "chief"\ntoken_sha256 = "{hash_token(REFEREE_TOKEN)}"\n'
    )
    return "\n".join(parts)


@pytest.fixture
def hall_files(tmp_path: Path) -> tuple[Path, Tournament, list[tuple[int, int, str]]]:
    """The venue file, the blanked report file beside it; the published tournament and its round 9."""
    text = HELD.read_text(encoding="utf-8")
    original = parse_trf(text, str(HELD))
    games = round_games(original)
    (tmp_path / "event.trf").write_text(blanked(original, text), encoding="utf-8")
    venue_file = tmp_path / "hall.toml"
    venue_file.write_text(venue_text(original, games), encoding="utf-8")
    return venue_file, original, games


def export(*argv: str) -> int:
    """`boardcast round export ARGV`, in this process, as the command line's `round` command runs it."""
    parser = argparse.ArgumentParser(prog="boardcast")
    commands = parser.add_subparsers(dest="command")
    round_command = commands.add_parser("round")
    add_export_parser(round_command.add_subparsers(dest="round_command", required=True))
    args = parser.parse_args(["round", "export", *argv])
    assert args.handler is run_round_export
    return int(args.handler(args))


EXPORT_PROCESS = """
import argparse, sys
from hub.tournament.export_cli import add_export_parser
parser = argparse.ArgumentParser(prog="boardcast")
add_export_parser(parser.add_subparsers(dest="round_command"))
args = parser.parse_args(sys.argv[1:])
sys.exit(args.handler(args))
"""


def export_process(*argv: str) -> subprocess.CompletedProcess[str]:
    """The same export in a process of its own, as a second program beside a running hub."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-c", EXPORT_PROCESS, "export", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def get_text(url: str, token: str | None = REFEREE_TOKEN) -> str:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(response.read().decode())


async def play_table_tennis_before(data: Path, venue_file: Path) -> None:
    """TT9 played to its end (11-0, 11-0) by its scoreboard through a hall and log, before the hub starts."""
    eventlog = EventLog(data / LOG_FILE)
    eventlog.open()
    hall = Hall(load_venue(venue_file), eventlog, Fanout())
    hall.load()
    eventlog.start()
    for i, report in enumerate(tt_reports(winner=0, best_of=3)):
        hall.record("TT9", EventKind.DEVICE_REPORT, {"report": report}, 1000.0 + i)
    await eventlog.close()


async def act(url: str, match_id: str, body: dict[str, object]) -> None:
    status, answer = await asyncio.to_thread(post_json, f"{url}api/matches/{match_id}/actions", body)
    assert status == 200, answer


def log_bytes(data: Path) -> dict[str, str]:
    """What the log holds on disk (the file and its WAL; readers mark the -shm index, which holds no data)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (data / LOG_FILE, data / f"{LOG_FILE}-wal")
        if p.exists()
    }


def players_round(tournament: Tournament) -> dict[int, tuple[int | None, str, str]]:
    """Each player's round 9: opponent, colour, result code."""
    out = {}
    for number, player in tournament.players.items():
        entry = player.entry(ROUND)
        assert entry is not None
        out[number] = (entry.opponent, entry.colour.value, entry.outcome.value)
    return out


def independent_round(text: str) -> dict[int, tuple[int, str, str, float] | None]:
    """The `trf` package's reading of each player's round 9 (opponent, colour, result) and total; None where
    it reads no round 9 (it drops a last round paired and not yet played)."""
    read = trf.load(io.StringIO(text))
    return {
        p.startrank: (
            (p.games[ROUND - 1].startrank, p.games[ROUND - 1].color, p.games[ROUND - 1].result, p.points)
            if len(p.games) >= ROUND
            else None
        )
        for p in read.players
    }


async def test_round_9_played_again_in_the_hall_exports_as_published(
    tmp_path: Path,
    hall_files: tuple[Path, Tournament, list[tuple[int, int, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    venue_file, original, games = hall_files
    data = tmp_path / "data"
    await play_table_tennis_before(data, venue_file)
    async with running_hub(tmp_path, load_venue(venue_file)) as url:
        for n, (_, _, result) in enumerate(games, start=1):
            how = "agreement" if result == "1/2-1/2" else "resignation"
            await act(url, f"G{n}", {"action": "result", "result": result, "how": how, "reason": "sheet"})
        for n in range(1, CONFIRMED + 1):
            await act(url, f"G{n}", {"action": "confirm"})
        await act(url, "TT9", {"action": "confirm"})
        await act(url, "BG9", {"action": "forfeit", "loser": 1, "reason": "did not come"})
        before = log_bytes(data)

        async def exported(fmt: str, out: Path, *extra: str, data: Path | None = data) -> int:
            where = ("--data", str(data)) if data is not None else ()  # None: the default, as `serve`'s
            args = ("--round", "9", "--format", fmt, "--venue", str(venue_file), "--output", str(out))
            return await asyncio.to_thread(export, *args, *where, *extra)

        # official only, from a process of its own while the hub runs
        done = await asyncio.to_thread(
            export_process, "--round", "9", "--format", "trf", "--venue", str(venue_file), "--data", str(data)
        )
        assert done.returncode == 0, done.stderr
        assert "5 written, 3 blank (not confirmed), 0 blank (not finished)" in done.stderr
        official = parse_trf(done.stdout, "official")
        expected = players_round(original)
        confirmed = {n for w, b, _ in games[:CONFIRMED] for n in (w, b)}
        for number, (opponent, colour, code) in players_round(official).items():
            assert (opponent, colour) == expected[number][:2]
            assert code == (expected[number][2] if number in confirmed else " ")
            player = official.players[number]
            assert player.stated_points == player.points()  # the total counts what is written
            assert player.points(ROUND - 1) == original.players[number].points(ROUND - 1)
        independent = independent_round(done.stdout)  # it reads the file with round 9's blanks
        assert {n for n, r in independent.items() if r is not None} == confirmed
        for number in confirmed:
            assert independent[number] == (*expected[number], float(official.players[number].points()))

        # --live: every result stands; the file is the published one, byte for byte
        live_file = tmp_path / "live.trf"
        assert await exported("trf", live_file, "--live") == 0
        assert "8 written, 0 blank (not confirmed), 0 blank (not finished)" in capsys.readouterr().err
        live = load_trf(live_file)
        assert players_round(live) == expected
        assert {n: p.stated_points for n, p in live.players.items()} == {
            n: p.stated_points for n, p in original.players.items()
        }
        assert all(p.points() == p.stated_points for p in live.players.values())
        assert live_file.read_text(encoding="utf-8") == HELD.read_text(encoding="utf-8")
        independent = independent_round(live_file.read_text(encoding="utf-8"))
        published = {
            n: (e[0], e[1], e[2], float(original.players[n].stated_points or 0)) for n, e in expected.items()
        }
        assert independent == published

        # the same reads over HTTP, at request time; the report file (dates of birth, FIDE ids) for referees only
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(get_text, url + "api/rounds/9/export.trf", None)
        assert refused.value.code == 401
        assert await asyncio.to_thread(get_text, url + "api/rounds/9/export.trf") == done.stdout
        assert await asyncio.to_thread(
            get_text, url + "api/rounds/9/export.trf?live=1"
        ) == live_file.read_text(encoding="utf-8")

        # PGN: the official games, or every one
        pgn_file = tmp_path / "round.pgn"
        assert await exported("pgn", pgn_file) == 0
        assert pgn_headers(pgn_file.read_text()) == [
            (f"{ROUND}", r, "official") for _, _, r in games[:CONFIRMED]
        ]
        assert await exported("pgn", pgn_file, "--live") == 0
        assert [h[1] for h in pgn_headers(pgn_file.read_text())] == [r for _, _, r in games]

        # CSV: table tennis and backgammon; the default data directory is `serve`'s, VENUE-data
        (tmp_path / "hall-data").symlink_to(data)
        csv_file = tmp_path / "round.csv"
        assert await exported("csv", csv_file, data=None) == 0
        rows = list(csv.DictReader(io.StringIO(csv_file.read_text())))
        assert [r["match"] for r in rows] == ["BG9", "TT9", "TT9-D"]
        bg, tt, doubles = rows
        assert (bg["score"], bg["games_or_points"], bg["status"], bg["official"]) == (
            "5-0",
            "",
            "forfeit",
            "true",
        )
        assert (tt["player_a"], tt["player_b"], tt["partner_a"]) == ("Ayşe Yılmaz", "Elif Kaya", "")
        assert (tt["score"], tt["games_or_points"], tt["status"], tt["official"]) == (
            "2-0",
            "11-0 11-0",
            "official",
            "true",
        )
        assert [doubles[k] for k in ("player_a", "partner_a", "player_b", "partner_b")] == [
            "Ali",
            "Veli",
            "Can",
            "Cem",
        ]
        assert (doubles["score"], doubles["status"], doubles["official"]) == ("", "scheduled", "false")
        assert await asyncio.to_thread(get_text, url + "api/rounds/9/export.csv") == csv_file.read_text()
        assert log_bytes(data) == before  # the exports wrote nothing to the hub's log


def pgn_headers(text: str) -> list[tuple[str, str, str]]:
    """Each game's round, result and status, in file order."""
    found = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        found.append((game.headers["Round"], game.headers["Result"], game.headers["Status"]))
    return found


async def test_forfeits_are_written_as_the_report_file_writes_them_and_the_log_is_only_read(
    tmp_path: Path, hall_files: tuple[Path, Tournament, list[tuple[int, int, str]]]
) -> None:
    venue_file, original, games = hall_files
    venue = load_venue(venue_file)
    white_won = next(n for n, g in enumerate(games, start=1) if g[2] == "1-0")
    black_won = next(n for n, g in enumerate(games, start=1) if g[2] == "0-1")
    data = tmp_path / "hall-data"
    eventlog = EventLog(data / LOG_FILE)
    eventlog.open()
    hall = Hall(venue, eventlog, Fanout())
    hall.load()
    eventlog.start()
    steps = [  # a no-show declared by the referee; a player too late (FIDE Laws 6.7) by the `result` action
        (f"G{white_won}", {"action": "forfeit", "loser": 1, "reason": "did not come"}),
        (f"G{black_won}", {"action": "result", "result": "0-1", "how": "forfeit", "reason": "late"}),
        (f"G{black_won}", {"action": "confirm"}),
    ]
    for at, (match_id, request) in enumerate(steps, start=100):
        event = prepare(hall.working[match_id], request, role="chief", at=float(at))
        await hall.record(match_id, event.kind, event.body, float(at), actor="Hakem")
    results = round_results(hall.matches(), ROUND, live=False)
    assert sorted(results.games) == sorted(
        [(*games[white_won - 1][:2], "1-0F"), (*games[black_won - 1][:2], "0-1F")]
    )
    assert (len(results.unconfirmed), len(results.unfinished)) == (0, len(games) - 2)
    await eventlog.close()  # no hub now: the export still only reads
    before = {p.name: p.read_bytes() for p in data.iterdir()}

    out = tmp_path / "forfeits.trf"
    assert export("--round", "9", "--format", "trf", "--venue", str(venue_file), "--output", str(out)) == 0
    after = {p.name: p.read_bytes() for p in data.iterdir()}
    assert after[LOG_FILE] == before[LOG_FILE]
    # SQLite's WAL reader makes the -wal (empty) and -shm (its index) the hub keeps beside the log anyway,
    # private as the log is
    assert set(after) - set(before) <= {f"{LOG_FILE}-wal", f"{LOG_FILE}-shm"}
    assert after.get(f"{LOG_FILE}-wal", b"") == b""
    assert {(p.stat().st_mode & 0o777) for p in data.iterdir()} == {0o600}
    written = load_trf(out)
    independent = independent_round(out.read_text(encoding="utf-8"))
    for n, code in ((white_won, ("+", "-")), (black_won, ("-", "+"))):
        white, black, _ = games[n - 1]
        assert players_round(written)[white] == (black, "w", code[0])
        assert players_round(written)[black] == (white, "b", code[1])
        for number, mine in ((white, code[0]), (black, code[1])):
            published = original.players[number].stated_points
            assert written.players[number].stated_points == published  # a forfeit scores as the game did
            assert independent[number] is not None and independent[number][2:] == (
                mine,
                float(published or 0),
            )


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run an export that must be refused: exit 2, nothing on stdout, one line in English and Turkish."""
    assert export(*argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and " / " in captured.err, captured
    return captured.err


def test_each_export_the_hall_cannot_give_is_refused_in_one_line(
    tmp_path: Path,
    hall_files: tuple[Path, Tournament, list[tuple[int, int, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    venue_file, original, games = hall_files
    bare = tmp_path / "bare.toml"
    bare.write_text(venue_text(original, games, tournament=False), encoding="utf-8")
    nowhere = tmp_path / "nowhere"
    venue = ("--venue", str(venue_file), "--data", str(nowhere))
    assert "[tournament]" in refusal(capsys, "--round", "9", "--format", "trf", "--venue", str(bare))
    assert "round 11 has no matches" in refusal(capsys, "--round", "11", "--format", "pgn", *venue)
    assert "no event log" in refusal(capsys, "--round", "9", "--format", "trf", *venue)
    assert not nowhere.exists()  # nothing made
    assert "only chess" in refusal(capsys, "--round", "1", "--format", "csv", *venue)
    assert "only table tennis" in refusal(capsys, "--round", "10", "--format", "trf", *venue)
    assert "use csv" in refusal(capsys, "--round", "10", "--format", "pgn", *venue)


def test_a_game_the_report_file_cannot_take_is_refused_naming_it(
    hall_files: tuple[Path, Tournament, list[tuple[int, int, str]]],
) -> None:
    venue_file, _, games = hall_files
    paired = load_trf(venue_file.parent / "event.trf")
    white, black, _ = games[0]
    other = next(n for n in paired.players if n not in (white, black))
    with pytest.raises(ExportError, match="the report file with"):  # not the file's pairing of round 9
        trf_with_round(paired, [(white, other, "1-0")], ROUND)
    with pytest.raises(ExportError, match="99 is not a player"):
        trf_with_round(paired, [(99, black, "1-0")], ROUND)
    with pytest.raises(ExportError, match="two games"):
        trf_with_round(paired, [(white, black, "1-0"), (white, black, "0-1")], ROUND)


def test_a_backgammon_match_lists_each_games_points_and_waits_for_confirmation() -> None:
    info = MatchInfo("BG", "backgammon", "B1", 3, ("Hakan", "Levent"), length=3)
    games = (
        GameRecord(1, (0, 0), (), 0, 2),
        GameRecord(2, (2, 0), (), 1, 1),
        GameRecord(3, (2, 1), (), 0, 1),
    )
    played = replace(
        new_match(info),
        sport_state=BackgammonState(length=3, score=(3, 1), phase=Phase.MATCH_OVER, games=games, winner=0),
        status=MatchStatus.FINISHED,
    )
    waiting = next(csv.DictReader(io.StringIO(round_csv([played], 3, live=False))))
    assert (waiting["score"], waiting["games_or_points"], waiting["status"]) == ("", "", "finished")
    live = next(csv.DictReader(io.StringIO(round_csv([played], 3, live=True))))
    assert (live["score"], live["games_or_points"], live["official"]) == ("3-1", "2-0 0-1 1-0", "false")
    assert "partner_a" not in live
