"""The real DGT captures with a stretch of three or four plies lost (every message between two positions of
the game dropped, then one whole-board dump, as a reconnect reads it): `boardcast check chess` gives exactly
the game's moves, turned round too; a stretch whose plies cannot be told apart gives `chess.board_mismatch`
once and the game stops there rather than guess."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import pytest

from devices.dgt.codec import DgtCodec, DgtError, MessageId, board_dump_from_fen, encode_message
from devices.dgt.messages import BoardDump, FieldUpdate
from hub.rules.chess.board import gap_reading
from hub.rules.chess.model import Game, Kind
from tests.test_check_chess import capture_1_moves, johan_moves
from tests.test_chess_orientation import turned_stream

ROOT = Path(__file__).resolve().parents[1]
DGT = ROOT / "tests" / "fixtures" / "dgt"
MOVES = {"1": capture_1_moves, "johan": johan_moves}


def messages(name: str) -> list[tuple[bytes, str]]:
    """Each message of the capture, its bytes and the board placement once it is read."""
    codec = DgtCodec()
    board = chess.BaseBoard.empty()
    out: list[tuple[bytes, str]] = []
    for line in (DGT / f"{name}.inbytes").read_text().split():
        for item in codec.feed(base64.b64decode(line)):
            if isinstance(item, DgtError):
                continue
            if isinstance(item, BoardDump):
                board = chess.BaseBoard.empty()
                for square, piece in enumerate(item.pieces):
                    if piece.to_chess() is not None:
                        board.set_piece_at(square, piece.to_chess())
            elif isinstance(item, FieldUpdate):
                board.remove_piece_at(item.square)
                if item.piece.to_chess() is not None:
                    board.set_piece_at(item.square, item.piece.to_chess())
            out.append((item.raw, board.board_fen()))
    return out


def positions(moves: list[str]) -> list[str]:
    board = chess.Board()
    found = [board.board_fen()]
    for uci in moves:
        board.push_uci(uci)
        found.append(board.board_fen())
    return found


def gapped(name: str, plies: int, *, unique: bool) -> tuple[list[bytes], int]:
    """The capture with the messages of `plies` plies dropped and one board dump in their place, at the first
    ply (from the 6th) where the lost plies are (`unique`) or are not the only sequence giving the board."""
    moves = MOVES[name]()
    places = positions(moves)
    stream = messages(name)
    for first in range(6, len(moves) - plies - 1):
        reading = gap_reading(Game.replay(moves[:first]), places[first + plies])
        if (reading is not None and reading.kind is Kind.MOVE and len(reading.moves) == plies) != unique:
            continue
        start = next(i for i, (_, shown) in enumerate(stream) if shown == places[first])
        while stream[start + 1][1] == places[first]:  # the clock readings while the position stood
            start += 1
        end = next(i for i in range(start, len(stream)) if stream[i][1] == places[first + plies])
        dump = encode_message(board_dump_from_fen(places[first + plies]))
        # the board's updates in the stretch are lost; the clock's readings, which time the stream, stay
        kept = [raw for raw, _ in stream[start + 1 : end + 1] if raw[0] == MessageId.BWTIME]
        reads = (
            [raw for raw, _ in stream[: start + 1]] + kept + [dump] + [raw for raw, _ in stream[end + 1 :]]
        )
        return reads, first
    raise AssertionError(f"no stretch of {plies} plies in {name}")


def check(reads: list[bytes], tmp_path: Path, tag: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{tag}.inbytes"
    path.write_text("".join(base64.b64encode(r).decode() + "\n" for r in reads))
    done = subprocess.run(
        [sys.executable, "-m", "hub", "check", "chess", "--dgt", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("plies", [3, 4])
@pytest.mark.parametrize("name", ["1", "johan"])
def test_a_lost_stretch_of_plies_is_read_back_from_the_next_whole_board(
    name: str, plies: int, tmp_path: Path
) -> None:
    reads, first = gapped(name, plies, unique=True)
    whole = check(
        [base64.b64decode(x) for x in (DGT / f"{name}.inbytes").read_text().split()], tmp_path, "whole"
    )
    original = [x["code"] for x in whole if x["type"] == "anomaly"]
    for tag, stream in (("as-is", reads), ("turned", turned_stream(reads))):
        lines = check(stream, tmp_path, tag)
        assert lines[-1]["moves"] == MOVES[name](), tag
        gaps = [x for x in lines if x["type"] == "fact" and x["kind"] == "board_gap"]
        assert [(g["ply"], g["plies"]) for g in gaps] == [(first, plies)], tag
        codes = [x["code"] for x in lines if x["type"] == "anomaly"]
        assert codes == original, tag  # no anomaly of the gap's making: the presses seen went to their plies


def test_a_stretch_that_cannot_be_told_apart_is_one_mismatch(tmp_path: Path) -> None:
    reads, first = gapped("johan", 4, unique=False)
    lines = check(reads, tmp_path, "ambiguous")
    codes = [x["code"] for x in lines if x["type"] == "anomaly"]
    assert codes.count("chess.board_mismatch") == 1
    assert lines[-1]["moves"] == MOVES["johan"]()[:first]  # nothing guessed: the game waits at the gap
