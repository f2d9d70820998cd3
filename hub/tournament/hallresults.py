"""A round's paired results as the hall has them: which games have a result the report file takes, and which not.

A result counts once a referee made it official (confirmed, or declared a forfeit); `live` also takes results
still waiting for confirmation or for the decision on an appeal. A forfeit is written as one ("1-0F"): the
game was not played. The export (`hub.tournament.export`) and the live standings (`hub.tournament.live`)
both read results here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hub.matches import MatchState, MatchStatus
from hub.rules.registry import SPORTS
from hub.tournament.teams import game_result

GameLine = tuple[int, int, str]  # White's and Black's starting ranks and the result ("1-0", "0-1F", …)

# a result stands while it waits for confirmation (finished) or for the decision on an appeal (protested)
_STANDING = (MatchStatus.FINISHED, MatchStatus.PROTESTED)
_NO_RESULT = (MatchStatus.SCHEDULED, MatchStatus.LIVE, MatchStatus.ABANDONED)
# a forfeit the referee declared: the game was not played; the winner is the side not named loser (no winner:
# neither side came, a double forfeit)
_FORFEITS = {0: "1-0F", 1: "0-1F", None: "0-0F"}
_PLAYED_TO_FORFEIT = {"1-0": "1-0F", "0-1": "0-1F"}


@dataclass(frozen=True, slots=True)
class RoundResults:
    """The paired results of one round, and the games left blank and why."""

    round: int
    games: tuple[GameLine, ...]
    unconfirmed: tuple[str, ...] = ()  # match ids: a result not yet official (written only when live)
    unfinished: tuple[str, ...] = ()  # match ids: no result yet
    unpaired: tuple[str, ...] = ()  # paired games with no `pairing`: not in the report file
    provisional: int = 0  # of `games`, those written though not yet official (only when live)

    def summary(self) -> str:
        """One line for the person exporting: games written, left blank, not in the file."""
        text = (
            f"round {self.round}: {len(self.games)} written, {len(self.unconfirmed)} blank (not confirmed), "
            f"{len(self.unfinished)} blank (not finished)"
            f" / {self.round}. tur: {len(self.games)} sonuç yazıldı, {len(self.unconfirmed)} boş (onaysız), "
            f"{len(self.unfinished)} boş (bitmemiş)"
        )
        if self.unpaired:
            text += f"; without pairing / eşleşmesiz: {', '.join(self.unpaired)}"
        return text


def paired_result(match: MatchState) -> str | None:
    """A paired game's result as the report file takes it ("1-0", "1/2-1/2", "0-1F", …), or None."""
    if match.status is MatchStatus.FORFEIT:  # declared by a referee (a forfeit or a match loss)
        return _FORFEITS[match.winner]
    if match.status in _NO_RESULT:
        return None
    result = game_result(match)
    if result is not None and getattr(match.sport_state, "result_reason", None) == "forfeit":
        return _PLAYED_TO_FORFEIT.get(result, result)  # the arbiter's `result` with how=forfeit (Laws 6.7)
    return result


def round_results(matches: Iterable[MatchState], round_number: int, *, live: bool) -> RoundResults:
    """The paired results of round `round_number` from the games with a `pairing`: official ones, or with
    `live` also those waiting for confirmation."""
    games: list[GameLine] = []
    unconfirmed: list[str] = []
    unfinished: list[str] = []
    unpaired: list[str] = []
    provisional = 0
    chosen = [m for m in matches if SPORTS[m.info.sport].paired_rounds and m.info.round == round_number]
    for match in sorted(chosen, key=lambda m: m.info.id):
        result = paired_result(match)
        if match.info.pairing is None:
            unpaired.append(match.info.id)
        elif result is None:
            unfinished.append(match.info.id)
        elif match.official or (live and match.status in _STANDING):
            games.append((*match.info.pairing, result))
            provisional += not match.official
        else:
            unconfirmed.append(match.info.id)
    return RoundResults(
        round_number, tuple(games), tuple(unconfirmed), tuple(unfinished), tuple(unpaired), provisional
    )
