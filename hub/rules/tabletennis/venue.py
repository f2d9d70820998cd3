"""A table-tennis match's terms in the venue file's `[[matches]]`: best_of, ruleset and the toss."""

from __future__ import annotations

from collections.abc import Mapping
from difflib import get_close_matches
from typing import Any

from hub.rules.sport import FieldFail, VenueSoFar
from hub.rules.tabletennis.terms import RULESETS, odd_games


def read_match(entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar) -> dict[str, Any]:
    """The entry's table-tennis terms as `MatchInfo` fields (singles or doubles)."""
    best_of, ruleset, first_server, first_receiver = _tabletennis_fields(entry, doubles, fail)
    return {
        "best_of": best_of,
        "ruleset": ruleset,
        "first_server": first_server,
        "first_receiver": first_receiver,
    }


def _tabletennis_fields(
    m: Mapping[str, Any], doubles: bool, fail: FieldFail
) -> tuple[int, str, str | None, str | None]:
    """A table-tennis match's best_of, ruleset and toss (first server, and first receiver in doubles)."""
    best_of = m.get("best_of", 5)
    if not odd_games(best_of):
        raise fail(
            "best_of",
            f"must be an odd number of games (3, 5, 7), got {best_of!r} / oyun sayısı tek olmalı (3, 5, 7), "
            f"verilen {best_of!r}",
        )
    ruleset = m.get("ruleset", "ittf")
    if ruleset not in RULESETS:
        known = ", ".join(RULESETS)
        near = get_close_matches(str(ruleset), RULESETS, n=1)
        hint = (f"; did you mean {near[0]}?", f"; {near[0]} mı demek istediniz?") if near else ("", "")
        raise fail(
            "ruleset",
            f"must be one of {known}, got {ruleset!r}{hint[0]} / şunlardan biri olmalı: {known}, verilen "
            f"{ruleset!r}{hint[1]}",
        )
    sides = ("A1", "A2", "B1", "B2") if doubles else ("A", "B")
    first_server = m.get("first_server")
    if first_server is not None and first_server not in sides:
        raise fail("first_server", f"must be one of {', '.join(sides)} / geçersiz ilk servis")
    first_receiver = m.get("first_receiver")
    if first_receiver is not None:
        if not doubles or first_receiver not in sides:
            raise fail("first_receiver", "only for doubles: one of B1, B2, A1, A2 / yalnızca çiftlerde")
        if first_server is not None and first_receiver[0] == first_server[0]:
            raise fail(
                "first_receiver", "must be on the other side from first_server / karşı taraftan olmalı"
            )
    return best_of, ruleset, first_server, first_receiver
