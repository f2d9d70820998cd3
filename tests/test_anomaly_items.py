"""One item per repeated problem: occurrences of one code (and side) counted on the item while it waits, a
new item after it is handled, every occurrence still in the log; and the console's bulk actions, refused
with the field named and nothing logged when they name an unknown match or code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.log.eventlog import EventLog
from hub.matches import AnomalyState, EventKind, MatchState, from_snapshot, public_view, to_snapshot
from hub.referee import console_view, prepare_bulk
from tests.hubsupport import running_hub
from tests.test_referee_workflow import (
    REFEREE_TOKEN,
    TT_R1,
    Folder,
    get,
    post,
    referee_events,
    workflow_venue,
)


def display(points: list[int], games: list[int] | None = None) -> dict[str, Any]:
    return {"report": {"type": "display", "points": points, "games": games or [0, 0]}}


def jumps(folder: Folder, count: int, start: float = 10.0, base: int = 0) -> None:
    """`count` score jumps of two points each for side A from `base` points, one a second from `start`."""
    for n in range(count):
        folder.fold(EventKind.DEVICE_REPORT, display([base + 2 * (n + 1), 0]), start + n)


def items(state: MatchState, code: str) -> list[dict[str, Any]]:
    return [a for a in console_view(state, at=0.0)["anomalies"] if a["code"] == code]


def test_a_problem_seen_again_while_it_waits_is_one_item_with_a_count_and_every_occurrence() -> None:
    folder = Folder(TT_R1)
    folder.fold(EventKind.DEVICE_REPORT, display([0, 0]), 1.0)
    jumps(folder, 3)
    [item] = items(folder.state, "tt.score_jump")
    assert (item["count"], item["first_at"], item["last_at"], item["state"]) == (3, 10.0, 12.0, "open")
    assert [o["at"] for o in item["occurrences"]] == [11.0, 12.0]  # the later ones
    assert item["id"] == f"{item['offset']}.0" and item["last_offset"] == folder.state.version
    # every occurrence is still in the log: three reports that jumped, each kept as the device sent it
    assert sum(1 for kind, body, *_ in folder.events if kind == "device.report") == 4

    folder.act({"action": "acknowledge", "anomaly": item["id"]}, 20.0)
    jumps(folder, 2, start=21.0, base=6)  # acknowledged: still the same item, counted
    [item] = items(folder.state, "tt.score_jump")
    assert (item["count"], item["state"], item["last_at"]) == (5, "acknowledged", 22.0)


def test_after_an_item_is_resolved_the_same_problem_opens_a_new_item() -> None:
    folder = Folder(TT_R1)
    folder.fold(EventKind.DEVICE_REPORT, display([0, 0]), 1.0)
    jumps(folder, 3)
    [first] = items(folder.state, "tt.score_jump")
    folder.act({"action": "resolve", "anomaly": first["id"], "reason": "the board missed rallies"}, 20.0)
    folder.fold(EventKind.DEVICE_REPORT, display([9, 0]), 21.0)
    old, new = items(folder.state, "tt.score_jump")
    assert (old["id"], old["state"], old["count"]) == (first["id"], "resolved", 3)
    assert (new["state"], new["count"], new["first_at"]) == ("open", 1, 21.0)


def device_gap(side: str) -> dict[str, Any]:
    return {
        "code": "device.gap",
        "severity": "warning",
        "message_en": f"gap on {side}",
        "message_tr": f"{side} boşluk",
        "data": {"side": side},
    }


def test_one_code_on_two_sides_is_two_items_and_handling_one_leaves_the_other() -> None:
    folder = Folder(TT_R1)
    for at, side in ((1.0, "A"), (2.0, "B"), (3.0, "A"), (4.0, "A")):
        folder.fold(EventKind.ANOMALY, device_gap(side), at)
    a_side, b_side = items(folder.state, "device.gap")
    assert (a_side["data"]["side"], a_side["count"]) == ("A", 3)
    assert (b_side["data"]["side"], b_side["count"]) == ("B", 1)
    # a referee's resolve names its item: it is never read as the rules clearing the latest of the code
    state = folder.act({"action": "resolve", "anomaly": a_side["id"], "reason": "cable fixed"}, 5.0)
    assert [a.state for a in state.anomalies] == [AnomalyState.RESOLVED, AnomalyState.OPEN]


def test_a_bulk_acknowledge_takes_every_open_item_of_a_code_for_one_reason() -> None:
    folder = Folder(TT_R1)
    folder.fold(EventKind.DEVICE_REPORT, display([0, 0]), 1.0)
    jumps(folder, 2)
    folder.fold(EventKind.DEVICE_REPORT, display([0, 0], [1, 0]), 20.0)  # a game nobody won: another code
    codes = {a.code for a in folder.state.anomalies}
    assert "tt.score_jump" in codes and len(codes) >= 2
    match_id, event = prepare_bulk(
        {TT_R1.id: folder.state},
        {"action": "acknowledge", "match": TT_R1.id, "code": "tt.score_jump", "reason": "board"},
    )
    assert match_id == TT_R1.id and event.body["state"] == "acknowledged"
    state = folder.fold(event.kind, event.body, 30.0, "Hakem Ali")
    for a in state.anomalies:
        assert a.state is (AnomalyState.ACKNOWLEDGED if a.code == "tt.score_jump" else AnomalyState.OPEN)
    assert all(a.reason == "board" for a in state.anomalies if a.code == "tt.score_jump")


async def test_bulk_actions_over_http_name_the_bad_field_and_log_nothing(tmp_path: Path) -> None:
    v = workflow_venue()
    data = tmp_path / "data"
    log = EventLog(data / "events.sqlite3")
    log.open()
    hall = Hall(v, log, Fanout())
    hall.load()
    log.start()
    hall.record("TT-R1", EventKind.DEVICE_REPORT, display([0, 0]), 100.0)
    for n in range(4):
        hall.record("TT-R1", EventKind.DEVICE_REPORT, display([2 * (n + 1), 0]), 101.0 + n)
    await log.close()
    bulk = "api/referee/anomalies"
    async with running_hub(tmp_path, v) as url:
        for body, field in (
            ({"action": "acknowledge", "match": "TT-R9", "code": "tt.score_jump"}, "match"),
            ({"action": "acknowledge", "match": "TT-R1", "code": "tt.no_such_code"}, "code"),
            ({"action": "shout", "match": "TT-R1"}, "action"),
            ({"action": [], "match": "TT-R1"}, "action"),  # not text: named, never a 500
            ({"action": "acknowledge", "match": "TT-R1", "colour": "red"}, "colour"),
            ({"action": "dismiss", "match": "TT-R1", "code": "tt.score_jump"}, "reason"),
            ({"action": "acknowledge"}, "match"),
        ):
            status, answer = await post(url + bulk, body, REFEREE_TOKEN)
            assert (status, answer.get("field")) == (400, field), (body, answer)
        assert (await post(url + bulk, {"action": "acknowledge", "match": "TT-R1"}, None))[0] == 401
        status, view = await post(
            url + bulk,
            {"action": "acknowledge", "match": "TT-R1", "code": "tt.score_jump", "reason": "seen"},
            REFEREE_TOKEN,
        )
        assert status == 200
        [item] = [a for a in view["anomalies"] if a["code"] == "tt.score_jump"]
        assert (item["count"], item["state"], item["reason"]) == (4, "acknowledged", "seen")
        status, answer = await post(
            url + bulk, {"action": "acknowledge", "match": "TT-R1", "code": "tt.score_jump"}, REFEREE_TOKEN
        )
        assert status == 409 and "no tt.score_jump anomaly left" in answer["error"]
        status, matches = await get(url + "api/referee/matches", REFEREE_TOKEN)
        [listed] = [
            a for m in matches if m["id"] == "TT-R1" for a in m["anomalies"] if a["code"] == "tt.score_jump"
        ]
        assert {k: listed[k] for k in ("count", "first_at", "last_at")} == {
            "count": 4,
            "first_at": 101.0,
            "last_at": 104.0,
        }
    events = await referee_events(data)
    assert [(e.kind, e.body["anomalies"]) for e in events] == [("referee.anomaly", [item["id"]])]


def test_an_item_with_its_occurrences_survives_a_snapshot_and_reads_as_json_does() -> None:
    folder = Folder(TT_R1)
    for at, side in ((1.0, "A"), (2.0, "A"), (3.0, "A")):
        folder.fold(EventKind.ANOMALY, device_gap(side), at)
    assert from_snapshot(TT_R1, to_snapshot(folder.state)) == folder.state
    view = public_view(folder.state)["anomalies"][0]
    assert view == json.loads(json.dumps(view))  # lists, not tuples: the live feed and a replay agree
