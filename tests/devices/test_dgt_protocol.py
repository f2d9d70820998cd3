"""`DgtProtocol` fed bytes and times, with no pty and no sleep: the handshake, the synthetic HELLO, catch-up,
keep-alive, silence, refusals, garbage and the DGT 3000 clock commands."""

from __future__ import annotations

import pytest

from devices.command import CommandFailed, NotConnected
from devices.dgt.codec import ClockCommand, DgtErrorKind, board_dump_from_fen, encode_message
from devices.dgt.codec import Command as DgtCommand
from devices.dgt.messages import (
    ClockAck,
    ClockDisplay,
    ClockTimes,
    DgtPiece,
    FieldUpdate,
    SerialNumber,
    Version,
)
from devices.dgt.protocol import DgtProtocol
from devices.events import CommandAnswered, CommandUnanswered, Rejected
from devices.observations import ChessBoardState, ChessClockState, DeviceEvent, DeviceHello, Observation
from devices.wire.messages import Command

URL = "serial:///dev/ttyACM0?protocol=dgt"
SERIAL = "2394600712"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
EMPTY_KINGS = "8/8/8/8/8/8/8/4K3"
WALL = 1_700_000_000.0


def sent(protocol: DgtProtocol) -> bytes:
    return protocol.data_to_send()


def commands(data: bytes) -> list[int]:
    """The one-byte requests in what the protocol sent (clock commands are longer and start 0x2b)."""
    return list(data) if data and data[0] != 0x2B else []


def said(protocol: DgtProtocol) -> list[Observation]:
    return [e for e in protocol.events_received() if isinstance(e, Observation)]


def ack(command: ClockCommand, ok: bool = True) -> bytes:
    """A DGT 3000 acknowledgement of `command` (a non-spontaneous ack, as the board relays it)."""
    return encode_message(ClockAck(0x10 if ok else 0x40, command, 0, 0))


def identified(now: float = 0.0, **options) -> DgtProtocol:
    """A protocol whose board has said its serial and version and was sent a START dump."""
    protocol = DgtProtocol(URL, **options)
    protocol.connection_made(now, WALL)
    sent(protocol)
    protocol.receive_data(
        encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7)), now, WALL
    )
    protocol.receive_data(encode_message(board_dump_from_fen(START)), now, WALL)
    protocol.events_received()
    sent(protocol)
    return protocol


def test_the_handshake_resets_the_board_then_asks_who_it_is() -> None:
    protocol = DgtProtocol(URL)
    protocol.connection_made(0.0, WALL)
    assert list(sent(protocol)) == [
        DgtCommand.SEND_RESET,
        DgtCommand.RETURN_LONG_SERIALNR,
        DgtCommand.SEND_VERSION,
    ]
    assert protocol.next_deadline() == 1.0  # the keep-alive, sooner than the 5 s of silence


def test_serial_and_version_make_the_hello_then_update_mode_a_dump_and_the_clock_are_asked() -> None:
    protocol = DgtProtocol(URL)
    protocol.connection_made(0.0, WALL)
    sent(protocol)
    answer = encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7))
    protocol.receive_data(answer, 0.1, WALL + 0.1)
    (hello,) = said(protocol)
    assert hello.report == DeviceHello(
        f"dgt-{SERIAL}", "chess-board", "DGT e-board", "1.07", 1, int(WALL), protocol.CAPABILITIES
    )
    assert (hello.seq, hello.raw, hello.received_at) == (0, answer, WALL + 0.1)
    asked = sent(protocol)
    assert asked.endswith(bytes([DgtCommand.SEND_BRD, DgtCommand.SEND_CLK]))
    assert protocol.identified and protocol.dumps_asked == 1
    protocol.receive_data(encode_message(board_dump_from_fen(START)), 0.2, WALL)
    (board,) = said(protocol)
    assert isinstance(board.report, ChessBoardState) and board.report.board_fen == START and board.seq == 1


def test_what_the_board_said_before_its_serial_is_kept_and_delivered_after_the_hello() -> None:
    protocol = DgtProtocol(URL)
    protocol.connection_made(0.0, WALL)
    protocol.receive_data(encode_message(board_dump_from_fen(START)), 0.05, WALL)
    assert protocol.events_received() == []
    protocol.receive_data(
        encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7)), 0.1, WALL
    )
    assert [type(o.report) for o in said(protocol)] == [DeviceHello, ChessBoardState]


def test_field_updates_before_any_dump_ask_for_the_board_at_most_once_per_retry_interval() -> None:
    protocol = identified(dump_retry_s=1.0)
    protocol.connection_lost()
    protocol.connection_made(10.0, WALL + 10)
    sent(protocol)
    protocol.receive_data(
        encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7)), 10.0, WALL
    )
    sent(protocol)  # the dump it asked is lost
    protocol.receive_data(encode_message(FieldUpdate(12, DgtPiece.EMPTY)), 10.5, WALL)
    assert DgtCommand.SEND_BRD not in sent(protocol)  # asked 0.5 s ago
    protocol.receive_data(encode_message(FieldUpdate(13, DgtPiece.EMPTY)), 11.0, WALL)
    assert sent(protocol) == bytes([DgtCommand.SEND_BRD])
    assert protocol.reader.updates_before_dump == 2
    protocol.receive_data(encode_message(board_dump_from_fen(EMPTY_KINGS)), 11.1, WALL)
    boards = [o.report.board_fen for o in said(protocol) if isinstance(o.report, ChessBoardState)]
    assert boards == [EMPTY_KINGS]  # the updates of an unknown board are not reports


def test_a_reconnect_reads_the_board_again_under_a_new_boot_epoch_and_seq_from_zero() -> None:
    protocol = identified()
    first = protocol.hello.boot_epoch
    protocol.connection_lost()
    protocol.connection_made(5.0, WALL)  # the same second: the epoch still grows
    assert sent(protocol).startswith(bytes([DgtCommand.SEND_RESET]))
    protocol.receive_data(
        encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7)), 5.1, WALL
    )
    (hello,) = said(protocol)
    assert hello.seq == 0 and hello.boot_epoch == first + 1
    assert DgtCommand.SEND_BRD in sent(protocol) and protocol.reader.needs_dump


def test_the_keep_alive_asks_the_serial_number_and_its_answers_keep_the_link() -> None:
    protocol = identified(keepalive_s=1.0, silence_timeout=2.5)
    for now in (1.0, 2.0, 3.0):
        protocol.tick(now, WALL + now)
        assert sent(protocol) == bytes([DgtCommand.RETURN_LONG_SERIALNR])
        protocol.receive_data(encode_message(SerialNumber(SERIAL, long=True)), now + 0.01, WALL)
    assert protocol.close_reason is None and protocol.keepalives_answered == 3


def test_a_silent_board_is_dropped_with_the_board_named() -> None:
    protocol = identified(keepalive_s=1.0, silence_timeout=2.5)
    protocol.tick(1.0)
    protocol.tick(2.0)
    assert protocol.close_reason is None
    protocol.tick(2.5)
    reason = protocol.close_reason
    assert reason is not None and reason.english == "no data from the board for 2.5 s; reconnecting"
    assert "tahtadan 2.5 sn veri gelmedi" in reason.turkish


def test_an_old_board_is_named_by_its_short_serial_once_the_long_one_goes_unanswered() -> None:
    protocol = DgtProtocol(URL, handshake_timeout=10.0)
    protocol.connection_made(0.0, WALL)
    sent(protocol)
    protocol.tick(1.0)
    protocol.tick(2.0)  # the long serial asked a third time: the short one is asked as well
    asked = sent(protocol)
    assert DgtCommand.RETURN_SERIALNR in asked
    protocol.receive_data(encode_message(SerialNumber("12345")) + encode_message(Version(1, 2)), 2.1, WALL)
    assert not protocol.identified  # the long one may still come
    protocol.tick(3.0)
    protocol.tick(4.0)
    assert not protocol.identified
    protocol.tick(5.0)  # the long one asked twice since the short one came: the short one names it
    (hello,) = said(protocol)
    assert hello.report.device_id == "dgt-12345" and hello.report.firmware == "1.02"


def test_a_port_that_never_names_a_board_is_given_up_at_a_keep_alive() -> None:
    protocol = DgtProtocol(URL, handshake_timeout=0.3, keepalive_s=0.25)
    protocol.connection_made(0.0, WALL)
    protocol.tick(0.25)
    assert protocol.close_reason is None
    protocol.tick(0.5)
    assert protocol.close_reason is not None
    assert "did not say its serial number within 0.3 s" in protocol.close_reason.english
    assert protocol.events_received() == []


def test_a_board_other_than_the_expected_one_is_refused_and_the_link_dropped() -> None:
    protocol = DgtProtocol(URL, expected_device_id="dgt-0000000001")
    protocol.connection_made(0.0, WALL)
    protocol.receive_data(
        encode_message(SerialNumber(SERIAL, long=True)) + encode_message(Version(1, 7)), 0.1, WALL
    )
    (refused,) = protocol.events_received()
    assert isinstance(refused, Rejected) and f"'dgt-{SERIAL}'" in refused.error.detail
    assert (
        protocol.close_reason is not None
        and "not the expected dgt-0000000001" in protocol.close_reason.english
    )
    assert not protocol.identified


def test_another_board_answering_the_keep_alive_ends_the_link() -> None:
    protocol = identified()
    protocol.receive_data(encode_message(SerialNumber("1111100000", long=True)), 1.0, WALL)
    assert protocol.close_reason is not None
    assert "another board (serial 1111100000)" in protocol.close_reason.english


def test_garbage_is_reported_and_the_states_around_it_still_arrive() -> None:
    protocol = identified()
    update = encode_message(FieldUpdate(12, DgtPiece.EMPTY))
    protocol.receive_data(b"\x00\x01\x02" + update + b"\x86\x00\x43\x1f" + update, 1.0, WALL)
    events = protocol.events_received()
    errors = [e.error.kind for e in events if isinstance(e, Rejected)]
    assert DgtErrorKind.NOISE in errors or DgtErrorKind.UNKNOWN_ID in errors
    assert DgtErrorKind.TRUNCATED in errors
    boards = [e for e in events if isinstance(e, Observation) and isinstance(e.report, ChessBoardState)]
    assert len(boards) == 1  # the second update repeats the first: no new state
    assert protocol.close_reason is None


def test_a_clock_reading_becomes_a_clock_state_and_a_bluetooth_board_is_asked_its_battery() -> None:
    protocol = identified(bluetooth=True, battery_interval_s=60.0, silence_timeout=100.0)
    times = ClockTimes(ClockDisplay(0, 1, 1), ClockDisplay(0, 1, 1))
    protocol.receive_data(encode_message(times), 1.0, WALL)
    (clock,) = said(protocol)
    assert isinstance(clock.report, ChessClockState) and clock.report.remaining_ms == (61_000, 61_000)
    protocol.tick(1.0)
    assert DgtCommand.SEND_BATTERY_STATUS not in sent(protocol)  # asked at the handshake
    protocol.tick(60.0)
    assert sent(protocol).endswith(bytes([DgtCommand.SEND_BATTERY_STATUS]))


def test_a_clock_command_is_acknowledged_and_the_times_come_back_after_the_text() -> None:
    protocol = identified(keepalive_s=10.0)
    seq = protocol.command(Command.show_text("Süre doldu", seconds=3), 1.0)
    assert sent(protocol).startswith(bytes([0x2B]))
    protocol.receive_data(ack(ClockCommand.ASCII), 1.2, WALL)
    events = protocol.events_received()
    (answer,) = [e for e in events if isinstance(e, CommandAnswered)]
    assert (answer.seq, answer.ack.ok, answer.ack.attempts) == (seq, True, 1)
    assert [e.report.kind for e in events if isinstance(e, Observation)] == ["ack"]
    assert protocol.next_deadline() == pytest.approx(4.2)  # the text's end, before silence and keep-alive
    protocol.tick(4.2)
    assert sent(protocol).startswith(bytes([0x2B]))  # END: the times back on the clock
    protocol.receive_data(ack(ClockCommand.END), 4.3, WALL)
    assert not any(isinstance(e, CommandAnswered) for e in protocol.events_received())  # nobody waited


def test_clock_commands_go_one_at_a_time_each_after_the_ack_of_the_one_before() -> None:
    protocol = identified()
    first = protocol.command(Command.show_text("ONE", seconds=0), 1.0)
    second = protocol.command(Command.show_text("TWO", seconds=0), 1.0)
    assert sent(protocol).count(b"ONE") == 1
    protocol.receive_data(ack(ClockCommand.ASCII), 1.1, WALL)
    assert [e.seq for e in protocol.events_received() if isinstance(e, CommandAnswered)] == [first]
    assert b"TWO" in sent(protocol)
    protocol.receive_data(ack(ClockCommand.ASCII), 1.2, WALL)
    assert [e.seq for e in protocol.events_received() if isinstance(e, CommandAnswered)] == [second]


def test_a_lost_clock_ack_is_resent_and_a_clock_that_never_answers_is_given_up() -> None:
    protocol = identified()
    seq = protocol.command(Command.show_text("LOST", seconds=0), 0.0, retries=2, interval=0.5)
    for now in (0.5, 1.0, 1.5):
        protocol.tick(now)
    assert sent(protocol).count(b"LOST") == 3  # one try and two resends
    (failed,) = [e for e in protocol.events_received() if isinstance(e, CommandUnanswered)]
    assert failed.seq == seq and "did not acknowledge ASCII after 3 tries" in str(failed.failure)
    assert "saat komutu onaylamadı" in str(failed.failure)


def test_a_refused_set_clock_says_to_set_mode_23() -> None:
    protocol = identified()
    seq = protocol.command(Command.set_clock((60_000, 60_000), running=0), 0.0)
    protocol.receive_data(ack(ClockCommand.SETNRUN, ok=False), 0.1, WALL)
    (answer,) = [e for e in protocol.events_received() if isinstance(e, CommandAnswered)]
    assert answer.seq == seq and answer.ack.ok is False and "mode 23" in answer.ack.error


def test_a_clock_command_due_again_while_the_board_is_gone_fails_as_not_connected() -> None:
    protocol = identified()
    protocol.command(Command.show_text("X", seconds=0), 0.0, interval=0.5)
    protocol.connection_lost()
    protocol.tick(0.5)
    (failed,) = [e for e in protocol.events_received() if isinstance(e, CommandUnanswered)]
    assert isinstance(failed.failure, NotConnected)


def test_a_resync_is_answered_by_the_next_dump_and_fails_when_the_link_ends() -> None:
    protocol = identified()
    seq = protocol.command(Command.resync(), 1.0)
    assert sent(protocol) == bytes([DgtCommand.SEND_BRD, DgtCommand.SEND_CLK])
    protocol.receive_data(encode_message(board_dump_from_fen(START)), 1.1, WALL)
    events = protocol.events_received()
    assert [(e.seq, e.ack.ok) for e in events if isinstance(e, CommandAnswered)] == [(seq, True)]
    assert [o.report.board_fen for o in events if isinstance(o, Observation)] == [START]  # a dump is news
    lost = protocol.command(Command.resync(), 2.0)
    protocol.connection_lost()
    (failed,) = [e for e in protocol.events_received() if isinstance(e, CommandUnanswered)]
    assert failed.seq == lost and "did not send its squares again" in str(failed.failure)


def test_commands_without_a_board_or_that_a_board_cannot_do_fail_at_once() -> None:
    with pytest.raises(NotConnected, match="no device connected"):
        DgtProtocol(URL).command(Command.show_text("HI"), 0.0)
    protocol = identified()
    with pytest.raises(CommandFailed, match="cannot 'beep'"):
        protocol.command(Command("beep"), 0.0)
    with pytest.raises(CommandFailed, match="remaining_ms"):
        protocol.command(Command("set_clock", {"remaining_ms": [1, -5], "running": 0}), 0.0)
    assert protocol.data_to_send() == b""


def test_a_spontaneous_clock_message_is_an_event_not_an_answer() -> None:
    protocol = identified()
    protocol.command(Command.show_text("X", seconds=0), 0.0)
    protocol.receive_data(encode_message(ClockAck(0x10, 0x88, 0, 0)), 0.1, WALL)  # a button, unasked
    events = protocol.events_received()
    assert not any(isinstance(e, CommandAnswered) for e in events)
    assert any(isinstance(e, Observation) and isinstance(e.report, DeviceEvent) for e in events)
