"""The TCP device gateway on real loopback sockets: a device proves its token, then streams to its
session; unknown devices and wrong tokens are refused with an ERROR frame and recorded."""

from __future__ import annotations

import asyncio

import pytest

from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import DeviceHello, LinkState, ScoreboardState
from devices.transports.tcp import RefusalReason, TcpGateway, parse_tcp_url, token_digest
from devices.wire.codec import Frame, MessageType, WireCodec, encode_frame
from devices.wire.messages import report_to_body
from devices.wire.session import DeviceSession
from tests.devices.support import FAST, RecordingSink, eventually, running

TOKEN = "s3cret-token-of-tt-9"


async def gateway() -> TcpGateway:
    gw = TcpGateway("127.0.0.1", 0, {"tt-9": token_digest(TOKEN)}, hello_timeout=1.0)
    await gw.start()
    return gw


async def device_connection(gw: TcpGateway, board: TableTennisScoreboard) -> None:
    reader, writer = await asyncio.open_connection(gw.host, gw.port)
    try:
        await board.run_on_streams(reader, writer)
    finally:
        writer.close()


async def refused_with(gw: TcpGateway, first_bytes: bytes) -> dict:
    reader, writer = await asyncio.open_connection(gw.host, gw.port)
    writer.write(first_bytes)
    await writer.drain()
    async with asyncio.timeout(3):
        data = await reader.read()  # the gateway answers, then closes: read to EOF
    writer.close()
    frames = [f for f in WireCodec().feed(data) if isinstance(f, Frame)]
    assert len(frames) == 1 and frames[0].type is MessageType.ERROR
    return frames[0].body


def hello_frame(device_id: str, token: str | None) -> bytes:
    _, body = report_to_body(DeviceHello(device_id, "tt-scoreboard", "m", "f", 1, 5))
    if token is not None:
        body["token"] = token
    return encode_frame(MessageType.HELLO, 0, body)


def test_gateway_urls() -> None:
    assert parse_tcp_url("tcp://0.0.0.0:7000") == ("0.0.0.0", 7000)
    with pytest.raises(ValueError, match=r"tcp://0\.0\.0\.0:7000"):
        parse_tcp_url("tcp://nowhere")


async def test_a_device_with_its_token_streams_to_its_session_and_the_token_is_never_passed_on() -> None:
    gw = await gateway()
    board = TableTennisScoreboard("tt-9", seed=4, speed=200, token=TOKEN)
    sink = RecordingSink()
    session = DeviceSession("tcp://tt-9", gw.opener("tt-9"), sink, backoff=FAST)
    async with running(gw.serve(), session.run(), device_connection(gw, board)):
        await eventually(
            lambda: len([o for o in sink.observations if isinstance(o.report, ScoreboardState)]) >= 10
        )
    assert isinstance(sink.observations[0].report, DeviceHello)
    assert all(TOKEN.encode() not in o.raw for o in sink.observations)
    assert gw.accepted == 1 and gw.refused == []


@pytest.mark.parametrize(
    ("first", "reason"),
    [
        (hello_frame("tt-9", "wrong"), RefusalReason.WRONG_TOKEN),
        (hello_frame("tt-9", None), RefusalReason.MISSING_TOKEN),
        (hello_frame("intruder", TOKEN), RefusalReason.UNKNOWN_DEVICE),
        (b"GET / HTTP/1.1\r\n\r\n\x00", RefusalReason.NO_HELLO),
        (b"", RefusalReason.NO_HELLO),  # says nothing: refused after the hello timeout
    ],
)
async def test_refused_connections_get_an_error_frame_and_are_recorded(
    first: bytes, reason: RefusalReason
) -> None:
    gw = await gateway()
    seen = []
    gw._on_refused = seen.append
    async with running(gw.serve()):
        body = await refused_with(gw, first)
    assert body["code"] == "unauthorized" and body["detail"] == reason.value
    assert [r.reason for r in seen] == [reason] == [r.reason for r in gw.refused]


async def test_a_device_that_reconnects_resumes_on_the_same_session() -> None:
    gw = await gateway()
    sink = RecordingSink()
    session = DeviceSession("tcp://tt-9", gw.opener("tt-9"), sink, backoff=FAST)
    async with running(gw.serve(), session.run()) as _:
        first = TableTennisScoreboard("tt-9", seed=4, speed=200, token=TOKEN, boot_epoch=1)
        async with running(device_connection(gw, first)):
            await eventually(lambda: len(sink.states()) >= 3)
        await eventually(lambda: sink.link_states()[-1] is LinkState.DISCONNECTED)
        again = TableTennisScoreboard("tt-9", seed=5, speed=200, token=TOKEN, boot_epoch=2)
        async with running(device_connection(gw, again)):
            await eventually(
                lambda: any(
                    o.boot_epoch == 2 and isinstance(o.report, ScoreboardState) for o in sink.observations
                )
            )
    assert sink.link_states().count(LinkState.CONNECTED) == 2
    assert gw.accepted == 2


async def test_refusals_are_counted_per_host_and_reason_and_reported_once_a_minute() -> None:
    """Ten silent connections from one host: two over the cap of waiting ones (too_many), eight that never
    say HELLO (no_hello). Each reason: its first reported at once, the rest in one report a minute later."""
    import time

    from devices.transports.tcp import UNPROVEN_PER_HOST

    seen: list = []
    gw = TcpGateway("127.0.0.1", 0, {"tt-9": token_digest(TOKEN)}, hello_timeout=1.0, on_refused=seen.append)
    await gw.start()
    async with running(gw.serve()):
        silent = [
            await asyncio.open_connection(gw.host, gw.port, local_addr=("127.0.0.5", 0))
            for _ in range(UNPROVEN_PER_HOST + 2)
        ]
        await eventually(lambda: gw.refused_total == UNPROVEN_PER_HOST + 2, 5)
        first = [(r.reason, r.count) for r in seen]
        gw.report_counted(time.time() + 61)
        for _, writer in silent:
            writer.close()
    assert sorted(first) == [(RefusalReason.NO_HELLO, 1), (RefusalReason.TOO_MANY, 1)]
    later = sorted((r.reason, r.count) for r in seen[len(first) :])
    assert later == [(RefusalReason.NO_HELLO, UNPROVEN_PER_HOST - 1), (RefusalReason.TOO_MANY, 1)]
