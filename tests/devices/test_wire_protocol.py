"""`WireProtocol` fed bytes and times, with no pty and no sleep: HELLO, seq, resync, ACKs, silence, garbage."""

from __future__ import annotations

import pytest

from devices.command import NotConnected
from devices.observations import DeviceEvent, DeviceHello, Observation, ScoreboardState
from devices.wire.codec import Frame, FrameErrorKind, MessageType, WireCodec, encode_frame
from devices.wire.messages import Command, encode_report, report_to_body
from devices.wire.protocol import CommandAnswered, CommandUnanswered, Rejected, WireProtocol

URL = "serial:///dev/ttyBC0?protocol=wire"
EPOCH = 1_700_000_000


def hello(
    device_id: str = "tt-07",
    protocol: int = 1,
    capabilities: tuple[str, ...] = ("resync", "ack"),
    epoch=EPOCH,
) -> DeviceHello:
    return DeviceHello(device_id, "tt-scoreboard", "BC-TT1", "1.0", protocol, epoch, capabilities)


def state(a: int, b: int = 0) -> ScoreboardState:
    return ScoreboardState(points=(a, b), games=(0, 0))


def sent_commands(protocol: WireProtocol) -> list[Frame]:
    frames = WireCodec().feed(protocol.data_to_send())
    assert all(isinstance(f, Frame) for f in frames)
    return [f for f in frames if isinstance(f, Frame) and f.type is MessageType.COMMAND]


def sent(protocol: WireProtocol) -> list[str]:
    return [f.body["cmd"] for f in sent_commands(protocol)]


def connected(now: float = 0.0, **options) -> WireProtocol:
    """A protocol whose link opened at `now`, its first resync taken from the outbox."""
    protocol = WireProtocol(URL, **options)
    protocol.connection_made(now)
    assert sent(protocol) == ["resync"]
    return protocol


def greeted(now: float = 0.0, **options) -> WireProtocol:
    said = options.pop("hello", {})
    protocol = connected(now, **options)
    protocol.receive_data(encode_report(hello(**said), 0), now)
    assert [type(e) for e in protocol.events_received()] == [Observation]
    return protocol


def observations(protocol: WireProtocol) -> list[Observation]:
    return [e for e in protocol.events_received() if isinstance(e, Observation)]


def ack_frame(seq: int, for_seq: int, ok: bool = True, error: str | None = None) -> bytes:
    data: dict[str, object] = {"ack": for_seq, "ok": ok} | ({"error": error} if error else {})
    return encode_report(DeviceEvent("ack", data), seq)


def test_a_connection_starts_with_a_resync_and_the_hello_names_every_observation() -> None:
    protocol = connected()
    protocol.receive_data(encode_report(hello(), 7) + encode_report(state(1), 8), 0.5, at=1000.5)
    first, second = observations(protocol)
    assert first.report == hello() and (first.device_id, first.boot_epoch, first.seq) == ("tt-07", EPOCH, 7)
    assert (second.report, second.seq, second.received_at) == (state(1), 8, 1000.5)
    assert second.raw == encode_report(state(1), 8)
    assert protocol.ready and protocol.device_id == "tt-07" and protocol.frames_ok == 2


def test_frames_before_hello_are_counted_not_emitted_and_ask_for_a_resync_at_most_once_a_second() -> None:
    protocol = connected()
    protocol.receive_data(encode_report(state(3, 2), 1), 0.1)
    protocol.receive_data(encode_report(state(3, 3), 2), 0.6)  # within the second: no second resync
    assert sent(protocol) == ["resync"]
    protocol.receive_data(encode_report(state(4, 3), 3), 1.2)
    assert sent(protocol) == ["resync"]
    assert protocol.events_received() == [] and protocol.frames_before_hello == 3
    protocol.receive_data(encode_report(hello(), 4) + encode_report(state(4, 4), 5), 1.3)
    assert [o.report for o in observations(protocol)] == [hello(), state(4, 4)]


def test_seq_wraps_past_65535_and_keeps_growing() -> None:
    protocol = connected()
    data = encode_report(hello(), 65534) + b"".join(
        encode_report(state(n), (65535 + n) % 65536) for n in range(4)
    )
    protocol.receive_data(data, 0.0)
    assert [o.seq for o in observations(protocol)] == [65534, 65535, 65536, 65537, 65538]
    assert protocol.gap_resyncs == 0


def test_a_repeated_frame_keeps_its_key_and_asks_for_nothing() -> None:
    protocol = greeted()
    frame = encode_report(state(1), 1)
    protocol.receive_data(frame + frame, 0.1)
    repeated = observations(protocol)
    assert [o.seq for o in repeated] == [1, 1] and repeated[0].raw == repeated[1].raw
    assert sent(protocol) == []


def test_a_seq_gap_asks_for_a_resync_at_most_once_a_second() -> None:
    protocol = greeted()
    protocol.receive_data(encode_report(state(1), 1) + encode_report(state(2), 2), 0.1)
    assert sent(protocol) == []
    protocol.receive_data(encode_report(state(3), 6), 0.2)  # 3, 4 and 5 were lost
    assert sent(protocol) == ["resync"] and protocol.gap_resyncs == 1
    protocol.receive_data(encode_report(state(4), 9), 0.7)
    assert sent(protocol) == [] and protocol.gap_resyncs == 1
    protocol.receive_data(encode_report(state(5), 12), 1.3)
    assert sent(protocol) == ["resync"] and protocol.gap_resyncs == 2
    assert [o.seq for o in observations(protocol)] == [1, 2, 6, 9, 12]  # nothing a device said is dropped


def test_a_new_boot_epoch_starts_the_seq_over_and_a_reconnect_of_the_same_boot_does_not() -> None:
    protocol = connected()
    protocol.receive_data(encode_report(hello(), 39_999) + encode_report(state(1), 40_000), 0.1)
    protocol.connection_lost()
    protocol.connection_made(1.0)
    assert sent(protocol) == ["resync"]
    protocol.receive_data(encode_report(hello(), 5) + encode_report(state(2), 6), 1.1)
    protocol.connection_lost()
    protocol.connection_made(2.0)
    protocol.receive_data(encode_report(hello(epoch=EPOCH + 1), 0), 2.1)
    seen = [(o.boot_epoch, o.seq) for o in observations(protocol)]
    # The same boot: 5 is placed nearest 40 000 (past the wrap), not started over; a new boot starts at 0.
    assert seen == [(EPOCH, 39_999), (EPOCH, 40_000), (EPOCH, 65_541), (EPOCH, 65_542), (EPOCH + 1, 0)]


def test_garbage_between_frames_is_reported_in_its_place_and_later_frames_still_arrive() -> None:
    protocol = greeted()
    good = encode_report(state(1), 9)
    torn = good[:5] + bytes([good[5] ^ 0xFF]) + good[6:]
    protocol.receive_data(b"\x05\xde\xad\x00" + torn + b"\x00" * 8 + encode_report(state(2), 10), 0.1)
    events = protocol.events_received()
    assert [type(e) for e in events] == [Rejected, Rejected, Observation]
    errors = [e.error for e in events if isinstance(e, Rejected)]
    assert [e.kind for e in errors] == [FrameErrorKind.BAD_COBS, FrameErrorKind.BAD_CRC]
    assert errors[0].raw == b"\x05\xde\xad\x00" and protocol.frame_errors == 2


def test_bytes_split_anywhere_give_the_same_events() -> None:
    stream = encode_report(hello(), 0) + b"".join(encode_report(state(n), n + 1) for n in range(5))
    whole = greeted()
    whole.receive_data(stream[len(encode_report(hello(), 0)) :], 0.1)
    expected = [(o.seq, o.report) for o in observations(whole)]
    for cut in range(1, 40, 3):
        protocol = connected()
        protocol.receive_data(stream[:cut], 0.1)
        protocol.receive_data(stream[cut:], 0.1)
        assert [(o.seq, o.report) for o in observations(protocol)][1:] == expected


@pytest.mark.parametrize(
    ("frame", "kind", "words"),
    [
        (encode_report(hello("tt-08"), 0), FrameErrorKind.WRONG_DEVICE, ("'tt-08'", "'tt-07'")),
        (encode_report(hello(protocol=2), 0), FrameErrorKind.UNSUPPORTED_PROTOCOL, ("protocol 2", "tt-07")),
    ],
)
def test_a_hello_from_the_wrong_device_or_protocol_is_refused_and_its_frames_ignored(
    frame: bytes, kind: FrameErrorKind, words: tuple[str, ...]
) -> None:
    protocol = connected(expected_device_id="tt-07")
    protocol.receive_data(frame + encode_report(state(4, 4), 1), 0.1)
    events = protocol.events_received()
    assert len(events) == 1 and isinstance(events[0], Rejected) and events[0].error.kind is kind
    assert all(word in events[0].error.detail for word in words)
    assert protocol.frames_before_hello == 1 and not protocol.ready


def test_a_hello_that_repeats_the_secret_token_is_refused_without_its_bytes() -> None:
    protocol = connected()
    _, body = report_to_body(hello())
    protocol.receive_data(encode_frame(MessageType.HELLO, 0, {**body, "token": "hunter2"}), 0.1)
    events = protocol.events_received()
    assert len(events) == 1 and isinstance(events[0], Rejected)
    assert "token" in events[0].error.detail and events[0].error.raw == b""


def test_a_command_is_answered_by_its_ack_with_the_attempts_it_took() -> None:
    protocol = greeted()
    seq = protocol.command(Command.show_text("Masa 4"), 1.0, retries=3, interval=1.0)
    assert sent(protocol) == ["show_text"] and protocol.next_deadline() == 2.0
    protocol.receive_data(ack_frame(1, seq), 1.2)
    answered = [e for e in protocol.events_received() if isinstance(e, CommandAnswered)]
    assert [(a.seq, a.ack.ok, a.ack.attempts) for a in answered] == [(seq, True, 1)]
    assert protocol.next_deadline() == 15.0 + 1.2  # only the silence is left to wait for


def test_a_lost_ack_resends_the_same_frame_then_a_refusal_carries_its_reason() -> None:
    protocol = greeted()
    seq = protocol.command(Command.show_text("tekrar"), 0.0, retries=3, interval=0.3)
    first = sent_commands(protocol)
    protocol.tick(0.2)
    assert sent(protocol) == []  # not due yet
    protocol.tick(0.3)
    again = sent_commands(protocol)
    assert [f.seq for f in first + again] == [seq, seq] and first[0].raw == again[0].raw
    protocol.receive_data(ack_frame(1, seq, ok=False, error="cannot show_text"), 0.4)
    (answer,) = [e for e in protocol.events_received() if isinstance(e, CommandAnswered)]
    assert (answer.ack.ok, answer.ack.error, answer.ack.attempts) == (False, "cannot show_text", 2)


def test_a_device_that_never_acknowledges_is_given_up_after_the_retries() -> None:
    protocol = greeted()
    seq = protocol.command(Command.show_text("x"), 0.0, retries=2, interval=0.25)
    for now in (0.25, 0.5, 0.75):
        protocol.tick(now)
    frames = sent_commands(protocol)
    assert len(frames) == 3 and {f.seq for f in frames} == {seq}
    (gave_up,) = [e for e in protocol.events_received() if isinstance(e, CommandUnanswered)]
    assert gave_up.seq == seq and "did not acknowledge 'show_text' after 3 tries" in str(gave_up.failure)
    protocol.receive_data(ack_frame(1, seq), 0.8)  # too late: answers nothing
    assert not any(isinstance(e, CommandAnswered) for e in protocol.events_received())


def test_a_device_without_ack_gets_the_command_once_and_is_answered_at_once() -> None:
    protocol = greeted(hello={"capabilities": ("resync",)})
    seq = protocol.command(Command.show_text("x"), 0.0)
    assert sent(protocol) == ["show_text"]
    (answer,) = protocol.events_received()
    assert isinstance(answer, CommandAnswered) and answer.seq == seq and answer.ack.ok is None
    protocol.tick(10.0)
    assert sent(protocol) == []


def test_a_command_before_hello_or_without_a_link_is_refused() -> None:
    with pytest.raises(NotConnected, match="no device connected"):
        WireProtocol(URL).command(Command.show_text("x"), 0.0)
    with pytest.raises(NotConnected):
        connected().command(Command.show_text("x"), 0.0)


def test_a_resend_due_while_the_link_is_down_goes_nowhere_and_the_next_link_gets_the_next() -> None:
    protocol = greeted()
    seq = protocol.command(Command.show_text("x"), 0.0, retries=3, interval=1.0)
    sent(protocol)
    protocol.connection_lost()
    protocol.tick(1.0)
    assert protocol.data_to_send() == b""
    protocol.connection_made(1.5)
    assert sent(protocol) == ["resync"]
    protocol.tick(2.0)
    assert [f.seq for f in sent_commands(protocol)] == [seq]


def test_silence_asks_for_the_link_to_be_dropped_and_bytes_put_the_deadline_off() -> None:
    protocol = greeted(silence_timeout=0.25)
    assert protocol.next_deadline() == 0.25
    protocol.receive_data(encode_report(state(1), 1), 0.125)
    protocol.tick(0.25)
    assert protocol.close_reason is None and protocol.next_deadline() == 0.375
    protocol.tick(0.375)
    reason = protocol.close_reason
    assert reason is not None and reason.english == "no data from the device for 0.25 s; reconnecting"
    assert reason.turkish == "cihazdan 0.25 sn veri gelmedi; yeniden bağlanılıyor"
    assert protocol.next_deadline() is None
    protocol.connection_lost()
    protocol.connection_made(5.0)
    assert protocol.close_reason is None and protocol.next_deadline() == 5.25


def test_a_link_that_never_heard_a_frame_says_so() -> None:
    protocol = connected()
    protocol.receive_data(b"\x05\xde\xad\x00", 0.1)
    assert not protocol.heard_device
    protocol.receive_data(encode_report(state(1), 1), 0.2)  # before any HELLO, still a frame
    assert protocol.heard_device
