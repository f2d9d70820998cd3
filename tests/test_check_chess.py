"""`boardcast check chess --dgt FILE` through a real process: a DGT capture in, moves, anomalies and the PGN out
as JSON lines, bad lines reported without stopping the run, and the exit codes of the other check commands."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

ROOT = Path(__file__).resolve().parents[1]
DGT = ROOT / "tests" / "fixtures" / "dgt"


def check(*args: str, stdin: str | None = None) -> tuple[int, list[dict], str]:
    done = subprocess.run(
        [sys.executable, "-m", "hub", "check", "chess", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def moves_of(lines: list[dict]) -> list[str]:
    return [line["uci"] for line in lines if line["type"] == "fact" and line["kind"] == "move"]


def capture_1_moves() -> list[str]:
    moves = []
    for line in (DGT / "1.uci").read_text().splitlines():
        moves.extend(m for m in line.split(".", 1)[1].split() if m != "*")
    return moves


def johan_moves() -> list[str]:
    game = chess.pgn.read_game(io.StringIO((DGT / "johan.pgn").read_text()))
    assert game is not None
    return [m.uci() for m in game.mainline_moves()]


def test_capture_1_gives_its_moves_with_both_clock_times_and_no_anomaly() -> None:
    code, lines, err = check("--dgt", str(DGT / "1.inbytes"), "--time-control", "180+2")
    assert code == 0, err
    assert moves_of(lines) == capture_1_moves()
    assert [line for line in lines if line["type"] == "anomaly"] == []
    first = next(line for line in lines if line["type"] == "fact" and line["kind"] == "move")
    assert first["san"] == "e4" and first["white_ms"] == 181000 and first["black_ms"] == 182000
    result = lines[-1]
    assert result["type"] == "result" and result["moves"] == capture_1_moves()
    assert result["time_control"] == "180+2" and result["result"] is None
    game = chess.pgn.read_game(io.StringIO(result["pgn"]))
    assert game is not None and [m.uci() for m in game.mainline_moves()] == capture_1_moves()
    assert "1. e4 {[%clk 0:03:01]}" in result["pgn"]


def test_johan_learns_5_plus_5_and_ends_one_nil_on_the_flag() -> None:
    code, lines, _ = check("--dgt", str(DGT / "johan.inbytes"))
    assert code == 0
    assert moves_of(lines) == johan_moves()
    learned = [line for line in lines if line["type"] == "fact" and line["kind"] == "time_control"]
    assert [line["text"] for line in learned] == ["300+5"]  # the clock starts at 5:05 and adds 5 s
    assert [line["code"] for line in lines if line["type"] == "anomaly"] == ["chess.flag_fall"]
    assert lines[-1]["result"] == "1-0" and '[Result "1-0"]' in lines[-1]["pgn"]


def test_lines_that_give_their_time(tmp_path: Path) -> None:
    from hub.rules.chess.check import timed_reports

    reads = (DGT / "1.inbytes").read_text().splitlines()
    times = {}
    for timed in timed_reports(reads):
        times.setdefault(timed.line, timed.at)
    lines = [json.dumps({"t": times.get(i, 0.0) * 1.5, "b64": b64}) for i, b64 in enumerate(reads, start=1)]
    path = tmp_path / "timed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = check("--dgt", str(path), "--time-control", "180+2")
    # Half as fast again, a rook sliding a1-f1 rests on e1 long enough to be read, then the main line is
    # rewritten to Rf1: the result holds the game's moves.
    assert code == 0 and out[-1]["moves"] == capture_1_moves()
    assert [line for line in out if line["type"] == "anomaly"] == []


def test_bad_lines_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    reads = (DGT / "1.inbytes").read_text().splitlines()
    reads.insert(20, "this is not base64!")
    reads.insert(40, '{"t": "soon", "b64": "AAAA"}')
    path = tmp_path / "capture.txt"
    path.write_text("\n".join(reads) + "\n")
    code, out, err = check("--dgt", str(path))
    assert code == 2  # lines that cannot be read: the exit code says so
    errors = [line for line in out if line["type"] == "error"]
    assert [e["line"] for e in errors] == [21, 41]
    assert "not base64" in errors[0]["message"] and '"t"' in errors[1]["message"]
    assert "line 21" in err
    assert moves_of(out) == capture_1_moves() and out[-1]["type"] == "result"  # the run went on


def test_device_garbage_is_reported_and_the_game_still_read(tmp_path: Path) -> None:
    reads = (DGT / "1.inbytes").read_text().splitlines()
    reads.insert(30, base64.b64encode(b"\x01\x02\x03").decode())  # bytes outside any DGT message
    path = tmp_path / "noisy.inbytes"
    path.write_text("\n".join(reads) + "\n")
    code, out, _ = check("--dgt", str(path))
    assert code == 0
    assert [line["kind"] for line in out if line["type"] == "device_error"] == ["noise"]
    assert moves_of(out) == capture_1_moves()


def test_standard_input() -> None:
    code, out, _ = check("--dgt", "-", stdin=(DGT / "1.inbytes").read_text())
    assert code == 0 and moves_of(out) == capture_1_moves()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--dgt", "/nonexistent/capture.inbytes"], "cannot read"),
        (["--dgt", str(DGT / "1.inbytes"), "--time-control", "3 minutes"], "time control"),
        ([], "--dgt"),
    ],
)
def test_input_that_cannot_be_read_exits_2(args: list[str], message: str) -> None:
    code, out, err = check(*args)
    assert code == 2 and out == [] and message in err


def test_a_reader_that_stops_early_is_no_error() -> None:
    """`boardcast check chess … | head -1`: the closed pipe ends the run quietly, with exit 0."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hub", "check", "chess", "--dgt", str(DGT / "johan.inbytes")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["type"] == "fact"
    proc.stdout.close()  # as `head -1` does
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == ""
