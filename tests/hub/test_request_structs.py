"""Referee actions and `/ws` requests are read by msgspec Structs: a wrong or unknown field is refused naming it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hub.feed.fanout import Fanout
from hub.matches import MatchInfo, new_match
from hub.referee import ActionInvalid, prepare
from hub.referee.request import ACTION_FIELDS, PenaltyRequest, read_action
from hub.web.feed import handle_request

MATCH = new_match(MatchInfo("TT-1", "tabletennis", "T1", 1, ("Ayşe", "Elif")))


def _refused(request: dict[str, Any]) -> str:
    with pytest.raises(ActionInvalid) as error:
        prepare(MATCH, request, role="chief", at=1.0)
    return str(error.value)


def test_an_action_reads_as_its_struct_and_its_fields_are_the_structs() -> None:
    wanted = read_action({"action": "penalty", "side": 1, "penalty": "warning", "reason": " late "})
    assert wanted == PenaltyRequest(side=1, penalty="warning", reason=" late ")
    assert ACTION_FIELDS[PenaltyRequest.__struct_config__.tag] == {"action", "side", "penalty", "reason"}  # type: ignore[index]


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (
            {"action": "penalty", "side": True, "penalty": "warning", "reason": "r"},
            '"side" must be side 0 or 1, got True',
        ),
        ({"action": "penalty", "penalty": "warning", "reason": "r"}, '"side" must be side 0 or 1, got None'),
        ({"action": "forfeit", "loser": 2, "reason": "r"}, '"loser" must be side 0 or 1, got 2'),
        ({"action": "correct", "score": [3, True], "reason": "r"}, '"score" must be two numbers'),
        ({"action": "correct", "score": [3, 1000], "reason": "r"}, '"score" must be two numbers'),
        ({"action": "appeal", "appellant": 7, "reason": "r"}, '"appellant" must be text, got 7'),
        ({"action": "appeal", "appellant": "A", "reason": "  "}, '"reason" is required'),
        ({"action": "confirm", "x": 1, "y": 2}, "confirm takes no 'x', 'y'; its fields: action"),
        ({"action": ["confirm"]}, '"action" must be one of'),
    ],
)
def test_a_wrong_action_field_is_named_in_english_and_turkish(request_: dict[str, Any], said: str) -> None:
    message = _refused(request_)
    assert said in message and " / " in message


def test_a_score_keeps_whole_numbers_whole() -> None:
    wanted = read_action({"action": "correct", "score": [3, 1], "reason": "r"})
    assert wanted.score == (3, 1) and all(type(x) is int for x in wanted.score)  # type: ignore[attr-defined]


def _replies(text: str) -> list[dict[str, Any]]:
    fanout = Fanout()
    return [json.loads(r) for r in handle_request(fanout, fanout.connect(), text)]


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        ({"subscribe": "venue"}, "subscribe must be a list of topic names"),
        ({"unsubscribe": [1]}, "unsubscribe must be a list of topic names"),
        ({"subscribe": ["venue"], "resume": {"venue": "3"}}, "resume must map topics to versions"),
        ({"batch": "often"}, "batch must be true, false or seconds between 0.05 and 5"),
        ({"batch": 9}, "batch must be true, false or seconds between 0.05 and 5"),
        ({"subscribe": ["venue"], "token": 5}, "token must be text"),
        ({"subscribe": ["venue"], "since": 3}, "unknown field 'since'"),
        ({}, "nothing to do"),
        ([], "expected an object"),
    ],
)
def test_a_wrong_feed_request_is_answered_naming_its_field(request_: Any, said: str) -> None:
    replies = _replies(json.dumps(request_))
    assert len(replies) == 1 and said in replies[0]["error"] and " / " in replies[0]["error"], replies


def test_a_good_feed_request_has_no_error_and_not_json_says_so() -> None:
    assert _replies(json.dumps({"unsubscribe": ["venue"], "batch": 0.5, "resume": None})) == []
    assert "not JSON" in _replies("{subscribe")[0]["error"]
