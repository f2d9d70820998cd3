"""Chessnut boards: the sans-I/O codec on captured reports, and the session through real bleak and
bleak-retry-connector over the fake radio, with a simulated board's firmware behind it."""

from __future__ import annotations

import re

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardcast_sim.ble_fake import ChessnutLayout, FakeRadio, chessnut_service_collection
from boardcast_sim.chessnut import Channel, SimulatedChessnut
from devices.chessnut.codec import (
    BOARD_REPORT_SIZE,
    ChessnutCodec,
    ChessnutError,
    ChessnutErrorKind,
    decode_placement,
    encode_battery_request,
    encode_beep,
    encode_board_report,
    encode_enable_reports,
    encode_leds,
    encode_placement,
)
from devices.chessnut.session import (
    CHESSNUT_BOARD,
    CHESSNUT_REPLIES,
    CHESSNUT_SERVICES,
    ChessnutSession,
    chessnut_device_id,
    parse_chessnut_url,
)
from devices.command import CommandFailed
from devices.observations import ChessBoardState, DeviceEvent, DeviceHello, Heartbeat, LinkState
from devices.transports.ble import (
    BleConnector,
    find_notify_characteristic,
    find_write_characteristic,
)
from devices.wire.codec import FrameErrorKind
from devices.wire.messages import Command
from tests.devices.support import FAST, RecordingSink, eventually, running
from tests.devices.test_ble import connector_for

START = chess.STARTING_BOARD_FEN
AFTER_LIFT = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
# JohanSjoblom/picochess:tests/test_chessnut_parser.py (counter ff ff ff ff)
PICOCHESS_START = bytes.fromhex(
    "0124 5823 3185 4444 4444" + "00" * 16 + "77777777 a6c99b6a ffffffff".replace(" ", "")
)
# egdels/moveapiece:tools/chessnut-sniffer/CHESSNUT_PROTOCOL.md, hardware capture (counter 459 s)
MOVEAPIECE_START = bytes.fromhex(
    "01 24 58 23 31 85 44 44 44 44 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
    "77 77 77 77 a6 c9 9b 6a cb 01 00 00"
)
ADDRESS = "AA:BB:CC:DD:EE:0C"
URL = f"ble://{ADDRESS}?protocol=chessnut"
DEVICE_ID = "chessnut-AA-BB-CC-DD-EE-0C"


# -- codec --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "uptime"), [(PICOCHESS_START, 0xFFFFFFFF), (MOVEAPIECE_START, 459)])
def test_the_captured_start_position_reports_decode_to_the_start_position(value: bytes, uptime: int) -> None:
    assert len(value) == BOARD_REPORT_SIZE
    codec = ChessnutCodec()
    assert codec.feed(value) == [ChessBoardState(START)]
    assert codec.uptime_s == uptime
    assert encode_board_report(START, uptime) == value  # and the encoder makes exactly the captured bytes


def test_unchanged_reports_are_counted_not_repeated_and_each_change_is_reported() -> None:
    codec = ChessnutCodec()
    reports = []
    for fen in [START] * 10 + [AFTER_LIFT] * 4 + [AFTER_E4] * 6:  # e2-e4 arrives as a lift, then a place
        reports += codec.feed(encode_board_report(fen, 12))
    assert reports == [ChessBoardState(START), ChessBoardState(AFTER_LIFT), ChessBoardState(AFTER_E4)]
    stats = codec.stats
    assert (stats.board_reports, stats.placements, stats.repeats) == (20, 3, 17)
    assert codec.feed(encode_board_report(START)) == [ChessBoardState(START)]  # a takeback is a change too


def test_after_a_reconnect_the_first_report_is_delivered_even_if_unchanged() -> None:
    codec = ChessnutCodec()
    codec.feed(PICOCHESS_START)
    assert codec.feed(PICOCHESS_START) == []
    codec.reconnected()
    assert codec.feed(PICOCHESS_START) == [ChessBoardState(START)]


def test_battery_acks_and_buttons() -> None:
    codec = ChessnutCodec()
    assert codec.feed(bytes.fromhex("2a 02 64 00")) == [Heartbeat(battery=100, uptime_s=None)]
    codec.feed(MOVEAPIECE_START)
    assert codec.feed(bytes.fromhex("2a 02 3c 01")) == [Heartbeat(battery=60, uptime_s=459)]
    assert codec.feed(bytes.fromhex("23 01 00")) == [DeviceEvent("ack", {"status": 0})]
    assert codec.feed(bytes.fromhex("0f 01 02")) == [DeviceEvent("button", {"button": "new_game", "code": 2})]
    assert codec.feed(bytes.fromhex("0f 01 05")) == [DeviceEvent("button", {"button": "unknown", "code": 5})]
    stats = codec.stats
    assert (stats.batteries, stats.acks, stats.buttons, stats.errors) == (2, 1, 2, 0)
    assert codec.battery == 60


@pytest.mark.parametrize(
    ("value", "kind", "says"),
    [
        (b"", ChessnutErrorKind.EMPTY, "was empty"),
        (bytes.fromhex("41 03 0c 00 5a"), ChessnutErrorKind.UNKNOWN_MESSAGE, "starts with 0x41"),
        (PICOCHESS_START[:20], ChessnutErrorKind.BAD_LENGTH, "is 20 bytes, length byte 0x24; it must be 38"),
        (PICOCHESS_START + b"\x00", ChessnutErrorKind.BAD_LENGTH, "is 39 bytes"),
        (b"\x01\x22" + PICOCHESS_START[2:36], ChessnutErrorKind.BAD_LENGTH, "length byte 0x22"),
        (bytes.fromhex("23 01"), ChessnutErrorKind.BAD_LENGTH, "acknowledgement 23 01 is 2 bytes"),
        (bytes.fromhex("2a 02 64"), ChessnutErrorKind.BAD_LENGTH, "battery message 2a 02 64 is 3 bytes"),
        (bytes.fromhex("2a 02 b4 00"), ChessnutErrorKind.BAD_VALUE, "gives level 180"),
        (bytes.fromhex("0f 02 02 00"), ChessnutErrorKind.BAD_LENGTH, "button message"),
    ],
)
def test_a_bad_value_is_a_precise_counted_error_never_an_exception(
    value: bytes, kind: ChessnutErrorKind, says: str
) -> None:
    codec = ChessnutCodec()
    codec.feed(PICOCHESS_START)
    (error,) = codec.feed(value)
    assert isinstance(error, ChessnutError) and error.kind is kind and error.raw == value
    assert says in error.detail, error.detail
    assert codec.stats.errors == 1
    assert codec.feed(encode_board_report(AFTER_E4)) == [ChessBoardState(AFTER_E4)]  # the board still works


def test_a_cut_report_says_the_mtu_is_too_small() -> None:
    (error,) = ChessnutCodec().feed(PICOCHESS_START[:20])
    assert "MTU is under 41" in error.detail


def test_an_unknown_piece_code_names_its_square_and_keeps_the_last_placement() -> None:
    codec = ChessnutCodec()
    codec.feed(PICOCHESS_START)
    bad = bytearray(PICOCHESS_START)
    bad[2 + 17] = 0xD0  # nibble index 35 (high nibble of byte 17) is e4
    (error,) = codec.feed(bytes(bad))
    assert isinstance(error, ChessnutError) and error.kind is ChessnutErrorKind.UNKNOWN_PIECE
    assert "e4 0xd" in error.detail
    assert codec.feed(PICOCHESS_START) == []  # still the start position: the bad report changed nothing
    bad[2:34] = bytes([0xFF]) * 32
    (error,) = codec.feed(bytes(bad))
    assert "h8 0xf, g8 0xf, f8 0xf, e8 0xf and 60 more" in error.detail


def test_command_encoders() -> None:
    assert encode_enable_reports() == bytes.fromhex("21 01 00")
    assert encode_battery_request() == bytes.fromhex("29 01 00")
    assert encode_leds(["h8"]) == bytes.fromhex("0a 08 01 00 00 00 00 00 00 00")  # moveapiece: lit h8
    assert encode_leds([chess.A1, "e4"]) == bytes.fromhex("0a 08 00 00 00 00 08 00 00 80")
    assert encode_leds([]) == bytes.fromhex("0a 08") + bytes(8)
    assert encode_beep(2000, 500) == bytes.fromhex("0b 04 07 d0 01 f4")  # moveapiece: 2000 Hz, 500 ms
    with pytest.raises(ValueError, match=r"frequency_hz must be 0\.\.65535"):
        encode_beep(70000, 10)
    with pytest.raises(ValueError, match="not a square"):
        encode_leds([64])
    with pytest.raises(ValueError, match="uptime_s must fit in 32 bits"):
        encode_board_report(START, -1)


PIECES = [chess.Piece(piece_type, color) for piece_type in chess.PIECE_TYPES for color in chess.COLORS]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(0, 63), st.sampled_from(PIECES)), st.integers(0, 0xFFFFFFFF))
def test_any_placement_encodes_and_decodes_back(pieces: dict[int, chess.Piece], uptime: int) -> None:
    board = chess.BaseBoard.empty()
    board.set_piece_map(pieces)
    fen = board.board_fen()
    assert decode_placement(encode_placement(fen)) == fen
    codec = ChessnutCodec()
    assert codec.feed(encode_board_report(fen, uptime)) == [ChessBoardState(fen)]
    assert codec.uptime_s == uptime


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=45),
            st.binary(min_size=36, max_size=36).map(lambda rest: b"\x01\x24" + rest),
            st.sampled_from([b"\x2a\x02", b"\x23\x01", b"\x0f\x01"]).flatmap(
                lambda head: st.binary(max_size=3).map(lambda rest: head + rest)
            ),
        ),
        max_size=20,
    )
)
def test_random_values_never_raise_and_every_one_is_accounted_for(values: list[bytes]) -> None:
    codec = ChessnutCodec()
    out = []
    for value in values:
        items = codec.feed(value)
        assert len(items) <= 1
        out += items
    stats = codec.stats
    errors = [item for item in out if isinstance(item, ChessnutError)]
    assert len(errors) == stats.errors
    assert stats.board_reports == stats.placements + stats.repeats
    assert len(values) == stats.board_reports + stats.acks + stats.batteries + stats.buttons + stats.errors
    for item in out:
        if isinstance(item, ChessBoardState):
            assert chess.BaseBoard(item.board_fen).board_fen() == item.board_fen


# -- URLs and characteristics ------------------------------------------------------------------------


def test_a_board_url_names_its_address() -> None:
    target = parse_chessnut_url("ble://aa:bb:cc:dd:ee:0c?protocol=chessnut&adapter=hci1")
    assert (
        (target.address, target.device_id) == (ADDRESS, DEVICE_ID) == (ADDRESS, chessnut_device_id(ADDRESS))
    )
    for bad in (f"ble://{ADDRESS}", f"ble://{ADDRESS}?protocol=wire", "serial:///dev/ttyUSB0"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            parse_chessnut_url(bad)
    with pytest.raises(ValueError, match="protocol=chessnut: its family reads it with a session of its own"):
        BleConnector().opener(URL)


def test_the_characteristics_are_found_by_property_in_their_services() -> None:
    services, board, commands, replies = chessnut_service_collection()
    assert find_notify_characteristic(services, CHESSNUT_SERVICES[0]) is board
    assert find_notify_characteristic(services, CHESSNUT_SERVICES[1]) is replies
    assert find_write_characteristic(services, CHESSNUT_SERVICES[1]) is commands
    with pytest.raises(LookupError, match="has no write characteristic"):
        find_write_characteristic(services, CHESSNUT_SERVICES[0])


# -- session through real bleak and retry-connector over the fake radio ------------------------------


def boards(sink: RecordingSink) -> list[str]:
    return [o.report.board_fen for o in sink.observations if isinstance(o.report, ChessBoardState)]


def add_board(radio: FakeRadio, notify_size: int = 182, **options: object):
    """A Chessnut Air as moveapiece saw it: name with a newline, no service UUIDs advertised, MTU 185."""
    return radio.add_device(
        ADDRESS,
        "Chessnut Air\n",
        layout=ChessnutLayout(),
        advertised_uuids=(),
        notify_size=notify_size,
        **options,
    )


async def test_reports_arrive_repeats_collapse_and_reports_are_re_enabled_after_a_reconnect() -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.01, battery=64, uptime_s=459)
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        # no enable retries here: only the enable written at each connect can bring the reports back
        session = ChessnutSession(URL, connector, sink, backoff=FAST, battery_every_s=0.3, enable_retry_s=30)
        async with running(board.run(device), session.run()):
            await eventually(lambda: boards(sink) == [START] and board.reports_sent >= 10)
            assert device.mtu_reads == 1 and session.mtu == 185
            board.place(AFTER_LIFT)
            await eventually(lambda: len(boards(sink)) == 2)
            board.place(AFTER_E4)
            await eventually(lambda: len(boards(sink)) == 3 and board.reports_sent >= 40)
            assert board.send_raw(b"\x01\x24\x00")  # garbage on the board characteristic
            assert board.send_raw(b"\x99\x01\x00", Channel.REPLIES)
            await eventually(lambda: len(sink.errors) == 2)
            assert board.press_new_game()
            await eventually(
                lambda: any(
                    isinstance(o.report, DeviceEvent) and o.report.kind == "button" for o in sink.observations
                )
            )
            await eventually(lambda: sum(isinstance(o.report, Heartbeat) for o in sink.observations) >= 2)
            first_connection_reports = board.reports_sent

            device.drop_link()
            await eventually(lambda: sink.connects() == 2 and len(boards(sink)) == 4)
            assert board.enables == 2 and session.enables_sent == 2  # written again after the reconnect
            board.place(START)
            await eventually(lambda: len(boards(sink)) == 5)

    assert boards(sink) == [
        START,
        AFTER_LIFT,
        AFTER_E4,
        AFTER_E4,
        START,
    ]  # the re-enabled board's first report
    assert session.stats.repeats >= first_connection_reports - 3  # ~10 a second, three of them changes
    assert [bytes(c) for c in board.commands if c[0] == 0x21] == [encode_enable_reports()] * 2
    assert all(w in (encode_enable_reports(), encode_battery_request()) for w in device.writes)
    assert device.start_notify_calls == 4  # board and replies, on each of the two connections
    assert [e.kind for e in sink.errors] == [FrameErrorKind.BAD_BODY] * 2
    assert "is 3 bytes" in sink.errors[0].detail and sink.errors[0].raw == b"\x01\x24\x00"
    assert "starts with 0x99" in sink.errors[1].detail

    hellos = [o for o in sink.observations if isinstance(o.report, DeviceHello)]
    assert len(hellos) == 2 and all(o.seq == 0 and o.raw == b"" for o in hellos)
    hello = hellos[0].report
    assert isinstance(hello, DeviceHello)
    assert (hello.device_id, hello.family, hello.model) == (DEVICE_ID, "chess-board", "Chessnut Air")
    epochs = [o.boot_epoch for o in hellos]
    assert epochs[1] > epochs[0] and hellos[1].report.boot_epoch == epochs[1]
    assert len(set(sink.keys())) == len(sink.keys())
    for epoch in epochs:
        seqs = [o.seq for o in sink.observations if o.boot_epoch == epoch]
        assert seqs == list(range(len(seqs)))
    for observation in sink.observations[1:]:
        if isinstance(observation.report, ChessBoardState):  # raw is the notification it came from
            assert ChessnutCodec().feed(observation.raw) == [observation.report]
    beats = [o for o in sink.observations if isinstance(o.report, Heartbeat)]
    # asked at connect, before the first report gave the counter; later ones carry it
    assert beats[0].report == Heartbeat(battery=64, uptime_s=None) and beats[0].raw == bytes.fromhex(
        "2a 02 40 00"
    )
    assert beats[1].report.battery == 64 and 459 <= (beats[1].report.uptime_s or 0) <= 465
    acks = [o for o in sink.observations if isinstance(o.report, DeviceEvent) and o.report.kind == "ack"]
    assert len(acks) == 2 and all(o.raw == bytes.fromhex("23 01 00") for o in acks)
    assert session.reconnects == 1 and device.drops == 1
    assert sink.links[-1].state is LinkState.DISCONNECTED  # "session stopped"


async def test_a_lost_enable_is_sent_again_until_reports_come() -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.01)
    board.ignore_enables = 2
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST, enable_retry_s=0.1, silence_timeout=5)
        async with running(board.run(device), session.run()):
            await eventually(lambda: boards(sink) == [START])
    assert board.enables == 3 and session.enables_sent == 3
    assert sink.connects() == 1 and session.reconnects == 0


async def test_a_board_that_never_reports_is_reconnected_after_the_silence_timeout() -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.01)
    board.ignore_enables = 1_000_000
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST, enable_retry_s=0.1, silence_timeout=0.5)
        async with running(board.run(device), session.run()):
            await eventually(lambda: session.reconnects == 2)
    assert boards(sink) == [] and board.enables >= 2 * 4  # every 0.1 s until 0.5 s of silence, twice
    assert sum("no board report for 0.5 s" in c.detail for c in sink.links) == 2


async def test_a_board_that_stops_reporting_is_reconnected_and_re_enabled() -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.01)
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST, enable_retry_s=0.1, silence_timeout=0.4)
        async with running(board.run(device), session.run()):
            await eventually(lambda: boards(sink) == [START])
            board.reporting = False
            await eventually(lambda: session.reconnects == 1)
            board.reporting = True
            await eventually(lambda: len(boards(sink)) == 2 and session.connected)
    silent = next(c for c in sink.links if "no board report" in c.detail)
    assert silent.state is LinkState.DISCONNECTED and "tahta raporu gelmedi" in silent.detail
    assert board.enables >= 3  # at connect, at least one retry while silent, again after the reconnect


async def test_a_small_mtu_is_named_at_connect_and_cut_reports_are_frame_errors() -> None:
    radio = FakeRadio()
    device = add_board(radio, notify_size=20)  # MTU 23: what a central that never negotiates gets
    board = SimulatedChessnut(report_every_s=0.02)
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST, silence_timeout=5)
        async with running(board.run(device), session.run()):
            await eventually(lambda: len(sink.errors) >= 3)
    connected = next(c for c in sink.links if c.state is LinkState.CONNECTED)
    assert "MTU is 23, under 41" in connected.detail and "MTU'su 23" in connected.detail
    assert boards(sink) == []
    assert all("MTU is under 41" in e.detail and len(e.raw) == 20 for e in sink.errors)


async def test_resync_redelivers_the_board_leds_and_beeps_are_written_and_other_commands_refused() -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.01)
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST)
        with pytest.raises(CommandFailed, match="no board connected"):
            await session.command(Command.resync())
        assert not await session.send(encode_leds(["e4"]))
        async with running(board.run(device), session.run()):
            await eventually(lambda: boards(sink) == [START])
            ack = await session.command(Command.resync())
            assert ack.ok is True
            await eventually(lambda: boards(sink) == [START, START])
            assert await session.send(encode_leds(["e2", "e4"]))
            assert await session.send(encode_beep(400, 500))
            await eventually(lambda: board.beeps == [(400, 500)])
            with pytest.raises(CommandFailed, match="cannot 'show_text'"):
                await session.command(Command.show_text("Mola"))
    assert board.leds == encode_leds(["e2", "e4"])[2:]
    assert device.notification_sizes.count(3) >= 3  # an ack each for enable, LEDs and beep
    assert CHESSNUT_BOARD != CHESSNUT_REPLIES


async def test_a_wire_board_at_a_chessnut_url_is_refused_by_name_and_retried() -> None:
    radio = FakeRadio()
    radio.add_device(ADDRESS, "TT-12")  # a Boardcast Wire scoreboard: Nordic UART, no Chessnut services
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = ChessnutSession(URL, connector, sink, backoff=FAST)
        async with running(session.run()):
            await eventually(lambda: sum(CHESSNUT_SERVICES[0] in c.detail for c in sink.links) >= 2)
    refused = next(c for c in sink.links if CHESSNUT_SERVICES[0] in c.detail)
    assert refused.state is LinkState.DISCONNECTED and "right kind of device" in refused.detail
    assert "retrying in" in refused.detail and not session.connected
