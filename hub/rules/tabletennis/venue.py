"""A table-tennis match's terms in the venue file's `[[matches]]`: best_of, ruleset and the toss.

They are read into `TableTennisTerms` and checked by its `fault`, the one check of each term; this module words
what it finds for the venue file, in English and Turkish.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from difflib import get_close_matches
from typing import Any

import msgspec

from hub.rules.sport import FieldFail, VenueSoFar
from hub.rules.tabletennis.terms import DOUBLES_PLAYERS, RULESETS, TableTennisTerms

_KEYS = ("best_of", "ruleset", "first_server", "first_receiver")


def read_match(entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar) -> dict[str, Any]:
    """The entry's table-tennis terms as `MatchInfo` fields (singles or doubles)."""
    given = {key: entry[key] for key in _KEYS if key in entry}
    try:
        terms = msgspec.convert({**given, "doubles": doubles}, TableTennisTerms)
    except msgspec.ValidationError as exc:  # a value of the wrong type: said as that term's fault
        key = next((k for k in _KEYS if f"`$.{k}`" in str(exc)), "best_of")
        raise fail(key, _MESSAGES[key](given.get(key), doubles)) from None
    fault = terms.fault()
    if fault is not None:
        key = fault.partition(".")[0]
        raise fail(key, _MESSAGES[fault](getattr(terms, key), doubles))
    return {key: getattr(terms, key) for key in _KEYS}


def _best_of(got: Any, doubles: bool) -> str:
    return f"must be an odd number of games (3, 5, 7), got {got!r} / oyun sayısı tek olmalı (3, 5, 7), verilen {got!r}"


def _ruleset(got: Any, doubles: bool) -> str:
    known = ", ".join(RULESETS)
    near = get_close_matches(str(got), RULESETS, n=1)
    hint = (f"; did you mean {near[0]}?", f"; {near[0]} mı demek istediniz?") if near else ("", "")
    return f"must be one of {known}, got {got!r}{hint[0]} / şunlardan biri olmalı: {known}, verilen {got!r}{hint[1]}"


def _first_server(got: Any, doubles: bool) -> str:
    sides = ", ".join(DOUBLES_PLAYERS if doubles else ("A", "B"))
    return f"must be one of {sides}, got {got!r} / şunlardan biri olmalı: {sides}, verilen {got!r}"


def _first_receiver(got: Any, doubles: bool) -> str:
    return (
        f"only for doubles: one of B1, B2, A1, A2, got {got!r} / yalnızca çiftlerde: B1, B2, A1 ya da A2, "
        f"verilen {got!r}"
    )


def _receiver_side(got: Any, doubles: bool) -> str:
    return f"must be on the other side from first_server, got {got!r} / ilk servisi atanın karşı tarafından olmalı"


_MESSAGES: dict[str, Callable[[Any, bool], str]] = {
    "best_of": _best_of,
    "ruleset": _ruleset,
    "first_server": _first_server,
    "first_receiver": _first_receiver,
    "first_receiver.side": _receiver_side,
}
