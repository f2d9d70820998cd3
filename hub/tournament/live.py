"""The event's standings as the hall's games stand: the report file's results, with the hall's over them.

The report file (`[tournament] trf`) holds every round the pairing program knows; the hall's paired games name
their players by starting rank (`pairing`), so each game with a result is written into the file's round as
the hall has it (finished and confirmed alike: standings, as every result, are informational until a
referee confirms). The file is read again when it changes (a new round's pairings), and a file that cannot be
read leaves the last good one in use, with its error in the view.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hub.matches import MatchState
from hub.rules.registry import SPORTS
from hub.tournament.hallresults import round_results
from hub.tournament.model import Outcome, Tournament
from hub.tournament.prizes import board_prizes
from hub.tournament.results import team_rounds
from hub.tournament.standings import rounds_recorded, standings
from hub.tournament.tiebreaks import event_tiebreaks, parse_tiebreaks
from hub.tournament.trf import TrfError, load_trf
from hub.venue import TournamentConfig, Venue, VenueError, file_stamp


class LiveStandings:
    """One event's standings, worked out again from the hall's games whenever a result changes."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self._stamp: tuple[int, int] | None = None
        self._base: Tournament | None = None
        self.error: str | None = None  # the report file's last read failure, while an older copy is used
        self.tiebreaks = (
            parse_tiebreaks(list(config.tiebreaks)) if config.tiebreaks else None
        )  # the venue parser has checked the names

    def stale(self) -> bool:
        """The report file changed on disk since it was last read (a new round's pairings, a correction)."""
        return file_stamp(self.config.trf) != self._stamp

    def base(self) -> Tournament | None:
        """The report file as last read; read again when it changed on disk."""
        stamp = file_stamp(self.config.trf)
        if stamp is not None and stamp != self._stamp:
            self._stamp = stamp
            try:
                self._base = load_trf(self.config.trf)
                self.error = None
            except TrfError as exc:  # spectators see it: the file's name, not where the hub keeps it
                self.error = str(exc).replace(str(self.config.trf), self.config.trf.name)
        elif stamp is None and self._base is None:
            self.error = f"{self.config.trf.name}: no such file / dosya bulunamadı"
        return self._base

    def view(self, matches: Iterable[MatchState]) -> dict[str, Any]:
        """The standings view spectators see (`/api/standings`, the `standings` topic)."""
        base = self.base()
        games = [m for m in matches if SPORTS[m.info.sport].paired_rounds and m.info.pairing is not None]
        if base is None:
            return {"event": "", "kind": "individual", "rows": [], "error": self.error}
        tournament = base
        from_hall = provisional = pending = 0
        for round_number in sorted({m.info.round for m in games}):
            shown = round_results(games, round_number, live=True)
            provisional += shown.provisional
            pending += len(shown.unfinished)
            for white, black, result in shown.games:
                if white in tournament.players and black in tournament.players:  # the import checked this
                    tournament = tournament.with_result(round_number, white, black, result)
                    from_hall += 1
        current = max((m.info.round for m in games), default=rounds_recorded(tournament))
        team_event = tournament.is_team_event
        tiebreaks = event_tiebreaks(tournament, self.tiebreaks)
        try:
            rows = standings(tournament, tiebreaks=tiebreaks)
        except ValueError as exc:  # a file read again that no longer fits the tie-breaks (a team file now)
            return {"event": tournament.name, "kind": "individual", "rows": [], "error": str(exc)}
        view: dict[str, Any] = {
            "event": tournament.name,
            "kind": "team" if team_event else "individual",
            "rounds": tournament.rounds,
            "round": current,
            "official": provisional == 0 and pending == 0,  # every result in and confirmed
            "counted": results_counted(tournament),  # the report file's results and the hall's alike
            "from_hall": from_hall,
            "provisional": provisional,
            "pending": pending,
            "points": "MP" if team_event else "PTS",  # what `points` counts: match points, or game points
            "tiebreaks": list(rows[0].tiebreaks) if rows else [],
            "rows": [row.to_json() for row in rows],
            "byes": _byes(tournament, current),
            "team_forfeits": team_forfeits(tournament, current),
            "error": self.error,
        }
        if team_event and self.config.board_prize_min_games:
            view["board_prize_min_games"] = self.config.board_prize_min_games
            view["board_prizes"] = [
                {
                    "boards": list(category.boards),
                    "category_en": category.name[0],
                    "category_tr": category.name[1],
                    "rows": [line.to_json() for line in category.lines],
                }
                for category in board_prizes(tournament, self.config.board_prize_min_games)
            ]
        return view


def results_counted(tournament: Tournament) -> int:
    """The game results the standings count: each game with a result once, forfeits included, in every
    round (the report file's and those the hall wrote over it); byes are no game."""
    games: set[tuple[int, int, int]] = set()
    lone = 0  # a team board forfeited without an opponent number: a result with one side
    for player in tournament.players.values():
        for round_number, entry in enumerate(player.rounds, start=1):
            if entry is None or entry.outcome is Outcome.NOT_PLAYED or entry.outcome.is_bye:
                continue
            if entry.opponent is None:
                lone += entry.outcome in (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS)
                continue
            low, high = sorted((player.number, entry.opponent))
            games.add((round_number, low, high))
    return len(games) + lone


def team_forfeits(tournament: Tournament, round_number: int) -> list[dict[str, Any]]:
    """The round's team matches decided by forfeit on every board (no game played), one each: the teams as the
    file lists them and their board points."""
    out = []
    by_number = {t.number: t for t in tournament.teams}
    for team in tournament.teams:
        rounds = team_rounds(tournament, team)
        row = rounds[round_number - 1] if 0 < round_number <= len(rounds) else None
        if row is None or row.opponent is None or row.played or not row.complete:
            continue
        if row.opponent < team.number and row.opponent in by_number:
            continue  # given from the other team's side
        out.append(
            {
                "teams": [team.name, by_number[row.opponent].name],
                "score": [float(row.game_points), float(row.opponent_game_points)],
                "numbers": [team.number, row.opponent],
            }
        )
    return out


def _byes(tournament: Tournament, round_number: int) -> list[dict[str, Any]]:
    """The round's byes and forfeits without a game, as the report file records them; the boards of a team
    match forfeited whole are left to `team_forfeits` (one line, not a player each)."""
    whole = {
        number
        for match in team_forfeits(tournament, round_number)
        for team in tournament.teams
        if team.number in match["numbers"]
        for number in team.players
    }
    out = []
    for player in tournament.players.values():
        entry = player.entry(round_number)
        if entry is None or entry.outcome.played or entry.outcome is Outcome.NOT_PLAYED:
            continue
        if player.number in whole and entry.outcome in (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS):
            continue
        out.append(
            {
                "name": player.name,
                "number": player.number,
                "code": entry.outcome.value,
                "points": float(entry.points),
            }
        )
    return sorted(out, key=lambda b: b["number"])


def check_event(venue: Venue) -> None:
    """Refuse, before the hub serves, a venue whose event cannot be shown: its report file unreadable, or a
    tie-break that is not for its kind of event (a team tie-break on an individual one)."""
    config = venue.tournament
    if config is None:
        return
    where = venue.path or Path("venue")
    try:
        tournament = load_trf(config.trf)
    except TrfError as exc:
        raise VenueError(where, None, "tournament.trf", f"{exc}") from None
    try:
        standings(tournament, tiebreaks=parse_tiebreaks(list(config.tiebreaks)) if config.tiebreaks else None)
    except ValueError as exc:
        raise VenueError(where, None, "tournament.tiebreaks", str(exc)) from None
