"""The players' sign-off: at a match's end each player confirms the final score with one tap on their own name,
or disputes it, which opens a referee item. A sign-off informs the referee, who still makes the result
official; it signs the score it was given, so once the score changes (a referee's correction) it no longer
counts as signed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec

from hub.matches.effects import settle
from hub.matches.model import ActionRefused, MatchOutcome, MatchState, MatchStatus, SignoffRecord
from hub.matches.naming import side_name
from hub.rules.base import Anomaly, Fact, Severity

DISPUTED = "match.disputed"
_SIGNABLE = (MatchStatus.FINISHED,)  # over as the rules see it, not yet official or protested


class SignoffRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a table's browser device sends for a sign-off: whose side, and whether they confirm the score."""

    side: int
    agree: bool


def final_score(match: MatchState) -> tuple[float, float]:
    """The score a player signs: the referee's result when there is one, else the rules' final score."""
    if match.result is not None:
        a, b = match.result.score
        return (a, b)
    return match.info.rules.final_score(match.sport_state)


def prepare_signoff(match: MatchState, request: SignoffRequest) -> dict[str, Any]:
    """The body to log for a sign-off, or ActionRefused saying why the match takes none now."""
    if request.side not in (0, 1):
        raise ActionRefused("side must be 0 or 1 / taraf 0 ya da 1 olmalı")
    if match.status not in _SIGNABLE:
        raise ActionRefused(
            f"the match is {match.status.value}: players sign the score once it is over and before it is "
            f"official / oyuncular skoru maç bittikten sonra, resmîleşmeden önce imzalar"
        )
    return {"side": request.side, "agree": request.agree, "score": list(final_score(match))}


def signoff(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A player's sign-off folded in: kept with the score it signed; a dispute raises a referee item."""
    a, b = body["score"]
    record = SignoffRecord(body["side"], body["agree"], (a, b), at, actor)
    referee = replace(match.referee, signoffs=(*match.referee.signoffs, record))
    fact = Fact("signoff", {"side": record.side, "agree": record.agree, "score": [a, b]})
    raised: tuple[Anomaly, ...] = ()
    if not record.agree:
        who = side_name(match.info, record.side) or "AB"[record.side]
        score = f"{_points(a)}-{_points(b)}"
        raised = (
            Anomaly(
                DISPUTED,
                Severity.WARNING,
                f"{who} disputes the final score {score} at the table; hear both players before confirming.",
                f"{who} masada son skora ({score}) itiraz ediyor; onaylamadan önce iki oyuncuyu da dinleyin.",
                {"side": record.side, "score": [a, b]},
            ),
        )
    return settle(match, offset, at, (fact,), raised, referee=referee)


def signoffs_view(match: MatchState) -> dict[str, Any] | None:
    """Each side's latest sign-off of the score as it stands (none once the score changed), and whether both
    players signed it; None while the match is played (nothing to sign: no score worked out on every change)."""
    if match.status is MatchStatus.SCHEDULED or match.status is MatchStatus.LIVE:
        return None
    score = final_score(match)
    sides: list[dict[str, Any] | None] = [None, None]
    for record in match.referee.signoffs:
        if record.score == score:
            sides[record.side] = {"agree": record.agree, "at": record.at}
        else:
            sides[record.side] = None  # a later score: the earlier word signs nothing any more
    both = all(s is not None and s["agree"] for s in sides)
    return {"score": list(score), "sides": sides, "both": both}


def _points(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}".replace("0.5", "½")
