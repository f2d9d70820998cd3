"""A backgammon match's terms as the venue file, `boardcast check` and the rules read them: the one check of
its clock mode and of its length, each reader wording what it finds in its own messages."""

from __future__ import annotations

from typing import TypeGuard

CLOCK_MODES = ("simple", "bronstein")  # a delay clock's modes (`hub.rules.clock.DelayMode`)


def is_length(length: object) -> TypeGuard[int]:
    """A match length: a whole number of points from 1."""
    return isinstance(length, int) and not isinstance(length, bool) and length >= 1
