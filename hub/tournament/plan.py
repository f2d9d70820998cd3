"""A round planned as venue entries, and the write that adds them to the venue file.

`RoundPlan` holds the `[[matches]]` and `[[team_matches]]` a round adds, and what the round has that is not a
game on a table (byes, forfeits); `RoundPlan.toml` writes them as the venue docs show them, byes and forfeits
as comments after the entries. `table_list` reads `--tables`; `count` and `hub.matches.naming.sport_names` word the messages in
both languages; `add_to_venue` appends a plan to the venue file, only once the whole text still reads as a
venue, in one atomic replace. Planning a round is `hub.tournament.rounds` (report files) and
`hub.tournament.draw` (CSV draws).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hub.matches.naming import sport_names
from hub.rules.registry import PAIRED_SPORT
from hub.venue import Venue
from hub.venue.matches import read_terms
from hub.venue.write import TomlValue, append_to_venue, toml_value


def check_time_control(text: str) -> str | None:
    """What is wrong with a time control in the paired sport's notation ("5400+30"), or None when it reads."""
    try:
        read_terms(PAIRED_SPORT, {"time_control": text}, _as_value_error)
    except ValueError as exc:
        return str(exc)
    return None


def _as_value_error(key: str | None, message: str, /, at: str | None = None) -> ValueError:
    return ValueError(message)


def count(number: int, one: str, many: str) -> str:
    """A number with its noun in the singular or the plural ("1 game", "6 games")."""
    return f"{number} {one if number == 1 else many}"


class RoundError(ValueError):
    """A round that cannot be imported; str() is the message for the organiser (file and line when known)."""

    def __init__(
        self, message: str, source: str | None = None, line: int | None = None, column: str = ""
    ) -> None:
        self.source, self.line, self.column = source, line, column
        where = ":".join(str(x) for x in (source, line) if x is not None)
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}{column + ': ' if column else ''}{message}")


@dataclass(frozen=True, slots=True)
class Bye:
    """A player with no game in the round: the code the file gives (U H F Z, or a forfeit without an opponent
    that is no board of a team match)."""

    round: int
    player: str
    number: int
    code: str
    points: Fraction


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A game the file already decides by forfeit (+/-): listed, not put on a table."""

    round: int
    board: int  # the board it has in the round's order (inside its team match, for a team event)
    white: str
    black: str
    result: str  # "1-0F", "0-1F", "0-0F"


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """A `[[matches]]` entry to add: id, table, round, players, then its sport's own keys in writing order."""

    id: str
    table: str
    round: int
    players: tuple[str, ...]
    extra: tuple[tuple[str, TomlValue], ...] = ()


@dataclass(frozen=True, slots=True)
class PlannedTeamMatch:
    """A `[[team_matches]]` entry to add."""

    id: str
    round: int
    teams: tuple[str, str]  # home first: the team with White on board 1
    pairing: tuple[int, int]
    forfeits: tuple[Forfeit, ...] = ()  # its boards the file already decides by forfeit


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The entries a round adds to the venue, and what the round has that is not a game on a table."""

    source: str  # the file the round comes from, named in the header comment
    rounds: tuple[int, ...]
    matches: tuple[PlannedMatch, ...]
    team_matches: tuple[PlannedTeamMatch, ...] = ()
    byes: tuple[Bye, ...] = ()
    forfeits: tuple[Forfeit, ...] = ()
    tournament_trf: str | None = None  # a `[tournament] trf` to add: the venue names no event yet
    tables: tuple[str, ...] = ()  # the tables used, in board order

    def toml(self) -> str:
        """The TOML text of the new entries, written as the venue docs show them, after a header comment."""
        rounds = ", ".join(str(r) for r in self.rounds)
        label = ("round", "tur") if len(self.rounds) == 1 else ("rounds", "turlar")
        name = Path(self.source).name
        ordinals = ", ".join(f"{r}." for r in self.rounds)
        out = [f"# {label[0]} {rounds} from {name} / {name} dosyasından {ordinals} {label[1]}"]
        if self.tournament_trf is not None:
            out += ["", "[tournament]", f"trf = {toml_value(self.tournament_trf)}"]
        for team_match in self.team_matches:
            out += [
                "",
                "[[team_matches]]",
                f"id = {toml_value(team_match.id)}",
                f"round = {team_match.round}",
                f"teams = {toml_value(team_match.teams)}",
                f"pairing = {toml_value(team_match.pairing)}",
            ]
            if team_match.forfeits:
                out += ["forfeits = [", *(f"    {_forfeit_toml(f)}," for f in team_match.forfeits), "]"]
        for match in self.matches:
            out += [
                "",
                "[[matches]]",
                f"id = {toml_value(match.id)}",
                f"table = {toml_value(match.table)}",
                f"round = {match.round}",
                f"players = {toml_value(match.players)}",
            ]
            out += [f"{key} = {toml_value(value)}" for key, value in match.extra]
        return "\n".join(out + self._not_on_tables()) + "\n"

    def _not_on_tables(self) -> list[str]:
        """Comments after the entries for what is no entry: byes, and forfeits outside a team match (a team
        match's forfeited boards are its `forfeits` entry)."""
        in_entries = {f for t in self.team_matches for f in t.forfeits}
        lines = [f"#   {forfeit_line(f)}" for f in self.forfeits if f not in in_entries]
        lines += [f"#   {bye_line(b)}" for b in self.byes]
        if not lines:
            return []
        head = (
            "# not on a table (they stay in the report file) / masada oynanmayanlar (rapor dosyasında kalır):"
        )
        return ["", head, *lines]


def forfeit_line(forfeit: Forfeit) -> str:
    """A game decided by forfeit, as the command and the comments write it."""
    return (
        f"board {forfeit.board}: {forfeit.white} - {forfeit.black} {forfeit.result} "
        f"(forfeit, no table / hükmen, masasız)"
    )


def bye_line(bye: Bye) -> str:
    """A player with no game in the round, as the command and the comments write it."""
    return f"{bye.player} ({bye.number}): {bye.code} {float(bye.points):g} (no game / maçsız)"


def _forfeit_toml(forfeit: Forfeit) -> str:
    players = toml_value((forfeit.white, forfeit.black))
    return f"{{board = {forfeit.board}, players = {players}, result = {toml_value(forfeit.result)}}}"


# -- tables ---------------------------------------------------------------------------------------------------


def table_list(text: str | None, venue: Venue, sport: str, round_numbers: tuple[int, ...]) -> tuple[str, ...]:
    """The tables to use, in order: a range `T1-T40`, a list `T1,T2,T5` (ranges allowed in it), or by default
    the venue's tables of the sport, in file order, that have no match of the rounds yet."""
    if text is None:
        busy = {m.table for m in venue.matches if m.round in round_numbers}
        return tuple(t.id for t in venue.tables if t.sport == sport and t.id not in busy)
    chosen: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise RoundError(f"--tables {text!r}: an empty name between commas / virgüller arasında boş ad")
        known = {t.id: t for t in venue.tables}
        for table_id in [part] if part in known else _expand(part):  # a table named 'A1-2' is one table
            if table_id not in known:
                raise RoundError(no_table(table_id, venue))
            if known[table_id].sport != sport:
                has, wanted = sport_names([known[table_id].sport]), sport_names([sport])
                raise RoundError(
                    f"table {table_id} is a {has[0]} table, not a {wanted[0]} table "
                    f"/ {table_id} bir {has[1]} masası, {wanted[1]} masası değil"
                )
            if table_id in chosen:
                raise RoundError(f"table {table_id} is listed twice / {table_id} masası iki kez yazılmış")
            chosen.append(table_id)
    return tuple(chosen)


def no_table(table_id: str, venue: Venue) -> str:
    """The message for a table the venue does not have, naming the nearest it has."""
    near = difflib.get_close_matches(table_id, [t.id for t in venue.tables], n=1, cutoff=0.6)
    hint = (f"; did you mean {near[0]}?", f"; {near[0]} mı demek istediniz?") if near else ("", "")
    return f"no table {table_id!r} in the venue{hint[0]} / salonda böyle bir masa yok{hint[1]}"


def _expand(part: str) -> list[str]:
    """`T1-T40` (or `T1-40`) -> T1 … T40, leading zeros kept (`T01-T12`); anything else is one table's id."""
    found = re.fullmatch(r"(?P<prefix>.*?)(?P<first>\d+)-(?P=prefix)?(?P<last>\d+)", part)
    if found is None:
        return [part]
    first, last = found["first"], found["last"]
    if int(last) < int(first):
        raise RoundError(f"--tables {part!r}: the range runs backwards / aralık ters yazılmış")
    width = len(first) if first.startswith("0") else 0
    return [f"{found['prefix']}{n:0{width}d}" for n in range(int(first), int(last) + 1)]


def need_tables(tables: tuple[str, ...], needed: int) -> None:
    """Refuse a table list shorter than the games that need a table."""
    if len(tables) < needed:
        raise RoundError(
            f"{count(needed, 'table is', 'tables are')} needed, {len(tables)} given "
            f"/ {needed} masa gerekli, {len(tables)} verildi"
        )


def refuse_clashes(ids: list[str], venue: Venue) -> None:
    """Refuse match or team-match ids the venue already has."""
    taken = {m.id for m in venue.matches} | {t.id for t in venue.team_matches}
    clash = [i for i in ids if i in taken]
    if clash:
        raise RoundError(
            f"the venue already has {len(clash)} of the ids this round would add ({', '.join(clash[:5])}) "
            f"/ salonda bu turun eklediği kimliklerden {len(clash)} tanesi zaten var ({', '.join(clash[:5])})"
        )


# -- the venue file -------------------------------------------------------------------------------------------


def add_to_venue(path: Path | str, plan: RoundPlan) -> None:
    """Append the plan's entries to the venue file, once the whole text still reads as a venue (else raise
    its VenueError and change nothing)."""
    append_to_venue(Path(path), plan.toml())
