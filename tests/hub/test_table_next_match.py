"""A table's matches follow each other: the end of one and the board's next report start the next scheduled
match, whether the board showed its reset or not; nothing of the next match goes into the one before."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from devices.observations import DeviceHello, Observation, ScoreboardState
from hub.feed.fanout import Fanout
from hub.hall.live import Hall, replay_match
from hub.ingest.sink import Ingest, TableSink
from hub.log.eventlog import EventLog
from hub.matches import EventKind, MatchInfo, MatchStatus, public_view
from hub.venue import TableConfig, Venue

TABLE = TableConfig("T1", "tabletennis", None, "tt-1")
MATCHES = (
    MatchInfo("R1-T1", "tabletennis", "T1", 1, ("Ayşe", "Elif"), 3),
    MatchInfo("R2-T1", "tabletennis", "T1", 2, ("Zeynep", "Deniz"), 3),
)


class Board:
    """A scoreboard's reports, numbered as one device sends them."""

    def __init__(self, sink: TableSink) -> None:
        self.sink = sink
        self.seq = 0
        self.at = 1000.0
        self.send(DeviceHello("tt-1", "tt-scoreboard", "test", "1.0", 1, boot_epoch=7))

    def send(self, report: object) -> None:
        self.seq += 1
        self.at += 2.0
        self.sink.observe(Observation("tt-1", 7, self.seq, self.at, report))

    def play(self, games: list[tuple[int, int]]) -> None:
        """Every rally of `games` (each a final score), the board rolling each game into its count."""
        won = [0, 0]
        history: list[tuple[int, int]] = []
        for final in games:
            for display in _rallies(final):
                self.send(ScoreboardState(display, (won[0], won[1]), game_scores=tuple(history)))
            history.append(final)
            won[0 if final[0] > final[1] else 1] += 1
            self.send(ScoreboardState((0, 0), (won[0], won[1]), game_scores=tuple(history)))


def _rallies(final: tuple[int, int]) -> Iterator[tuple[int, int]]:
    """The displays of a game to `final`, the winner's last point last."""
    winner = 0 if final[0] > final[1] else 1
    points = [0, 0]
    before_last = list(final)
    before_last[winner] -= 1
    while points != before_last:
        side = (
            0 if points[0] < before_last[0] and (points[0] <= points[1] or points[1] == before_last[1]) else 1
        )
        points[side] += 1
        yield points[0], points[1]
    yield final


@pytest.fixture
async def hall(tmp_path: Path) -> AsyncIterator[Hall]:
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(Venue("Salon", (TABLE,), MATCHES), log, Fanout())
    hall.load()
    log.start()
    yield hall
    await log.close()


def _codes(hall: Hall, match_id: str) -> list[str]:
    return [a.code for a in hall.working[match_id].anomalies]


@pytest.mark.parametrize("reset_seen", [True, False])
async def test_two_matches_in_a_row_each_get_their_own_points(hall: Hall, reset_seen: bool) -> None:
    board = Board(Ingest(hall).sink_for(TABLE))
    board.play([(11, 4), (11, 6)])
    assert hall.working["R1-T1"].status is MatchStatus.FINISHED
    if not reset_seen:  # the board's reset and first rallies of the next match never reached the hub
        board.seq += 3
    board.send(ScoreboardState((0, 0) if reset_seen else (2, 1), (0, 0)))
    board.play([(5, 11), (11, 9), (11, 7)][: 3 if reset_seen else 0])
    first, second = hall.working["R1-T1"], hall.working["R2-T1"]
    assert first.sport_state.games == (2, 0) and first.status is MatchStatus.FINISHED
    assert [c for c in _codes(hall, "R1-T1") if c != "device.gap"] == []
    assert second.status is (MatchStatus.FINISHED if reset_seen else MatchStatus.LIVE)
    assert second.sport_state.games == ((2, 1) if reset_seen else (0, 0))
    if not reset_seen:
        assert second.sport_state.points == (2, 1)
        assert [f.kind for f in second.facts if f.kind == "joined"] == ["joined"]
    assert [c for c in _codes(hall, "R2-T1") if c != "device.gap"] == []
    await hall.log.flush()
    for info in MATCHES:  # the log folds to what was served
        replayed, _ = replay_match(info, hall.log)
        assert public_view(replayed) == public_view(hall.match(info.id))


async def test_a_board_showing_the_last_result_again_stays_with_its_match(hall: Hall) -> None:
    board = Board(Ingest(hall).sink_for(TABLE))
    board.play([(11, 4), (11, 6)])
    await hall.log.flush()
    await hall.record("R1-T1", EventKind.REFEREE_CONFIRM, {}, board.at, actor="Hakem")
    board.send(ScoreboardState((0, 0), (2, 0), game_scores=((11, 4), (11, 6))))
    board.send(ScoreboardState((11, 6), (1, 0), game_scores=((11, 4),)))
    assert hall.working["R1-T1"].status is MatchStatus.OFFICIAL
    assert _codes(hall, "R1-T1") == [] and hall.working["R2-T1"].status is MatchStatus.SCHEDULED
    board.send(ScoreboardState((1, 0), (0, 0)))
    assert hall.working["R2-T1"].sport_state.points == (1, 0) and _codes(hall, "R1-T1") == []
