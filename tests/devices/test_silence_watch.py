"""`SilenceWatch`: one timer per link ends a read exactly `timeout` s after it began, and nothing else."""

import asyncio

import pytest

from devices.silence import LinkReason, SilenceWatch

TIMEOUT = 0.2


async def test_reads_that_bring_bytes_in_time_never_end_the_link_however_long_it_lives() -> None:
    reader = asyncio.StreamReader()
    watch = SilenceWatch(TIMEOUT)
    loop = asyncio.get_running_loop()
    started = loop.time()
    got = []
    while loop.time() - started < 3 * TIMEOUT:
        loop.call_later(TIMEOUT / 4, reader.feed_data, b"x")
        got.append(await watch.read(reader))
    watch.close()
    assert got and all(data == b"x" for data in got)


async def test_a_silent_read_ends_timeout_seconds_after_it_began_not_after_the_link_opened() -> None:
    reader = asyncio.StreamReader()
    watch = SilenceWatch(TIMEOUT)
    loop = asyncio.get_running_loop()
    await asyncio.sleep(1.5 * TIMEOUT)  # the link's timer comes due while nothing is read: it waits on
    began = loop.time()
    reason = await watch.read(reader)
    waited = loop.time() - began
    assert isinstance(reason, LinkReason)
    assert reason.english == "no data from the device for 0.2 s; reconnecting"
    assert TIMEOUT * 0.95 <= waited < TIMEOUT * 1.5
    loop.call_later(TIMEOUT / 4, reader.feed_data, b"y")  # the watch goes on for the next read
    assert await watch.read(reader) == b"y"
    watch.close()


async def test_stopping_the_task_during_a_read_stops_it_rather_than_reporting_silence() -> None:
    reader = asyncio.StreamReader()
    entered = asyncio.Event()

    async def session() -> None:
        watch = SilenceWatch(TIMEOUT)
        try:
            entered.set()
            await watch.read(reader)
        finally:
            watch.close()

    task = asyncio.get_running_loop().create_task(session())
    await entered.wait()
    await asyncio.sleep(TIMEOUT / 4)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_closed_stream_and_a_failed_read_are_reasons_too() -> None:
    closed = asyncio.StreamReader()
    closed.feed_eof()
    failing = asyncio.StreamReader()
    failing.set_exception(OSError("gone"))
    watch = SilenceWatch(TIMEOUT)
    assert (await watch.read(closed)) == LinkReason(
        "the device closed the connection", "cihaz bağlantıyı kapattı"
    )
    reason = await watch.read(failing)
    assert isinstance(reason, LinkReason) and reason.english == "read failed: gone"
    watch.close()
