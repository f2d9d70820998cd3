"""Every device codec and every `boardcast check` input reader as a fuzz target: bytes in, no exception out.

Each target takes arbitrary bytes and feeds them through one reader. Crashing is the only failure the
readers may not have; on top of that the stream codecs must give the same items however the bytes are cut
into reads (a serial port or BLE stack cuts them anywhere), and the check readers must end with one of
their documented exit codes. `SEEDS` holds real inputs (the DGT captures, encoded frames, clean check
files) that the fuzzers mutate. Used by `test_reliability_fuzz.py` (Hypothesis, in CI) and by
`python -m tests.reliability.fuzz_long` (minutes, outside CI).
"""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import Callable
from pathlib import Path

from devices.chessnut.codec import ChessnutCodec, encode_board_report
from devices.dgt.codec import DgtCodec
from devices.dgt.reader import DgtReader
from devices.dscore.codec import DScoreCodec
from devices.wire.codec import MessageType, WireCodec, encode_frame
from hub.rules import chess as rc
from hub.rules.backgammon import check as check_backgammon
from hub.rules.chess import check as check_chess
from hub.rules.tabletennis import check as check_tt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXIT_CODES = {0, 1, 2}  # clean, anomalies found, bad input


def _cuts(data: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    pieces, i = [], 0
    while i < len(data):
        n = rng.randint(1, 24)
        pieces.append(data[i : i + n])
        i += n
    return pieces


def _same_however_cut(make: Callable[[], object], data: bytes) -> None:
    whole = make()
    expected = [repr(x) for x in whole.feed(data)]  # type: ignore[attr-defined]
    cut = make()
    got = [repr(x) for piece in _cuts(data, len(data)) for x in cut.feed(piece)]  # type: ignore[attr-defined]
    assert got == expected, "the items depend on how the bytes were cut into reads"


def wire(data: bytes) -> None:
    """Boardcast Wire: COBS frames, CRC, msgpack bodies."""
    _same_however_cut(WireCodec, data)


def dgt(data: bytes) -> None:
    """The DGT board protocol codec."""
    _same_however_cut(DgtCodec, data)
    DgtCodec().flush()


def dgt_reader(data: bytes) -> None:
    """DGT messages read into board placements and clock states."""
    _same_however_cut(DgtReader, data)


def chessnut(data: bytes) -> None:
    """Chessnut BLE notifications (each one a whole message, cut where the notifications end)."""
    codec = ChessnutCodec()
    for piece in _cuts(data, 7):
        codec.feed(piece)


def dscore(data: bytes) -> None:
    """D-SCORE wristband notifications, with times from the bytes so presses can be short, long or double."""
    codec = DScoreCodec(side=data[0] % 2 if data else 0)
    at = 0.0
    for piece in _cuts(data, 3):
        at += (piece[0] if piece else 1) / 100
        codec.feed(piece[1:], at)


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def check_tabletennis(data: bytes) -> None:
    """`boardcast check tabletennis`: JSON lines."""
    code = check_tt.check(_lines(data), "fuzz", io.StringIO(), io.StringIO())
    assert code in EXIT_CODES, code


def check_bg(data: bytes) -> None:
    """`boardcast check backgammon`: JSON lines."""
    code = check_backgammon.run(_lines(data), io.StringIO(), io.StringIO())
    assert code in EXIT_CODES, code


def check_chess_capture(data: bytes) -> None:
    """`boardcast check chess`: a DGT capture, base64 reads one per line, optionally timed."""
    config = rc.ChessConfig.from_text(None, None)
    code = check_chess.check(
        data.decode("ascii", "replace").splitlines(), config, io.StringIO(), io.StringIO()
    )
    assert code in EXIT_CODES, code


def _captures() -> list[bytes]:
    return [p.read_bytes() for p in sorted((FIXTURES / "dgt").glob("*.inbytes"))]


def _dgt_stream(capture: bytes) -> bytes:
    return b"".join(base64.b64decode(line) for line in capture.split() if line)


def _tt_match() -> bytes:
    lines: list[dict] = [{"match": {"best_of": 3, "doubles": False, "first_server": "A", "ruleset": "ittf"}}]
    at = 0.0
    for game in range(2):
        for point in range(12):
            at += 10
            a = min(point, 11)
            lines.append({"at": at, "score": [a, 0], "games": [game, 0]})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _bg_match() -> bytes:
    start = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]
    after = list(start)
    after[12], after[7] = 4, 4  # A plays 13/8 with the opening 3-1 that says otherwise: an anomaly
    lines = [
        {"match": {"length": 3}},
        {"at": 1, "event": "opening", "dice": {"A": 3, "B": 1}},
        {"at": 2, "event": "double", "side": "A"},
        {"at": 3, "event": "board", "points": after, "bar": [0, 0], "off": [0, 0]},
        {"at": 4, "event": "clock", "side": "A"},
        {"at": 5, "event": "roll", "side": "B", "dice": [6, 5]},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _wire_frames() -> bytes:
    bodies = [{"points": [3, 2], "games": [1, 0]}, {"battery": 80}, {"kind": "point", "side": 1}, {}]
    return b"".join(
        encode_frame(t, seq, bodies[seq % len(bodies)])
        for seq, t in enumerate(list(MessageType) * 2, start=1)
    )


def _chessnut_reports() -> bytes:
    fens = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"]
    return b"".join(encode_board_report(f, uptime_s=i) for i, f in enumerate(fens))


TARGETS: dict[str, Callable[[bytes], None]] = {
    "wire codec": wire,
    "DGT codec": dgt,
    "DGT reader": dgt_reader,
    "Chessnut codec": chessnut,
    "D-SCORE codec": dscore,
    "check tabletennis reader": check_tabletennis,
    "check backgammon reader": check_bg,
    "check chess reader": check_chess_capture,
}

SEEDS: dict[str, list[bytes]] = {
    "wire codec": [_wire_frames()],
    "DGT codec": [_dgt_stream(c)[:1500] for c in _captures()],
    "DGT reader": [_dgt_stream(c)[:1500] for c in _captures()],
    "Chessnut codec": [_chessnut_reports()],
    "D-SCORE codec": [bytes([30, 1, 40, 0, 120, 2, 5, 0, 200, 1, 10, 1, 10, 0])],
    "check tabletennis reader": [_tt_match()],
    "check backgammon reader": [_bg_match()],
    "check chess reader": [c[:1500] for c in _captures()],
}


def mutate(seed: bytes, rng: random.Random, rounds: int = 4) -> bytes:
    """A real input with a few bytes flipped, inserted, deleted, duplicated or cut off."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, rounds)):
        op = rng.randrange(6)
        i = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(i, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 2:
            del data[i : i + rng.randint(1, 16)]
        elif op == 3:
            data[i:i] = data[i : i + rng.randint(1, 32)]
        elif op == 4:
            del data[i:]
        else:
            data[i:i] = rng.choice([b"\x00", b"\n", b"{", b"\xff", b"}", b'"', b"0" * 30, b"-1"])
    return bytes(data)
