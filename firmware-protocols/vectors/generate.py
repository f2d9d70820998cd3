"""Generate the Boardcast Wire test vectors from the hub's own codec (devices.wire).

Run from the repository root::

    .venv/bin/python firmware-protocols/vectors/generate.py            # rewrite the checked-in files
    .venv/bin/python firmware-protocols/vectors/generate.py --out DIR  # write DIR/vectors/frames.json, DIR/c/vectors.h

Writes ``vectors/frames.json`` (for any language) and ``c/vectors.h`` (the same vectors as C arrays, for
``c/test_vectors.c``). Every byte comes from ``devices.wire.codec.encode_frame`` or is a deliberate
corruption of it, and every expected result is what ``devices.wire.codec`` returns for those bytes, so the
vectors cannot disagree with the hub. The output is deterministic: re-running it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402

from devices.wire import cobs  # noqa: E402
from devices.wire.codec import (  # noqa: E402
    MAX_ENCODED,
    MAX_FRAME,
    PROTOCOL_VERSION,
    Frame,
    FrameError,
    MessageType,
    WireCodec,
    decode_frame,
    encode_frame,
)
from devices.wire.crc import crc16_ccitt_false  # noqa: E402

FORMAT_VERSION = 1
FIRMWARE_DIR = ROOT / "firmware-protocols"

# Names of vectors that c/test_vectors.c rebuilds with the C payload builders, byte for byte.
C_BUILDERS = [
    "hello_tt_scoreboard",
    "hello_tcp_with_token",
    "heartbeat",
    "heartbeat_nulls",
    "state_tt_scoreboard",
    "state_tt_scoreboard_start",
    "event_tt_button_short",
    "event_backgammon_resign",
    "event_backgammon_accept",
    "ack_ok",
    "ack_error",
    "error_sensor_fault",
]

BACKGAMMON_START = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]


@dataclass
class Vector:
    """One vector: full wire bytes and either the frame they decode to or the error kind."""

    name: str
    description: str
    wire: bytes
    body: Any = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _payload(version: int, type_code: int, seq: int, body_bytes: bytes, crc_fix: int = 0) -> bytes:
    """A payload with a correct CRC (xor crc_fix to break it), for frames encode_frame refuses to build."""
    head = struct.pack(">BBH", version, type_code, seq) + body_bytes
    return head + struct.pack(">H", crc16_ccitt_false(head) ^ crc_fix)


def _wire(payload: bytes) -> bytes:
    return cobs.encode(payload) + b"\x00"


def good_vectors() -> list[Vector]:
    """Frames the hub accepts, one or more per message type and family."""
    t = MessageType
    specs: list[tuple[str, str, MessageType, int, Any]] = [
        (
            "hello_tt_scoreboard",
            "HELLO from a table-tennis scoreboard on serial/BLE (no token); first frame after boot, seq 0.",
            t.HELLO,
            0,
            {
                "device_id": "tt-0042",
                "family": "tt-scoreboard",
                "model": "TS-2",
                "firmware": "1.4.0",
                "protocol": 1,
                "boot_epoch": 1700000000,
                "capabilities": ["resync", "show_text", "ack"],
            },
        ),
        (
            "hello_tcp_with_token",
            "First HELLO of a TCP connection: same keys plus 'token' last; the hub consumes it and never stores it.",
            t.HELLO,
            0,
            {
                "device_id": "tt-0042",
                "family": "tt-scoreboard",
                "model": "TS-2",
                "firmware": "1.4.0",
                "protocol": 1,
                "boot_epoch": 1700000000,
                "capabilities": ["resync", "show_text", "ack"],
                "token": "s3cr3t-f0r-tt-0042",
            },
        ),
        (
            "hello_chess_clock",
            "HELLO from a chess clock with a boot counter kept in flash as boot_epoch.",
            t.HELLO,
            0,
            {
                "device_id": "clk_07",
                "family": "chess-clock",
                "model": "BC-Clock",
                "firmware": "0.9.2",
                "protocol": 1,
                "boot_epoch": 42,
                "capabilities": ["resync", "set_clock", "ack"],
            },
        ),
        (
            "hello_backgammon_board",
            "HELLO from a backgammon board without the 'ack' capability (the hub sends commands once).",
            t.HELLO,
            0,
            {
                "device_id": "bg.board.3",
                "family": "backgammon-board",
                "model": "BG-1",
                "firmware": "2.0.0",
                "protocol": 1,
                "boot_epoch": 4294967295,
                "capabilities": ["resync"],
            },
        ),
        (
            "state_tt_scoreboard",
            "Table-tennis STATE: 7-5 in game 2, side 0 leads 1-0 in games and serves.",
            t.STATE,
            1,
            {"points": [7, 5], "games": [1, 0], "server": 0, "game_scores": [[11, 9]]},
        ),
        (
            "state_tt_scoreboard_start",
            "Table-tennis STATE before the first point: server unknown (null), no finished games.",
            t.STATE,
            2,
            {"points": [0, 0], "games": [0, 0], "server": None, "game_scores": []},
        ),
        (
            "state_tt_scoreboard_doubles",
            "Table-tennis STATE, doubles, deciding game at 5-3: ends changed at 5 (swapped), expedite on, "
            "B2 serving; the optional keys ends, expedite and server_player follow game_scores.",
            t.STATE,
            3,
            {
                "points": [5, 3],
                "games": [2, 2],
                "server": 1,
                "game_scores": [[11, 9], [8, 11], [11, 4], [3, 11]],
                "ends": "swapped",
                "expedite": True,
                "server_player": "B2",
            },
        ),
        (
            "state_backgammon_start",
            "Backgammon STATE (draft): starting position, side 0 to move with 3-1 typed on the keypad, cube centred.",
            t.STATE,
            1,
            {
                "points": BACKGAMMON_START,
                "bar": [0, 0],
                "off": [0, 0],
                "dice": [3, 1],
                "dice_source": "keypad",
                "cube": {"value": 1, "owner": None},
                "turn": 0,
            },
        ),
        (
            "state_chess_clock",
            "Chess-clock STATE: 5+0 game, side 1 running, values above 65535 take uint32.",
            t.STATE,
            3,
            {"remaining_ms": [300000, 295500], "running": 1, "moves": [12, 11], "flag": None, "period": 1},
        ),
        (
            "state_chess_clock_start",
            "Chess-clock STATE before move 1 of a 90 min + 30 s Fischer game: the first increment is already "
            "added (5430000 ms each), clock not started (running null), no moves.",
            t.STATE,
            1,
            {"remaining_ms": [5430000, 5430000], "running": None, "moves": [0, 0], "flag": None, "period": 1},
        ),
        (
            "state_chess_clock_flag",
            "Chess-clock STATE: side 0's flag fell at move 38; the clock stopped with side 0 at 0 (running null).",
            t.STATE,
            2000,
            {"remaining_ms": [0, 41250], "running": None, "moves": [37, 38], "flag": 0, "period": 1},
        ),
        (
            "event_tt_button_short",
            "Table-tennis EVENT: short press of side 0's button.",
            t.EVENT,
            4,
            {"kind": "button", "data": {"side": 0, "press": "short"}},
        ),
        (
            "event_tt_button_long",
            "Table-tennis EVENT: long press of side 1's button.",
            t.EVENT,
            5,
            {"kind": "button", "data": {"side": 1, "press": "long"}},
        ),
        (
            "event_tt_timeout",
            "Table-tennis EVENT: side 1 calls its time-out.",
            t.EVENT,
            5,
            {"kind": "timeout", "data": {"side": 1}},
        ),
        (
            "event_tt_card",
            "Table-tennis EVENT: a yellow card to player A2 of side 0 (doubles).",
            t.EVENT,
            5,
            {"kind": "card", "data": {"side": 0, "card": "yellow", "player": "A2"}},
        ),
        (
            "event_clock_press",
            "Chess-clock or backgammon EVENT: side 0 pressed its clock button, with both remaining times.",
            t.EVENT,
            6,
            {"kind": "press", "data": {"side": 0, "remaining_ms": [287250, 295500]}},
        ),
        (
            "event_chess_clock_press",
            "Chess-clock EVENT: side 1 pressed; both times right after the press, side 1's 2 s increment included.",
            t.EVENT,
            77,
            {"kind": "press", "data": {"side": 1, "remaining_ms": [171400, 168250]}},
        ),
        (
            "event_backgammon_cube",
            "Backgammon EVENT: side 0 offers a double.",
            t.EVENT,
            7,
            {"kind": "cube", "data": {"action": "double", "side": 0}},
        ),
        (
            "state_backgammon_midgame",
            "Backgammon STATE: one side-1 checker on the bar, two side-0 checkers borne off, no dice shown, cube on 2 "
            "owned by side 1, side 0 to roll.",
            t.STATE,
            7,
            {
                "points": [2, 3, 3, 2, 2, 0, 0, 0, 0, 0, 0, -5, 0, 0, 0, 0, -3, 0, -5, 0, 0, 0, -1, 1],
                "bar": [0, 1],
                "off": [2, 0],
                "dice": None,
                "dice_source": None,
                "cube": {"value": 2, "owner": 1},
                "turn": 0,
            },
        ),
        (
            "event_backgammon_roll",
            "Backgammon EVENT: side 1 rolled 6-4, read by a camera.",
            t.EVENT,
            7,
            {"kind": "roll", "data": {"side": 1, "dice": [6, 4], "source": "camera"}},
        ),
        (
            "event_backgammon_opening",
            "Backgammon EVENT: the opening roll, one die each: side 0 threw 5, side 1 threw 3.",
            t.EVENT,
            7,
            {"kind": "opening", "data": {"dice": [5, 3]}},
        ),
        (
            "event_backgammon_invalid_dice",
            "Backgammon EVENT: side 0's dice were cocked (or left the board) and are rerolled.",
            t.EVENT,
            7,
            {"kind": "invalid_dice", "data": {"side": 0}},
        ),
        (
            "event_backgammon_resign",
            "Backgammon EVENT: side 1 offers to resign a gammon (2 times the cube).",
            t.EVENT,
            7,
            {"kind": "resign", "data": {"side": 1, "value": 2}},
        ),
        (
            "event_backgammon_accept",
            "Backgammon EVENT: side 0 accepts the resignation offered ('reject' is play on).",
            t.EVENT,
            7,
            {"kind": "accept", "data": {"side": 0}},
        ),
        (
            "heartbeat",
            "HEARTBEAT with battery 87 % and one hour of uptime.",
            t.HEARTBEAT,
            8,
            {"battery": 87, "uptime_s": 3600},
        ),
        (
            "heartbeat_nulls",
            "HEARTBEAT from a mains-powered device without an uptime counter: both fields null.",
            t.HEARTBEAT,
            9,
            {"battery": None, "uptime_s": None},
        ),
        (
            "heartbeat_zero_bytes_in_body",
            "HEARTBEAT whose body holds 0x00 bytes (battery 0, uptime 0) and seq 0: COBS removes them all.",
            t.HEARTBEAT,
            0,
            {"battery": 0, "uptime_s": 0},
        ),
        (
            "heartbeat_seq_1",
            "HEARTBEAT with seq 1.",
            t.HEARTBEAT,
            1,
            {"battery": 50, "uptime_s": 65},
        ),
        (
            "heartbeat_seq_65534",
            "HEARTBEAT with seq 65534 (0xFFFE), two frames before the wrap.",
            t.HEARTBEAT,
            65534,
            {"battery": 50, "uptime_s": 70000},
        ),
        (
            "heartbeat_seq_65535",
            "HEARTBEAT with seq 65535 (0xFFFF); the next frame has seq 0.",
            t.HEARTBEAT,
            65535,
            {"battery": 50, "uptime_s": 70005},
        ),
        (
            "heartbeat_seq_0_after_wrap",
            "HEARTBEAT with seq 0 right after 65535 (same boot, so the hub sees no gap).",
            t.HEARTBEAT,
            0,
            {"battery": 50, "uptime_s": 70010},
        ),
        (
            "command_resync",
            "Hub COMMAND resync, the first frame the hub sends on every connection (hub seq 0).",
            t.COMMAND,
            0,
            {"cmd": "resync"},
        ),
        (
            "command_show_text_unicode",
            "Hub COMMAND show_text with a Turkish name (UTF-8, 14 bytes, a fixstr), shown for 10 s.",
            t.COMMAND,
            17,
            {"cmd": "show_text", "text": "Ayşe Öztürk", "seconds": 10},
        ),
        (
            "command_set_clock",
            "Hub COMMAND set_clock: both sides to 5 minutes, clock stopped (running null).",
            t.COMMAND,
            18,
            {"cmd": "set_clock", "remaining_ms": [300000, 300000], "running": None},
        ),
        (
            "command_set_clock_running",
            "Hub COMMAND set_clock: corrected times with side 0 running.",
            t.COMMAND,
            19,
            {"cmd": "set_clock", "remaining_ms": [120000, 95000], "running": 0},
        ),
        (
            "ack_ok",
            "Device ACK of the hub COMMAND with seq 17: executed.",
            t.ACK,
            10,
            {"ack": 17, "ok": True},
        ),
        (
            "ack_error",
            "Device ACK of the hub COMMAND with seq 18: refused, with a reason.",
            t.ACK,
            11,
            {"ack": 18, "ok": False, "error": "set_clock not supported"},
        ),
        (
            "error_sensor_fault",
            "Device ERROR report.",
            t.ERROR,
            12,
            {"code": "sensor_fault", "detail": "point 13 sensor reads open"},
        ),
        (
            "event_unicode_player",
            "EVENT whose data carries a Turkish name in UTF-8.",
            t.EVENT,
            13,
            {"kind": "player", "data": {"side": 1, "name": "Ayşe Öztürk"}},
        ),
    ]
    vectors = [
        Vector(name, desc, encode_frame(mtype, seq, body), body) for name, desc, mtype, seq, body in specs
    ]

    # A payload of exactly 254 bytes without any 0x00: one full COBS block (code 0xFF), no trailing code byte.
    exact = _exact_block_frame()
    vectors.append(
        Vector(
            "cobs_exact_254_byte_block",
            f"COMMAND show_text whose payload is exactly 254 bytes with no 0x00 (seq {exact[1]}): "
            "COBS gives 0xFF + 254 bytes and no final code byte.",
            encode_frame(MessageType.COMMAND, exact[1], exact[0]),
            exact[0],
        )
    )
    long_body = {"cmd": "show_text", "text": "Masa 7: " + "0123456789" * 29, "seconds": 0}
    vectors.append(
        Vector(
            "long_payload_300_bytes",
            "COMMAND show_text with a 298-byte text (str16): payload longer than one 254-byte COBS block, "
            "seq 256 and seconds 0 put 0x00 bytes in the header and body.",
            encode_frame(MessageType.COMMAND, 256, long_body),
            long_body,
        )
    )
    max_body = _max_payload_body()
    vectors.append(
        Vector(
            "max_payload_4096_bytes",
            "EVENT whose payload is exactly 4096 bytes, the largest frame allowed.",
            encode_frame(MessageType.EVENT, 14, max_body),
            max_body,
        )
    )
    return vectors


def _exact_block_frame() -> tuple[dict[str, Any], int]:
    base = {"cmd": "show_text", "text": "", "seconds": 5}
    overhead = 4 + len(msgpack.packb(base, use_bin_type=True)) + 2
    text_len = 254 - overhead - 1  # str8 header (0xd9 n) is one byte longer than fixstr
    body = {"cmd": "show_text", "text": "x" * text_len, "seconds": 5}
    for seq in range(0x0101, 0x10000):
        if 0 in seq.to_bytes(2, "big"):
            continue
        payload = cobs.decode(encode_frame(MessageType.COMMAND, seq, body)[:-1])
        if len(payload) == 254 and 0 not in payload:
            return body, seq
    raise AssertionError("no seq gives a zero-free 254-byte payload")  # pragma: no cover


def _max_payload_body() -> dict[str, Any]:
    base = {"kind": "log", "data": {"text": ""}}
    overhead = 4 + len(msgpack.packb(base, use_bin_type=True)) + 2 + 2  # str16 header is 3 bytes, fixstr 1
    body = {
        "kind": "log",
        "data": {"text": "".join(chr(ord("a") + i % 26) for i in range(MAX_FRAME - overhead))},
    }
    size = len(cobs.decode(encode_frame(MessageType.EVENT, 14, body)[:-1]))
    assert size == MAX_FRAME, size
    return body


def bad_vectors(good: dict[str, Vector]) -> list[Vector]:
    """Byte runs the hub rejects, one or more per FrameErrorKind the codec can return."""
    hb = cobs.decode(good["heartbeat"].wire[:-1])
    flipped = hb[:-1] + bytes([hb[-1] ^ 0x01])
    body_hb = msgpack.packb({"battery": 87, "uptime_s": 3600}, use_bin_type=True)
    big = {"kind": "log", "data": {"text": "".join(chr(ord("A") + i % 26) for i in range(4280))}}
    oversize = _payload(1, 3, 15, msgpack.packb(big, use_bin_type=True))
    return [
        Vector(
            "bad_crc",
            "The 'heartbeat' vector with the last CRC byte flipped (0x01).",
            _wire(flipped),
            error="bad_crc",
        ),
        Vector(
            "bad_crc_body_bit_flip",
            "The 'heartbeat' vector with one bit of the body flipped in transit (CRC unchanged).",
            _wire(hb[:6] + bytes([hb[6] ^ 0x10]) + hb[7:]),
            error="bad_crc",
        ),
        Vector(
            "bad_cobs",
            "Code byte 0x05 promises 4 data bytes but the delimiter comes after 2.",
            bytes.fromhex("05010203") + b"\x00",
            error="bad_cobs",
        ),
        Vector(
            "bad_cobs_truncated_frame",
            "The 'heartbeat' vector cut short by 3 bytes before its delimiter (a torn frame).",
            good["heartbeat"].wire[:-4] + b"\x00",
            error="bad_cobs",
        ),
        Vector(
            "too_short_empty",
            "A single code byte 0x01: an empty payload.",
            bytes.fromhex("0100"),
            error="too_short",
        ),
        Vector(
            "too_short_no_body",
            "Header and a valid CRC but no body: 6 bytes, the minimum is 7.",
            _wire(_payload(1, 4, 5, b"")),
            error="too_short",
        ),
        Vector(
            "bad_version",
            "A well-formed HEARTBEAT with version 2 (valid CRC).",
            _wire(_payload(2, 4, 8, body_hb)),
            error="bad_version",
        ),
        Vector(
            "unknown_type",
            "Version 1, type 9 (valid CRC).",
            _wire(_payload(1, 9, 8, body_hb)),
            error="unknown_type",
        ),
        Vector(
            "unknown_type_zero",
            "Version 1, type 0 (valid CRC).",
            _wire(_payload(1, 0, 8, body_hb)),
            error="unknown_type",
        ),
        Vector(
            "bad_body_reserved_byte",
            "HEARTBEAT whose body is 0xC1, a byte msgpack never uses (valid CRC).",
            _wire(_payload(1, 4, 8, b"\xc1")),
            error="bad_body",
        ),
        Vector(
            "bad_body_truncated_map",
            "HEARTBEAT whose body is a 2-entry map with only one key (valid CRC).",
            _wire(_payload(1, 4, 8, bytes.fromhex("82a762617474657279"))),
            error="bad_body",
        ),
        Vector(
            "bad_body_two_values",
            "HEARTBEAT whose body is two msgpack values (a map, then nil); a body is exactly one value.",
            _wire(_payload(1, 4, 8, body_hb + b"\xc0")),
            error="bad_body",
        ),
        Vector(
            "bad_body_invalid_utf8",
            "ERROR whose 'code' string holds the invalid UTF-8 sequence C3 28.",
            _wire(_payload(1, 7, 8, bytes.fromhex("82a4636f6465a2c328a664657461696ca0"))),
            error="bad_body",
        ),
        Vector(
            "bad_body_integer_map_key",
            "HEARTBEAT whose body map has an integer key; map keys must be strings (or bytes).",
            _wire(_payload(1, 4, 8, bytes.fromhex("810157"))),
            error="bad_body",
        ),
        Vector(
            "too_long_no_delimiter",
            f"A well-formed EVENT with a {len(oversize)}-byte payload, {len(cobs.encode(oversize))} bytes "
            f"encoded: more than the {MAX_ENCODED} bytes a {MAX_FRAME}-byte payload can encode to; a stream "
            f"parser reports it as soon as encoded byte {MAX_ENCODED + 1} arrives and drops the rest.",
            _wire(oversize),
            error="too_long",
        ),
        Vector(
            "too_long_decoded",
            f"4101 code bytes 0x01 (within {MAX_ENCODED}) that decode to 4100 zero bytes, over {MAX_FRAME}.",
            bytes([0x01]) * 4101 + b"\x00",
            error="too_long",
        ),
    ]


def streams(good: dict[str, Vector], bad: dict[str, Vector]) -> list[dict[str, Any]]:
    """Multi-frame byte streams with the ordered results the codec gives for them."""
    w = {name: v.wire for name, v in {**good, **bad}.items()}
    torn = w["state_tt_scoreboard"][: len(w["state_tt_scoreboard"]) // 2]
    corrupted = bytearray(w["state_tt_scoreboard"])
    corrupted[5] ^= 0x40
    specs: list[tuple[str, str, bytes]] = [
        (
            "idle_fill",
            "Idle 0x00 fill before, between and after two frames is skipped silently.",
            b"\x00\x00\x00" + w["hello_tt_scoreboard"] + b"\x00\x00" + w["state_tt_scoreboard"] + b"\x00",
        ),
        (
            "garbage_then_frames",
            "Line noise at power-up (DE AD BE EF), a delimiter, then two good frames.",
            bytes.fromhex("deadbeef00") + w["hello_tt_scoreboard"] + w["heartbeat"],
        ),
        (
            "torn_frame_then_delimiter",
            "A device reset mid-frame: half a STATE, then (good practice) a 0x00 sent at boot, then HELLO.",
            torn + b"\x00" + w["hello_tt_scoreboard"],
        ),
        (
            "torn_frame_swallows_next",
            "Half a STATE directly followed by a full HELLO and a HEARTBEAT: the torn STATE and the HELLO "
            "merge into one bad run and both are lost; this is why a device sends 0x00 before its first frame.",
            torn + w["hello_tt_scoreboard"] + w["heartbeat"],
        ),
        (
            "corrupted_frame_in_the_middle",
            "Three frames, the middle one with a byte damaged: only the middle one is lost.",
            w["heartbeat"] + bytes(corrupted) + w["event_tt_button_short"],
        ),
        (
            "too_long_then_frame",
            "A run with no delimiter longer than any frame, then a good frame after the next 0x00.",
            w["too_long_no_delimiter"] + w["heartbeat"],
        ),
        (
            "seq_wrap",
            "Four HEARTBEATs across the 16-bit wrap: 65534, 65535, 0, 1.",
            w["heartbeat_seq_65534"]
            + w["heartbeat_seq_65535"]
            + w["heartbeat_seq_0_after_wrap"]
            + w["heartbeat_seq_1"],
        ),
        (
            "every_error_kind",
            "Each kind of broken frame between good ones; the codec recovers after every one.",
            b"".join(
                w[n]
                for n in (
                    "bad_cobs",
                    "ack_ok",
                    "too_short_empty",
                    "bad_crc",
                    "bad_version",
                    "unknown_type",
                    "bad_body_reserved_byte",
                    "long_payload_300_bytes",
                    "too_long_decoded",
                    "heartbeat_nulls",
                )
            ),
        ),
    ]
    by_wire = {v.wire: name for name, v in good.items()}
    out = []
    for name, description, data in specs:
        expect: list[dict[str, str]] = []
        for item in WireCodec().feed(data):
            if isinstance(item, Frame):
                expect.append({"frame": by_wire[item.raw]})
            else:
                expect.append({"error": item.kind.value})
        out.append({"name": name, "description": description, "hex": data.hex(), "expect": expect})
    return out


def msgpack_bodies() -> list[dict[str, Any]]:
    """Bodies for checking a msgpack validator against msgpack-python (unpackb, raw=False)."""
    cases = [
        ("nil", "c0"),
        ("empty_map", "80"),
        ("nested", "81a16181a16201"),
        ("bin_key", "81c4016102"),
        ("float32", "ca3f800000"),
        ("float64", "cb3ff0000000000000"),
        ("int64_min", "d38000000000000000"),
        ("uint64_max", "cfffffffffffffffff"),
        ("str8_utf8", "d903c59f61"),
        ("fixext_app", "d40501"),
        ("ext8_empty", "c70005"),
        ("timestamp32", "d6ff00000001"),
        ("timestamp96", "c70cff" + "00" * 12),
        ("empty", ""),
        ("reserved_c1", "c1"),
        ("extra_data", "c0c0"),
        ("truncated_str", "a3616263"[:-2]),
        ("truncated_uint32", "ce0000"),
        ("truncated_array", "920102"[:-2]),
        ("int_key", "810102"),
        ("nil_key", "81c001"),
        ("array_key", "819001"),
        ("utf8_overlong", "a2c0af"),
        ("utf8_surrogate", "a3eda080"),
        ("utf8_above_10ffff", "a4f4908080"),
        ("utf8_truncated", "a2e282"),
        ("utf8_ok_4byte", "a4f09f8f93"),
        ("timestamp_bad_length", "d5ff0000"),
        ("timestamp64_bad_nanos", "d7ff" + ((10**9) << 34).to_bytes(8, "big").hex()),
        ("deep_nesting_32", "91" * 31 + "c0"),
    ]
    out = []
    for name, hex_ in cases:
        try:
            msgpack.unpackb(bytes.fromhex(hex_), raw=False)
            valid = True
        except ValueError:  # every msgpack unpack failure, UnicodeDecodeError included, is a ValueError
            valid = False
        out.append({"name": name, "hex": hex_, "valid": valid})
    return out


def _frame_json(vector: Vector) -> dict[str, Any]:
    result = decode_frame(vector.wire)
    assert isinstance(result, Frame), vector.name
    assert result.body == vector.body, vector.name
    payload = cobs.decode(vector.wire[:-1])
    return {
        "version": result.version,
        "type": int(result.type),
        "type_name": result.type.name,
        "seq": result.seq,
        "body": vector.body,
        "payload_hex": payload.hex(),
        "body_hex": payload[4:-2].hex(),
    }


def build() -> dict[str, Any]:
    """The whole vector document."""
    good = good_vectors()
    good_by_name = {v.name: v for v in good}
    bad = bad_vectors(good_by_name)
    entries: list[dict[str, Any]] = []
    for vector in good:
        entries.append(
            {
                "name": vector.name,
                "description": vector.description,
                "hex": vector.wire.hex(),
                "frame": _frame_json(vector),
            }
        )
    for vector in bad:
        result = decode_frame(vector.wire)
        assert isinstance(result, FrameError) and result.kind.value == vector.error, (
            vector.name,
            result.kind,
        )
        entries.append(
            {
                "name": vector.name,
                "description": vector.description,
                "hex": vector.wire.hex(),
                "error": vector.error,
            }
        )
    names = [e["name"] for e in entries]
    assert len(names) == len(set(names)), "duplicate vector names"
    assert all(name in good_by_name for name in C_BUILDERS)
    return {
        "version": FORMAT_VERSION,
        "protocol_version": PROTOCOL_VERSION,
        "generator": "firmware-protocols/vectors/generate.py (from devices.wire)",
        "limits": {"max_payload": MAX_FRAME, "max_encoded": MAX_ENCODED, "min_payload": 7},
        "crc_check": {"input_ascii": "123456789", "crc16": crc16_ccitt_false(b"123456789")},
        "vectors": entries,
        "streams": streams(good_by_name, {v.name: v for v in bad}),
        "msgpack_bodies": msgpack_bodies(),
        "c_builders": C_BUILDERS,
    }


def render_json(doc: dict[str, Any]) -> str:
    """frames.json text: stable key order, UTF-8, one trailing newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _c_bytes(data: bytes, indent: str = "    ") -> str:
    if not data:
        return indent + "0x00 /* empty */"
    lines = []
    for i in range(0, len(data), 16):
        lines.append(indent + ", ".join(f"0x{b:02x}" for b in data[i : i + 16]))
    return ",\n".join(lines)


_C_ERRORS = {
    "bad_cobs": "BW_ERR_BAD_COBS",
    "too_short": "BW_ERR_TOO_SHORT",
    "bad_crc": "BW_ERR_BAD_CRC",
    "bad_version": "BW_ERR_BAD_VERSION",
    "unknown_type": "BW_ERR_UNKNOWN_TYPE",
    "bad_body": "BW_ERR_BAD_BODY",
    "too_long": "BW_ERR_TOO_LONG",
}


def render_header(doc: dict[str, Any]) -> str:
    """c/vectors.h text: the same vectors as C arrays."""
    out = [
        "/* Boardcast Wire test vectors. GENERATED by firmware-protocols/vectors/generate.py from devices.wire;",
        " * do not edit. Regenerate: .venv/bin/python firmware-protocols/vectors/generate.py */",
        "#ifndef BOARDCAST_WIRE_VECTORS_H",
        "#define BOARDCAST_WIRE_VECTORS_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        '#include "boardcast_wire.h"',
        "",
        "typedef struct {",
        "    const char *name;",
        "    const uint8_t *wire; /* full wire bytes, trailing 0x00 included */",
        "    size_t wire_len;",
        "    int expect; /* BW_FRAME or a BW_ERR_* code */",
        "    uint8_t version;",
        "    uint8_t type;",
        "    uint16_t seq;",
        "    const uint8_t *body; /* msgpack body bytes (good frames only) */",
        "    size_t body_len;",
        "} bw_vector;",
        "",
        "typedef struct {",
        "    int result; /* BW_FRAME or a BW_ERR_* code */",
        "    int vector; /* index into bw_vectors when result is BW_FRAME, else -1 */",
        "} bw_stream_result;",
        "",
        "typedef struct {",
        "    const char *name;",
        "    const uint8_t *wire;",
        "    size_t wire_len;",
        "    const bw_stream_result *expect;",
        "    size_t expect_len;",
        "} bw_stream;",
        "",
        "typedef struct {",
        "    const char *name;",
        "    const uint8_t *data;",
        "    size_t len;",
        "    int valid;",
        "} bw_msgpack_case;",
        "",
    ]
    index = {}
    for i, vector in enumerate(doc["vectors"]):
        index[vector["name"]] = i
        out.append(f"static const uint8_t bw_v{i}_wire[] = {{ /* {vector['name']} */")
        out.append(_c_bytes(bytes.fromhex(vector["hex"])))
        out.append("};")
        if "frame" in vector:
            out.append(f"static const uint8_t bw_v{i}_body[] = {{")
            out.append(_c_bytes(bytes.fromhex(vector["frame"]["body_hex"])))
            out.append("};")
    out.append("")
    out.append("static const bw_vector bw_vectors[] = {")
    for i, vector in enumerate(doc["vectors"]):
        wire_len = len(vector["hex"]) // 2
        if "frame" in vector:
            f = vector["frame"]
            out.append(
                f'    {{"{vector["name"]}", bw_v{i}_wire, {wire_len}, BW_FRAME, {f["version"]}, {f["type"]}, '
                f"{f['seq']}, bw_v{i}_body, {len(f['body_hex']) // 2}}},"
            )
        else:
            out.append(
                f'    {{"{vector["name"]}", bw_v{i}_wire, {wire_len}, {_C_ERRORS[vector["error"]]}, 0, 0, 0, NULL, 0}},'
            )
    out.append("};")
    out.append(f"#define BW_VECTOR_COUNT {len(doc['vectors'])}")
    out.append("")
    for i, stream in enumerate(doc["streams"]):
        out.append(f"static const uint8_t bw_s{i}_wire[] = {{ /* {stream['name']} */")
        out.append(_c_bytes(bytes.fromhex(stream["hex"])))
        out.append("};")
        out.append(f"static const bw_stream_result bw_s{i}_expect[] = {{")
        for item in stream["expect"]:
            if "frame" in item:
                out.append(f"    {{BW_FRAME, {index[item['frame']]}}}, /* {item['frame']} */")
            else:
                out.append(f"    {{{_C_ERRORS[item['error']]}, -1}},")
        out.append("};")
    out.append("static const bw_stream bw_streams[] = {")
    for i, stream in enumerate(doc["streams"]):
        out.append(
            f'    {{"{stream["name"]}", bw_s{i}_wire, sizeof bw_s{i}_wire, bw_s{i}_expect, '
            f"sizeof bw_s{i}_expect / sizeof bw_s{i}_expect[0]}},"
        )
    out.append("};")
    out.append(f"#define BW_STREAM_COUNT {len(doc['streams'])}")
    out.append("")
    for i, case in enumerate(doc["msgpack_bodies"]):
        out.append(f"static const uint8_t bw_m{i}[] = {{ /* {case['name']} */")
        out.append(_c_bytes(bytes.fromhex(case["hex"])))
        out.append("};")
    out.append("static const bw_msgpack_case bw_msgpack_cases[] = {")
    for i, case in enumerate(doc["msgpack_bodies"]):
        out.append(f'    {{"{case["name"]}", bw_m{i}, {len(case["hex"]) // 2}, {int(case["valid"])}}},')
    out.append("};")
    out.append(f"#define BW_MSGPACK_CASE_COUNT {len(doc['msgpack_bodies'])}")
    out.append("")
    out.append("/* Vectors that test_vectors.c rebuilds with the C payload builders. */")
    for name in doc["c_builders"]:
        out.append(f"#define BW_VI_{name.upper()} {index[name]}")
    out.append(f"#define BW_BUILDER_COUNT {len(doc['c_builders'])}")
    out.append("")
    out.append(f"#define BW_CRC_CHECK_VALUE 0x{doc['crc_check']['crc16']:04X}u")
    out.append("")
    out.append("#endif /* BOARDCAST_WIRE_VECTORS_H */")
    return "\n".join(out) + "\n"


def write(out_dir: Path) -> tuple[Path, Path]:
    """Write vectors/frames.json and c/vectors.h under out_dir; return both paths."""
    doc = build()
    json_path = out_dir / "vectors" / "frames.json"
    header_path = out_dir / "c" / "vectors.h"
    json_path.parent.mkdir(parents=True, exist_ok=True)
    header_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(render_json(doc), encoding="utf-8")
    header_path.write_text(render_header(doc), encoding="utf-8")
    return json_path, header_path


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=FIRMWARE_DIR, help="folder to write vectors/ and c/ into")
    args = parser.parse_args(argv)
    for path in write(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
