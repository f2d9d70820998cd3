"""Device URLs and opening serial ports through pyserial-asyncio-fast, on real pseudo-terminals."""

import asyncio
import gc
import os
import resource
from pathlib import Path

import pytest

from boardcast_sim.pty import open_pty_pair
from devices.transports.serial import DeviceUnavailable, SerialTarget, open_serial, parse_serial_url


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("serial:///dev/ttyUSB0?baud=9600&protocol=wire", SerialTarget("/dev/ttyUSB0", 9600, "wire")),
        ("serial:///dev/ttyACM0", SerialTarget("/dev/ttyACM0", 115200, None)),
        ("/dev/ttyS1", SerialTarget("/dev/ttyS1", 115200, None)),
        ("socket://10.0.0.7:7000", SerialTarget("socket://10.0.0.7:7000", 115200, None)),
    ],
)
def test_device_urls_name_the_port_and_baud(url: str, target: SerialTarget) -> None:
    assert parse_serial_url(url) == target


@pytest.mark.parametrize("url", ["serial:///dev/ttyUSB0?baud=fast", "serial:///dev/ttyUSB0?baud=0"])
def test_a_bad_baud_is_refused_naming_the_url(url: str) -> None:
    with pytest.raises(ValueError, match="baud must be a positive integer"):
        parse_serial_url(url)


async def test_a_missing_port_is_unavailable_and_named_in_both_languages(tmp_path: Path) -> None:
    port = tmp_path / "ttyUSB9"
    with pytest.raises(DeviceUnavailable) as caught:
        await open_serial(f"serial://{port}?baud=115200&protocol=wire")
    assert str(caught.value) == (
        f"serial port {port} does not exist; check the cable and the venue file"
        f" / seri port {port} yok; kabloyu ve mekân dosyasını kontrol edin"
    )
    assert isinstance(caught.value, OSError)


async def test_bytes_flow_both_ways_through_a_pty() -> None:
    with open_pty_pair() as pair:
        reader, writer = await open_serial(f"serial://{pair.slave_path}?baud=57600")
        try:
            os.write(pair.master_fd, b"\x01\x02\x00")
            async with asyncio.timeout(2):
                assert await reader.readexactly(3) == b"\x01\x02\x00"
            writer.write(b"\x05\x00")
            await writer.drain()
            assert os.read(pair.master_fd, 16) == b"\x05\x00"
        finally:
            writer.close()


def _fill_below_1024(filler: list[int]) -> None:
    """Open /dev/null until the descriptor it gets is above 1023 (every lower one is then taken)."""
    while True:
        filler.append(os.open(os.devnull, os.O_RDONLY))
        if filler[-1] > 1023:
            return


async def test_a_port_opened_after_a_thousand_sockets_is_still_read() -> None:
    """pyserial reads through select(), which refuses descriptors above 1023; a hub with a thousand
    spectators connected opens its ports above that, and must still read them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.fail(f"this test needs 1200 file descriptors; the hard limit here is {hard}")
    resource.setrlimit(
        resource.RLIMIT_NOFILE, (max(soft, 1200) if hard == resource.RLIM_INFINITY else hard, hard)
    )
    # what earlier tests left for the collector may hold descriptors; closed in the middle of this test, one
    # would be the lowest free and the port would get it (CI saw fd 18 once)
    gc.collect()
    filler: list[int] = []
    _fill_below_1024(filler)  # as spectators' sockets would
    try:
        with open_pty_pair() as pair:
            for _ in range(3):
                reader, writer = await open_serial(f"serial://{pair.slave_path}")
                if writer.transport.get_extra_info("serial").fd > 1023:
                    break
                # a descriptor below 1024 was freed meanwhile (by something outside this test): take it too
                writer.close()
                await asyncio.sleep(0.01)
                _fill_below_1024(filler)
            try:
                assert writer.transport.get_extra_info("serial").fd > 1023
                os.write(pair.master_fd, b"\x01\x02\x00")
                async with asyncio.timeout(2):
                    assert await reader.readexactly(3) == b"\x01\x02\x00"
            finally:
                writer.close()
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
