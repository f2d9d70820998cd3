"""Property: a device stream with duplicated, reordered, corrupted frames and garbage between them, split
at random points, never crashes the codec; every intact frame comes out, in order; and the hub stores
each distinct (device, epoch, seq) exactly once."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devices.observations import DeviceHello, Observation, ScoreboardState
from devices.wire.codec import Frame, WireCodec
from devices.wire.messages import decode_report, encode_report
from devices.wire.sequence import SeqUnwrapper
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo
from hub.venue import TableConfig, Venue

HELLO = DeviceHello("tt-p", "tt-scoreboard", "m", "f", 1, 3)
VENUE = Venue(
    "P", (TableConfig("T1", "tabletennis"),), (MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 7),)
)


@st.composite
def damaged_stream(draw):
    count = draw(st.integers(3, 40))
    first_seq = draw(st.sampled_from([0, 65520]))  # also across the u16 wrap
    frames = [encode_report(HELLO, first_seq)]
    for i in range(1, count):
        frames.append(encode_report(ScoreboardState((i % 11, 0), (i // 11, 0)), (first_seq + i) & 0xFFFF))
    sent: list[tuple[str, bytes]] = []  # ("frame" | "noise", bytes on the wire)
    for frame in frames:
        fate = draw(st.sampled_from(["ok", "ok", "ok", "duplicate", "corrupt", "garbage_before"]))
        if fate == "duplicate":
            sent += [("frame", frame), ("frame", frame)]
        elif fate == "corrupt":  # one byte changed in flight: the frame is lost, nothing else
            at = draw(st.integers(0, len(frame) - 2))
            flipped = bytearray(frame)
            flipped[at] ^= draw(st.integers(1, 255))
            sent.append(("noise", bytes(flipped)))
        elif fate == "garbage_before":  # line noise, ended by the device's 0x00 before its next frame
            sent.append(("noise", draw(st.binary(min_size=1, max_size=30)) + b"\x00"))
            sent.append(("frame", frame))
        else:
            sent.append(("frame", frame))
    if draw(st.booleans()) and len(sent) > 3:  # two neighbours swap places on the way
        i = draw(st.integers(1, len(sent) - 2))
        sent[i], sent[i + 1] = sent[i + 1], sent[i]
    return sent, draw(st.lists(st.integers(1, 64), min_size=1, max_size=50))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=damaged_stream())
async def test_damaged_streams_lose_only_damaged_frames_and_store_each_frame_once(
    tmp_path_factory, stream
) -> None:
    sent, cuts = stream
    data = b"".join(chunk for _, chunk in sent)
    codec = WireCodec()
    out: list[Frame] = []
    position, i = 0, 0
    while position < len(data):
        step = cuts[i % len(cuts)]
        out += [item for item in codec.feed(data[position : position + step]) if isinstance(item, Frame)]
        position, i = position + step, i + 1

    recovered = [f.raw for f in out]
    assert recovered == [chunk for kind, chunk in sent if kind == "frame"]

    log = EventLog(tmp_path_factory.mktemp("damaged") / "log.sqlite3")
    log.open()
    hall = Hall(VENUE, log, Fanout())
    hall.load()
    log.start()
    sink = Ingest(hall).sink_for(VENUE.tables[0])
    unwrap = SeqUnwrapper()
    for frame in out:
        report = decode_report(frame, "tt-scoreboard")
        sink.observe(Observation("tt-p", 3, unwrap.unwrap(frame.seq), 0.0, report, frame.raw))
    await log.flush()
    rows = [e for e in log.events(limit=10_000) if e.device_id == "tt-p"]
    keys = [(e.boot_epoch, e.seq) for e in rows]
    assert len(keys) == len(set(keys))
    assert {e.raw for e in rows} == set(recovered)
    await log.close()
