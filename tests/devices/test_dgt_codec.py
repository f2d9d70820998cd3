"""DGT codec: the real board captures decode to what they hold; chunking, garbage, encoders and the clock."""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
from functools import cache
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devices.dgt.codec import (
    ClockCommand,
    ClockRun,
    Command,
    DgtCodec,
    DgtError,
    DgtErrorKind,
    UpdateMode,
    board_dump_from_fen,
    bus_checksum,
    decode_message,
    encode_clock_command,
    encode_clock_end_text,
    encode_clock_set_and_run,
    encode_clock_text,
    encode_command,
    encode_message,
    encode_update_mode,
)
from devices.dgt.messages import (
    BoardDump,
    ClockAck,
    ClockButton,
    ClockDisplay,
    ClockSide,
    ClockTimes,
    DgtPiece,
    FieldUpdate,
    SerialNumber,
    Version,
    field_from_square,
    square_from_field,
)

# Real captures from real boards (their source and licence: tests/fixtures/dgt/README.md), kept in the
# repository so the tests do not depend on what lies beside the clone.
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dgt"
CAPTURES = ("1", "johan")


def needs_fixtures(test):  # type: ignore[no-untyped-def]
    """Mark a test that reads the real captures; without them it fails loudly."""
    return test


@cache
def reads(name: str) -> tuple[bytes, ...]:
    """One serial read per line of X.inbytes, base64-decoded."""
    if not FIXTURES.is_dir():
        pytest.fail(
            f"the real DGT captures are missing: expected them at {FIXTURES} (see tests/fixtures/dgt/README.md)"
        )
    lines = (FIXTURES / f"{name}.inbytes").read_text().splitlines()
    return tuple(base64.b64decode(line) for line in lines if line.strip())


@cache
def decoded(name: str) -> tuple:
    codec = DgtCodec()
    out = [item for read in reads(name) for item in codec.feed(read)]
    return tuple(out + codec.flush())


def described(name: str) -> list[dict]:
    """X.json: one line per message of the capture, as the capture's publisher decoded it."""
    return [json.loads(line) for line in (FIXTURES / f"{name}.json").read_text().splitlines() if line.strip()]


def as_fixture_json(message) -> dict:
    """A decoded message in the shape of the fixture's JSON lines."""

    def side(display: ClockDisplay) -> dict:
        return {
            "hours": display.hours,
            "minutes": display.minutes,
            "seconds": display.seconds,
            "final_flag": display.final_flag,
            "flag": display.flag,
            "time_per_move": display.time_per_move,
        }

    match message:
        case BoardDump():  # the JSON lists squares in DGT field order, a8 first
            return {"board": [message.pieces[square_from_field(f)].symbol or "." for f in range(64)]}
        case FieldUpdate(square=square, piece=piece):
            return {"piece": piece.symbol or ".", "field": chess.square_name(square)}
        case ClockTimes():
            return {
                "left_clock": side(message.left),
                "right_clock": side(message.right),
                "clock_running": message.running,
                "right_high": message.right_high,
                "battery_indicator": message.battery_low,
                "left_turn": message.left_turn,
                "right_turn": message.right_turn,
                "no_clock": message.no_clock,
            }
    raise AssertionError(f"the captures hold no {type(message).__name__}")


def without_raw(item):
    return dataclasses.replace(item, raw=b"")


def messages_only(items) -> list:
    return [item for item in items if not isinstance(item, DgtError)]


def stream(name: str) -> bytes:
    return b"".join(reads(name))


def frames(name: str) -> list[bytes]:
    """The capture's messages as the byte runs they were decoded from."""
    return [item.raw for item in decoded(name)]


# -- the real captures ---------------------------------------------------------------------------------------


@needs_fixtures
@pytest.mark.parametrize("name", CAPTURES)
def test_capture_decodes_to_exactly_the_messages_its_json_describes(name: str) -> None:
    items = decoded(name)
    assert [item for item in items if isinstance(item, DgtError)] == []
    assert [as_fixture_json(item) for item in items] == described(name)


@needs_fixtures
@pytest.mark.parametrize(
    ("name", "dumps", "field_updates", "clock_times"), [("1", 1, 131, 323), ("johan", 1, 101, 854)]
)
def test_capture_holds_one_board_dump_then_field_updates_and_clock_readings(
    name: str, dumps: int, field_updates: int, clock_times: int
) -> None:
    items = decoded(name)
    assert sum(isinstance(m, BoardDump) for m in items) == dumps
    assert sum(isinstance(m, FieldUpdate) for m in items) == field_updates
    assert sum(isinstance(m, ClockTimes) for m in items) == clock_times
    assert len(items) == dumps + field_updates + clock_times  # no acks, serials or versions in these captures
    assert isinstance(items[0], BoardDump)


@needs_fixtures
@pytest.mark.parametrize("name", CAPTURES)
def test_first_board_dump_is_the_start_position(name: str) -> None:
    dump = decoded(name)[0]
    assert dump.board_fen() == chess.STARTING_BOARD_FEN
    assert dump.piece_at(chess.E1) == chess.Piece(chess.KING, chess.WHITE)
    assert dump.pieces[chess.D8] is DgtPiece.BLACK_QUEEN
    assert dump.magic_pieces == ()


def replay_field_updates(name: str) -> chess.BaseBoard:
    items = decoded(name)
    board = items[0].to_board()
    for item in items[1:]:
        if isinstance(item, FieldUpdate):
            board.set_piece_at(item.square, item.piece.to_chess())
    return board


def final_position(name: str) -> chess.BaseBoard:
    if name == "1":
        board = chess.Board()
        for token in (FIXTURES / "1.uci").read_text().split():
            if not token[0].isdigit() and token != "*":
                board.push_uci(token)
        return board
    with (FIXTURES / "johan.pgn").open() as pgn:
        game = chess.pgn.read_game(pgn)
    assert game is not None
    return game.end().board()


@needs_fixtures
def test_field_updates_of_capture_1_end_in_the_position_after_1_uci() -> None:
    assert replay_field_updates("1").board_fen() == final_position("1").board_fen()


@needs_fixtures
def test_field_updates_of_johan_end_in_the_final_position_with_kings_in_the_centre_for_white() -> None:
    """johan.pgn ends 1-0; the arbiter then set both kings on light centre squares, DGT's white-wins signal."""
    board, game = replay_field_updates("johan"), final_position("johan")
    changed = {chess.square_name(s): (game.piece_at(s), board.piece_at(s)) for s in chess.SQUARES}
    changed = {name: pair for name, pair in changed.items() if pair[0] != pair[1]}
    king, pawn = chess.Piece.from_symbol("K"), chess.Piece.from_symbol("P")
    black_king = chess.Piece.from_symbol("k")
    assert changed == {
        "g1": (king, None),
        "g8": (black_king, None),
        "d4": (pawn, None),  # lifted to make room in the centre
        "e4": (None, king),
        "d5": (None, black_king),
    }
    assert all(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[chess.parse_square(s)] for s in ("e4", "d5"))


@needs_fixtures
def test_first_clock_readings_of_capture_1_show_3_plus_2_with_the_increment_already_added() -> None:
    clocks = [m for m in decoded("1") if isinstance(m, ClockTimes)]
    first = clocks[0]
    assert first.left == first.right == ClockDisplay(0, 3, 2, time_per_move=True)
    assert not first.running and first.running_side is None and first.left_turn
    assert clocks[1].running and clocks[1].running_side is ClockSide.LEFT
    assert [c.left.remaining_s for c in clocks[2:6]] == [181, 180, 179, 181]  # 3:01, 3:00, 2:59, lever: +2 s
    assert clocks[5].running_side is ClockSide.RIGHT and clocks[5].right_high and clocks[5].right_turn


@needs_fixtures
@pytest.mark.parametrize(("name", "increment_s", "plies"), [("1", 2, 57), ("johan", 5, 43)])
def test_lever_and_decreasing_time_agree_on_the_running_side(name: str, increment_s: int, plies: int) -> None:
    """While one side runs only its time moves, by 0 or -1 s; every lever press adds the increment to the mover."""
    clocks = [m for m in decoded(name) if isinstance(m, ClockTimes) and m.running]
    presses = 0
    for before, after in itertools.pairwise(clocks):
        side = before.running_side
        assert side is not None
        other = ClockSide.RIGHT if side is ClockSide.LEFT else ClockSide.LEFT
        assert before.left_turn == (side is ClockSide.LEFT) and before.right_turn == (side is ClockSide.RIGHT)
        moved = getattr(after, side).remaining_s - getattr(before, side).remaining_s
        if after.running_side is side:
            assert moved in (0, -1)
            assert getattr(after, other) == getattr(before, other)
        else:
            presses += 1
            assert moved == increment_s
    assert presses == plies


@needs_fixtures
def test_johan_ends_with_the_right_flag_fallen_and_the_clock_blocked_at_zero() -> None:
    last = [m for m in decoded("johan") if isinstance(m, ClockTimes)][-1]
    assert last.right == ClockDisplay(0, 0, 0, final_flag=True, time_per_move=True)
    assert last.left.remaining_s == 16 and not last.left.final_flag
    assert not last.running and last.running_side is None


# -- chunking and resynchronisation -------------------------------------------------------------------------


@needs_fixtures
@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(CAPTURES), data=st.data())
def test_capture_split_at_random_points_decodes_to_the_same_messages(name: str, data: st.DataObject) -> None:
    raw = stream(name)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=200)))
    codec = DgtCodec()
    out = []
    for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True):
        out += codec.feed(raw[start:end])
    assert tuple(out + codec.flush()) == decoded(name)


@needs_fixtures
def test_capture_fed_one_byte_at_a_time_decodes_to_the_same_messages() -> None:
    codec = DgtCodec()
    out = [item for byte in stream("1") for item in codec.feed(bytes([byte]))]
    assert tuple(out) == decoded("1")


def is_subsequence(needle: list, haystack: list) -> bool:
    it = iter(haystack)
    return all(any(x == y for y in it) for x in needle)


@needs_fixtures
@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(CAPTURES),
    data=st.data(),
    garbage=st.lists(st.tuples(st.integers(0, 400), st.binary(min_size=1, max_size=12)), max_size=8),
)
def test_garbage_between_messages_never_raises_and_every_message_is_recovered(
    name: str, data: st.DataObject, garbage: list[tuple[int, bytes]]
) -> None:
    runs = frames(name)[: data.draw(st.integers(5, 400))]
    inserted = dict(garbage)
    stream_bytes = b"".join(inserted.get(i, b"") + run for i, run in enumerate(runs))
    codec = DgtCodec()
    out = codec.feed(stream_bytes) + codec.flush()
    originals = list(decoded(name)[: len(runs)])
    assert is_subsequence(originals, messages_only(out))


@needs_fixtures
@settings(max_examples=80, deadline=None)
@given(data=st.data(), noise=st.binary(min_size=1, max_size=20))
def test_seven_bit_noise_between_messages_is_one_noise_error_and_nothing_else(
    data: st.DataObject, noise: bytes
) -> None:
    noise = bytes(b & 0x7F for b in noise)
    runs = frames("1")[:40]
    at = data.draw(st.integers(1, len(runs) - 1))
    codec = DgtCodec()
    out = codec.feed(b"".join(runs[:at]) + noise + b"".join(runs[at:]))
    errors = [item for item in out if isinstance(item, DgtError)]
    assert messages_only(out) == list(decoded("1")[:40])
    assert [e.kind for e in errors] == [DgtErrorKind.NOISE]
    assert errors[0].raw == noise
    assert out.index(errors[0]) == at  # reported in stream order, before the message that ended the run


@needs_fixtures
@settings(max_examples=120, deadline=None)
@given(data=st.data(), garbage=st.binary(min_size=1, max_size=16))
def test_garbage_inside_a_message_loses_at_most_that_message(data: st.DataObject, garbage: bytes) -> None:
    runs = frames("johan")[:60]
    hit = data.draw(st.integers(0, len(runs) - 1))
    offset = data.draw(st.integers(1, len(runs[hit]) - 1))
    damaged = runs[hit][:offset] + garbage + runs[hit][offset:]
    codec = DgtCodec()
    out = codec.feed(b"".join(runs[:hit]) + damaged + b"".join(runs[hit + 1 :])) + codec.flush()
    originals = list(decoded("johan")[:60])
    assert out[:hit] == originals[:hit]
    assert is_subsequence(originals[hit + 1 :], messages_only(out[hit:]))


@given(st.binary(max_size=400))
def test_any_bytes_never_raise(data: bytes) -> None:
    codec = DgtCodec()
    out = codec.feed(data) + codec.flush()
    assert codec.messages_ok + codec.errors == len(out)


def test_a_message_cut_short_by_the_next_id_is_reported_and_the_next_message_decodes() -> None:
    update = encode_message(FieldUpdate(chess.E4, DgtPiece.WHITE_PAWN))
    out = DgtCodec().feed(b"\x8d\x00\x0a\x20\x03" + update)
    assert [type(x) for x in out] == [DgtError, FieldUpdate]
    assert out[0].kind is DgtErrorKind.TRUNCATED and out[0].raw == b"\x8d\x00\x0a\x20\x03"
    assert "BWTIME" in out[0].detail


def test_an_unknown_id_is_skipped_with_its_payload_as_one_error() -> None:
    update = encode_message(FieldUpdate(chess.E4, DgtPiece.WHITE_PAWN))
    out = DgtCodec().feed(b"\xf3\x00\x06\x01\x02\x03" + update)
    assert out[0] == DgtError(DgtErrorKind.UNKNOWN_ID, out[0].detail, b"\xf3\x00\x06\x01\x02\x03")
    assert "0xf3" in out[0].detail
    assert out[1] == FieldUpdate(chess.E4, DgtPiece.WHITE_PAWN, update)


def test_a_length_the_id_cannot_have_skips_to_the_next_id() -> None:
    update = encode_message(FieldUpdate(chess.D5, DgtPiece.BLACK_KING))
    out = DgtCodec().feed(b"\x8e\x00\x06\x24\x01\x00" + update)
    assert (
        out[0].kind is DgtErrorKind.BAD_LENGTH
        and "FIELD_UPDATE" in out[0].detail
        and "must be 5" in out[0].detail
    )
    assert out[1] == FieldUpdate(chess.D5, DgtPiece.BLACK_KING, update)


def test_a_partial_message_waits_for_its_rest_and_flush_reports_it_at_the_end() -> None:
    codec = DgtCodec()
    assert codec.feed(b"\x86\x00\x43" + bytes(10)) == []
    assert [e.kind for e in codec.flush()] == [DgtErrorKind.TRUNCATED]
    assert codec.flush() == []


def test_reset_forgets_a_partial_message() -> None:
    codec = DgtCodec()
    codec.feed(b"\x8e\x00\x05\x24")
    codec.reset()
    assert codec.feed(b"\x01") == []
    assert [e.kind for e in codec.flush()] == [DgtErrorKind.NOISE]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"\x8e\x00\x05\x40\x01", "field 64"),
        (b"\x8e\x00\x05\x24\x10", "piece code 0x10"),
        (b"\x86\x00\x43" + bytes(63) + b"\x7f", "0x7f on h1"),
        (b"\x8d\x00\x0a\x20\x03\x62\x20\x03\x02\x09", "no clock time"),  # 62 seconds
        (b"\x8d\x00\x0a\x20\x3a\x02\x20\x03\x02\x09", "no clock time"),  # minutes 3a is not BCD
        (b"\x8d\x00\x0a\x2b\x03\x02\x20\x03\x02\x09", "no clock time"),  # 11 hours
    ],
)
def test_an_impossible_payload_is_a_bad_payload_error(raw: bytes, words: str) -> None:
    (error,) = DgtCodec().feed(raw)
    assert error.kind is DgtErrorKind.BAD_PAYLOAD and words in error.detail and error.raw == raw


# -- values and round trips ----------------------------------------------------------------------------------


def test_dgt_fields_count_from_a8_and_map_to_python_chess_squares() -> None:
    assert [square_from_field(f) for f in (0, 7, 8, 56, 63)] == [
        chess.A8,
        chess.H8,
        chess.A7,
        chess.A1,
        chess.H1,
    ]
    assert square_from_field(0x34) == chess.E2 and square_from_field(0x24) == chess.E4
    assert all(field_from_square(square_from_field(f)) == f for f in range(64))
    with pytest.raises(ValueError):
        square_from_field(64)


def test_piece_codes_map_to_python_chess_symbols() -> None:
    assert "".join(DgtPiece(code).symbol for code in range(1, 13)) == "PRNBKQprnbkq"
    assert DgtPiece.EMPTY.symbol is None and DgtPiece.MAGIC_WHITE_WINS.symbol is None
    assert DgtPiece.MAGIC_DRAW.is_magic and not DgtPiece.BLACK_QUEEN.is_magic
    assert all(DgtPiece.from_symbol(DgtPiece(c).symbol) == c for c in range(13))


def test_a_magic_piece_is_kept_in_the_dump_but_left_out_of_the_placement() -> None:
    payload = bytearray(64)
    payload[0x24] = DgtPiece.MAGIC_WHITE_WINS
    (dump,) = DgtCodec().feed(b"\x86\x00\x43" + bytes(payload))
    assert dump.magic_pieces == ((chess.E4, DgtPiece.MAGIC_WHITE_WINS),)
    assert dump.board_fen() == "8/8/8/8/8/8/8/8"


displays = st.builds(
    ClockDisplay,
    hours=st.integers(0, 9),
    minutes=st.integers(0, 59),
    seconds=st.integers(0, 59),
    final_flag=st.booleans(),
    time_per_move=st.booleans(),
    flag=st.booleans(),
)
board_messages = st.one_of(
    st.builds(BoardDump, st.lists(st.sampled_from(DgtPiece), min_size=64, max_size=64).map(tuple)),
    st.builds(FieldUpdate, st.integers(0, 63), st.sampled_from(DgtPiece)),
    st.builds(
        ClockTimes,
        left=displays,
        right=displays,
        running=st.booleans(),
        right_high=st.booleans(),
        battery_low=st.booleans(),
        left_turn=st.booleans(),
        right_turn=st.booleans(),
        no_clock=st.booleans(),
    ),
    st.builds(ClockAck, *[st.integers(0, 255)] * 4),
    st.builds(SerialNumber, st.from_regex(r"\A[0-9]{5}\Z")),
    st.builds(SerialNumber, st.from_regex(r"\A[0-9]{10}\Z"), st.just(True)),
    st.builds(Version, st.integers(0, 127), st.integers(0, 127)),
)


@given(st.lists(board_messages, max_size=12))
def test_board_side_encoding_decodes_back_to_the_same_messages(messages: list) -> None:
    out = DgtCodec().feed(b"".join(map(encode_message, messages)))
    assert [without_raw(m) for m in out] == messages


def test_board_dump_from_fen_round_trips_through_the_wire() -> None:
    fen = "r5k1/p1p2rpR/1p3BQ1/2p1p3/4P3/3P3P/bPn3P1/6K1"
    raw = encode_message(board_dump_from_fen(fen))
    assert raw[:3] == b"\x86\x00\x43" and len(raw) == 67
    assert decode_message(raw).board_fen() == fen


# -- the clock ------------------------------------------------------------------------------------------------


def test_bwtime_decodes_times_in_bcd_and_the_flag_bits() -> None:
    (reading,) = DgtCodec().feed(bytes.fromhex("8d000a 713959 221005 35"))
    assert reading.right == ClockDisplay(1, 39, 59, final_flag=True, time_per_move=True, flag=True)
    assert reading.left == ClockDisplay(2, 10, 5, time_per_move=True)
    assert reading.right.remaining_s == 3600 + 39 * 60 + 59
    assert (reading.running, reading.right_high, reading.battery_low) == (True, False, True)
    assert (reading.left_turn, reading.right_turn, reading.no_clock) == (False, True, True)
    assert reading.running_side is None  # no clock connected: the reading is invalid


def test_an_all_zero_bwtime_is_blank() -> None:
    (reading,) = DgtCodec().feed(bytes.fromhex("8d000a 000000 000000 00"))
    assert reading.is_blank
    (real,) = DgtCodec().feed(bytes.fromhex("8d000a 000000 000000 08"))
    assert not real.is_blank


def test_a_setnrun_ack_names_the_command() -> None:
    (ack,) = DgtCodec().feed(bytes.fromhex("8d000a 0a100a 0a0000 00"))
    assert ack == ClockAck(0x10, 0x0A, 0x00, 0x00, ack.raw)
    assert ack.ok and not ack.error and not ack.spontaneous and ack.command == ClockCommand.SETNRUN


def test_an_error_ack_is_flagged() -> None:
    (ack,) = DgtCodec().feed(bytes.fromhex("8d000a 0a400a 0a0000 00"))
    assert ack.error and not ack.ok


def test_a_button_ack_rebuilds_the_top_bit_of_ack1_from_the_left_hours_byte() -> None:
    (ack,) = DgtCodec().feed(bytes.fromhex("8d000a 0a1008 2a0031 00"))  # L1 bit 5 -> ack1 bit 7
    assert (ack.ack0, ack.ack1, ack.ack3) == (0x10, 0x88, 0x31)
    assert ack.spontaneous and ack.command is None and ack.button is ClockButton.BACK


def test_a_version_ack_carries_main_and_sub_version_in_ack2() -> None:
    (ack,) = DgtCodec().feed(bytes.fromhex("8d000a 0a1009 0a2100 00"))
    assert ack.clock_version == (2, 1)


def test_ack2_and_ack3_take_their_top_bits_from_the_right_hours_byte() -> None:
    (ack,) = DgtCodec().feed(bytes.fromhex("8d000a 3a1001 0a0102 00"))
    assert (ack.ack2, ack.ack3) == (0x81, 0x82)


# -- commands the hub sends -----------------------------------------------------------------------------------


def test_board_commands_are_the_documented_single_bytes() -> None:
    assert encode_command(Command.SEND_RESET) == b"\x40"
    assert encode_command(Command.SEND_CLK) == b"\x41"
    assert encode_command(Command.SEND_BRD) == b"\x42"
    assert encode_update_mode(UpdateMode.UPDATE) == b"\x43"
    assert encode_update_mode(UpdateMode.UPDATE_BOARD) == b"\x44"
    assert encode_update_mode(UpdateMode.UPDATE_NICE) == b"\x4b"
    assert encode_command(Command.RETURN_SERIALNR) == b"\x45"
    assert encode_command(Command.RETURN_LONG_SERIALNR) == b"\x55"
    assert encode_command(Command.SEND_BATTERY_STATUS) == b"\x4c"
    assert encode_command(Command.SEND_VERSION) == b"\x4d"
    assert encode_command(Command.SEND_EE_MOVES) == b"\x49"


def test_dgt3000_text_is_eight_characters_in_the_clock_wrapper() -> None:
    assert encode_clock_text("e2e4", beep=2) == bytes.fromhex("2b 0c 03 0c 65 32 65 34 20 20 20 20 02 00")
    assert encode_clock_text("BOARDCST") == b"\x2b\x0c\x03\x0cBOARDCST\x00\x00"
    for bad in ("nine char", "é"):
        with pytest.raises(ValueError):
            encode_clock_text(bad)


def test_end_text_is_the_documented_five_bytes() -> None:
    assert encode_clock_end_text() == bytes.fromhex("2b 03 03 03 00")


def test_set_and_run_sends_binary_hours_minutes_seconds_left_then_right() -> None:
    left, right = 90 * 60 + 30, 1 * 3600 + 29 * 60 + 58
    assert encode_clock_set_and_run(left, right, ClockRun.LEFT) == bytes.fromhex(
        "2b 0a 03 0a 01 1e 1e 01 1d 3a 01 00"
    )
    assert encode_clock_set_and_run(0, 0, ClockRun.PAUSE | ClockRun.LEFT)[-2:] == b"\x05\x00"
    with pytest.raises(ValueError):
        encode_clock_set_and_run(10 * 3600, 0, ClockRun.RIGHT)


def test_other_clock_commands_use_the_same_wrapper() -> None:
    assert encode_clock_command(ClockCommand.BEEP, bytes([16])) == bytes.fromhex("2b 04 03 0b 10 00")
    assert encode_clock_command(ClockCommand.VERSION) == bytes.fromhex("2b 03 03 09 00")
    assert encode_clock_command(ClockCommand.BUTTON) == bytes.fromhex("2b 03 03 08 00")
    xl = encode_clock_command(ClockCommand.DISPLAY, bytes(6) + b"\x00\x03")
    assert xl[:4] == bytes.fromhex("2b 0b 03 01") and xl[-1] == 0 and len(xl) == 13


def test_bus_checksum_matches_the_spec_example() -> None:
    assert bus_checksum(bytes.fromhex("81 10 06")) == 0x17
