"""The benchmark clients' `check` mode: per topic, versions only go up; what is skipped is counted."""

from __future__ import annotations

import asyncio

from benchmarks.wsclient import Client, Fleet
from hub.feed.fanout import _encode, text_frame


class _Transport:
    def write(self, data: bytes) -> None:
        pass


def _client() -> tuple[Client, Fleet]:
    fleet = Fleet("check")
    fleet.t0, fleet.t1 = 0.0, float("inf")  # everything is inside the window
    client = Client(fleet, b"", b"")
    client.transport = _Transport()  # type: ignore[assignment]
    client.upgraded = True
    client.first.set_result(None)
    return client, fleet


def _frames(*changes: tuple[str, int], snapshot: bool = False) -> bytes:
    return b"".join(text_frame(_encode(topic, v, {"x": 1}, snapshot)) for topic, v in changes)


async def test_gaps_and_versions_going_back_are_counted_per_topic() -> None:
    client, fleet = _client()
    client.data_received(_frames(("a", 1), ("a", 2), ("b", 7), ("a", 5), ("b", 8)))
    client.data_received(_frames(("a", 4), ("a", 6), ("b", 8)))
    assert fleet.checked == 8 and fleet.frames == 8
    assert fleet.gaps == 2  # a: 3 and 4 skipped on the way from 2 to 5
    assert fleet.backwards == 2  # a: 4 after 5; b: 8 twice
    await asyncio.sleep(0)


async def test_a_snapshot_restarts_its_topic_and_split_frames_are_read_whole() -> None:
    client, fleet = _client()
    data = _frames(("a", 10)) + _frames(("a", 50), snapshot=True) + _frames(("a", 51), ("a", 53))
    client.data_received(data[:30])
    client.data_received(data[30:])
    assert (fleet.checked, fleet.gaps, fleet.backwards, fleet.unparsed) == (3, 1, 0, 0)
    assert fleet.payload_bytes > 0


async def test_a_compressed_batch_is_checked_in_version_order() -> None:
    """The fan-out's batch holds the latest of each key in the order the keys first changed, compressed
    when large: checked whole, by version, it is neither a version going back nor unreadable."""
    client, fleet = _client()
    client.data_received(_frames(("venue", 1)))
    # match A changed (2), then B (3), then A again (4): the batch is [A 4, B 3], 2 coalesced away
    batch = b"[" + _encode("venue", 4, {"x": "A" * 600}) + b"," + _encode("venue", 3, {"x": "B"}) + b"]"
    frame = text_frame(batch, deflate=True)
    assert frame[0] & 0x40, "large enough to be compressed"
    client.data_received(frame)
    assert (fleet.checked, fleet.gaps, fleet.backwards, fleet.unparsed) == (3, 1, 0, 0)
