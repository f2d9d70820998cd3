"""Sport snapshots are versioned: one written before versions (tests/fixtures/snapshots/) reads back to the
same state by its sport's migration rule, a current one round-trips, and one from a newer hub is refused."""

from __future__ import annotations

import json

import pytest
from snapshot_cases import CASES, fixture, folded

from hub.matches import from_snapshot, to_snapshot
from hub.rules.snapshot import VERSION_KEY, SnapshotTooNew

SPORTS = sorted(CASES)


@pytest.mark.parametrize("sport", SPORTS)
def test_a_snapshot_from_before_versions_reads_back_to_the_same_state(sport: str) -> None:
    old = fixture(sport)
    assert VERSION_KEY not in old["sport_state"]  # the fixture is the first form, as durable logs hold it
    info = CASES[sport][0]
    assert from_snapshot(info, old) == folded(sport)


@pytest.mark.parametrize("sport", SPORTS)
def test_a_snapshot_now_carries_its_version_and_otherwise_the_same_data(sport: str) -> None:
    match = folded(sport)
    now = to_snapshot(match)
    state = json.loads(json.dumps(now["sport_state"]))  # as the log stores it: tuples become lists
    assert state[VERSION_KEY] == 2
    assert {k: v for k, v in state.items() if k != VERSION_KEY} == fixture(sport)["sport_state"]
    assert from_snapshot(match.info, now) == match
    assert VERSION_KEY not in match.info.rules.public_state(
        match.sport_state
    )  # what spectators see is unchanged


@pytest.mark.parametrize("sport", SPORTS)
def test_a_first_form_snapshot_lacking_later_keys_reads_by_the_migration(sport: str) -> None:
    rules = CASES[sport][0].rules
    state = folded(sport).sport_state
    trimmed = {k: v for k, v in fixture(sport)["sport_state"].items() if k not in _LATER[sport]}
    assert trimmed != fixture(sport)["sport_state"]
    assert rules.from_dict(trimmed) == state


@pytest.mark.parametrize("sport", SPORTS)
def test_a_snapshot_from_a_newer_hub_is_refused_naming_its_version(sport: str) -> None:
    rules = CASES[sport][0].rules
    with pytest.raises(SnapshotTooNew, match="snapshot version 99"):
        rules.from_dict({**fixture(sport)["sport_state"], VERSION_KEY: 99})


# keys later hubs added, whose values in the fixtures are what a match that never had them holds
_LATER = {
    "tabletennis": {"paused", "carry", "unshown", "ends_flagged", "expedite_due_game", "timeout_at"},
    "backgammon": {"joined_turn", "awaiting_board", "opening_tie"},
    "chess": {"awaiting_result"},
}
