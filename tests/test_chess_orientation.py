"""A board set up the other way round (a1 at Black's left) reads as the right way round: the real DGT captures,
every square of every board dump and field update turned round at the byte level, give exactly the same moves,
clocks and anomalies through `boardcast check chess` (a real process) as the originals; the rules detect it,
the venue may pin it and the arbiter may flip it."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import pytest

from devices.dgt.codec import DgtCodec, DgtError, MessageId
from devices.observations import ChessBoardState
from hub.rules import chess as rc
from hub.rules.chess.orient import turned_fen

ROOT = Path(__file__).resolve().parents[1]
DGT = ROOT / "tests" / "fixtures" / "dgt"
CAPTURES = ("1", "johan")


def turned_stream(reads: list[bytes]) -> list[bytes]:
    """The same reads with every square of every BOARD_DUMP and FIELD_UPDATE turned round (DGT field f is
    square a8=0 .. h1=63 row by row, so a1<->h8 is field f <-> 63-f). The codec finds the messages; the
    bytes are rewritten where they lie, so frames split across reads stay split the same way."""
    data = bytearray(b"".join(reads))
    codec = DgtCodec()
    found = 0
    for end, byte in enumerate(bytes(data)):
        for item in codec.feed(bytes([byte])):
            if isinstance(item, DgtError):
                continue
            raw = item.raw
            start = end + 1 - len(raw)
            assert bytes(data[start : end + 1]) == raw
            if raw[0] == MessageId.BOARD_DUMP:
                data[start + 3 : end + 1] = raw[3:][::-1]
                found += 1
            elif raw[0] == MessageId.FIELD_UPDATE:
                data[start + 3] = 63 - raw[3]
                found += 1
    assert found > 10  # the capture holds board messages, and they were all found
    out, at = [], 0
    for read in reads:
        out.append(bytes(data[at : at + len(read)]))
        at += len(read)
    return out


def write_turned(name: str, tmp_path: Path) -> Path:
    reads = [base64.b64decode(line) for line in (DGT / f"{name}.inbytes").read_text().split()]
    turned = turned_stream(reads)
    assert turned != reads
    path = tmp_path / f"{name}-turned.inbytes"
    path.write_text("".join(base64.b64encode(r).decode() + "\n" for r in turned))
    return path


def check(*args: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "hub", "check", "chess", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def without_orientation(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in lines if not (x["type"] == "fact" and x["kind"] == "board_orientation")]


@pytest.mark.parametrize("name", CAPTURES)
def test_turned_capture_reads_exactly_as_the_original(name: str, tmp_path: Path) -> None:
    original = check("--dgt", str(DGT / f"{name}.inbytes"))
    turned = check("--dgt", str(write_turned(name, tmp_path)))
    decided = [x for x in turned if x["type"] == "fact" and x["kind"] == "board_orientation"]
    assert [(x["orientation"], x["source"], x["ply"]) for x in decided] == [("rotated", "auto", 0)]
    assert not [x for x in original if x["type"] == "fact" and x["kind"] == "board_orientation"]
    moves = [x for x in original if x["type"] == "fact" and x["kind"] == "move"]
    assert len(moves) > 40 and all(m["white_ms"] is not None for m in moves[2:])
    # every move with its clocks, every anomaly, the result and the PGN: the same, line for line
    assert without_orientation(turned) == original


@pytest.mark.parametrize("name", CAPTURES)
def test_pinned_orientation_reads_the_turned_capture_and_refuses_the_wrong_one(
    name: str, tmp_path: Path
) -> None:
    turned = write_turned(name, tmp_path)
    original = check("--dgt", str(DGT / f"{name}.inbytes"))
    pinned = check("--dgt", str(turned), "--orientation", "rotated")
    assert pinned == original  # pinned: nothing to detect, nothing logged about it
    wrong = check("--dgt", str(turned), "--orientation", "normal")
    assert wrong[-1]["moves"] == []  # read the wrong way round the board never shows the game


def test_bad_orientation_option_is_refused() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub",
            "check",
            "chess",
            "--dgt",
            str(DGT / "1.inbytes"),
            "--orientation",
            "up",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--orientation" in done.stderr


# --- the rules themselves -----------------------------------------------------------------------------------


def play(state: rc.ChessState, fens: list[str], at: float = 0.0) -> tuple[rc.ChessState, list[Any]]:
    facts: list[Any] = []
    for fen in fens:
        for item in (ChessBoardState(fen, ()), rc.Tick()):
            at += 1.5
            outcome = rc.apply(state, item, at)
            state = outcome.state
            facts.extend(outcome.facts)
    return state, facts


def after(*ucis: str) -> str:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board.board_fen()


def test_turned_square_and_fen() -> None:
    from hub.rules.chess.orient import turned_square

    assert turned_square("a1") == "h8" and turned_square("e4") == "d5"
    board = chess.Board()
    assert (
        turned_fen(board.board_fen())
        == board.transform(chess.flip_vertical).transform(chess.flip_horizontal).board_fen()
    )


def test_detected_at_start_and_after_a_reconnect_mid_game() -> None:
    state = rc.initial(rc.ChessConfig())
    game = ["e2e4", "e7e5", "g1f3"]
    boards = [turned_fen(after(*game[:n])) for n in range(len(game) + 1)]
    state, facts = play(state, boards)
    assert [m.uci for m in state.moves] == game and state.rotated
    assert [(f.kind, f.data["source"]) for f in facts if f.kind == "board_orientation"] == [
        ("board_orientation", "auto")
    ]
    # the board is put the right way round during a pause (reconnected, read whole): read as it lies now
    state, facts = play(state, [after(*game), after(*game, "b8c6")])
    assert [m.uci for m in state.moves] == [*game, "b8c6"] and not state.rotated
    assert [f.data["orientation"] for f in facts if f.kind == "board_orientation"] == ["normal"]


def test_venue_pin_is_never_overridden_and_the_referee_flips() -> None:
    state = rc.initial(rc.ChessConfig(orientation="normal"))
    state, facts = play(state, [turned_fen(after()), turned_fen(after("e2e4"))])
    assert state.moves == () and not state.rotated and not [f for f in facts if f.kind == "board_orientation"]
    outcome = rc.apply(state, rc.input_from_dict({"type": "orientation", "orientation": "rotated"}), 10.0)
    state = outcome.state
    assert state.rotated and state.orientation_source == "referee"
    assert [(f.kind, f.data["source"]) for f in outcome.facts] == [("board_orientation", "referee")]
    state, _ = play(state, [turned_fen(after("e2e4"))], at=10.0)
    assert [m.uci for m in state.moves] == ["e2e4"]
    # what the referee decided survives a snapshot (a hub restart)
    again = rc.from_dict(rc.to_dict(state))
    assert again.rotated and again.orientation_source == "referee" and again == state


def test_orientation_input_is_checked() -> None:
    with pytest.raises(ValueError, match='"orientation" must be "auto", "normal" or "rotated"'):
        rc.input_from_dict({"type": "orientation", "orientation": "upside"})
    assert rc.input_to_dict(rc.Orientation("auto")) == {"type": "orientation", "orientation": "auto"}
    with pytest.raises(ValueError, match="orientation"):
        rc.ChessConfig.from_text(None, None, orientation="sideways")


# --- the venue's pin ------------------------------------------------------------------------------------------

VENUE = """\
[venue]
name = "Salon"

[[tables]]
id = "C1"
sport = "chess"
orientation = "rotated"

[[tables]]
id = "C2"
sport = "chess"

[[matches]]
id = "G1"
table = "C1"

[[matches]]
id = "G2"
table = "C2"
"""


def test_venue_pins_a_table_and_the_match_reads_it(tmp_path: Path) -> None:
    from hub.venue import load_venue

    path = tmp_path / "venue.toml"
    path.write_text(VENUE, encoding="utf-8")
    venue = load_venue(path)
    pinned, free = venue.matches
    assert (pinned.orientation, free.orientation) == ("rotated", "auto")
    state = pinned.rules.initial(pinned.rules.config(pinned))
    assert state.rotated and state.orientation_source == "venue"
    state, _ = play(state, [turned_fen(after()), turned_fen(after("d2d4"))])
    assert [m.uci for m in state.moves] == ["d2d4"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (VENUE.replace('"rotated"', '"upside"'), 7, 'must be "auto", "normal" or "rotated"'),
        (
            VENUE.replace('sport = "chess"\norientation', 'sport = "backgammon"\norientation'),
            7,
            "only a chess",
        ),
    ],
)
def test_venue_refuses_a_bad_orientation_naming_the_key(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    from hub.venue import VenueError, load_venue

    path = tmp_path / "venue.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VenueError) as caught:
        load_venue(path)
    assert caught.value.field == "tables[1].orientation" and caught.value.line == line
    said = str(caught.value)
    assert message in said and ("olmalı" in said or "yalnızca" in said)  # English and Turkish


def test_a_rotated_board_first_seen_after_moves_is_found_from_the_moves() -> None:
    # the hub meets the board after 1.e4 e5 2.Nf3 (it was switched on late): no start position to go by
    state = rc.initial(rc.ChessConfig())
    state, facts = play(state, [turned_fen(after("e2e4"))])
    assert [m.uci for m in state.moves] == ["e2e4"] and state.rotated
    assert [(f.data["orientation"], f.data["source"]) for f in facts if f.kind == "board_orientation"] == [
        ("rotated", "auto")
    ]
    state, facts = play(state, [turned_fen(after("e2e4", "e7e5")), turned_fen(after("e2e4", "e7e5", "g1f3"))])
    assert [m.uci for m in state.moves] == ["e2e4", "e7e5", "g1f3"]
    assert not [f for f in facts if f.kind == "board_orientation"]  # decided once


def test_a_pinned_board_is_not_turned_by_what_it_shows() -> None:
    state = rc.initial(rc.ChessConfig(orientation="normal"))
    state, facts = play(state, [turned_fen(after("e2e4"))])
    assert state.moves == () and not state.rotated and not [f for f in facts if f.kind == "board_orientation"]
