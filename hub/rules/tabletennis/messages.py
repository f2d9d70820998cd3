"""The anomalies the table-tennis rules raise: their codes, severities and the words shared by their texts."""

from __future__ import annotations

from typing import Any

from hub.rules.base import Anomaly, Severity
from hub.rules.names import side_mark


def fmt(pair: tuple[int, ...] | list[int]) -> str:
    return f"{pair[0]}-{pair[1]}"


def _scores(scores: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(fmt(g) for g in scores) or "-"


def _who(side: int) -> str:
    """The side's mark in a message: the views write the player's (or pair's) name in its place."""
    return side_mark(side)


_SEVERITY = {
    "tt.score_jump": Severity.WARNING,
    "tt.score_decrease": Severity.WARNING,
    "tt.illegal_game_end": Severity.ERROR,
    "tt.games_mismatch": Severity.ERROR,
    "tt.impossible_score": Severity.ERROR,
    "tt.match_overrun": Severity.ERROR,
    "tt.wrong_server": Severity.WARNING,
    "tt.ends_not_changed": Severity.WARNING,
    "tt.expedite_due": Severity.WARNING,
    "tt.expedite_not_allowed": Severity.ERROR,
    "tt.expedite_dropped": Severity.WARNING,
    "tt.second_timeout": Severity.ERROR,
    "tt.penalty_without_warning": Severity.WARNING,
    "tt.card_player": Severity.ERROR,
    "tt.toss_after_play": Severity.ERROR,  # not taken: a referee's is refused
}


ANOMALY_CODES = tuple(_SEVERITY)


def _anomaly(code: str, en: str, tr: str, **data: Any) -> Anomaly:
    return Anomaly(code, _SEVERITY[code], en, tr, data)
