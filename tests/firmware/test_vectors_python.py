"""The checked-in Boardcast Wire vectors against the hub's own codec (devices.wire).

Every vector and stream in firmware-protocols/vectors/frames.json must decode exactly as documented, and
the checked-in frames.json and c/vectors.h must be what generate.py produces today, so the vectors cannot
drift from the code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest

from devices.wire import cobs
from devices.wire.codec import (
    MAX_ENCODED,
    MAX_FRAME,
    Frame,
    FrameError,
    FrameErrorKind,
    MessageType,
    WireCodec,
    decode_frame,
    encode_frame,
)
from devices.wire.crc import crc16_ccitt_false

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware-protocols"
FRAMES_JSON = FIRMWARE / "vectors" / "frames.json"
DOC: dict[str, Any] = json.loads(FRAMES_JSON.read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = DOC["vectors"]
GOOD = [v for v in VECTORS if "frame" in v]
BAD = [v for v in VECTORS if "error" in v]
BY_NAME = {v["name"]: v for v in VECTORS}
CODEC_KINDS = {k.value for k in FrameErrorKind} - {"wrong_device", "unsupported_protocol"}


def test_document_shape() -> None:
    assert DOC["version"] == 1
    assert DOC["protocol_version"] == 1
    assert DOC["limits"] == {"max_payload": MAX_FRAME, "max_encoded": MAX_ENCODED, "min_payload": 7}
    assert DOC["crc_check"]["crc16"] == 0x29B1 == crc16_ccitt_false(b"123456789")
    assert len(BY_NAME) == len(VECTORS), "vector names must be unique"
    for vector in VECTORS:
        assert {"name", "description", "hex"} <= vector.keys()
        assert ("frame" in vector) != ("error" in vector), vector["name"]
        assert vector["hex"].endswith("00"), vector["name"]


def test_coverage_of_types_errors_and_edges() -> None:
    assert {v["frame"]["type"] for v in GOOD} == {int(t) for t in MessageType}
    assert {v["error"] for v in BAD} == {
        "bad_cobs", "too_short", "bad_crc", "bad_version", "unknown_type", "bad_body", "too_long"
    }  # fmt: skip
    assert {0, 1, 65535} <= {v["frame"]["seq"] for v in GOOD}
    payload_sizes = {len(bytes.fromhex(v["frame"]["payload_hex"])) for v in GOOD}
    assert 254 in payload_sizes and MAX_FRAME in payload_sizes and any(254 < n < 1000 for n in payload_sizes)
    assert any(0 in bytes.fromhex(v["frame"]["body_hex"]) for v in GOOD)
    assert any("Ayşe Öztürk" in json.dumps(v["frame"]["body"], ensure_ascii=False) for v in GOOD)
    states = [v["frame"]["body"] for v in GOOD if v["frame"]["type"] == MessageType.STATE]
    assert any("game_scores" in s for s in states)
    assert any("cube" in s for s in states)
    assert any("flag" in s for s in states)
    commands = {v["frame"]["body"]["cmd"] for v in GOOD if v["frame"]["type"] == MessageType.COMMAND}
    assert commands == {"resync", "show_text", "set_clock"}


@pytest.mark.parametrize("vector", GOOD, ids=lambda v: v["name"])
def test_good_vector_decodes_to_the_documented_frame(vector: dict[str, Any]) -> None:
    wire = bytes.fromhex(vector["hex"])
    expected = vector["frame"]
    payload = bytes.fromhex(expected["payload_hex"])
    body_bytes = bytes.fromhex(expected["body_hex"])
    assert cobs.decode(wire[:-1]) == payload
    assert payload[4:-2] == body_bytes
    assert msgpack.unpackb(body_bytes, raw=False) == expected["body"]
    assert expected["type_name"] == MessageType(expected["type"]).name
    for frame in (decode_frame(wire), *WireCodec().feed(wire)):
        assert isinstance(frame, Frame)
        assert (frame.version, int(frame.type), frame.seq, frame.body) == (
            expected["version"],
            expected["type"],
            expected["seq"],
            expected["body"],
        )
        assert frame.raw == wire
    assert len(WireCodec().feed(wire)) == 1
    # canonical msgpack: the hub's encoder produces exactly these bytes
    assert encode_frame(MessageType(expected["type"]), expected["seq"], expected["body"]) == wire


@pytest.mark.parametrize("vector", BAD, ids=lambda v: v["name"])
def test_broken_vector_gives_the_documented_error(vector: dict[str, Any]) -> None:
    wire = bytes.fromhex(vector["hex"])
    assert vector["error"] in CODEC_KINDS
    single = decode_frame(wire)
    assert isinstance(single, FrameError) and single.kind.value == vector["error"], single
    streamed = WireCodec().feed(wire)
    assert [type(item) for item in streamed] == [FrameError]
    assert streamed[0].kind.value == vector["error"]


@pytest.mark.parametrize("chunk", [1, 7, 64, 100_000])
@pytest.mark.parametrize("stream", DOC["streams"], ids=lambda s: s["name"])
def test_stream_gives_the_documented_sequence_in_any_chunking(stream: dict[str, Any], chunk: int) -> None:
    data = bytes.fromhex(stream["hex"])
    codec = WireCodec()
    results = []
    for start in range(0, len(data), chunk):
        results += codec.feed(data[start : start + chunk])
    got = []
    for item in results:
        if isinstance(item, Frame):
            expected = (
                BY_NAME[stream["expect"][len(got)]["frame"]] if len(got) < len(stream["expect"]) else None
            )
            assert expected is not None and item.raw.hex() == expected["hex"]
            got.append({"frame": expected["name"]})
        else:
            got.append({"error": item.kind.value})
    assert got == stream["expect"]


@pytest.mark.parametrize("case", DOC["msgpack_bodies"], ids=lambda c: c["name"])
def test_msgpack_body_cases_match_the_hubs_reader(case: dict[str, Any]) -> None:
    try:
        msgpack.unpackb(bytes.fromhex(case["hex"]), raw=False)
        valid = True
    except ValueError:
        valid = False
    assert valid == case["valid"]


def test_checked_in_output_is_what_the_generator_makes_now(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(FIRMWARE / "vectors" / "generate.py"), "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    for relative in ("vectors/frames.json", "c/vectors.h"):
        fresh = (tmp_path / relative).read_text(encoding="utf-8")
        checked_in = (FIRMWARE / relative).read_text(encoding="utf-8")
        assert fresh == checked_in, (
            f"firmware-protocols/{relative} is stale; run "
            ".venv/bin/python firmware-protocols/vectors/generate.py and check in the result"
        )
