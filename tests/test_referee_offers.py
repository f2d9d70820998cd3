"""What the console offers is what the hub accepts: a differential test over many match states.

Matches of each sport are walked through real events folded by the hub's reducer (device reports, every
referee action `prepare` accepts, the round lock, time passing), and at every step each action is tried with
well-formed fields: an offered action is accepted, an action not offered is refused. Plus the appeal's real
deadline: 15 minutes after the end, the round's lock or not.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from hub.matches import ActionRefused, EventKind, MatchInfo, MatchState, MatchStatus
from hub.referee import (
    APPEAL_WINDOW_S,
    ActionForbidden,
    ActionInvalid,
    Penalty,
    Role,
    anomaly_offers,
    console_view,
    lock_event,
    offered,
    offered_penalties,
    prepare,
    prepare_input,
)
from tests.test_referee_workflow import BG_R1, BG_R2, TT_R1, TT_R2, Folder, finished_tt, tt_reports

CHESS_R1 = MatchInfo("CH-R1", "chess", "C1", 1, ("Ayşe", "Elif"), clock="300+3")
CHESS_R2 = MatchInfo("CH-R2", "chess", "C1", 2, ("Ayşe", "Can"), clock="300+3")
NEXT_ROUND = {TT_R1.id: TT_R2, BG_R1.id: BG_R2, CHESS_R1.id: CHESS_R2}
REFUSALS = (ActionRefused, ActionForbidden, ActionInvalid)

# well-formed requests for every match action: an offered action takes each of them (a penalty: its kinds)
REQUESTS: dict[str, list[dict[str, Any]]] = {
    "confirm": [{"action": "confirm"}],
    "result": [
        {"action": "result", "result": "1-0", "how": "resignation", "reason": "r"},
        {"action": "result", "result": "1/2-1/2", "how": "agreement"},
    ],
    "correct": [{"action": "correct", "score": [1, 2], "reason": "sheet"}],
    "penalty": [{"action": "penalty", "side": 1, "penalty": p.value, "reason": "r"} for p in Penalty],
    "forfeit": [{"action": "forfeit", "loser": s, "reason": "no-show"} for s in (0, 1)],
    "appeal": [{"action": "appeal", "appellant": "Elif Kaya", "reason": "game 2"}],
    "decide": [
        {"action": "decide", "decision": "rejected", "reasoning": "seen"},
        {"action": "decide", "decision": "upheld", "reasoning": "seen", "score": [2, 1]},
    ],
}
INPUTS = {
    "orientation": [{"type": "orientation", "orientation": "rotated"}],
    "resign": [{"type": "resign", "side": s, "value": v} for s in (0, 1) for v in (1, 2, 3)],
    "accept": [{"type": "accept", "side": s} for s in (0, 1)],
    "reject": [{"type": "reject", "side": s} for s in (0, 1)],
}
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
E4_FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"


def accepts(match: MatchState, request: dict[str, Any], role: str, at: float) -> bool:
    """Whether the hub takes the request (an action through `prepare`, an input as its route does)."""
    try:
        if "type" in request:
            prepare_input(match, request, at)
        else:
            prepare(match, request, role=role, at=at)
    except REFUSALS:
        return False
    return True


def check_offers(match: MatchState, at: float, taken: set[str]) -> None:
    """Every offer is accepted and everything not offered refused, for a referee and for the chief."""
    for role in Role:
        offers = offered(match, role, at)
        for action, requests in {**REQUESTS, **INPUTS}.items():
            if action == "penalty":
                continue
            answers = [accepts(match, r, role, at) for r in requests]
            where = (match.info.id, match.status.value, match.locked, role.value, action, at)
            assert all(answers) if action in offers else not any(answers), where
            if all(answers):
                taken.add(action)
        kinds = offered_penalties(match)
        for request in REQUESTS["penalty"]:
            assert accepts(match, request, role, at) == (request["penalty"] in kinds), (match.status, request)
            if request["penalty"] in kinds:
                taken.add(f"penalty:{request['penalty']}")
        assert ("penalty" in offers) == bool(kinds)
    for anomaly in match.anomalies:
        shown = anomaly_offers(anomaly)
        for action in ("acknowledge", "resolve", "dismiss"):
            request = {"action": action, "anomaly": anomaly.id, "reason": "seen at the table"}
            assert accepts(match, request, "referee", at) == (action in shown), (anomaly, action)
            if action in shown:
                taken.add(action)


def starts() -> Iterator[tuple[Folder, float]]:
    """Where each walk begins: every sport scheduled, a table-tennis match live with an anomaly, one finished,
    and a chess game with a move on its board."""
    for info in (TT_R1, BG_R1, CHESS_R1):
        yield Folder(info), 100.0
    live = Folder(TT_R1)
    for i, points in enumerate(([0, 0], [3, 0])):  # two points the board missed: tt.score_jump
        report = {"type": "display", "points": points, "games": [0, 0]}
        live.fold(EventKind.DEVICE_REPORT, {"report": report}, 1.0 + i)
    yield live, 3.0
    yield finished_tt(), 1100.0
    chess = Folder(CHESS_R1)
    for i, fen in enumerate((START_FEN, E4_FEN)):
        chess.fold(EventKind.DEVICE_REPORT, {"report": {"type": "board", "board_fen": fen}}, 10.0 + i)
    yield chess, 20.0


def step(folder: Folder, at: float, rng: random.Random) -> float:
    """One more event: a referee action the hub accepts, the next round's start, or a device report; and
    time passing (sometimes past the appeal window)."""
    match = folder.state
    choice = rng.random()
    if choice < 0.15:
        lock = lock_event(match, NEXT_ROUND[match.info.id])
        if lock is not None:
            folder.fold(lock.kind, lock.body, at, "boardcast")
    elif choice < 0.3 and match.info.sport == "tabletennis" and match.status is MatchStatus.SCHEDULED:
        for i, report in enumerate(tt_reports(winner=rng.randrange(2))):
            folder.fold(EventKind.DEVICE_REPORT, {"report": report}, at + i)
        at += 60
    else:
        role = rng.choice(list(Role))
        candidates = [r for rs in {**REQUESTS, **INPUTS}.values() for r in rs]
        candidates += [
            {"action": a, "anomaly": anomaly.id, "reason": "r"}
            for anomaly in match.anomalies
            for a in ("acknowledge", "resolve", "dismiss")
        ]
        rng.shuffle(candidates)
        for request in candidates:
            if accepts(match, request, role, at):
                if "type" in request:
                    event = prepare_input(match, request, at)
                else:
                    event = prepare(match, request, role=role, at=at)
                folder.fold(event.kind, event.body, at, "Hakem")
                break
    return at + rng.choice((5.0, 60.0, 300.0, APPEAL_WINDOW_S + 1))


@pytest.mark.parametrize("seed", range(12))
def test_every_offered_action_is_accepted_and_every_other_refused(seed: int) -> None:
    rng = random.Random(seed)
    taken: set[str] = set()
    statuses: set[tuple[str, str, bool]] = set()
    for folder, at in starts():
        for _ in range(14):
            check_offers(folder.state, at, taken)
            statuses.add((folder.state.info.sport, folder.state.status.value, folder.state.locked))
            at = step(folder, at, rng)
        check_offers(folder.state, at, taken)
    assert len(statuses) >= 8, statuses  # the walks reach many states, not one
    if seed == 2:  # every well-formed request was accepted somewhere: none is refused for its fields alone
        assert {
            "confirm",
            "result",
            "correct",
            "forfeit",
            "appeal",
            "decide",
            "orientation",
            "resign",
        } <= taken, taken
        assert {"acknowledge", "resolve", "dismiss"} <= taken, taken
        assert {f"penalty:{p.value}" for p in Penalty} <= taken, taken


def test_every_status_and_role_is_covered_by_the_walks() -> None:
    seen: set[tuple[str, str, bool]] = set()
    for seed in range(12):
        rng = random.Random(seed)
        for folder, at in starts():
            for _ in range(14):
                seen.add((folder.state.info.sport, folder.state.status.value, folder.state.locked))
                at = step(folder, at, rng)
    statuses = {status for _, status, _ in seen}
    assert {"scheduled", "live", "finished", "official", "protested", "forfeit"} <= statuses, seen
    assert any(locked for _, _, locked in seen)
    assert {sport for sport, _, _ in seen} == {"chess", "tabletennis", "backgammon"}


def test_the_next_round_starting_locks_the_result_but_an_appeal_in_its_window_is_still_heard() -> None:
    """Backgammon Tournament Rules §10: an appeal within 15 minutes of the end; the next round's start locks
    everything else."""
    folder = finished_tt()
    ended = folder.state.finished_at
    assert ended is not None
    open_view = console_view(folder.state, at=ended + 60)
    assert open_view["appeal_until"] == ended + APPEAL_WINDOW_S and "appeal_closes" not in open_view
    assert "appeal" in open_view["offers"] and "decide" not in open_view["offers"]
    lock = lock_event(folder.state, TT_R2)
    assert lock is not None
    folder.fold(lock.kind, lock.body, ended + 60, "boardcast")  # the table's next match starts a minute after
    view = console_view(folder.state, at=ended + 90)
    assert view["locked"] and view["appeal_until"] == ended + APPEAL_WINDOW_S  # the lock does not shorten it
    assert "appeal" in view["offers"] and "correct" not in view["offers"] and "forfeit" not in view["offers"]
    assert view["offers"] == ["confirm", "penalty", "appeal"]  # confirming changes nothing; a warning is kept
    # table tennis counts a card while the match takes reports: it would change a locked result
    assert view["penalty_kinds"] == ["warning"]
    with pytest.raises(ActionRefused, match="locked"):
        prepare(folder.state, REQUESTS["correct"][0], role="chief", at=ended + 90)
    appealed = folder.act(REQUESTS["appeal"][0], ended + 14 * 60)  # lodged in its window, after the lock
    assert appealed.status is MatchStatus.PROTESTED and appealed.locked
    # the appeal's decision is the one change a locked result still takes: the referee's decision is final
    decided = folder.act(REQUESTS["decide"][1], ended + 20 * 60, role="chief")
    assert decided.status is MatchStatus.OFFICIAL and decided.result is not None
    assert decided.result.score == (2, 1) and decided.result.source == "appeal"


def finished_bg() -> Folder:
    """A backgammon match ended by a forfeit (a result to appeal against)."""
    folder = Folder(BG_R1)
    folder.act({"action": "forfeit", "loser": 0, "reason": "no-show"}, 1000.0)
    return folder


def test_an_appeal_after_the_window_is_refused_citing_the_rule_locked_or_not() -> None:
    for sport_folder, rule in ((finished_tt, "3.3.4"), (finished_bg, "§10")):
        folder = sport_folder()
        ended = folder.state.finished_at
        assert ended is not None
        assert "appeal" in console_view(folder.state, at=ended + APPEAL_WINDOW_S)["offers"]  # the last second
        late = console_view(folder.state, at=ended + APPEAL_WINDOW_S + 1)
        assert "appeal" not in late["offers"] and late["appeal_until"] == ended + APPEAL_WINDOW_S
        with pytest.raises(ActionRefused, match="within 15 minutes") as refused:
            prepare(folder.state, REQUESTS["appeal"][0], role="chief", at=ended + APPEAL_WINDOW_S + 1)
        english, turkish = str(refused.value).split(" / ")
        assert rule in english and rule in turkish and "15 dakika" in turkish and "itiraz" in turkish
        nxt = NEXT_ROUND[folder.state.info.id]
        lock = lock_event(folder.state, nxt)
        assert lock is not None
        folder.fold(
            lock.kind, lock.body, ended + APPEAL_WINDOW_S + 600, "boardcast"
        )  # a lock after the window
        view = console_view(folder.state, at=ended + APPEAL_WINDOW_S + 700)
        assert view["appeal_until"] == ended + APPEAL_WINDOW_S and "appeal" not in view["offers"]


def test_deciding_is_offered_to_the_chief_and_marked_chief_only_in_the_shared_view() -> None:
    folder = finished_tt()
    ended = folder.state.finished_at
    assert ended is not None
    folder.act(REQUESTS["appeal"][0], ended + 60)
    view = console_view(folder.state, at=ended + 120)
    assert view["status"] == "protested" and view["appeal_until"] is None
    assert "decide" in view["offers"] and view["chief_only"] == ["decide"]
    assert "decide" not in offered(folder.state, Role.REFEREE, ended + 120)
    assert "confirm" not in view["offers"] and "correct" not in view["offers"]
