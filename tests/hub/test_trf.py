"""The report file reader and writer (`hub.tournament.trf`): encodings and line breaks kept byte for byte,
and each malformed line refused at its line and column."""

from __future__ import annotations

import asyncio
import codecs
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from hub.referee.tokens import hash_token
from hub.tournament.export import ExportFormat, export_round_file, trf_with_round
from hub.tournament.model import LineEnding, TextEncoding
from hub.tournament.trf import TrfError, load_trf, parse_trf, write_round
from hub.venue import load_venue
from tests.hub.test_round_export import export
from tests.hubsupport import REFEREE_TOKEN, running_hub

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "boardcast_sim" / "games" / "demo.trf"
FIXTURES = ROOT / "tests" / "fixtures" / "trf"
SWISS = FIXTURES / "held_swiss_5.trf"
TURKISH = {28: "İlker Şahin", 16: "Defne Işık", 2: "Kaan Erdoğan", 32: "Lale Çınar"}


def turkish_windows_copy(tmp_path: Path) -> tuple[Path, bytes]:
    """demo.trf as a Turkish Windows pairing program writes it: Windows-1254, CRLF."""
    text = DEMO.read_text(encoding="utf-8").replace("\n", "\r\n")
    data = codecs.encode(text, "cp1254")
    assert data.decode("utf-8", errors="replace") != text  # not UTF-8: the reader must know the code page
    path = tmp_path / "demo-1254.trf"
    path.write_bytes(data)
    return path, data


def test_a_windows_1254_crlf_file_reads_turkish_names_and_writes_back_its_own_bytes(tmp_path: Path) -> None:
    path, data = turkish_windows_copy(tmp_path)
    tournament = load_trf(path)
    for number, name in TURKISH.items():
        assert tournament.players[number].name == name
    assert tournament.teams[1].name == "İzmir Satranç İhtisas"
    assert (tournament.form.encoding, tournament.form.newline) == (TextEncoding.WINDOWS_1254, LineEnding.CRLF)
    for round_number in range(1, tournament.rounds + 1):  # nothing changed: not one byte
        assert write_round(tournament, round_number) == data
        assert trf_with_round(tournament, [], round_number) == data

    # round 2: Mert Aydın (1) beats Barış Yalçın (9); only their round-2 results and totals change
    written = trf_with_round(tournament, [(1, 9, "1-0")], 2)
    before, after = data.split(b"\r\n"), written.split(b"\r\n")
    assert len(before) == len(after) and b"\n" not in written.replace(b"\r\n", b"")
    changed = {i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
    assert changed == {tournament.players[1].line - 1, tournament.players[9].line - 1}
    for number, result, total in ((1, b"1", b" 2.0"), (9, b"0", b" 0.5")):
        old, new = before[tournament.players[number].line - 1], after[tournament.players[number].line - 1]
        assert new[:80] == old[:80] and new[84:107] == old[84:107]  # name, rating, round 1: as read
        assert (new[80:84], new[107:]) == (total, b" " + result)
    again = load_trf(_write(tmp_path / "after.trf", written))
    assert again.players[28].name == "İlker Şahin" and again.players[1].points() == 2


async def test_the_export_gives_the_file_in_its_own_encoding(tmp_path: Path) -> None:
    path, data = turkish_windows_copy(tmp_path)
    venue = tmp_path / "hall.toml"
    venue.write_text(
        f'[venue]\nname = "Demo"\n[tournament]\ntrf = "{path.name}"\n'
        '[[tables]]\nid = "C1"\nsport = "chess"\n'
        '[[matches]]\nid = "R2-1"\ntable = "C1"\nround = 2\nplayers = ["Mert Aydın", "Barış Yalçın"]\n'
        "pairing = [1, 9]\n"
        f'[[referees]]\nname = "Hakem"\nrole = "chief"\ntoken_sha256 = "{hash_token(REFEREE_TOKEN)}"\n',
        encoding="utf-8",
    )
    exported = export_round_file(load_venue(venue), [], 2, ExportFormat.TRF, live=True)
    assert (exported.data, exported.charset) == (data, "windows-1254")  # no result yet: the file as read
    async with running_hub(tmp_path, load_venue(venue)) as url:  # over HTTP, as the hall's hub serves it
        request = urllib.request.Request(url + "api/rounds/2/export.trf?live=1")
        request.add_header("Authorization", f"Bearer {REFEREE_TOKEN}")  # the file is for referees only
        response = await asyncio.to_thread(urllib.request.urlopen, request)
        with response:
            assert response.headers["Content-Type"] == "text/plain; charset=windows-1254"
            assert response.read() == data
    out = tmp_path / "round2.trf"  # and `boardcast round export`, from the hub's data directory
    args = ["--round", "2", "--format", "trf", "--venue", str(venue), "--data", str(tmp_path / "data")]
    assert export(*args, "--output", str(out)) == 0
    assert out.read_bytes() == data


def test_a_utf8_byte_order_mark_is_skipped_and_kept(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + SWISS.read_bytes()
    tournament = load_trf(_write(tmp_path / "bom.trf", data))
    assert tournament.form.bom and tournament.name.startswith("FIDE C.07")
    assert write_round(tournament, 5) == data
    lf_less = SWISS.read_bytes().rstrip(b"\n")  # no line break after the last line: none written
    assert write_round(load_trf(_write(tmp_path / "open.trf", lf_less)), 1) == lf_less


def test_bytes_neither_utf8_nor_windows_1254_are_refused_at_their_place(tmp_path: Path) -> None:
    data = SWISS.read_bytes().replace(b"Bruno", b"Br\x81no", 1)
    with pytest.raises(TrfError, match=r"byte 0x81 is not UTF-8 or Windows-1254") as caught:
        load_trf(_write(tmp_path / "bad.trf", data))
    line = next(i for i, text in enumerate(data.split(b"\n"), start=1) if b"\x81" in text)
    assert (caught.value.line, caught.value.column) == (line, 17)


def test_a_missing_file_names_only_the_path_and_the_reason(tmp_path: Path) -> None:
    with pytest.raises(TrfError) as caught:
        load_trf(tmp_path / "nowhere.trf")
    message = str(caught.value)
    assert ":0" not in message
    assert message.startswith(f"{tmp_path / 'nowhere.trf'}: cannot be read (No such file")


def _swiss_lines() -> list[str]:
    return SWISS.read_text(encoding="utf-8").split("\n")


def _player_index(lines: list[str], number: int) -> int:
    return next(i for i, line in enumerate(lines) if line.startswith("001") and int(line[4:8]) == number)


def _refused(lines: list[str]) -> TrfError:
    with pytest.raises(TrfError) as caught:
        parse_trf("\n".join(lines), "x.trf")
    return caught.value


def _set(line: str, column: int, text: str) -> str:
    """`text` written from 1-based `column`."""
    return line[: column - 1] + text + line[column - 1 + len(text) :]


def _round_column(round_number: int, offset: int) -> int:
    """The 1-based column `offset` places into round `round_number`'s field (0: the opponent's first)."""
    return 92 + 10 * (round_number - 1) + offset


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [("0", "0"), ("1", "="), ("+", "1"), ("W", "W"), ("1", "1"), ("+", "+"), ("=", "0"), ("1", " ")],
)
def test_a_game_whose_two_sides_disagree_names_the_second_line(mine: str, theirs: str) -> None:
    lines = _swiss_lines()
    first = _player_index(lines, 1)
    round_number = 1
    opponent = int(lines[first][_round_column(1, 0) - 1 : _round_column(1, 4) - 1])
    second = _player_index(lines, opponent)
    assert second > first
    result = _round_column(round_number, 7)
    lines[first] = _set(lines[first], result, mine)
    lines[second] = _set(lines[second], result, theirs)
    error = _refused(lines)
    assert (error.line, error.column) == (second + 1, result)
    assert "round 1" in str(error) and "sonucu uyuşmuyor" in str(error)


def test_results_that_agree_are_read() -> None:
    lines = _swiss_lines()
    first = _player_index(lines, 1)
    second = _player_index(lines, int(lines[first][91:95]))
    for mine, theirs in (("W", "L"), ("D", "D"), ("-", "-"), ("-", "+"), (" ", " ")):
        lines[first] = _set(lines[first], _round_column(1, 7), mine)
        lines[second] = _set(lines[second], _round_column(1, 7), theirs)
        parse_trf("\n".join(lines))


def test_a_player_paired_with_themselves_names_their_own_line() -> None:
    lines = _swiss_lines()
    at = _player_index(lines, 3)
    lines[at] = _set(lines[at], _round_column(1, 0), "   3")
    error = _refused(lines)
    assert (error.line, error.column) == (at + 1, _round_column(1, 0))
    assert "paired with themselves" in str(error)


@pytest.mark.parametrize(
    ("column", "what"),
    [
        (90, "rank from round 1"),
        (91, "rank from round 1"),
        (_round_column(2, 4), "opponent and colour"),
        (_round_column(2, 6), "colour and result"),
        (_round_column(2, 8), "one round from the next"),
        (_round_column(2, 9), "one round from the next"),
    ],
)
def test_a_character_in_a_blank_column_is_named(column: int, what: str) -> None:
    lines = _swiss_lines()
    at = _player_index(lines, 5)
    lines[at] = _set(lines[at], column, "x")
    error = _refused(lines)
    assert (error.line, error.column) == (at + 1, column)
    assert f"column {column} must be blank" in str(error) and what in str(error)


@pytest.mark.parametrize("kept", [3, 4, 5])  # "  1" of "  1x", the number alone, the number and a blank
def test_a_round_cut_short_is_named_not_taken_for_another_pairing(kept: int) -> None:
    lines = _swiss_lines()
    field = slice(_round_column(5, 0) - 1, _round_column(5, 4) - 1)
    # a player meeting 10 or more in round 5: "  1" of "  1x" would be another player's number
    at = next(i for i, line in enumerate(lines) if line.startswith("001") and int(line[field]) >= 10)
    lines[at] = lines[at][: _round_column(5, 0) - 1 + kept]
    error = _refused(lines)
    assert (error.line, error.column) == (at + 1, _round_column(5, min(kept, 4)))
    assert "round 5 is cut short" in str(error)


def test_a_line_ending_after_the_colour_is_a_game_without_its_result_yet() -> None:
    lines = _swiss_lines()
    first = _player_index(lines, 10)
    opponent = int(lines[first][_round_column(5, 0) - 1 : _round_column(5, 4) - 1])
    for at in (first, _player_index(lines, opponent)):
        lines[at] = lines[at][: _round_column(5, 6)]  # ends at its colour, as editors trim blanks
    entry = parse_trf("\n".join(lines)).players[10].entry(5)
    assert entry is not None and (entry.opponent, entry.outcome.value) == (opponent, " ")


def test_a_stated_total_that_disagrees_is_read_and_kept() -> None:
    lines = _swiss_lines()
    at = _player_index(lines, 4)
    lines[at] = _set(lines[at], 81, " 9.5")
    text = "\n".join(lines)
    tournament = parse_trf(text)
    assert tournament.players[4].stated_points == 9.5 and tournament.players[4].points() != 9.5
    assert write_round(tournament, 1) == text.encode()  # the pairing program's total, untouched


def test_the_reader_imports_the_team_scoring_at_the_top_without_a_cycle() -> None:
    source = (ROOT / "hub" / "tournament" / "trf.py").read_text(encoding="utf-8")
    assert not re.search(r"^[ \t]+(from|import) ", source, flags=re.MULTILINE)  # no function-local import
    check = "import sys, hub.tournament.trf; assert 'hub.tournament.results' in sys.modules"
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr  # imported first, on its own: no cycle


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("text", "line", "column", "says"),
    [
        ("", 1, 1, "no player records (001)"),
        ("012 An event\nXXR 5\n", 3, 1, "no player records (001)"),
        ("001    1 m    Alyx    2150 zz\n", 1, 30, "ends before its points (columns 81-84)"),
    ],
)
def test_a_file_without_players_or_cut_before_the_points_is_refused(
    text: str, line: int, column: int, says: str
) -> None:
    with pytest.raises(TrfError) as caught:
        parse_trf(text, "event.trf")
    assert (caught.value.line, caught.value.column) == (line, column) and says in str(caught.value)
