"""What a venue file read again may change while its hub runs: new rounds only.

A hub running a hall takes a venue file read again (a round the organiser imported) only if everything it
already runs is as it was: the same tables and settings, every match, team match and referee it knows
unchanged. New matches, team matches and referees are the change; anything else is refused, naming what
differs, and the hub goes on with the venue it has (a restart applies other changes).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from hub.matches import MatchInfo
from hub.venue.model import RefereeConfig, TeamMatchConfig, Venue

_GROWING = ("matches", "team_matches", "tournament", "referees")  # the fields a new round may change


_SECTIONS = {"tables": "[[tables]]", "players": "[[players]]", "rules": "[rules]"}  # where a field is written


class VenueChangeRefused(ValueError):
    """The venue file read again changes more than new rounds; str() says what (English / Turkish)."""


@dataclass(frozen=True, slots=True)
class NewRounds:
    """The matches and team matches a venue file read again adds."""

    venue: Venue
    matches: tuple[MatchInfo, ...]
    team_matches: tuple[TeamMatchConfig, ...]
    referees: tuple[
        RefereeConfig, ...
    ] = ()  # referees added (`boardcast token add`): their tokens work at once

    @property
    def rounds(self) -> tuple[int, ...]:
        """The rounds the new matches belong to."""
        return tuple(sorted({m.round for m in self.matches} | {t.round for t in self.team_matches}))


def new_rounds(running: Venue, read: Venue) -> NewRounds:
    """What `read` adds to `running`; VenueChangeRefused when it changes anything else."""
    problems: list[str] = []
    for f in fields(Venue):
        if f.name in _GROWING or f.name == "path":
            continue
        if getattr(running, f.name) != getattr(read, f.name):
            problems.append(f"{_SECTIONS.get(f.name, f'[venue] {f.name}')} changed / değişti")
    if running.tournament is not None and running.tournament != read.tournament:
        problems.append("[tournament] changed / değişti")
    problems += _changed("match", {m.id: m for m in running.matches}, {m.id: m for m in read.matches})
    problems += _changed(
        "team match", {t.id: t for t in running.team_matches}, {t.id: t for t in read.team_matches}
    )
    problems += _changed("referee", {r.name: r for r in running.referees}, {r.name: r for r in read.referees})
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise VenueChangeRefused(
            f"the venue file changes what is already running ({shown}); only new rounds are taken while "
            f"the hub runs, restart it for other changes / dosya çalışan salonu değiştiriyor, yalnızca yeni "
            f"turlar alınır"
        )
    known = {m.id for m in running.matches}
    known_teams = {t.id for t in running.team_matches}
    referees = {r.name for r in running.referees}
    return NewRounds(
        read,
        tuple(m for m in read.matches if m.id not in known),
        tuple(t for t in read.team_matches if t.id not in known_teams),
        tuple(r for r in read.referees if r.name not in referees),
    )


def _changed(kind: str, before: dict[str, object], after: dict[str, object]) -> list[str]:
    out = []
    for key, value in before.items():
        if key not in after:
            out.append(f"{kind} {key} is gone / {key} silinmiş")
        elif after[key] != value:
            out.append(f"{kind} {key} changed / {key} değişmiş")
    return out
