"""The tie-breaks a venue or the command line may name, and what each means for individuals and for teams.

A tie-break is named by the regulations' short name (`BH-1`, `GP`, `DE`, …) or by its FIDE C.07 descriptor
(`BH/C1`, `EDE`, `BC`, …). `parse_tiebreaks` turns names into `Tiebreak` values; an unknown name is an
error naming the nearest known one. `event_tiebreaks` is the one rule for which apply: the ones named (venue
or command line), else the report file's own (record 212, or the older 202), else the defaults. The values carry the criterion `hub.tournament.standings` asks the
tie-break library for: an individual criterion id, a team descriptor, or a stage computed here.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from hub.tournament.model import Tournament


class Ruleset(StrEnum):
    """The edition of FIDE C.07 whose unplayed-round rules (Article 16) the tie-breaks follow."""

    FIDE_2024 = "fide-2024"  # C.07 as applied from 1 August 2024 (the 2023 text, "/V1")
    FIDE_2026 = "fide-2026"  # C.07 as applied from 1 March 2026 (capped virtual opponents)


# The 2024 edition: FIDE's published worked answers (Held's exercises) are computed with it, so the
# standings a referee checks by hand against them agree; the 2026 edition is one argument away.
DEFAULT_RULESET = Ruleset.FIDE_2024

POINTS = "points"  # the event's score itself: game points (individuals) or the primary score (teams)
DIRECT = "direct_encounter"
TEAM_BH = "team_buchholz"  # team Buchholz of match points, computed in hub.tournament.standings


@dataclass(frozen=True, slots=True)
class Tiebreak:
    """One tie-break as named, with what it means for individuals and for teams (None: not for those)."""

    name: str  # as written, upper case ("BH-1", "BH/C1")
    individual: str | None  # a library criterion id, POINTS, or DIRECT
    team: str | None  # a library team descriptor, POINTS, "MP"/"GP" (a score), or TEAM_BH
    cut: int = 0  # Buchholz cut for TEAM_BH


@dataclass(frozen=True, slots=True)
class _Known:
    individual: str | None
    team: str | None
    cut: int = 0


_CATALOGUE: dict[str, _Known] = {
    "PTS": _Known(POINTS, POINTS),
    "MP": _Known(None, "MP"),
    "GP": _Known(POINTS, "GP"),
    "BH": _Known("buchholz", TEAM_BH),
    "BH-1": _Known("buchholz_cut1", TEAM_BH, 1),
    "BH/C1": _Known("buchholz_cut1", TEAM_BH, 1),
    "BH-2": _Known("buchholz_cut2", TEAM_BH, 2),
    "BH/C2": _Known("buchholz_cut2", TEAM_BH, 2),
    "MBH": _Known("median_buchholz", "BH:MP/M1"),
    "BH/M1": _Known("median_buchholz", "BH:MP/M1"),
    "BH/M2": _Known("median_buchholz_2", "BH:MP/M2"),
    "SB": _Known("sonneborn_berger", "EMGSB"),  # teams: opponents' match points x game points against them
    "SB-1": _Known("sonneborn_berger_cut1", "EMGSB/C1"),
    "SB/C1": _Known("sonneborn_berger_cut1", "EMGSB/C1"),
    "DE": _Known(DIRECT, "EDE"),
    "EDE": _Known(None, "EDE"),
    "WIN": _Known("wins", "WIN:MP"),
    "WON": _Known("won", "WON:MP"),
    "BPG": _Known("games_black", None),
    "BWG": _Known("wins_black", None),
    "REP": _Known("rounds_elected", None),
    "ARO": _Known("aro", None),
    "ARO/C1": _Known("aro_cut1", None),
    "TPR": _Known("tpr", None),
    "PTP": _Known("ptp", None),
    "APRO": _Known("apro", None),
    "APPO": _Known("appo", None),
    "AOB": _Known("aob", None),
    "FB": _Known("fore_buchholz", None),
    "PS": _Known("progressive", "PS:MP"),
    "PS/C1": _Known("progressive_cut1", None),
    "KS": _Known("koya", "KS:MP"),
    "BC": _Known(None, "BC"),
    "TBR": _Known(None, "TBR"),
    "BBE": _Known(None, "BBE"),
    "MPVGP": _Known(None, "MPVGP"),
    "EMMSB": _Known(None, "EMMSB"),
    "EMGSB": _Known(None, "EMGSB"),
    "EGMSB": _Known(None, "EGMSB"),
    "EGGSB": _Known(None, "EGGSB"),
}
KNOWN_NAMES = tuple(_CATALOGUE)

# FIDE's usual order for an individual Swiss; the regulations' order for a team event (match points
# first, then Buchholz cut 1 of match points, game points, direct encounter).
INDIVIDUAL_DEFAULT = ("BH-1", "BH", "SB", "DE")
TEAM_DEFAULT = ("MP", "BH-1", "GP", "DE")


def parse_tiebreak(name: str) -> Tiebreak:
    """One tie-break by its short name or C.07 descriptor; ValueError naming the nearest known one."""
    key = name.strip().upper()
    known = _CATALOGUE.get(key)
    if known is None:
        close = difflib.get_close_matches(key, KNOWN_NAMES, n=1, cutoff=0.5)
        if close:
            raise ValueError(
                f"unknown tie-break {name}; did you mean {close[0]}? "
                f"/ bilinmeyen eşitlik bozma ölçütü {name}; {close[0]} mı demek istediniz?"
            )
        raise ValueError(
            f"unknown tie-break {name}; known: {', '.join(KNOWN_NAMES)} / bilinmeyen eşitlik bozma ölçütü {name}"
        )
    return Tiebreak(key, known.individual, known.team, known.cut)


def parse_tiebreaks(names: tuple[str, ...] | list[str]) -> tuple[Tiebreak, ...]:
    """Tie-breaks in the order named; ValueError (English / Turkish) for an unknown or repeated name."""
    parsed = tuple(parse_tiebreak(n) for n in names)
    seen: set[str] = set()
    for tiebreak in parsed:
        if tiebreak.name in seen:
            raise ValueError(
                f"tie-break {tiebreak.name} is named twice / {tiebreak.name} ölçütü iki kez yazılmış"
            )
        seen.add(tiebreak.name)
    return parsed


def default_tiebreaks(team_event: bool) -> tuple[Tiebreak, ...]:
    """The tie-breaks used when none are configured."""
    return parse_tiebreaks(TEAM_DEFAULT if team_event else INDIVIDUAL_DEFAULT)


# TRF-2025's record of the tie-breaks used to define the standings, then the older record; a comma list
STATED_RECORDS = ("212", "202")


def stated_text(tournament: Tournament) -> str:
    """The report file's record of its tie-breaks as written (212, else 202), or ""."""
    return next((tournament.header[c] for c in STATED_RECORDS if tournament.header.get(c, "").strip()), "")


def stated_tiebreaks(tournament: Tournament) -> tuple[Tiebreak, ...] | None:
    """The tie-breaks the report file states (record 212, else 202), or None when it states none or names
    one unknown here or not for its kind of event (individual or team)."""
    names = [n for n in stated_text(tournament).split(",") if n.strip()]
    if not names:
        return None
    try:
        parsed = parse_tiebreaks(names)
    except ValueError:
        return None
    team = tournament.is_team_event
    if any((t.team if team else t.individual) is None for t in parsed):
        return None
    return parsed


def event_tiebreaks(tournament: Tournament, named: Sequence[Tiebreak] | None) -> tuple[Tiebreak, ...]:
    """The tie-breaks an event's standings use: those named, else the file's own, else the defaults."""
    if named:
        return tuple(named)
    return stated_tiebreaks(tournament) or default_tiebreaks(tournament.is_team_event)
