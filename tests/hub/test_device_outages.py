"""A live match's device going away: one `device.offline` item per outage, in the log, closed by the hub when
the device reports again (also after a restart), and none while nothing is being played."""

from __future__ import annotations

import asyncio
from pathlib import Path

from devices.observations import LinkChange, LinkState
from devices.silence import LinkReason, SilenceWatch
from hub.articles import rule_for
from hub.ingest.health import is_silence, link_status
from hub.ingest.sink import TableSink
from hub.matches import AnomalyState
from hub.referee import SYSTEM_ACTOR, Action, handle_anomaly
from tests.hub.test_ingest import HELLO, obs, open_hub, state


def link(sink: TableSink, state_: LinkState, at: float, detail: str = "", attempt: int = 1) -> None:
    sink.link_changed(LinkChange("/dev/ttyACM0", state_, at, detail, attempt=attempt))


DOWN = "the device closed the connection; retrying in 0.5 s / cihaz bağlantıyı kapattı; 0.5 sn sonra yeniden"


def offline(hall) -> list:
    return [a for a in hall.working["M1"].anomalies if a.code == "device.offline"]


async def test_an_outage_of_a_live_match_is_one_item_closed_by_the_hub_when_the_device_reports(
    tmp_path: Path,
) -> None:
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    sink = ingest.sink_for(hall.venue.tables[0])
    link(sink, LinkState.CONNECTED, 0.5)
    for o in (obs(0, HELLO), state(1, (0, 0)), state(2, (1, 0))):
        sink.observe(o)
    assert hall.working["M1"].status.value == "live"
    link(sink, LinkState.DISCONNECTED, 10.0, DOWN)
    for attempt in range(5):  # the session retries, and fails again and again: the same outage
        link(sink, LinkState.CONNECTING, 11.0 + attempt)
        link(sink, LinkState.DISCONNECTED, 11.5 + attempt, DOWN)
    [item] = offline(hall)
    assert item.state is AnomalyState.OPEN and item.count == 1 and item.severity.value == "warning"
    assert "the device closed the connection" in item.message_en and "T1" in item.message_en
    assert "bağlantıyı kapattı" in item.message_tr and "retrying" not in item.message_tr
    assert rule_for(item.code).title.en == "The table's device during a match"  # type: ignore[union-attr]
    link(sink, LinkState.CONNECTED, 20.0)  # the port opens: not back until it reports
    assert offline(hall)[0].state is AnomalyState.OPEN
    sink.observe(state(3, (2, 0)))
    [item] = offline(hall)
    assert item.state is AnomalyState.RESOLVED and item.handled_by == SYSTEM_ACTOR and item.handled_at == 3.0
    assert hall.working["M1"].sport_state.points == (2, 0)
    await hall.log.flush()
    kinds = [(e.kind, e.actor) for e in hall.log.events() if e.match_id == "M1" and not e.device_id]
    assert kinds == [("anomaly", None), ("referee.anomaly", SYSTEM_ACTOR)]  # the log holds both
    link(sink, LinkState.DISCONNECTED, 30.0, DOWN)  # a second outage is a second item
    assert [a.state for a in offline(hall)] == [AnomalyState.RESOLVED, AnomalyState.OPEN]
    await hall.log.close()


async def test_a_hub_shutting_down_is_no_outage(tmp_path: Path) -> None:
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    sink = ingest.sink_for(hall.venue.tables[0])
    link(sink, LinkState.CONNECTED, 0.5)
    for o in (obs(0, HELLO), state(1, (0, 0)), state(2, (1, 0))):
        sink.observe(o)
    # what every session says when it is cancelled (devices.link.LinkReporter): the hub stops, not the board
    link(sink, LinkState.DISCONNECTED, 3.0, "session stopped / oturum durduruldu", attempt=0)
    assert hall.working["M1"].status.value == "live" and offline(hall) == []
    await hall.log.close()


async def test_no_item_while_nothing_is_played_and_a_referee_s_own_handling_stands(tmp_path: Path) -> None:
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    sink = ingest.sink_for(hall.venue.tables[0])
    link(sink, LinkState.CONNECTED, 0.5)
    sink.observe(obs(0, HELLO))  # no score yet: the match is scheduled
    link(sink, LinkState.DISCONNECTED, 1.0, DOWN)
    assert hall.working["M1"].status.value == "scheduled" and offline(hall) == []
    link(sink, LinkState.CONNECTED, 2.0)
    sink.observe(state(1, (1, 0)))
    link(sink, LinkState.DISCONNECTED, 3.0, DOWN)
    [item] = offline(hall)
    event = handle_anomaly(hall.working["M1"], item.id, Action.DISMISS, "board replaced")
    hall.record("M1", event.kind, event.body, 4.0, actor="Hakem")
    link(sink, LinkState.CONNECTED, 5.0)
    sink.observe(state(2, (2, 0)))
    [item] = offline(hall)
    assert item.state is AnomalyState.DISMISSED and item.handled_by == "Hakem"
    await hall.log.close()


async def test_a_hub_restarted_during_an_outage_closes_the_item_on_the_device_s_first_report(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.sqlite3"
    hall, ingest = await open_hub(path)
    sink = ingest.sink_for(hall.venue.tables[0])
    link(sink, LinkState.CONNECTED, 0.5)
    for o in (obs(0, HELLO), state(1, (0, 0)), state(2, (1, 0))):
        sink.observe(o)
    link(sink, LinkState.DISCONNECTED, 3.0, DOWN)
    await hall.log.close()
    hall, ingest = await open_hub(path)  # the item came back from the log, open
    assert [a.state for a in offline(hall)] == [AnomalyState.OPEN]
    sink = ingest.sink_for(hall.venue.tables[0])
    link(sink, LinkState.CONNECTED, 10.0)
    for o in (obs(0, HELLO, epoch=43), state(1, (1, 0), epoch=43)):
        sink.observe(o)
    assert [(a.state, a.handled_by) for a in offline(hall)] == [(AnomalyState.RESOLVED, SYSTEM_ACTOR)]
    await hall.log.close()


async def test_the_device_list_tells_a_silent_device_from_a_closed_link_and_from_one_not_seen(
    tmp_path: Path,
) -> None:
    quiet = SilenceWatch(0.01)  # the sessions' own words for a device that went quiet
    silent_reason = await quiet.read(asyncio.StreamReader())
    quiet.close()
    ended = asyncio.StreamReader()
    ended.feed_eof()
    closing = SilenceWatch(1.0)
    closed_reason = await closing.read(ended)
    closing.close()
    assert isinstance(silent_reason, LinkReason) and isinstance(closed_reason, LinkReason)
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    sink = ingest.sink_for(hall.venue.tables[0])
    health = ingest.health["T1"]
    assert link_status(health) == "never"
    link(sink, LinkState.CONNECTED, 0.5)
    assert link_status(health) == "never"  # the port opened; nothing reported yet
    sink.observe(obs(0, HELLO))
    assert link_status(health) == "connected"
    link(sink, LinkState.DISCONNECTED, 20.0, silent_reason.with_retry(0.5))
    assert link_status(health) == health.public()["status"] == "silent"
    link(sink, LinkState.CONNECTED, 21.0)  # the port opens again, and the device still says nothing
    assert link_status(health) == "silent"
    sink.observe(state(1, (0, 0)))
    assert link_status(health) == "connected"
    link(sink, LinkState.DISCONNECTED, 30.0, closed_reason.with_retry(0.5))
    assert link_status(health) == "disconnected"
    chessnut = "no board report for 15 s; reconnecting; retrying in 1.0 s / 15 sn tahta raporu gelmedi"
    assert is_silence(chessnut) and not is_silence(closed_reason.with_retry(0.5))
    await hall.log.close()
