"""What a team did in each round of a team event, worked out from its players' games.

A report file states board results only; the team match of a round is the set of games between two teams'
players. A team's game points in a round are its boards' points; its match points are 2 for more game
points than the other team, 1 for as many, 0 for fewer (the same rule as a live team match,
`match_points`). A team with no opponent in a round and a pairing-allocated bye scores a drawn match, its
boards a win each (FIDE team Swiss, as the pairing programs count it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hub.tournament.model import Outcome, Team, Tournament

WIN, DRAW, LOSS = Fraction(2), Fraction(1), Fraction(0)
_FORFEITS = (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS)


def match_points(ours: Fraction, theirs: Fraction) -> Fraction:
    """A team match's match points for one side: 2 won, 1 drawn, 0 lost."""
    return WIN if ours > theirs else DRAW if ours == theirs else LOSS


@dataclass(frozen=True, slots=True)
class TeamRound:
    """One round of one team."""

    opponent: int | None  # the other team's number; None: a bye
    game_points: Fraction
    opponent_game_points: Fraction
    match_points: Fraction
    complete: bool  # every board has its result
    played: bool  # at least one board was played over the board


def team_rounds(tournament: Tournament, team: Team) -> tuple[TeamRound | None, ...]:
    """The team's rounds, round 1 first; None where the team has nothing recorded."""
    by_player = {number: t for t in tournament.teams for number in t.players}
    by_number = {t.number: t for t in tournament.teams}
    rounds: list[TeamRound | None] = []
    for round_number in range(1, tournament.rounds + 1):
        ours = Fraction(0)
        theirs = Fraction(0)
        opponent: int | None = None
        played = any_entry = bye = False
        complete = True
        for number in team.players:
            entry = tournament.players[number].entry(round_number)
            if entry is None:
                continue
            any_entry = True
            if entry.outcome is Outcome.NOT_PLAYED:
                complete = False
                continue
            ours += entry.points
            played = played or entry.outcome.played
            bye = bye or entry.outcome is Outcome.PAIRING_BYE
            if entry.opponent is not None:
                other_team = by_player.get(entry.opponent)
                if other_team is not None:
                    opponent = other_team.number
                theirs += tournament.players[entry.opponent].entry(round_number).points  # type: ignore[union-attr]
        if not any_entry:
            rounds.append(None)
            continue
        if opponent is not None:  # the other team's boards won by forfeit with no opponent number (0000 - +)
            theirs += _lone_forfeit_points(tournament, by_number[opponent], round_number)
        if opponent is None and bye:
            points = DRAW
        elif opponent is None:
            points = LOSS if ours == 0 else WIN
        else:
            points = match_points(ours, theirs)
        rounds.append(TeamRound(opponent, ours, theirs, points, complete, played))
    return tuple(rounds)


def _lone_forfeit_points(tournament: Tournament, team: Team, round_number: int) -> Fraction:
    """The points of the team's boards decided by forfeit without an opponent number in the round: the other
    team's player on that board names no one, so the board is not met from the other side."""
    points = Fraction(0)
    for number in team.players:
        entry = tournament.players[number].entry(round_number)
        if entry is not None and entry.opponent is None and entry.outcome in _FORFEITS:
            points += entry.points
    return points


def team_totals(tournament: Tournament, team: Team, rounds: int | None = None) -> tuple[Fraction, Fraction]:
    """A team's match points (complete team matches) and game points (every board with a result) over the
    first `rounds` rounds (all when None)."""
    chosen = [r for r in team_rounds(tournament, team)[: rounds if rounds is not None else None] if r]
    # a team match counts for match points once every board has its result; its boards count as they end
    match_points = sum((r.match_points for r in chosen if r.complete), Fraction(0))
    return match_points, sum((r.game_points for r in chosen), Fraction(0))
