"""A hall restarted on its log: for a while after the start time passing ends nothing, so a clock that ran on
while the hub was down is not taken as fallen before it reports; a clock that stays silent still is."""

from __future__ import annotations

from pathlib import Path

from devices.observations import ChessClockState, Observation
from hub.feed.fanout import Fanout
from hub.hall.live import START_GRACE_S, Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from tests.hub.test_chess_hall import MOVES, START, chess_venue, feed_game

AWAY_S = 400.0  # longer than the running side's whole time: an estimate would say its flag fell


async def played(tmp_path: Path) -> float:
    """Two moves on table C1, the clock running for White, then the hub stops; returns the last time."""
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(chess_venue(), log, Fanout())
    hall.load(now=START)
    log.start()
    at = feed_game(hall, chess_venue(), MOVES[:2])
    await log.close()
    return at


def results(hall: Hall) -> str | None:
    return hall.working["G1"].info.rules.to_dict(hall.working["G1"].sport_state)["result"]


async def test_a_clock_that_ran_on_while_the_hub_was_down_is_not_taken_as_fallen(tmp_path: Path) -> None:
    at = await played(tmp_path)
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    try:
        hall = Hall(chess_venue(), log, Fanout())
        back = at + AWAY_S
        hall.load(now=back)
        log.start()
        assert hall.tick(back + 0.5) == 0 and results(hall) is None
        # the clock reports: it ran on, White's time is lower but not gone
        sink = Ingest(hall).sink_for(chess_venue().tables[0])
        sink.observe(Observation("dgt-1", 2, 0, back + 1.0, ChessClockState((250_000, 301_000), running=0)))
        hall.tick(back + START_GRACE_S + 1)
        assert results(hall) is None
        assert "chess.time_increased" not in [a.code for a in hall.working["G1"].anomalies]
    finally:
        await log.close()


async def test_a_clock_silent_after_the_restart_is_still_taken_as_fallen(tmp_path: Path) -> None:
    at = await played(tmp_path)
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    try:
        hall = Hall(chess_venue(), log, Fanout())
        back = at + AWAY_S
        hall.load(now=back)
        log.start()
        hall.tick(back + 1.0)
        assert results(hall) is None
        hall.tick(back + START_GRACE_S + 1)
        assert results(hall) == "0-1"  # White's flag, estimated: no reading since
    finally:
        await log.close()
