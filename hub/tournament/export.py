"""A round's results going back out: to the pairing program (the report file), relays (PGN) and the federation.

The core is pure: `trf_with_round` writes a round's results of the sport with paired rounds
(`hub.tournament.hallresults`, which says which count) into the tournament's report file, `round_pgn` its games'
records (`SportRules.records`), `round_csv` lists a round's matches of the other sports, with the scores each
sport gives (`SportRules.round_scores`). A game with no result is left as the file has it (blank). `read_round` is the edge: it rebuilds a round's
matches from a data directory's log, read-only, while a hub may be writing it.
"""

from __future__ import annotations

import csv
import enum
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hub.hall.live import replay_match
from hub.log.eventlog import LOG_FILE, Snapshot, read_only, unpack_snapshot
from hub.matches import MatchState
from hub.matches.naming import sport_names
from hub.rules.registry import PAIRED_SPORT, SPORTS
from hub.tournament.draw import DRAW_SPORTS
from hub.tournament.hallresults import GameLine, round_results
from hub.tournament.model import Colour, TextEncoding, Tournament
from hub.tournament.trf import load_trf, write_round
from hub.venue import Venue


class ExportError(ValueError):
    """An export that cannot be made; the message says why in English and Turkish, on one line."""


class ExportFormat(enum.StrEnum):
    """What a round is exported as."""

    TRF = "trf"  # the pairing program's report file, with the round's results (the sport with paired rounds)
    PGN = "pgn"  # the round's game records (that sport's)
    CSV = "csv"  # the round's matches of the sports drawn from a CSV

    @property
    def sports(self) -> tuple[str, ...]:
        """The sports whose matches this format carries."""
        return DRAW_SPORTS if self is ExportFormat.CSV else (PAIRED_SPORT,)


def trf_with_round(tournament: Tournament, results: Iterable[GameLine], round_number: int) -> bytes:
    """The report file with these results of round `round_number` written in and the totals updated, as the
    bytes of the file read (its encoding, byte-order mark and line breaks)."""
    seen: set[int] = set()
    for white, black, result in results:
        for number, other, colour in ((white, black, Colour.WHITE), (black, white, Colour.BLACK)):
            _check_pairing(tournament, round_number, number, other, colour, seen)
            seen.add(number)
        tournament = tournament.with_result(round_number, white, black, result)
    return write_round(tournament, round_number)


def _check_pairing(
    tournament: Tournament, round_number: int, number: int, other: int, colour: Colour, seen: set[int]
) -> None:
    """Refuse a game the report file cannot take: an unknown player, one paired twice, or a pairing that is
    not the one the file already holds for the round."""
    player = tournament.players.get(number)
    if player is None:
        raise ExportError(
            f"starting rank {number} is not a player of the report file / {number} numaralı oyuncu "
            f"rapor dosyasında yok"
        )
    if number in seen:
        raise ExportError(
            f"player {number} plays two games of round {round_number} / {number} numaralı oyuncu "
            f"{round_number}. turda iki oyunda"
        )
    entry = player.entry(round_number)
    if entry is not None and (entry.opponent, entry.colour) != (other, colour):
        held = f"{entry.opponent or 'no one'} ({entry.colour.value})"
        raise ExportError(
            f"round {round_number}: the venue pairs {number} ({colour.value}) with {other}, the report file "
            f"with {held} / salon eşleşmesi rapor dosyasındakiyle aynı değil"
        )


def round_pgn(
    matches: Sequence[MatchState],
    venue: Venue,
    round_number: int,
    *,
    live: bool,
    event: Tournament | None = None,
) -> str:
    """The round's game records (PGN, `SportRules.records`): official ones, or every game when `live`; `event` is
    the venue's report file (the event's name and city)."""
    records = SPORTS[PAIRED_SPORT].records
    assert records is not None, "the sport with paired rounds keeps its games' records"
    chosen = [m for m in matches if live or m.official]
    return records.round(chosen, venue, round_number, event, None)  # an export carries no engine comments


# -- the sports drawn from a CSV ------------------------------------------------------------------------------

CSV_SPORTS = ExportFormat.CSV.sports
_HEAD = ("round", "table", "match", "player_a", "player_b")  # then partner_a, partner_b if a match is doubles
_TAIL = ("score", "games_or_points", "status", "official")


def round_csv(matches: Iterable[MatchState], round_number: int, *, live: bool) -> str:
    """The round's matches of the CSV sports, one row each: players, match score, every game's score (or the
    points each game won: `SportRules.round_scores`), status and whether official; scores blank unless official
    or `live`."""
    chosen = [m for m in matches if m.info.sport in CSV_SPORTS and m.info.round == round_number]
    chosen.sort(key=lambda m: (m.info.table, m.info.id))
    doubles = any(m.info.doubles for m in chosen)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    partners = ["partner_a", "partner_b"] if doubles else []
    writer.writerow([*_HEAD, *partners, *_TAIL])
    for match in chosen:
        info = match.info
        names = list(info.players)
        players = (
            [names[0], names[2], names[1], names[3]] if info.doubles else names[:2] + [""] * len(partners)
        )
        score, games = _scores(match) if match.official or live else ("", "")
        official = str(match.official).lower()  # as the API's JSON writes it
        writer.writerow(
            [info.round, info.table, info.id, *players, score, games, match.status.value, official]
        )
    return out.getvalue()


def _scores(match: MatchState) -> tuple[str, str]:
    """The match score (a referee's result supersedes the live one) and every game's score."""
    won, scores = match.info.rules.round_scores(match.sport_state)
    if match.result is not None:
        won = match.result.score
    return _pair(won), " ".join(_pair(s) for s in scores)


def _pair(score: Sequence[float]) -> str:
    return "-".join(str(int(v)) if float(v).is_integer() else str(v) for v in score)


# -- a whole export ---------------------------------------------------------------------------------------------


def check_round(venue: Venue, round_number: int, fmt: ExportFormat) -> None:
    """Refuse an export the venue cannot give: no report file for a TRF, no matches of the format's sports in
    the round."""
    if fmt is ExportFormat.TRF and venue.tournament is None:
        raise ExportError(
            "the venue file has no [tournament] (trf = ...): there is no report file to write into "
            "/ salon dosyasında [tournament] yok: yazılacak rapor dosyası yok"
        )
    sports = {m.sport for m in venue.matches if m.round == round_number}
    if not sports:
        raise ExportError(
            f"round {round_number} has no matches in the venue / salonda {round_number}. tur yok"
        )
    if not sports & set(fmt.sports):
        has, takes = sport_names(sorted(sports), ("and", "ve")), sport_names(fmt.sports, ("and", "ve"))
        wanted = ("csv", "csv") if fmt is not ExportFormat.CSV else ("trf or pgn", "trf ya da pgn")
        raise ExportError(
            f"round {round_number} has only {has[0]}: --format {fmt.value} is for {takes[0]}; use {wanted[0]} "
            f"/ {round_number}. turda yalnızca {has[1]} var: --format {fmt.value} {takes[1]} içindir; "
            f"{wanted[1]} kullanın"
        )


@dataclass(frozen=True, slots=True)
class Exported:
    """A round's export: its bytes, their character set as HTTP names it, and a summary line of the paired
    games' results (empty for CSV)."""

    data: bytes
    charset: str
    summary: str


def export_round_file(
    venue: Venue, matches: Sequence[MatchState], round_number: int, fmt: ExportFormat, *, live: bool
) -> Exported:
    """Round `round_number` of `matches` in `fmt`: a TRF is the venue's report file, read now, with the
    round's results, in the file's own encoding and line breaks; PGN and CSV are UTF-8."""
    check_round(venue, round_number, fmt)
    utf8 = TextEncoding.UTF8.value
    if fmt is ExportFormat.CSV:
        return Exported(round_csv(matches, round_number, live=live).encode(utf8), utf8, "")
    results = round_results(matches, round_number, live=live)
    if fmt is ExportFormat.PGN:
        event = load_trf(venue.tournament.trf) if venue.tournament is not None else None
        pgn = round_pgn(matches, venue, round_number, live=live, event=event)
        return Exported(pgn.encode(utf8), utf8, results.summary())
    assert venue.tournament is not None  # `check_round` refused a venue without one
    tournament = load_trf(venue.tournament.trf)
    data = trf_with_round(tournament, results.games, round_number)
    return Exported(data, tournament.form.encoding.value, results.summary())


# -- the edge: a data directory's log, read-only --------------------------------------------------------------


def read_round(venue: Venue, data_dir: Path, round_number: int) -> list[MatchState]:
    """Every match of the venue's round `round_number`, rebuilt from the data directory's log as a hub would on
    start, without writing to it (a hub may be running on it)."""
    path = data_dir / LOG_FILE
    if not path.is_file():
        raise ExportError(
            f"{data_dir} has no event log ({LOG_FILE}): give the hub's --data directory "
            f"/ veri dizininde olay kaydı yok: merkezin --data dizinini verin"
        )
    infos = [m for m in venue.matches if m.round == round_number]
    with read_only(path) as eventlog:
        packed = eventlog.packed_snapshots()
        states = []
        for info in infos:
            found = packed.get(info.id)
            snapshot = (
                None if found is None else Snapshot(info.id, found[0], found[1], unpack_snapshot(found[2]))
            )
            states.append(replay_match(info, eventlog, snapshot=snapshot)[0])
    return states
