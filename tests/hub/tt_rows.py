"""Table-tennis matches as a hub's log holds them, for replay tests: generated matches (`test_tabletennis_properties`)
as event rows, with a noisy board, referee inputs, ticks and anomalies when asked."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from test_tabletennis_properties import Plan
from test_tabletennis_properties import play as play_match

from hub.matches import MatchInfo
from hub.rules import tabletennis as tt


def noisy(item: object, rng: random.Random, doubles: bool) -> list[object]:
    """What a faulty board might send instead of `item` (a Display): usually `item` itself."""
    if not isinstance(item, tt.Display) or rng.random() < 0.75:
        return [item]
    roll = rng.randrange(9)
    if roll == 0:  # the server indicator wrong, or dark
        return [replace(item, server=rng.choice([None, 0, 1]))]
    if roll == 1:
        return [replace(item, ends=rng.choice([None, "normal", "swapped"]))]
    if roll == 2:  # sent twice
        return [item, item]
    if roll == 3:  # a rally missed, or a point taken back
        a, b = item.points
        return [replace(item, points=(a + rng.choice([-1, 1, 2]) if a else a + 2, b))]
    if roll == 4:
        return [replace(item, expedite=rng.choice([None, True, False]))]
    if roll == 5:
        return [replace(item, game_scores=(*item.game_scores, (11, 3)))]
    if roll == 6 and doubles:
        return [replace(item, server_player=rng.choice(["A1", "A2", "B1", "B2", None]))]
    if roll == 7:
        return [tt.TimeOut(rng.randrange(2)), item]
    return [replace(item, points=(0, 0))]  # a board reset mid-game


def match_rows(plan: Plan, seed: int, noise: bool) -> list[tuple[int, str, float, str | None, Any]]:
    """A match's log rows: every input of a generated match as a device report (noisy if asked), with now
    and then an anomaly, a tick or a referee's point, and a referee confirming near the end (reports after
    it are refused by the match, not the rules)."""
    rng = random.Random(seed ^ 0xFEED)
    rows: list[tuple[int, str, float, str | None, Any]] = []
    shift = 0.0
    inputs = list(play_match(plan, seed))
    confirm_at = len(inputs) - rng.randrange(1, 4) if noise else None
    for n, (at, item, _model) in enumerate(inputs):
        if noise and rng.random() < 0.02:
            shift += 700.0  # a long game: the expedite system comes due
        when = at + shift
        if n == confirm_at:
            rows.append((len(rows) + 1, "referee.confirm", when, "ref", {}))
        for sent in noisy(item, rng, plan.doubles) if noise else [item]:
            body = {"device_id": "d", "boot_epoch": 1, "seq": len(rows), "report": tt.input_to_dict(sent)}
            rows.append((len(rows) + 1, "device.report", when, None, body))
        if noise and rng.random() < 0.03:
            extra = rng.choice(
                [
                    (
                        "anomaly",
                        None,
                        {"code": "x", "severity": "info", "message_en": "e", "message_tr": "t", "data": {}},
                    ),
                    ("clock.tick", None, {}),
                    ("referee.input", "ref", {"input": {"type": "point", "side": rng.randrange(2)}}),
                ]
            )
            rows.append((len(rows) + 1, extra[0], when, extra[1], extra[2]))
    return rows


def match_info(plan: Plan) -> MatchInfo:
    players = ("A1", "A2", "B1", "B2") if plan.doubles else ("A", "B")
    known = plan.config_knows_first_server
    return MatchInfo(
        "M",
        "tabletennis",
        "T1",
        1,
        players,
        plan.best_of,
        plan.doubles,
        plan.first_server if known else None,
        plan.first_receiver if known and plan.doubles else None,
    )
