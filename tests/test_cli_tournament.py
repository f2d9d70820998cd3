"""The tournament commands as an organiser types them: `boardcast round import`, `round export` and
`standings` through the command line's own parser (`hub.cli.main`), in a process of their own."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from hub.referee.tokens import hash_token
from tests.conftest import ROOT, free_port, get_json
from tests.hubsupport import post_json

TRF = ROOT / "tests" / "fixtures" / "trf"
TOKEN = "token-of-the-chief"
# the README's export line, as an organiser copies it
README_EXPORT = re.search(
    r"^(boardcast round export [^#\n]*?)\s*#", (ROOT / "README.md").read_text(encoding="utf-8"), re.M
)[1]  # type: ignore[index]


def boardcast(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hub", *argv], capture_output=True, text=True, timeout=60, cwd=cwd
    )


def test_standings_prints_one_json_line_a_player() -> None:
    done = boardcast("standings", str(TRF / "held_swiss_9.trf"), "--tiebreaks", "BH-1,SB")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 16 and rows[0]["rank"] == 1 and set(rows[0]["tiebreaks"]) == {"BH-1", "SB"}
    assert max(r["points"] for r in rows) == 6.5  # Charline, as the file states


def test_standings_refuses_an_unknown_tie_break_in_one_line() -> None:
    done = boardcast("standings", str(TRF / "held_swiss_9.trf"), "--tiebreaks", "BH-3")
    assert done.returncode == 2 and "BH-3" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_round_import_then_export_through_the_command_line(tmp_path: Path) -> None:
    shutil.copy(TRF / "held_swiss_9.trf", tmp_path / "event.trf")
    hall = tmp_path / "hall.toml"
    hall.write_text(
        '[venue]\nname = "CLI"\n\n'
        + "".join(f'[[tables]]\nid = "C{n}"\nsport = "chess"\n\n' for n in range(1, 9)),
        encoding="utf-8",
    )
    done = boardcast("round", "import", "event.trf", "--round", "9", "--venue", "hall.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = hall.read_text(encoding="utf-8")
    assert text.count("[[matches]]") == 8 and 'trf = "event.trf"' in text
    again = boardcast("round", "import", "event.trf", "--round", "9", "--venue", "hall.toml", cwd=tmp_path)
    assert again.returncode == 2 and "already in the venue" in again.stderr
    assert hall.read_text(encoding="utf-8") == text  # refused: nothing changed
    export = boardcast(
        "round", "export", "--round", "9", "--format", "pgn", "--venue", "hall.toml", cwd=tmp_path
    )
    assert export.returncode == 2  # no hub has run on hall.toml yet: a clear refusal naming what to give
    assert "hall-data has no event log" in export.stderr and "Traceback" not in export.stderr


def test_serve_refuses_a_venue_whose_report_file_is_missing(tmp_path: Path) -> None:
    hall = tmp_path / "hall.toml"
    hall.write_text('[venue]\nname = "CLI"\n\n[tournament]\ntrf = "nope.trf"\n', encoding="utf-8")
    done = boardcast("serve", "--venue", str(hall), "--port", "0", "--data", str(tmp_path / "d"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "tournament.trf" in done.stderr and "nope.trf" in done.stderr and "Traceback" not in done.stderr


def test_the_readmes_round_export_finds_the_data_serve_kept_without_data(tmp_path: Path) -> None:
    """`serve --venue hall.toml` with no --data, a result confirmed, then the README's export line as written."""
    shutil.copy(TRF / "held_swiss_9.trf", tmp_path / "event.trf")
    hall = tmp_path / "hall.toml"
    hall.write_text(
        '[venue]\nname = "CLI"\n\n'
        + "".join(f'[[tables]]\nid = "C{n}"\nsport = "chess"\n\n' for n in range(1, 9))
        + f'[[referees]]\nname = "Başhakem"\nrole = "chief"\ntoken_sha256 = "{hash_token(TOKEN)}"\n\n',
        encoding="utf-8",
    )
    done = boardcast("round", "import", "event.trf", "--round", "3", "--venue", "hall.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "hub", "serve", "--venue", "hall.toml", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 20
        while True:
            try:
                games = get_json(url + "api/matches", timeout=1)
                break
            except OSError:
                assert serve.poll() is None and time.monotonic() < deadline, serve.stdout
                time.sleep(0.1)
        first = games[0]["id"]
        for action in ({"action": "result", "result": "1-0", "how": "arbiter"}, {"action": "confirm"}):
            status, said = post_json(url + f"api/matches/{first}/actions", action, TOKEN)
            assert status == 200, said
    finally:
        serve.send_signal(signal.SIGINT)
        out = serve.communicate(timeout=15)[0]
    assert serve.returncode == 0, out
    assert (tmp_path / "hall-data" / "events.sqlite3").is_file()
    # the README's line, word for word
    export = boardcast(*README_EXPORT.split()[1:], cwd=tmp_path)
    assert export.returncode == 0, export.stderr
    assert "1 written" in export.stderr, export.stderr
    assert (tmp_path / "results.trf").read_bytes() != (tmp_path / "event.trf").read_bytes()
