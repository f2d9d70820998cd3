"""Standings of an event from its `Tournament`: ranks, points and tie-breaks over the first N rounds or all.

Pure: a tournament in, frozen `Standing` values out. The FIDE C.07 arithmetic is the `tiebreak-core`
library's; this module owns the adapter from our model to its records and the ranking stages around it:

- individuals: each round becomes a game record of its kind (played, forfeit win or loss, pairing bye U,
  full/half/zero bye F/H/Z as requested byes with their points); a round whose result is still blank is
  not played yet and counts for nothing, so standings during a live round show what is known;
- teams: each round becomes a team match (`hub.tournament.results.team_rounds` works it out from the board
  games; a match with a board still blank is no match yet, its finished boards count in the game points).
  The team's score is its match points, game points are a tie-break. Team Buchholz of match points is computed by the library's individual Article 16
  engine on match points halved (2-1-0 becomes 1-½-0): the library's team Buchholz counts a forfeited
  match as played and ignores late byes, which FIDE's worked answers do not (see the tests);
- direct encounter (C.07 §6) is a ranking stage computed here, inside the group still level when it comes:
  the library's 2024 engine leaves forfeits out of it always, while with pairings fixed in advance (a
  round robin, §15.2) FIDE's worked answer counts them;
- ranks are shared by players or teams level on points and on every tie-break (direct encounter too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import tiebreak_core as tc

from hub.tournament.model import Colour, Outcome, Tournament
from hub.tournament.results import TeamRound, team_rounds, team_totals
from hub.tournament.tiebreaks import (
    DEFAULT_RULESET,
    DIRECT,
    POINTS,
    TEAM_BH,
    Ruleset,
    Tiebreak,
    default_tiebreaks,
)

Number = float | int
_REQUESTED = {Outcome.FULL_BYE, Outcome.HALF_BYE, Outcome.ZERO_BYE}


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: a player (individual event) or a team (team event)."""

    rank: int  # shared by a complete tie
    number: int  # starting rank (player) or team number
    name: str
    points: Number  # game points (individuals) or the primary score, match points as a rule (teams)
    tiebreaks: dict[str, Number] = field(default_factory=dict, hash=False)  # by name, in the order used

    def to_json(self) -> dict[str, object]:
        """The standing as one JSON object: rank, name, points, tie-breaks."""
        return {
            "rank": self.rank,
            "name": self.name,
            "points": self.points,
            "tiebreaks": dict(self.tiebreaks),
        }


def number(value: float | Fraction) -> Number:
    """A whole value as an int, else a float (4.0 -> 4, 4.5 -> 4.5)."""
    as_float = float(value)
    return int(as_float) if as_float.is_integer() else as_float


def rounds_recorded(tournament: Tournament) -> int:
    """The last round anyone has an entry for (blank results included): the rounds standings cover by default."""
    last = 0
    for player in tournament.players.values():
        for index, entry in enumerate(player.rounds, start=1):
            if entry is not None:
                last = max(last, index)
    return last


def standings(
    tournament: Tournament,
    rounds: int | None = None,
    tiebreaks: Sequence[Tiebreak] | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
    round_robin: bool | None = None,
) -> tuple[Standing, ...]:
    """The event's standings over its first `rounds` rounds (all recorded when None), best first."""
    chosen = rounds_recorded(tournament) if rounds is None else rounds
    if chosen < 0:
        raise ValueError(f"rounds must be 0 or more, not {chosen} / tur sayısı 0 veya büyük olmalı")
    used = tuple(tiebreaks) if tiebreaks else default_tiebreaks(tournament.is_team_event)
    if tournament.is_team_event:
        return _team_standings(tournament, chosen, used, ruleset)
    fixed = is_round_robin(tournament) if round_robin is None else round_robin
    return _individual_standings(tournament, chosen, used, ruleset, fixed)


# --- individuals ---------------------------------------------------------------------------------------


def game_records(tournament: Tournament, rounds: int) -> dict[int, tc.PlayerTiebreakData]:
    """The library's records of every player over the first `rounds` rounds (blank results left out)."""
    records: dict[int, tc.PlayerTiebreakData] = {}
    for player in tournament.players.values():
        games: list[tc.GameRecord] = []
        for round_number, entry in enumerate(player.rounds[:rounds], start=1):
            if entry is None or entry.outcome is Outcome.NOT_PLAYED:
                continue
            games.append(_game(tournament, round_number, entry.opponent, entry.colour, entry.outcome))
        records[player.number] = tc.PlayerTiebreakData(
            player.number, player.rating, sum(g.score for g in games), games
        )
    return records


def _game(
    tournament: Tournament, round_number: int, opponent: int | None, colour: Colour, outcome: Outcome
) -> tc.GameRecord:
    score = float(outcome.points)
    colour_name = "black" if colour is Colour.BLACK else "white"  # the library wants one; byes have none
    if opponent is None or outcome is Outcome.PAIRING_BYE or outcome in _REQUESTED:
        # a forfeit with nobody opposite is a bye of the points it gave
        kind = tc.PAIRING_BYE if outcome is Outcome.PAIRING_BYE else tc.REQUESTED_BYE
        return tc.GameRecord(-1, 0, score, colour_name, round_number, kind=kind)
    if outcome.played:
        kind = tc.PLAYED
    else:
        kind = tc.FORFEIT_WIN if outcome is Outcome.FORFEIT_WIN else tc.FORFEIT_LOSS
    rating = tournament.players[opponent].rating
    return tc.GameRecord(opponent, rating, score, colour_name, round_number, kind=kind)


def is_round_robin(tournament: Tournament) -> bool:
    """Everyone can meet everyone over the event's rounds: pairings fixed in advance (C.07 §15.2)."""
    return len(tournament.players) <= max(tournament.rounds, rounds_recorded(tournament)) + 1


def _individual_standings(
    tournament: Tournament, rounds: int, tiebreaks: tuple[Tiebreak, ...], ruleset: Ruleset, round_robin: bool
) -> tuple[Standing, ...]:
    for tiebreak in tiebreaks:
        if tiebreak.individual is None:
            raise ValueError(
                f"{tiebreak.name} is a team tie-break; this event is individual "
                f"/ {tiebreak.name} takım ölçütüdür; bu turnuva bireysel"
            )
    records = game_records(tournament, rounds)
    named = [t for t in tiebreaks if t.individual != POINTS]
    if rounds == 0 or not records:
        return tuple(Standing(1, n, tournament.players[n].name, 0, {}) for n in sorted(records))
    scalars = [t.individual for t in named if t.individual != DIRECT]
    # the 2026 edition names the round robin's own regime (§15.2); the 2024 one has a single regime
    mode = {"mode": "round_robin"} if round_robin and ruleset is Ruleset.FIDE_2026 else {}
    result = tc.rank_standings_strict(records, scalars, rounds, ruleset=ruleset.value, **mode)  # type: ignore[arg-type]
    values = {p.player_id: p.values for p in result.players}
    groups = split_groups([sorted(records)], lambda n: -records[n].points)
    shown: dict[int, dict[str, Number]] = {n: {} for n in records}
    for tiebreak in named:
        if tiebreak.individual == DIRECT:
            for group in groups:
                scores = _mini_scores(records, group, round_robin)
                for n in group:
                    shown[n][tiebreak.name] = number(scores[n])
            groups = [tier for g in groups for tier in direct_encounter(records, g, round_robin)]
        else:
            criterion = tiebreak.individual or ""
            for n in records:
                shown[n][tiebreak.name] = number(values[n][criterion])
            groups = split_groups(groups, lambda n, c=criterion: -values[n][c])  # type: ignore[misc]
    out: list[Standing] = []
    position = 1
    for group in groups:
        for n in group:
            out.append(Standing(position, n, tournament.players[n].name, number(records[n].points), shown[n]))
        position += len(group)
    return tuple(out)


def _mini_scores(
    records: Mapping[int, tc.PlayerTiebreakData], group: Sequence[int], round_robin: bool
) -> dict[int, Fraction]:
    """Each player's points against the others of the group (C.07 §6.1), meetings more than once averaged.

    Forfeits count only where the pairings were fixed in advance (round robin, §15.2)."""
    counted = {tc.PLAYED, tc.FORFEIT_WIN, tc.FORFEIT_LOSS} if round_robin else {tc.PLAYED}
    members = set(group)
    out: dict[int, Fraction] = {}
    for n in group:
        by_opponent: dict[int, list[Fraction]] = {}
        for game in records[n].games:
            if game.opponent_id in members and game.kind in counted:
                by_opponent.setdefault(game.opponent_id, []).append(Fraction(game.score))
        out[n] = sum((sum(s, Fraction(0)) / len(s) for s in by_opponent.values()), Fraction(0))
    return out


def direct_encounter(
    records: Mapping[int, tc.PlayerTiebreakData], group: list[int], round_robin: bool = False
) -> list[list[int]]:
    """Direct encounter (C.07 §6) inside one tied group: its tiers, best first; an unbroken tie stays one tier.

    All met: the mini-table orders them, reapplied to those still level (§6.2). Not all met (Swiss): one
    at a time, a player whose mini-table score no other can reach with its missing games ranks first
    (§6.3); whoever is left stays tied."""
    if len(group) < 2:
        return [group]
    met = {(n, g.opponent_id) for n in group for g in records[n].games}

    def lacking(n: int, among: list[int]) -> int:
        return sum(1 for m in among if m != n and (n, m) not in met and (m, n) not in met)

    if not any(lacking(n, group) for n in group):
        scores = _mini_scores(records, group, round_robin)
        tiers: list[list[int]] = []
        for part in split_groups([group], lambda n: -scores[n]):
            tiers.extend(
                [part] if len(part) in (1, len(group)) else direct_encounter(records, part, round_robin)
            )
        return tiers
    remaining = list(group)
    tiers = []
    while len(remaining) > 1:
        scores = _mini_scores(records, remaining, round_robin)
        first = next(
            (
                n
                for n in remaining
                if all(scores[n] > scores[m] + lacking(m, remaining) for m in remaining if m != n)
            ),
            None,
        )
        if first is None:
            break
        tiers.append([first])
        remaining.remove(first)
    return [*tiers, remaining] if remaining else tiers


def _reversed_keys(ids: list[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Two orders for a complete tie, the second the first reversed."""
    return {n: i for i, n in enumerate(ids)}, {n: -i for i, n in enumerate(ids)}


def _tie_groups(forward: list[int], backward: list[int]) -> list[list[int]]:
    """Groups level on everything: the library orders a complete tie by the keys given, so two rankings
    with the keys reversed agree on each group's members and on nothing else."""
    groups: list[list[int]] = []
    start = 0
    seen_forward: set[int] = set()
    seen_backward: set[int] = set()
    for index, (a, b) in enumerate(zip(forward, backward, strict=True)):
        seen_forward.add(a)
        seen_backward.add(b)
        if seen_forward == seen_backward:
            groups.append(forward[start : index + 1])
            start = index + 1
    return groups


# --- teams -----------------------------------------------------------------------------------------------

TEAM_FORMAT = tc.TeamFormat(mp_win=2.0, mp_draw=1.0)


def team_match(round_number: int, row: TeamRound) -> tc.TeamMatch:
    """The library's record of one team round: played, a whole match forfeited, or a bye."""
    mp, gp = float(row.match_points), float(row.game_points)
    if row.opponent is None:  # a bye that scored is the pairing's; one that did not was asked for
        return tc.TeamMatch(-1, round_number, mp, gp, kind="pairing_bye" if row.match_points else "unplayed")
    if row.played:
        return tc.TeamMatch(row.opponent, round_number, mp, gp, kind="played")
    kind = "forfeit_win" if row.game_points > row.opponent_game_points else "forfeit_loss"
    return tc.TeamMatch(row.opponent, round_number, mp, gp, kind=kind)


def team_records(tournament: Tournament, rounds: int) -> dict[int, tc.TeamRecord]:
    """The library's team records over the first `rounds` rounds.

    A team match still going is no match yet; its finished boards count in the game points
    (`hub.tournament.results.team_totals`)."""
    records: dict[int, tc.TeamRecord] = {}
    for team in tournament.teams:
        matches: list[tc.TeamMatch] = []
        boards = [0.0] * len(team.players)
        for round_number, row in enumerate(team_rounds(tournament, team)[:rounds], start=1):
            if row is None:
                continue
            if row.complete:
                matches.append(team_match(round_number, row))
            for board, player in enumerate(team.players):  # a game still going has no points yet
                entry = tournament.players[player].entry(round_number)
                if entry is not None:
                    boards[board] += float(entry.points)
        mp, gp = team_totals(tournament, team, rounds)
        records[team.number] = tc.TeamRecord(team.number, float(mp), float(gp), matches, tuple(boards))
    return records


def _team_standings(
    tournament: Tournament, rounds: int, tiebreaks: tuple[Tiebreak, ...], ruleset: Ruleset
) -> tuple[Standing, ...]:
    names = {t.number: t.name for t in tournament.teams}
    records = team_records(tournament, rounds)
    if rounds == 0:
        return tuple(Standing(1, n, names[n], 0, {}) for n in sorted(records))
    return rank_teams(records, names, rounds, tiebreaks, ruleset)


def rank_teams(
    records: Mapping[int, tc.TeamRecord],
    names: Mapping[int, str],
    rounds: int,
    tiebreaks: Sequence[Tiebreak],
    ruleset: Ruleset = DEFAULT_RULESET,
) -> tuple[Standing, ...]:
    """Team standings from the library's team records: the primary score, then the tie-breaks in order."""
    for tiebreak in tiebreaks:
        if tiebreak.team is None:
            raise ValueError(
                f"{tiebreak.name} is an individual tie-break; this is a team event "
                f"/ {tiebreak.name} bireysel ölçüttür; bu bir takım turnuvası"
            )
    first = tiebreaks[0].team if tiebreaks else None
    primary = "GP" if first == "GP" else "MP"
    rest = list(tiebreaks[1:] if first in ("MP", "GP", POINTS) else tiebreaks)
    values: dict[int, dict[str, float]] = {tid: {} for tid in records}
    for tiebreak in rest:
        for tid, value in _team_values(records, tiebreak, primary, rounds, ruleset).items():
            values[tid][tiebreak.name] = value
    score: Callable[[int], float] = (
        (lambda tid: records[tid].gp) if primary == "GP" else (lambda tid: records[tid].mp)
    )
    groups = split_groups([sorted(records)], lambda tid: -score(tid))
    for tiebreak in rest:
        if tiebreak.team == "EDE":
            for group in groups:
                for tid in group:
                    values[tid][tiebreak.name] = _team_direct_score(records, tid, group)
            groups = [tier for g in groups for tier in _direct_tiers(records, g, primary, rounds)]
        elif tiebreak.team == "BC":  # board count: the lower sum ranks higher
            groups = split_groups(groups, lambda tid, t=tiebreak: values[tid][t.name])  # type: ignore[misc]
        elif tiebreak.team in ("TBR", "BBE"):
            groups = split_groups(groups, lambda tid, t=tiebreak: _board_key(records[tid], t.team))  # type: ignore[misc]
        else:
            groups = split_groups(groups, lambda tid, t=tiebreak: -values[tid][t.name])  # type: ignore[misc]
    out: list[Standing] = []
    position = 1
    for group in groups:
        for tid in group:
            shown = {t.name: number(values[tid][t.name]) for t in rest}
            out.append(Standing(position, tid, names.get(tid, str(tid)), number(score(tid)), shown))
        position += len(group)
    return tuple(out)


def _team_values(
    records: Mapping[int, tc.TeamRecord], tiebreak: Tiebreak, primary: str, rounds: int, ruleset: Ruleset
) -> dict[int, float]:
    """One tie-break's value for every team (none for direct encounter, a ranking stage)."""
    if tiebreak.team == "EDE":
        return {}
    if tiebreak.team in ("MP", "GP", POINTS):
        return {tid: r.gp if tiebreak.team == "GP" else r.mp for tid, r in records.items()}
    if tiebreak.team == TEAM_BH:
        return team_buchholz(records, rounds, tiebreak.cut, ruleset)
    if tiebreak.team in ("TBR", "BBE"):  # shown: the first key (top board, all but the bottom board)
        return {
            tid: -_board_key(r, tiebreak.team)[0] if r.board_points else 0.0 for tid, r in records.items()
        }
    descriptor = tiebreak.team or ""
    return {
        tid: tc.calculate_team_strict(r, records, descriptor, rounds, TEAM_FORMAT, primary)
        for tid, r in records.items()
    }


def team_buchholz(
    records: Mapping[int, tc.TeamRecord], rounds: int, cut: int = 0, ruleset: Ruleset = DEFAULT_RULESET
) -> dict[int, float]:
    """Buchholz of match points (cut by `cut` lowest), with C.07 Article 16 for forfeits and byes.

    Each team becomes an individual record on match points halved, so the library's individual engine
    applies Article 16: a forfeited match or a bye counts the team's own score (a virtual opponent), and a
    bye requested for the last rounds counts as a draw in the opponents' Buchholz.
    """
    players: dict[int, tc.PlayerTiebreakData] = {}
    for tid, record in records.items():
        games = [_halved(m) for m in record.matches]
        players[tid] = tc.PlayerTiebreakData(tid, 0, sum(g.score for g in games), games)
    criterion = ("buchholz", "buchholz_cut1", "buchholz_cut2")[cut]
    result = tc.rank_standings_strict(players, [criterion], rounds, ruleset=ruleset.value)
    return {p.player_id: 2 * p.values[criterion] for p in result.players}


def _halved(match: tc.TeamMatch) -> tc.GameRecord:
    score = match.mp / 2
    kinds = {"played": tc.PLAYED, "forfeit_win": tc.FORFEIT_WIN, "forfeit_loss": tc.FORFEIT_LOSS}
    if match.kind in kinds:
        return tc.GameRecord(match.opponent_id, 0, score, "white", match.round_number, kind=kinds[match.kind])
    kind = tc.PAIRING_BYE if match.kind == "pairing_bye" else tc.REQUESTED_BYE
    return tc.GameRecord(-1, 0, score, "white", match.round_number, kind=kind)


def _direct_tiers(
    records: Mapping[int, tc.TeamRecord], group: list[int], primary: str, rounds: int
) -> list[list[int]]:
    """Extended direct encounter (C.07 §13.3.1) inside one tied group, by the library's team ranking."""
    if len(group) < 2:
        return [group]
    members = {
        tid: records[tid] for tid in group
    }  # level on the primary score: the library ranks them by EDE

    forward, backward = (
        [t.team_id for t in tc.rank_teams_strict(members, ["EDE"], rounds, TEAM_FORMAT, primary, keys).teams]
        for keys in _reversed_keys(group)
    )
    return _tie_groups(forward, backward)


def _team_direct_score(records: Mapping[int, tc.TeamRecord], tid: int, group: list[int]) -> float:
    """What DE shows for a team: match points won against the teams level with it before DE."""
    rivals = set(group) - {tid}
    return sum(m.mp for m in records[tid].matches if m.kind == "played" and m.opponent_id in rivals)


def _board_key(record: tc.TeamRecord, code: str | None) -> tuple[float, ...]:
    """Top board first (TBR) or all but the bottom board (BBE), negated so that more sorts first."""
    boards = list(record.board_points)
    keys = [sum(boards[: len(boards) - k]) for k in range(1, len(boards))] if code == "BBE" else boards
    return tuple(-v for v in keys)


def split_groups(groups: list[list[int]], key: Callable[[int], Any]) -> list[list[int]]:
    """Each group split by `key`, lowest key first, order kept within a part."""
    out: list[list[int]] = []
    for group in groups:
        buckets: dict[object, list[int]] = {}
        for item in group:
            buckets.setdefault(key(item), []).append(item)
        out.extend(buckets[k] for k in sorted(buckets))  # type: ignore[type-var]
    return out
