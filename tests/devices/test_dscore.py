"""D-SCORE wristbands: the sans-I/O button codec, and the session through real bleak over the fake radio."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardcast_sim.ble_fake import DScoreLayout, FakeRadio, dscore_service_collection
from devices.command import CommandFailed
from devices.dscore.codec import Button, DScoreCodec, PressLength
from devices.dscore.session import (
    DSCORE_BUTTONS,
    DSCORE_SERVICE,
    DScoreSession,
    dscore_device_id,
    parse_dscore_url,
)
from devices.observations import DeviceEvent, DeviceHello, LinkState
from devices.transports.ble import find_notify_characteristic
from devices.wire.codec import FrameError, FrameErrorKind
from devices.wire.messages import Command
from tests.devices.support import FAST, RecordingSink, eventually, running
from tests.devices.test_ble import connector_for

ADDRESS = "AA:BB:CC:DD:EE:07"
URL = f"ble://{ADDRESS}?protocol=dscore&side=1"
GREEN, RED, BOTH, UP = b"\x02", b"\x01", b"\x03", b"\x00"


def tap(codec: DScoreCodec, value: bytes, at: float, held: float = 0.1) -> list[DeviceEvent | FrameError]:
    """Press and release one button; return what the press gave."""
    out = codec.feed(value, at)
    assert codec.feed(UP, at + held) == []
    return out


# -- codec --------------------------------------------------------------------------------------------


def test_green_awards_the_bands_side_a_point_and_red_takes_one_back() -> None:
    codec = DScoreCodec(1)
    assert tap(codec, GREEN, 10.0) == [DeviceEvent("point", {"side": 1})]
    assert tap(codec, RED, 12.0) == [DeviceEvent("undo", {"side": 1})]
    assert codec.stats.events == 2 and codec.errors == 0


def test_a_second_green_press_within_the_debounce_window_is_a_double_tap_and_dropped() -> None:
    codec = DScoreCodec(0, debounce_s=0.35)
    assert tap(codec, GREEN, 5.0, held=0.05) == [DeviceEvent("point", {"side": 0})]
    assert tap(codec, GREEN, 5.2, held=0.05) == []
    assert codec.double_taps == 1


def test_a_green_press_after_the_window_counts() -> None:
    codec = DScoreCodec(0, debounce_s=0.35)
    tap(codec, GREEN, 5.0)
    assert tap(codec, GREEN, 5.36) == [DeviceEvent("point", {"side": 0})]
    assert tap(codec, GREEN, 5.5) == []  # the window runs from the last press that counted
    assert tap(codec, GREEN, 5.8) == [DeviceEvent("point", {"side": 0})]
    assert codec.double_taps == 1 and codec.stats.events == 3


def test_a_red_press_right_after_a_green_one_is_no_double_tap() -> None:
    codec = DScoreCodec(0)
    tap(codec, GREEN, 1.0, held=0.05)
    assert tap(codec, RED, 1.1) == [DeviceEvent("undo", {"side": 0})]


def test_both_buttons_at_once_give_no_event() -> None:
    codec = DScoreCodec(0)
    assert tap(codec, BOTH, 1.0) == []
    assert codec.feed(RED, 3.0) == [DeviceEvent("undo", {"side": 0})]
    assert codec.feed(BOTH, 3.1) == []  # green joins the held red: a chord after the fact
    assert codec.stats.chords == 2


def test_press_length_is_measured_from_press_to_release() -> None:
    codec = DScoreCodec(0, long_press_s=1.0)
    tap(codec, GREEN, 0.0, held=0.2)
    assert codec.last_press is PressLength.SHORT
    tap(codec, GREEN, 5.0, held=1.5)
    assert codec.last_press is PressLength.LONG and codec.stats.long_presses == 1


@pytest.mark.parametrize(
    ("value", "says"),
    [(b"", "was empty"), (b"\x02\x00", "was 2 bytes"), (b"\x04", "was value 4"), (b"\xff", "was value 255")],
)
def test_a_malformed_value_is_returned_as_a_counted_error_never_raised(value: bytes, says: str) -> None:
    codec = DScoreCodec(1)
    (error,) = codec.feed(value, 1.0)
    assert isinstance(error, FrameError) and error.kind is FrameErrorKind.BAD_BODY
    assert says in error.detail and "one byte 0-3" in error.detail and error.raw == value
    assert codec.errors == 1
    assert codec.feed(GREEN, 2.0) == [DeviceEvent("point", {"side": 1})]  # and the band still works


def test_a_codec_is_for_side_0_or_1() -> None:
    with pytest.raises(ValueError, match="side must be 0 or 1"):
        DScoreCodec(2)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=3), st.floats(0, 5, allow_nan=False))))
def test_any_notifications_give_events_or_counted_errors_and_never_raise(
    values: list[tuple[bytes, float]],
) -> None:
    codec = DScoreCodec(0)
    at, events, errors = 0.0, 0, 0
    for value, gap in values:
        at += gap
        for item in codec.feed(value, at):
            if isinstance(item, DeviceEvent):
                events += 1
                assert item.kind in ("point", "undo") and item.data == {"side": 0}
            else:
                errors += 1
    bad = sum(1 for value, _ in values if len(value) != 1 or value[0] > Button.BOTH)
    assert errors == codec.errors == bad
    assert events == codec.stats.events <= codec.stats.presses


# -- URLs and characteristics ------------------------------------------------------------------------


def test_a_band_url_names_its_address_and_side() -> None:
    target = parse_dscore_url("ble://aa:bb:cc:dd:ee:07?protocol=dscore&side=0&adapter=hci1")
    assert (target.address, target.side, target.device_id) == (ADDRESS, 0, "dscore-AA-BB-CC-DD-EE-07")
    assert dscore_device_id(ADDRESS) == "dscore-AA-BB-CC-DD-EE-07"
    for bad, says in [
        (f"ble://{ADDRESS}?protocol=dscore", "side=0"),
        (f"ble://{ADDRESS}?protocol=dscore&side=2", "side=0"),
        (f"ble://{ADDRESS}?protocol=wire&side=0", "protocol=dscore"),
    ]:
        with pytest.raises(ValueError, match=re.escape(repr(bad))) as raised:
            parse_dscore_url(bad)
        assert says in str(raised.value)


def test_the_buttons_characteristic_is_found_by_its_notify_property() -> None:
    services, notify, _ = dscore_service_collection()
    assert find_notify_characteristic(services, DSCORE_SERVICE) is notify
    other = "96f91f4e-2417-44e3-ae06-aa362556914e"
    services, notify, _ = dscore_service_collection(DScoreLayout(extra_notify_uuid=other))
    assert find_notify_characteristic(services, DSCORE_SERVICE, prefer=DSCORE_BUTTONS) is notify
    renamed = "96f9ffff-2417-44e3-ae06-aa362556914e"
    services, notify, _ = dscore_service_collection(DScoreLayout(notify_uuid=renamed))
    assert find_notify_characteristic(services, DSCORE_SERVICE, prefer=DSCORE_BUTTONS) is notify
    with pytest.raises(LookupError, match="no service"):
        find_notify_characteristic(services, "6e400001-b5a3-f393-e0a9-e50e24dcca9e")


# -- session through real bleak and retry-connector over the fake radio ------------------------------


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def events(sink: RecordingSink) -> list[tuple[str, int]]:
    return [
        (o.report.kind, o.report.data["side"]) for o in sink.observations if isinstance(o.report, DeviceEvent)
    ]


async def test_a_band_delivers_points_and_undos_and_comes_back_after_a_drop() -> None:
    radio = FakeRadio()
    band = radio.add_device(
        ADDRESS, "D-SCORE-RX_EE:07", layout=DScoreLayout(), advertised_uuids=(DSCORE_SERVICE,)
    )
    sink, clock = RecordingSink(), Clock()
    async with connector_for(radio) as connector:
        session = DScoreSession(URL, connector, sink, backoff=FAST, monotonic=clock)
        async with running(session.run()):
            await eventually(lambda: band.start_notify_calls == 1 and session.connected)
            for value, step in [(GREEN, 0.1), (UP, 0.1), (GREEN, 0.1), (UP, 1.0), (RED, 0.1), (UP, 0.1)]:
                assert band.notify_value(value)
                clock.now += step
            assert band.notify_value(b"\x09")
            await eventually(lambda: len(events(sink)) == 2 and len(sink.errors) == 1)
            assert events(sink) == [("point", 1), ("undo", 1)]
            assert session.stats.double_taps == 1

            band.drop_link()
            await eventually(
                lambda: sink.connects() == 2 and band.start_notify_calls == 2 and session.connected
            )
            clock.now += 5
            assert band.notify_value(GREEN)
            await eventually(lambda: len(events(sink)) == 3)
            with pytest.raises(CommandFailed, match="cannot 'show_text'"):
                await session.command(Command.show_text("Mola"))

    assert events(sink)[-1] == ("point", 1)
    hellos = [o for o in sink.observations if isinstance(o.report, DeviceHello)]
    assert len(hellos) == 2 and all(o.seq == 0 for o in hellos)
    hello = hellos[0].report
    assert isinstance(hello, DeviceHello)
    assert (hello.device_id, hello.family, hello.model) == (
        "dscore-AA-BB-CC-DD-EE-07",
        "tt-wristband",
        "D-SCORE",
    )
    assert all(o.device_id == "dscore-AA-BB-CC-DD-EE-07" for o in sink.observations)
    keys = sink.keys()
    assert len(set(keys)) == len(keys)  # every observation has its own (device, boot, seq)
    epochs = [o.boot_epoch for o in hellos]
    assert epochs[1] > epochs[0]  # each connection is a new boot epoch, even within one second
    first = [o.seq for o in sink.observations if o.boot_epoch == epochs[0]]
    assert first == list(range(len(first)))
    assert session.reconnects == 1 and band.drops == 1
    assert [c.state for c in sink.links][-1] is LinkState.DISCONNECTED  # "session stopped"


async def test_a_band_that_is_not_in_range_is_retried_until_it_appears() -> None:
    radio = FakeRadio()
    band = radio.add_device(
        ADDRESS, "D-SCORE-RX_EE:07", layout=DScoreLayout(), advertised_uuids=(DSCORE_SERVICE,), not_found=True
    )
    sink = RecordingSink()
    async with connector_for(radio, find_timeout=0.1) as connector:
        session = DScoreSession(URL, connector, sink, backoff=FAST)
        async with running(session.run()):
            await eventually(lambda: sum(1 for c in sink.links if c.state is LinkState.DISCONNECTED) >= 2)
            band.not_found = False
            await eventually(lambda: session.connected and band.start_notify_calls == 1)
            band.notify_value(GREEN)
            await eventually(lambda: events(sink) == [("point", 1)])
    failed = next(c for c in sink.links if c.state is LinkState.DISCONNECTED)
    assert (
        "not found nearby" in failed.detail
        and "retrying in" in failed.detail
        and "bulunamadı" in failed.detail
    )


async def test_a_nus_board_at_a_dscore_url_is_refused_by_name_and_retried() -> None:
    radio = FakeRadio()
    radio.add_device(ADDRESS, "TT-12")  # a Boardcast Wire scoreboard, no D-SCORE service
    sink = RecordingSink()
    async with connector_for(radio) as connector:
        session = DScoreSession(URL, connector, sink, backoff=FAST)
        async with running(session.run()):
            await eventually(lambda: any(DSCORE_SERVICE in c.detail for c in sink.links))
    refused = next(c for c in sink.links if DSCORE_SERVICE in c.detail)
    assert refused.state is LinkState.DISCONNECTED and "right kind of device" in refused.detail
