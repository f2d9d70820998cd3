"""A table-tennis match's terms as the venue file, the round import, `boardcast check` and the rules read them.

`TableTennisTerms` is the one shape of them, and `fault` the one check of each term (best_of odd, a known
ruleset, a toss the match can have); each reader words what `fault` finds in its own messages.
"""

from __future__ import annotations

from typing import TypeGuard

import msgspec

RULESETS = ("ittf", "legacy21")
DOUBLES_PLAYERS = ("A1", "A2", "B1", "B2")


def odd_games(best_of: object) -> TypeGuard[int]:
    """A match's number of games: a whole, odd number from 1 (3, 5, 7)."""
    return isinstance(best_of, int) and not isinstance(best_of, bool) and best_of >= 1 and best_of % 2 == 1


class TableTennisTerms(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """best_of, doubles, ruleset and the toss (first server; in doubles also the first receiver)."""

    best_of: int = 5
    doubles: bool = False
    ruleset: str = "ittf"
    first_server: str | None = None
    first_receiver: str | None = None

    def fault(self) -> str | None:
        """The first term that breaks the rules, by its key ("first_receiver.side": the server's own side);
        None when they are all sound."""
        sides = DOUBLES_PLAYERS if self.doubles else ("A", "B")
        if not odd_games(self.best_of):
            return "best_of"
        if self.ruleset not in RULESETS:
            return "ruleset"
        if self.first_server is not None and self.first_server not in sides:
            return "first_server"
        if self.first_receiver is not None:
            if not self.doubles or self.first_receiver not in sides:
                return "first_receiver"
            if self.first_server is not None and self.first_receiver[0] == self.first_server[0]:
                return "first_receiver.side"
        return None
