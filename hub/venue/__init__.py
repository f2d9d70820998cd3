"""The venue file: tables, their devices, matches and referees, read from TOML and checked field by field.

A mistake in the file is reported once, precisely: the file, the line, the field, what is wrong, in English
and Turkish. The organiser fixes one line and runs again.

- `model`: the dataclasses (`Venue`, `TableConfig`, …) and `VenueError`;
- `parse`: `load_venue` / `parse_venue`, the `[venue]` settings, tables, team matches, referees, players;
- `keys`: the keys each place may hold, unknown keys refused with a suggestion, lines found for errors;
- `devices`: device, clock and wristband URLs, checked by the family that reads each (devices/registry.py);
- `matches`: `[[matches]]`, with each sport's own fields;
- `rules`: `[rules."code"]`, the venue's own wording of the rule an anomaly code points to.
"""

from hub.matches import MatchInfo
from hub.venue.keys import (
    MATCH_KEYS,
    PLAYER_KEYS,
    REFEREE_KEYS,
    SPORT_MATCH_KEYS,
    TABLE_KEYS,
    TEAM_MATCH_KEYS,
    TOP_KEYS,
    TOURNAMENT_KEYS,
    VENUE_KEYS,
)
from hub.venue.model import (
    CHESS_BOARD_CATEGORIES,
    CHESS_TITLES,
    ID_PATTERN,
    PlayerConfig,
    RefereeConfig,
    TableConfig,
    TeamMatchConfig,
    TournamentConfig,
    Venue,
    VenueError,
)
from hub.venue.parse import file_stamp, load_venue, parse_venue

__all__ = [
    "CHESS_BOARD_CATEGORIES",
    "CHESS_TITLES",
    "ID_PATTERN",
    "MATCH_KEYS",
    "PLAYER_KEYS",
    "REFEREE_KEYS",
    "SPORT_MATCH_KEYS",
    "TABLE_KEYS",
    "TEAM_MATCH_KEYS",
    "TOP_KEYS",
    "TOURNAMENT_KEYS",
    "VENUE_KEYS",
    "MatchInfo",
    "PlayerConfig",
    "RefereeConfig",
    "TableConfig",
    "TeamMatchConfig",
    "TournamentConfig",
    "Venue",
    "VenueError",
    "file_stamp",
    "load_venue",
    "parse_venue",
]
