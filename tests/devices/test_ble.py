"""BLE transport through the real bleak BleakClient, real bleak-retry-connector and the real DeviceSession.

Only the radio is fake: `boardcast_sim.ble_fake` is a bleak backend (client and scanner) over simulated
Nordic UART peripherals running the real table-tennis scoreboard simulator.
"""

import asyncio
import re
from typing import Any

import pytest

from boardcast_sim.ble_fake import FakeRadio, NusLayout, nus_service_collection
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import DeviceHello, LinkChange, LinkState, ScoreboardState
from devices.registry import ble_protocol_of
from devices.transports.ble import (
    NUS_RX,
    NUS_SERVICE,
    NUS_TX,
    BleConnector,
    BleDeviceNotFound,
    BleTarget,
    BluetoothUnavailable,
    find_nus_characteristics,
    parse_ble_url,
    scan_nearby,
)
from devices.transports.serial import DeviceUnavailable
from devices.wire.codec import Frame, WireCodec
from devices.wire.messages import Command
from devices.wire.session import DeviceSession
from tests.devices.support import EPOCH, FAST, RecordingSink, eventually, running

ADDRESS = "AA:BB:CC:DD:EE:01"
URL = f"ble://{ADDRESS}?protocol=wire"


def not_found(sink: RecordingSink) -> list[LinkChange]:
    return [c for c in sink.links if c.state is LinkState.DISCONNECTED and "not found nearby" in c.detail]


def connector_for(radio: FakeRadio, **options: Any) -> BleConnector:
    options.setdefault("find_timeout", 0.5)
    return BleConnector(client_backend=radio.client_backend, scanner_backend=radio.scanner_backend, **options)


def board(
    device_id: str = "tt-ble", seed: int = 7, speed: float = 200, **options: Any
) -> TableTennisScoreboard:
    return TableTennisScoreboard(device_id, seed=seed, speed=speed, boot_epoch=EPOCH, **options)


def without_repeats(states: list[ScoreboardState]) -> list[ScoreboardState]:
    return [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]


def is_run_of(seen: list[ScoreboardState], shown: list[ScoreboardState]) -> bool:
    """Whether seen is a contiguous run of what the board showed."""
    return any(shown[i : i + len(seen)] == seen for i in range(len(shown) - len(seen) + 1))


def is_in_order_of(seen: list[ScoreboardState], shown: list[ScoreboardState]) -> bool:
    """Whether seen is a subsequence of what the board showed (states may be missed, never reordered)."""
    position = 0
    for state in seen:
        try:
            position = shown.index(state, position)
        except ValueError:
            return False
    return True


def test_urls_name_an_address_and_bad_ones_say_which_url() -> None:
    assert parse_ble_url("ble://aa:bb:cc:dd:ee:01?protocol=wire&adapter=hci1") == BleTarget(
        ADDRESS, "wire", "hci1"
    )
    assert parse_ble_url(f"ble://{ADDRESS}") == BleTarget(ADDRESS)
    for bad in ("ble://D-BOARD-12", "ble://AA:BB:CC:DD:EE?protocol=wire", "serial:///dev/ttyS0"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            parse_ble_url(bad)
    with pytest.raises(ValueError, match="chessnut"):
        BleConnector().opener(f"ble://{ADDRESS}?protocol=chessnut")


def test_nus_characteristics_are_found_by_property_not_by_uuid() -> None:
    # Nordic names RX/TX from the other side; here the UUIDs are swapped and an odd read-only one is added.
    layout = NusLayout(tx_uuid=NUS_RX, rx_uuid=NUS_TX, extra_uuid="0000fff1-0000-1000-8000-00805f9b34fb")
    services, tx, rx = nus_service_collection(layout)
    chars = find_nus_characteristics(services)
    assert chars.notify is tx and chars.notify.uuid == NUS_RX
    assert chars.write is rx and chars.write.uuid == NUS_TX
    assert chars.write_without_response
    with_response_only = find_nus_characteristics(
        nus_service_collection(NusLayout(rx_properties=("write",)))[0]
    )
    assert not with_response_only.write_without_response


async def test_swapped_uuids_still_carry_the_stream_end_to_end() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12", layout=NusLayout(tx_uuid=NUS_RX, rx_uuid=NUS_TX))
    sim, sink = board(), RecordingSink()
    async with connector_for(radio) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(sink.states()) >= 5)
    assert isinstance(sink.observations[0].report, DeviceHello)
    assert sim.commands[0] == Command.resync()


@pytest.mark.parametrize("notify_size", [1, 7, 20, 244])
async def test_notifications_of_any_size_reassemble_into_the_same_observations(notify_size: int) -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12", notify_size=notify_size, layout=NusLayout(max_write=244))
    sim, sink = board(), RecordingSink()
    async with connector_for(radio) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(sink.states()) >= 15)

    hello = sink.observations[0].report
    assert isinstance(hello, DeviceHello) and (hello.device_id, hello.boot_epoch) == ("tt-ble", EPOCH)
    seen = without_repeats(sink.states())
    assert len(seen) >= 10 and is_run_of(seen, sim.history)
    assert sink.errors == []
    assert len(set(sink.keys())) == len(sink.keys())
    longest_frame = max(len(o.raw) for o in sink.observations)
    assert max(device.notification_sizes) == min(notify_size, longest_frame)  # frames really were cut
    assert sum(device.notification_sizes) >= session.stats.bytes_in > 0


@pytest.mark.parametrize("rx_properties", [("write-without-response", "write"), ("write",)])
async def test_writes_are_cut_to_the_characteristic_size_and_arrive_intact(
    rx_properties: tuple[Any, ...],
) -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12", layout=NusLayout(max_write=20, rx_properties=rx_properties))
    sim, sink = board(speed=20), RecordingSink()
    text = Command.show_text("Masa 12: maç sayısı — match point", seconds=7)
    async with connector_for(radio) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(sink.states()) >= 1)
            assert await session.send(text)
            await eventually(lambda: text in sim.commands)

    assert sim.commands[0] == Command.resync()  # the session's resync frame, reassembled by the device
    assert len(text.encode(0)) > 20 and all(0 < len(w) <= 20 for w in device.writes)
    frames = WireCodec().feed(b"".join(device.writes))  # the byte stream the device received, re-read
    assert all(isinstance(f, Frame) for f in frames)
    assert [Command.decode(f) for f in frames if isinstance(f, Frame)] == sim.commands
    assert set(device.write_responses) == {"write-without-response" not in rx_properties}


async def test_a_disconnect_mid_frame_then_reconnect_loses_no_state_and_duplicates_nothing() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12", notify_size=7)
    sim, sink = board(best_of=3), RecordingSink()
    async with connector_for(radio) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(sink.states()) >= 8)
            before = len(sink.observations)
            device.disconnect_mid_frame()
            await eventually(lambda: device.drops == 1 and sink.connects() == 2)
            await eventually(lambda: len(sink.states()) >= 20 and sim.done.is_set(), seconds=8)
            await eventually(lambda: sink.states()[-1] == sim.state)

    keys = sink.keys()
    assert len(set(keys)) == len(keys)  # nothing observed twice, though the device re-sent its state
    assert [o.seq for o in sink.observations] == sorted(o.seq for o in sink.observations)
    assert sink.errors == []  # the torn half-frame died with its connection
    after = sink.observations[before:]
    hellos = [i for i, o in enumerate(after) if isinstance(o.report, DeviceHello)]
    assert hellos, "the device said HELLO again after the reconnect (resync)"
    assert is_in_order_of(without_repeats(sink.states()), sim.history)
    assert sink.states()[-1] == sim.state == sim.history[-1]
    assert len(device.clients) == 2 and device.start_notify_calls == 2


async def test_a_device_not_in_range_is_reported_in_both_languages_then_connects_when_it_appears() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12", not_found=True)
    sim, sink = board(), RecordingSink()
    async with connector_for(radio, find_timeout=0.1) as connector:
        with pytest.raises(OSError) as raised:
            await connector.opener(URL)()
        assert isinstance(raised.value, DeviceUnavailable)
        assert "not found nearby" in raised.value.english and "bulunamadı" in raised.value.turkish
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(not_found(sink)) >= 2)
            assert device.connect_attempts == 0  # never tried to connect to a device nobody heard
            device.not_found = False
            await eventually(lambda: len(sink.states()) >= 3)

    failed = next(c for c in sink.links if c.state is LinkState.DISCONNECTED)
    assert ADDRESS in failed.detail and "BLE cihazı" in failed.detail and "retrying in" in failed.detail
    assert isinstance(sink.observations[0].report, DeviceHello)


async def test_failed_connects_map_to_oserror_and_the_session_retries() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12")
    device.fail_next_connects = 2  # retry-connector (max_attempts=2) gives up: one failed session attempt
    sim, sink = board(), RecordingSink()
    async with connector_for(radio, max_attempts=2) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, backoff=FAST)
        async with running(device.run(sim), session.run()):
            await eventually(lambda: len(sink.states()) >= 3)
    failed = [c for c in sink.links if c.state is LinkState.DISCONNECTED]
    assert failed and "cannot connect to BLE device" in failed[0].detail and "bağlanamadı" in failed[0].detail
    assert device.connect_attempts == 3 and len(device.clients) == 1
    assert all(t is not None and t >= 10 for t in device.connect_timeouts)  # BlueZ needs time to resolve


async def test_a_device_that_vanished_after_advertising_fails_fast_instead_of_half_a_minute() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12")
    async with connector_for(radio) as connector:
        opener = connector.opener(URL)
        _, writer = await opener()
        writer.close()
        await writer.wait_closed()
        with pytest.raises(ConnectionResetError):
            writer.write(b"late")
        device.not_found = True  # gone, but the scanner heard it a moment ago
        async with asyncio.timeout(2):  # retry-connector alone would back off 4 s up to 9 times
            with pytest.raises(BleDeviceNotFound) as raised:
                await opener()
    assert device.connect_attempts == 2
    assert "vanished" in raised.value.english and "kayboldu" in raised.value.turkish


async def test_silent_notifications_trip_the_watchdog_and_each_connection_gets_a_new_client() -> None:
    radio = FakeRadio()
    device = radio.add_device(ADDRESS, "TT-12")
    sim, sink = board(), RecordingSink()
    async with connector_for(radio) as connector:
        session = DeviceSession(URL, connector.opener(URL), sink, silence_timeout=0.3, backoff=FAST)
        async with running(device.run(sim), session.run()):
            for connection in (1, 2):
                await eventually(lambda c=connection: sink.connects() == c and len(sink.states()) >= 3 * c)
                device.stop_notifications()  # link up, nothing arrives
            await eventually(lambda: sink.connects() == 3 and len(sink.states()) >= 9)

    silences = [c for c in sink.links if c.state is LinkState.DISCONNECTED and "no data" in c.detail]
    assert len(silences) == 2 and device.drops == 0  # the hub dropped the links, not the device
    assert len(device.clients) == 3 and len({id(c) for c in device.clients}) == 3
    assert device.start_notify_calls == 3  # exactly once per connection
    assert radio.scanner_starts == 1  # one long-lived scanner for all of it


async def test_connects_are_serialised_per_adapter() -> None:
    radio = FakeRadio()
    addresses = ["AA:BB:CC:DD:EE:01", "AA:BB:CC:DD:EE:02", "AA:BB:CC:DD:EE:03", "AA:BB:CC:DD:EE:04"]
    devices = [radio.add_device(a, f"TT-{i}", connect_delay=0.1) for i, a in enumerate(addresses)]
    adapters = ["hci0", "hci0", "hci1", "hci1"]
    sims = [board(f"tt-{i}", seed=i) for i in range(4)]
    sinks = [RecordingSink() for _ in range(4)]
    async with connector_for(radio) as connector:
        sessions = [
            DeviceSession(url, connector.opener(url), sink, backoff=FAST)
            for url, sink in zip(
                (f"ble://{a}?protocol=wire&adapter={h}" for a, h in zip(addresses, adapters, strict=True)),
                sinks,
                strict=True,
            )
        ]
        runs = [d.run(s) for d, s in zip(devices, sims, strict=True)] + [s.run() for s in sessions]
        async with running(*runs):
            await eventually(lambda: all(len(s.states()) >= 2 for s in sinks))

    for adapter in ("hci0", "hci1"):
        spans = sorted((s for s in radio.connect_spans if s.adapter == adapter), key=lambda s: s.started)
        assert len(spans) == 2 and spans[0].ended <= spans[1].started  # never two initiations at once
    first = {s.adapter: s for s in sorted(radio.connect_spans, key=lambda s: s.started, reverse=True)}
    assert first["hci0"].started < first["hci1"].ended and first["hci1"].started < first["hci0"].ended
    assert radio.scanner_starts == 2  # one scanner per adapter


async def test_scan_nearby_lists_devices_we_can_talk_to() -> None:
    radio = FakeRadio()
    radio.add_device("AA:BB:CC:DD:EE:01", "TT-12", rssi=-70)
    radio.add_device("AA:BB:CC:DD:EE:02", "Chessnut Air", advertised_uuids=(), rssi=-50)
    radio.add_device(
        "AA:BB:CC:DD:EE:03", "HR strap", advertised_uuids=("0000180d-0000-1000-8000-00805f9b34fb",)
    )
    nearby = await scan_nearby(0.05, ble_protocol_of, scanner_backend=radio.scanner_backend)
    assert [(d.address, d.protocol) for d in nearby] == [
        ("AA:BB:CC:DD:EE:02", "chessnut"),
        ("AA:BB:CC:DD:EE:01", "wire"),
    ]
    assert nearby[1].url == "ble://AA:BB:CC:DD:EE:01?protocol=wire" and NUS_SERVICE in nearby[1].service_uuids


async def test_without_dbus_scan_nearby_says_bluetooth_is_unavailable_in_one_line() -> None:
    async with asyncio.timeout(10):
        with pytest.raises(BluetoothUnavailable) as raised:
            await scan_nearby(
                0.2, ble_protocol_of
            )  # real bleak, real BlueZ backend, no D-Bus on this machine
    message = str(raised.value)
    assert "\n" not in message
    assert (
        message.startswith("Bluetooth is not available on this machine (")
        and "Bu makinede Bluetooth yok" in message
    )


async def test_without_dbus_the_opener_raises_an_oserror_the_session_can_retry() -> None:
    async with asyncio.timeout(10), BleConnector(find_timeout=0.1) as connector:
        with pytest.raises(DeviceUnavailable) as raised:
            await connector.opener(URL)()
    assert "Bluetooth is not available" in raised.value.english and "Bluetooth yok" in raised.value.turkish
