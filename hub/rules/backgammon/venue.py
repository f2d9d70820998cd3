"""A backgammon match's terms in the venue file's `[[matches]]`: its length, clock and a resumed score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.rules.backgammon.terms import CLOCK_MODES, is_length
from hub.rules.sport import FieldFail, VenueSoFar

BACKGAMMON_CLOCK_KEYS = ("mode", "reserve_s", "delay_s")


def read_match(entry: Mapping[str, Any], doubles: bool, fail: FieldFail, venue: VenueSoFar) -> dict[str, Any]:
    """The entry's backgammon terms as `MatchInfo` fields."""
    length, clock = _backgammon_fields(entry, fail, venue)
    return {"length": length, "clock": clock or None, "start_score": _start_score(entry, length, fail)}


def _backgammon_fields(m: Mapping[str, Any], fail: FieldFail, venue: VenueSoFar) -> tuple[int, str]:
    """A backgammon match's `length` (required, at least 1) and optional `clock`, as (length, clock text).

    The clock is kept as text (`simple:600:12`, mode:reserve_s:delay_s) in MatchInfo.clock.
    """
    length = m.get("length")
    if length is None:
        raise fail(
            "length",
            "a backgammon match needs its length in points, such as length = 5 "
            "/ tavla maçının kaç sayılık olduğu gerekli, örneğin length = 5",
        )
    if not is_length(length):
        raise fail(
            "length",
            f"a backgammon match needs its length in points, a whole number from 1, got {length!r} "
            f"/ maç uzunluğu (puan) 1 veya daha büyük bir tam sayı olmalı, verilen {length!r}",
        )
    clock = m.get("clock")
    if clock is None:
        return length, ""
    if not isinstance(clock, dict):
        raise fail(
            "clock", 'must be a table: {mode = "simple", reserve_s = 600, delay_s = 12} / tablo olmalı'
        )
    unknown = [key for key in clock if key not in BACKGAMMON_CLOCK_KEYS]
    if unknown:
        raise fail("clock", venue.unknown_key(unknown[0], BACKGAMMON_CLOCK_KEYS), at=f"clock.{unknown[0]}")
    mode = clock.get("mode", "simple")
    if mode not in CLOCK_MODES:
        raise fail(
            "clock.mode",
            f'must be "simple" or "bronstein", got {mode!r} / "simple" ya da "bronstein" olmalı, verilen {mode!r}',
        )
    reserve = clock.get("reserve_s", 600)
    if not isinstance(reserve, int | float) or isinstance(reserve, bool) or reserve <= 0:
        raise fail(
            "clock.reserve_s",
            f"must be a positive number of seconds, got {reserve!r} / pozitif saniye olmalı",
        )
    delay = clock.get("delay_s", 12)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise fail(
            "clock.delay_s", f"must be a number of seconds >= 0, got {delay!r} / 0 veya büyük saniye olmalı"
        )
    return length, f"{mode}:{float(reserve):g}:{float(delay):g}"


def _start_score(m: Mapping[str, Any], length: int, fail: FieldFail) -> tuple[int, int]:
    """`start_score = [3, 1]`: the score a backgammon match resumed at a score starts from, each below the
    length (a side at the length would have won); 0-0 when absent."""
    score = m.get("start_score", [0, 0])
    if (
        not isinstance(score, list)
        or len(score) != 2
        or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < length for s in score)
    ):
        raise fail(
            "start_score",
            f"must be two scores [A, B], each a whole number from 0 to {length - 1} (below the length), "
            f"got {score!r} / iki skor olmalı, her biri 0 ile {length - 1} arası (maç uzunluğunun altında), verilen {score!r}",
        )
    return score[0], score[1]
