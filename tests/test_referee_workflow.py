"""The referee workflow: anomaly handling, result corrections, penalties, forfeits, appeals and the round lock,
as pure checks, through a real hall and log, and through the HTTP API of a running hub; plus `token add`."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from hub.cli import main as cli
from hub.feed.fanout import Fanout
from hub.hall.live import Hall, replay_match
from hub.log.eventlog import EventLog
from hub.matches import (
    ActionRefused,
    AnomalyState,
    EventKind,
    MatchInfo,
    MatchState,
    MatchStatus,
    apply_event,
    from_snapshot,
    new_match,
    public_view,
    summary,
    to_snapshot,
)
from hub.referee import (
    APPEAL_WINDOW_S,
    SYSTEM_ACTOR,
    ActionForbidden,
    ActionInvalid,
    console_view,
    prepare,
)
from hub.referee.tokens import hash_token
from hub.rules import backgammon as bg
from hub.venue import PlayerConfig, RefereeConfig, TableConfig, Venue, VenueError, load_venue
from tests.hubsupport import get_json_as, post_json, running_hub

REFEREE_TOKEN = "token-of-a-referee"
CHIEF_TOKEN = "token-of-the-chief"
REFEREE, CHIEF = "Hakem Ali", "Başhakem Ayla"
PHONE, EMAIL = "+90 555 010 0001", "ayse@example.org"

TT_R1 = MatchInfo("TT-R1", "tabletennis", "T1", 1, ("Ayşe Yılmaz", "Elif Kaya"), 3, first_server="A")
TT_R2 = MatchInfo("TT-R2", "tabletennis", "T1", 2, ("Ayşe Yılmaz", "Elif Kaya"), 3, first_server="A")
BG_R1 = MatchInfo("BG-R1", "backgammon", "T2", 1, ("Hakan Yıldız", "Levent Şen"), length=7)
BG_R2 = MatchInfo("BG-R2", "backgammon", "T2", 2, ("Hakan Yıldız", "Levent Şen"), length=7)


def workflow_venue() -> Venue:
    """Two tables, two rounds of each sport, a referee and a chief, and a player with private contacts."""
    return Venue(
        "İtiraz Salonu",
        (TableConfig("T1", "tabletennis"), TableConfig("T2", "backgammon")),
        (TT_R1, TT_R2, BG_R1, BG_R2),
        (
            RefereeConfig(REFEREE, "referee", hash_token(REFEREE_TOKEN)),
            RefereeConfig(CHIEF, "chief", hash_token(CHIEF_TOKEN)),
        ),
        players=(PlayerConfig("Ayşe Yılmaz", "Ankara SK", "Ankara", PHONE, EMAIL),),
    )


# -- pure folds: the match value after each action -------------------------------------------------------


class Folder:
    """Folds events into one match as the hall would, offset by offset."""

    def __init__(self, info: MatchInfo) -> None:
        self.state = new_match(info)
        self.events: list[tuple[str, dict, float, str | None]] = []

    def fold(self, kind: EventKind, body: dict[str, Any], at: float, actor: str | None = None) -> MatchState:
        self.events.append((kind.value, body, at, actor))
        self.state = apply_event(self.state, kind, body, self.state.version + 1, at, actor).state
        return self.state

    def act(self, request: dict[str, Any], at: float, *, role: str = "referee", actor: str = REFEREE):
        event = prepare(self.state, request, role=role, at=at)
        return self.fold(event.kind, event.body, at, actor)


def tt_reports(winner: int = 0, best_of: int = 3) -> list[dict[str, Any]]:
    """A table-tennis board's displays for a match that `winner` takes 11-0 in every game."""
    reports = [{"type": "display", "points": [0, 0], "games": [0, 0]}]
    games = [0, 0]
    for _ in range(best_of // 2 + 1):
        for n in range(1, 12):
            points = [n, 0] if winner == 0 else [0, n]
            reports.append({"type": "display", "points": points, "games": list(games)})
        games[winner] += 1
        reports.append({"type": "display", "points": [0, 0], "games": list(games)})
    return reports[:-1]  # the board stops on the last point


def finished_tt(info: MatchInfo = TT_R1, start: float = 1000.0) -> Folder:
    folder = Folder(info)
    for i, report in enumerate(tt_reports()):
        folder.fold(EventKind.DEVICE_REPORT, {"report": report}, start + i)
    assert folder.state.status is MatchStatus.FINISHED and folder.state.winner == 0
    return folder


def test_a_forfeit_writes_backgammon_match_length_to_nil_and_is_official() -> None:
    folder = Folder(BG_R1)
    state = folder.act({"action": "forfeit", "loser": 0, "reason": "not at the table after 10 minutes"}, 50.0)
    assert state.status is MatchStatus.FORFEIT and state.official
    assert state.result is not None and state.result.score == (0, 7) and state.winner == 1
    assert state.result.source == "forfeit" and state.result.by == REFEREE
    assert summary(state)["result"] == {"winner": 1, "score": [0, 7], "source": "forfeit"}


def test_a_table_tennis_forfeit_gives_the_games_needed_to_win() -> None:
    folder = Folder(TT_R1)  # best of 3
    state = folder.act({"action": "forfeit", "loser": 1, "reason": "no-show"}, 50.0)
    assert state.result is not None and state.result.score == (2, 0) and state.winner == 0


def test_a_correction_supersedes_the_live_result_and_keeps_what_the_board_showed() -> None:
    folder = finished_tt()
    shown = folder.state.sport_state
    state = folder.act({"action": "correct", "score": [1, 2], "reason": "scoresheet signed 1-2"}, 2000.0)
    assert state.result is not None and state.result.score == (1, 2) and state.winner == 1
    # history is never rewritten: every point and game the board showed stays; the rules reach 1-2 from it
    assert (
        state.sport_state.points_log == shown.points_log
        and state.sport_state.game_scores == shown.game_scores
    )
    assert state.sport_state.games == (1, 2) and state.sport_state.winner == 1
    assert state.status is MatchStatus.FINISHED  # still to be confirmed
    with pytest.raises(ActionInvalid, match="does not agree"):
        prepare(
            state, {"action": "correct", "score": [1, 2], "winner": 0, "reason": "x"}, role="referee", at=1
        )
    with pytest.raises(ActionInvalid, match='"reason" is required'):
        prepare(state, {"action": "correct", "score": [1, 2]}, role="referee", at=1)


def test_anomalies_are_acknowledged_then_resolved_or_dismissed_with_a_reason_and_never_removed() -> None:
    folder = Folder(TT_R1)
    folder.fold(
        EventKind.DEVICE_REPORT, {"report": {"type": "display", "points": [0, 0], "games": [0, 0]}}, 1.0
    )
    folder.fold(
        EventKind.DEVICE_REPORT, {"report": {"type": "display", "points": [3, 0], "games": [0, 0]}}, 2.0
    )
    jump = next(a for a in folder.state.anomalies if a.code == "tt.score_jump")
    with pytest.raises(ActionInvalid, match="reason"):
        prepare(folder.state, {"action": "dismiss", "anomaly": jump.id}, role="referee", at=3.0)
    state = folder.act({"action": "acknowledge", "anomaly": jump.id}, 3.0)
    assert next(a for a in state.anomalies if a.id == jump.id).state is AnomalyState.ACKNOWLEDGED
    with pytest.raises(ActionRefused, match="already acknowledged"):
        prepare(state, {"action": "acknowledge", "anomaly": jump.id}, role="referee", at=4.0)
    state = folder.act(
        {"action": "dismiss", "anomaly": jump.id, "reason": "the board missed two rallies"}, 4.0
    )
    handled = next(a for a in state.anomalies if a.id == jump.id)
    assert (handled.state, handled.handled_by, handled.reason) == (
        AnomalyState.DISMISSED,
        REFEREE,
        "the board missed two rallies",
    )
    assert summary(state)["open_anomalies"] == sum(1 for a in state.anomalies if a.state.value == "open")
    with pytest.raises(ActionRefused, match="already dismissed"):
        prepare(state, {"action": "resolve", "anomaly": jump.id, "reason": "x"}, role="referee", at=5.0)
    with pytest.raises(ActionRefused, match=r"no anomaly 99\.0"):
        prepare(state, {"action": "resolve", "anomaly": "99.0", "reason": "x"}, role="referee", at=5.0)


def test_a_wrong_move_corrected_in_time_shows_as_resolved_by_the_rules() -> None:
    folder = Folder(BG_R1)
    wrong = bg.play_steps(bg.START, [(13, 8, False)])  # a 5 was not rolled
    right = bg.play_steps(bg.START, [(8, 5, False), (6, 5, False)])

    def board(pos: bg.Position) -> dict[str, Any]:
        return {"type": "board", "points": list(pos.points), "bar": list(pos.bar), "off": list(pos.off)}

    folder.fold(EventKind.DEVICE_REPORT, {"report": {"type": "opening", "dice": [3, 1]}}, 1.0)
    folder.fold(EventKind.DEVICE_REPORT, {"report": {**board(wrong), "dice": [3, 1]}}, 2.0)
    flagged = next(a for a in folder.state.anomalies if a.code == "bg.illegal_move")
    assert flagged.state is AnomalyState.OPEN
    folder.fold(EventKind.DEVICE_REPORT, {"report": {**board(right), "dice": [3, 1]}}, 3.0)
    cleared = next(a for a in folder.state.anomalies if a.id == flagged.id)
    assert (cleared.state, cleared.handled_by, cleared.handled_at) == (AnomalyState.RESOLVED, "rules", 3.0)
    view = console_view(folder.state, at=4.0)["anomalies"][0]
    assert view["state"] == "resolved"
    assert view["rule"]["document"] == {"en": "Backgammon Tournament Rules", "tr": "Tavla Turnuva Kuralları"}
    assert view["rule"]["article"] == "6" and view["rule"]["title"]["tr"] == "Oyunun başlaması ve hamleler"
    assert view["message_en"].startswith("Hakan Yıldız's move with 3-1 is not legal")


def test_an_appeal_within_15_minutes_protests_the_match_until_the_chief_decides() -> None:
    folder = finished_tt()
    ended = folder.state.finished_at
    assert ended is not None
    state = folder.act(
        {"action": "appeal", "appellant": "Elif Kaya", "reason": "11-0 in game 2 was 9-11"},
        ended + APPEAL_WINDOW_S,  # the last second of the window
    )
    assert state.status is MatchStatus.PROTESTED and not state.official
    decision = {
        "action": "decide",
        "decision": "upheld",
        "reasoning": "The umpire's scoresheet shows 9-11.",
        "score": [1, 2],
    }
    with pytest.raises(ActionForbidden, match="chief"):
        prepare(state, decision, role="referee", at=ended + 1000)
    with pytest.raises(ActionRefused, match="already has an open appeal"):
        prepare(state, {"action": "appeal", "appellant": "A", "reason": "r"}, role="referee", at=ended + 1)
    with pytest.raises(ActionRefused, match="under appeal") as refused:
        prepare(state, {"action": "correct", "score": [1, 2], "reason": "r"}, role="referee", at=ended + 1)
    assert "Maç itirazda" in str(refused.value)
    state = folder.act(decision, ended + 1000, role="chief", actor=CHIEF)
    assert state.status is MatchStatus.OFFICIAL and state.confirmed_by == CHIEF
    assert state.result is not None and (state.result.score, state.result.source) == ((1, 2), "appeal")
    appeal = public_view(state)["appeals"][0]  # the decision and its reasoning are shown to the players
    assert appeal["decision"] == "upheld" and appeal["reasoning"] == "The umpire's scoresheet shows 9-11."


def test_a_rejected_appeal_returns_the_match_to_where_it_stood() -> None:
    folder = finished_tt()
    ended = folder.state.finished_at
    folder.act({"action": "confirm"}, ended + 5)
    folder.act({"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}, ended + 10)
    state = folder.act(
        {"action": "decide", "decision": "rejected", "reasoning": "no evidence"}, ended + 20, role="chief"
    )
    assert state.status is MatchStatus.OFFICIAL and state.result is None


def test_an_appeal_after_the_15_minute_window_is_refused_with_a_clear_message() -> None:
    folder = finished_tt()
    ended = folder.state.finished_at
    with pytest.raises(ActionRefused) as refused:
        prepare(
            folder.state,
            {"action": "appeal", "appellant": "Elif Kaya", "reason": "late"},
            role="referee",
            at=ended + APPEAL_WINDOW_S + 1,
        )
    message = str(refused.value)
    assert "within 15 minutes of the end" in message and "15 dakika içinde" in message
    live = Folder(TT_R1)
    with pytest.raises(ActionRefused, match="after the match ends"):
        prepare(live.state, {"action": "appeal", "appellant": "A", "reason": "r"}, role="referee", at=1.0)


def test_a_locked_result_cannot_change_but_can_still_be_confirmed_and_appealed_in_its_window() -> None:
    folder = finished_tt()
    state = folder.fold(EventKind.LOCK, {"round": 1, "because": "TT-R2"}, 1500.0, SYSTEM_ACTOR)
    assert state.locked
    for request in (
        {"action": "correct", "score": [2, 1], "reason": "r"},
        {"action": "forfeit", "loser": 0, "reason": "r"},
        {"action": "penalty", "side": 0, "penalty": "match_loss", "reason": "r"},
        {
            "action": "penalty",
            "side": 0,
            "penalty": "yellow",
            "reason": "r",
        },  # a table-tennis card gives points
    ):
        with pytest.raises(ActionRefused) as refused:
            prepare(state, request, role="referee", at=1501.0)
        assert "is locked" in str(refused.value) and "kilitli" in str(refused.value)
    state = folder.act({"action": "penalty", "side": 0, "penalty": "warning", "reason": "slow play"}, 1502.0)
    assert state.penalties[-1].penalty == "warning"
    assert folder.act({"action": "confirm"}, 1503.0).official
    # the match ended at 1023: an appeal at 1504 is within its 15 minutes, the lock notwithstanding
    assert folder.act({"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}, 1504.0).status.value == (
        "protested"
    )


def test_a_table_tennis_card_is_counted_by_the_rules_and_a_backgammon_one_only_recorded() -> None:
    folder = Folder(TT_R1)
    folder.fold(
        EventKind.DEVICE_REPORT, {"report": {"type": "display", "points": [0, 0], "games": [0, 0]}}, 1.0
    )
    folder.act({"action": "penalty", "side": 1, "penalty": "yellow", "reason": "racket thrown"}, 2.0)
    state = folder.act({"action": "penalty", "side": 1, "penalty": "yellow_red", "reason": "again"}, 3.0)
    sport = state.info.rules.to_dict(state.sport_state)
    assert sport["cards"][1] == ["yellow", "yellow_red"] and sport["points"] == [1, 0]  # a point to side 0
    assert [p.penalty for p in state.penalties] == ["yellow", "yellow_red"]
    backgammon = Folder(BG_R1)
    state = backgammon.act(
        {"action": "penalty", "side": 0, "penalty": "match_loss", "reason": "cheating"}, 5.0
    )
    assert state.status is MatchStatus.FORFEIT and state.result is not None and state.result.score == (0, 7)
    with pytest.raises(ActionInvalid, match="penalty"):
        prepare(
            state, {"action": "penalty", "side": 0, "penalty": "ban", "reason": "r"}, role="referee", at=6
        )


def test_every_action_is_in_the_audit_and_survives_a_snapshot_round_trip() -> None:
    folder = finished_tt()
    ended = folder.state.finished_at
    anomaly_free = folder.act(
        {"action": "penalty", "side": 1, "penalty": "warning", "reason": "r"}, ended + 1
    )
    folder.act({"action": "confirm"}, ended + 2)
    folder.act({"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}, ended + 3)
    state = folder.act(
        {"action": "decide", "decision": "rejected", "reasoning": "no"}, ended + 4, role="chief", actor=CHIEF
    )
    assert [(a.kind, a.actor) for a in state.actions] == [
        ("referee.penalty", REFEREE),
        ("referee.confirm", REFEREE),
        ("referee.appeal", REFEREE),
        ("referee.decision", CHIEF),
    ]
    assert anomaly_free.actions[0].at == ended + 1
    again = from_snapshot(state.info, json.loads(json.dumps(to_snapshot(state))))
    assert again == state


# -- a real hall and log: the hub locks the previous round itself; replay gives the same state ---------------


async def test_the_next_round_starting_locks_the_previous_rounds_results_as_a_logged_hub_action(
    tmp_path: Path,
) -> None:
    v = workflow_venue()
    log = EventLog(tmp_path / "events.sqlite3")
    log.open()
    hall = Hall(v, log, Fanout())
    hall.load()
    log.start()
    for i, report in enumerate(tt_reports()):
        hall.record("TT-R1", EventKind.DEVICE_REPORT, {"report": report}, 100.0 + i)
    await hall.record(
        "BG-R2", EventKind.DEVICE_REPORT, {"report": {"type": "opening", "dice": [3, 1]}}, 150.0
    )
    assert not hall.match("TT-R1").locked  # another sport's next round does not lock table tennis
    await hall.record(
        "TT-R2",
        EventKind.DEVICE_REPORT,
        {"report": {"type": "display", "points": [0, 0], "games": [0, 0]}},
        200.0,
    )
    await log.flush()
    locked = hall.match("TT-R1")
    assert locked.locked and locked.locked_at == 200.0
    assert locked.actions[-1].actor == SYSTEM_ACTOR and locked.actions[-1].body == {
        "round": 1,
        "because": "TT-R2",
    }
    assert not hall.match("BG-R1").locked  # scheduled: nothing to lock yet
    with pytest.raises(ActionRefused, match="locked"):
        prepare(locked, {"action": "correct", "score": [0, 2], "reason": "r"}, role="chief", at=201.0)
    for info in v.matches:
        replayed, _ = replay_match(info, log)
        assert replayed == hall.match(info.id)
    await log.close()


# -- the HTTP API of a running hub -------------------------------------------------------------------------


async def post(url: str, body: object, token: str | None) -> tuple[int, dict]:
    return await asyncio.to_thread(post_json, url, body, token)


async def get(url: str, token: str | None = None) -> tuple[int, Any]:
    return await asyncio.to_thread(get_json_as, url, token)


async def referee_events(data: Path) -> list[Any]:
    """Every referee and hub action in the log, in log order."""
    log = EventLog(data / "events.sqlite3")
    log.open()
    try:
        return [e for e in log.events(limit=100_000) if e.kind.startswith(("referee.", "match.lock"))]
    finally:
        await log.close()


async def played_before(data: Path, v: Venue, start: float) -> None:
    """Play TT-R1 to its end through a hall and log, at `start`, as a hub that ran earlier would have."""
    log = EventLog(data / "events.sqlite3")
    log.open()
    hall = Hall(v, log, Fanout())
    hall.load()
    log.start()
    for i, report in enumerate(tt_reports()):
        hall.record("TT-R1", EventKind.DEVICE_REPORT, {"report": report}, start + i)
    await log.close()


ACTIONS = [
    {"action": "confirm"},
    {"action": "acknowledge", "anomaly": "1.0"},
    {"action": "correct", "score": [2, 0], "reason": "r"},
    {"action": "penalty", "side": 0, "penalty": "warning", "reason": "r"},
    {"action": "forfeit", "loser": 0, "reason": "r"},
    {"action": "appeal", "appellant": "A", "reason": "r"},
    {"action": "decide", "decision": "rejected", "reasoning": "r"},
]


async def test_referee_actions_without_a_valid_token_are_refused_and_never_logged(tmp_path: Path) -> None:
    v = workflow_venue()
    async with running_hub(tmp_path, v) as url:
        for match in ("TT-R1", "BG-R1"):
            for body in ACTIONS:
                for token in (None, "not-a-token", REFEREE_TOKEN + "x"):
                    status, answer = await post(url + f"api/matches/{match}/actions", body, token)
                    assert status == 401 and "referee token" in answer["error"], (body, token)
            for token in (None, "guess"):
                assert (await post(url + f"api/matches/{match}/confirm", {}, token))[0] == 401
                assert (
                    await post(url + f"api/matches/{match}/inputs", {"type": "timeout", "side": 0}, token)
                )[0] == 401
        for path in ("me", "matches", "audit", "matches/TT-R1/events"):
            assert (await get(url + f"api/referee/{path}"))[0] == 401
            assert (await get(url + f"api/referee/{path}", "guess"))[0] == 401
        # a referee (not chief) may forfeit, but not decide the appeal that follows
        status, view = await post(
            url + "api/matches/BG-R1/actions",
            {"action": "forfeit", "loser": 1, "reason": "no-show"},
            REFEREE_TOKEN,
        )
        assert status == 200 and view["status"] == "forfeit" and view["result"]["score"] == [7, 0]
        status, view = await post(
            url + "api/matches/BG-R1/actions",
            {"action": "appeal", "appellant": "Levent Şen", "reason": "I was at the table"},
            REFEREE_TOKEN,
        )
        assert status == 200 and view["status"] == "protested"
        decision = {
            "action": "decide",
            "decision": "upheld",
            "reasoning": "The table call was early.",
            "score": [3, 4],
        }
        status, answer = await post(url + "api/matches/BG-R1/actions", decision, REFEREE_TOKEN)
        assert status == 403 and "chief" in answer["error"]
        status, answer = await post(url + "api/matches/BG-R1/actions", {"action": "dance"}, REFEREE_TOKEN)
        assert status == 400 and "action" in answer["error"]
    events = await referee_events(tmp_path / "data")
    assert [(e.match_id, e.kind, e.actor) for e in events] == [
        ("BG-R1", "referee.forfeit", REFEREE),
        ("BG-R1", "referee.appeal", REFEREE),
    ]


async def test_a_late_appeal_and_a_change_to_a_locked_result_are_refused_over_http(tmp_path: Path) -> None:
    v = workflow_venue()
    await played_before(tmp_path / "data", v, time.time() - 30 * 60)  # ended half an hour ago
    async with running_hub(tmp_path, v) as url:
        actions = url + "api/matches/TT-R1/actions"
        status, answer = await post(
            actions, {"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}, CHIEF_TOKEN
        )
        assert status == 409
        assert "appeal window" in answer["error"] and "within 15 minutes" in answer["error"]
        assert "İtiraz süresi doldu" in answer["error"]
        status, view = await post(
            actions, {"action": "correct", "score": [2, 1], "reason": "sheet"}, REFEREE_TOKEN
        )
        assert status == 200 and view["result"]["score"] == [2, 1] and not view["locked"]
        # round 2 starts on the table (the umpire scores its first point): round 1 is locked by the hub
        status, _ = await post(url + "api/matches/TT-R2/inputs", {"type": "point", "side": 0}, REFEREE_TOKEN)
        assert status == 200
        status, view = await get(url + "api/referee/matches", REFEREE_TOKEN)
        r1 = next(m for m in view if m["id"] == "TT-R1")
        assert r1["locked"] and r1["actions"][-1]["actor"] == SYSTEM_ACTOR
        for body in (
            {"action": "correct", "score": [2, 0], "reason": "another sheet"},
            {"action": "forfeit", "loser": 1, "reason": "r"},
        ):
            status, answer = await post(actions, body, CHIEF_TOKEN)
            assert status == 409 and "is locked" in answer["error"] and "kilitli" in answer["error"]
        status, answer = await post(
            url + "api/matches/TT-R1/inputs", {"type": "point", "side": 0}, CHIEF_TOKEN
        )
        assert status == 409 and "locked" in answer["error"]
        status, view = await post(actions, {"action": "confirm"}, REFEREE_TOKEN)  # confirming changes nothing
        assert status == 200 and view["official"] and view["result"]["score"] == [2, 1]
    kinds = [(e.match_id, e.kind) for e in await referee_events(tmp_path / "data")]
    assert kinds == [
        ("TT-R1", "referee.result"),
        ("TT-R2", "referee.input"),
        ("TT-R1", "match.lock"),
        ("TT-R1", "referee.confirm"),
    ]


async def test_the_audit_shows_every_action_with_who_and_when_and_a_restart_gives_the_same_state(
    tmp_path: Path,
) -> None:
    v = workflow_venue()
    await played_before(tmp_path / "data", v, time.time() - 60)
    async with running_hub(tmp_path, v) as url:
        status, matches = await get(url + "api/referee/matches", REFEREE_TOKEN)
        tt = next(m for m in matches if m["id"] == "TT-R1")
        assert tt["status"] == "finished"
        steps = [
            (REFEREE_TOKEN, {"action": "penalty", "side": 1, "penalty": "warning", "reason": "coaching"}),
            (REFEREE_TOKEN, {"action": "confirm"}),
            (REFEREE_TOKEN, {"action": "appeal", "appellant": "Elif Kaya", "reason": "game 3 was 9-11"}),
            (
                CHIEF_TOKEN,
                {"action": "decide", "decision": "upheld", "reasoning": "Sheet says so.", "score": [1, 2]},
            ),
        ]
        before = time.time()
        for token, body in steps:
            status, view = await post(url + "api/matches/TT-R1/actions", body, token)
            assert status == 200, view
        assert (
            view["status"] == "official" and view["winner"] == 1 and view["appeals"][0]["decided_by"] == CHIEF
        )
        status, audit = await get(url + "api/referee/audit", CHIEF_TOKEN)
        assert [(e["kind"], e["actor"]) for e in audit] == [
            ("referee.decision", CHIEF),
            ("referee.appeal", REFEREE),
            ("referee.confirm", REFEREE),
            ("referee.penalty", REFEREE),
        ]
        assert all(before <= e["at"] <= time.time() and e["match"] == "TT-R1" for e in audit)
        status, evidence = await get(url + "api/referee/matches/TT-R1/events?from=1&to=3", REFEREE_TOKEN)
        assert status == 200 and [e["offset"] for e in evidence["events"]] == [1, 2, 3]
        assert evidence["events"][0]["body"]["report"]["points"] == [0, 0]
        _, consoles = await get(url + "api/referee/matches", REFEREE_TOKEN)
    async with running_hub(tmp_path, v) as url:  # a restart folds the log again
        assert (await get(url + "api/referee/audit", REFEREE_TOKEN))[1] == audit
        assert (await get(url + "api/referee/matches", REFEREE_TOKEN))[1] == consoles
        assert (await get(url + "api/matches/TT-R1"))[1]["official"] is True


async def test_spectators_never_see_private_contacts_and_referees_do(tmp_path: Path) -> None:
    v = workflow_venue()
    async with running_hub(tmp_path, v) as url:
        status, me = await get(url + "api/referee/me", CHIEF_TOKEN)
        assert status == 200 and me["name"] == CHIEF and me["role"] == "chief"
        public = json.dumps(
            [(await get(url + "api/matches"))[1], (await get(url + "api/matches/TT-R1"))[1]],
            ensure_ascii=False,
        )
        assert "Ayşe Yılmaz" in public and PHONE not in public and EMAIL not in public
        async with connect(url.replace("http", "ws") + "ws") as ws:
            await ws.send(json.dumps({"subscribe": ["venue", "match:TT-R1"]}))
            frames = [await asyncio.wait_for(ws.recv(), 10) for _ in range(2)]
            assert all(PHONE not in f and EMAIL not in f for f in frames)
            await ws.send(json.dumps({"subscribe": ["referee"]}))
            assert "referee token" in json.loads(await asyncio.wait_for(ws.recv(), 10))["error"]
            await ws.send(json.dumps({"subscribe": ["referee"], "token": REFEREE_TOKEN}))
            referee = json.loads(await asyncio.wait_for(ws.recv(), 10))
        tt = next(m for m in referee["data"]["matches"] if m["id"] == "TT-R1")
        assert tt["contacts"][0] == {
            "name": "Ayşe Yılmaz",
            "club": "Ankara SK",
            "city": "Ankara",
            "phone": PHONE,
            "email": EMAIL,
        }
        status, consoles = await get(url + "api/referee/matches", REFEREE_TOKEN)
        assert PHONE in json.dumps(consoles, ensure_ascii=False)


# -- boardcast token add -------------------------------------------------------------------------------------


VENUE_TOML = """[venue]
name = "Salon"

[[tables]]
id = "T1"
sport = "tabletennis"
"""


def test_token_add_writes_only_the_hash_into_the_venue_file_and_prints_the_token_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hall.toml"
    path.write_text(VENUE_TOML, encoding="utf-8")
    assert cli(["token", "add", "Başhakem Ayla", "--role", "chief", "--venue", str(path)]) == 0
    out = capsys.readouterr().out
    token = out.strip().splitlines()[-1].strip()
    assert out.count(token) == 1 and token not in path.read_text(encoding="utf-8")
    venue = load_venue(path)
    assert venue.referees == (RefereeConfig("Başhakem Ayla", "chief", hash_token(token)),)
    assert path.read_text(encoding="utf-8").startswith(VENUE_TOML)  # the organiser's text is kept as written

    assert cli(["token", "add", "Başhakem Ayla", "--venue", str(path)]) == 2
    assert "already has a referee named" in capsys.readouterr().err
    assert cli(["token", "add", "Hakem Ali"]) == 0  # no venue file: the block to paste
    out = capsys.readouterr().out
    assert '[[referees]]\nname = "Hakem Ali"\nrole = "referee"\ntoken_sha256 = "' in out
    assert len(load_venue(path).referees) == 1


def test_token_add_gives_an_umpire_the_tables_they_score_and_refuses_what_cannot_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hall.toml"
    path.write_text(VENUE_TOML, encoding="utf-8")
    assert cli(["token", "add", "Umut Er", "--role", "umpire", "--tables", "T1", "--venue", str(path)]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1].strip()
    assert load_venue(path).referees == (RefereeConfig("Umut Er", "umpire", hash_token(token), ("T1",)),)
    before = path.read_text(encoding="utf-8")
    for args, said in (
        (["--role", "umpire", "--tables", "T1,T9"], "has no table T9 (its tables: T1)"),
        (["--role", "umpire"], "an umpire needs --tables"),
        (["--tables", "T1"], "only an umpire takes them"),
    ):
        assert cli(["token", "add", "Veli", *args, "--venue", str(path)]) == 2
        assert said in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == before  # nothing added by what was refused
    path.write_text(
        VENUE_TOML + '\n[[referees]]\nname = "X"\nrole = "umpyre"\ntoken_sha256 = "' + "0" * 64 + '"\n'
    )
    with pytest.raises(VenueError, match="did you mean 'umpire'"):
        load_venue(path)


def test_the_venue_file_gives_players_private_contacts_and_names_each_referee_once(tmp_path: Path) -> None:
    path = tmp_path / "hall.toml"
    path.write_text(
        VENUE_TOML + '\n[[players]]\nname = "Ayşe Yılmaz"\nclub = "Ankara SK"\nphone = "+90 555 010 0001"\n'
        'email = "ayse@example.org"\n',
        encoding="utf-8",
    )
    assert load_venue(path).players == (PlayerConfig("Ayşe Yılmaz", "Ankara SK", "", PHONE, EMAIL),)
    path.write_text(VENUE_TOML + '\n[[players]]\nname = "A"\nemail = "not-an-address"\n', encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"hall.toml:\d+: players\[1\].email: 'not-an-address' is not an e-mail"
    ):
        load_venue(path)
    twice = f'\n[[referees]]\nname = "Ali"\ntoken_sha256 = "{hash_token("t")}"\n'
    path.write_text(VENUE_TOML + twice + twice, encoding="utf-8")
    with pytest.raises(ValueError, match=r"hall.toml:1\d: referees\[2\].name: referee 'Ali' is listed twice"):
        load_venue(path)
