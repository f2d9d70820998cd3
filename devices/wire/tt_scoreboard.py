"""The Boardcast Wire `tt-scoreboard` STATE body, read strictly into a `ScoreboardState`."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from devices.observations import ScoreboardState
from devices.wire.bodies import PAIR, Pair, Side, read_body, require_lists


class _ScoreboardFields(msgspec.Struct):
    """A scoreboard STATE body; `ends`, `expedite` and `server_player` are absent on a version-1 board."""

    points: Pair
    games: Pair
    server: Side | None = None
    game_scores: tuple[Pair, ...] = ()
    ends: Literal["normal", "swapped"] | None = None
    expedite: bool | None = None
    server_player: Literal["A1", "A2", "B1", "B2"] | None = None


class _ScoreboardBody(_ScoreboardFields, forbid_unknown_fields=True):
    """The body as `read_scoreboard_state` reads it from msgpack: a key that is not a field is left to the
    general path (it might hold what `msgpack` refuses)."""


_MUSTS = {
    "points": PAIR,
    "games": PAIR,
    "server": "0, 1 or null",
    "game_scores": "a list of score pairs",
    "game_scores[]": PAIR,
    "ends": "'normal', 'swapped' or null",
    "expedite": "true, false or null",
    "server_player": "'A1', 'A2', 'B1', 'B2' or null",
}
_read_scoreboard_body = msgspec.msgpack.Decoder(_ScoreboardBody).decode


def decode_scoreboard_state(body: Any) -> ScoreboardState:
    """Read a table-tennis scoreboard STATE body; `ends`, `expedite` and `server_player` may be absent or null."""
    s = read_body(body, _ScoreboardFields, "state", _MUSTS)
    require_lists(body, "state", _MUSTS, "game_scores")
    return ScoreboardState(s.points, s.games, s.server, s.game_scores, s.ends, s.expedite, s.server_player)


def read_scoreboard_state(body: bytes) -> ScoreboardState | None:
    """A scoreboard STATE body's msgpack bytes read straight into its state (a `StateReader`); None for
    anything it is not sure of, which the general path (`msgpack` then `decode_scoreboard_state`) reads.

    The types come from msgspec, which reads an integer, a boolean, a string, an array and a map exactly as
    `msgpack.unpackb` does, refuses a boolean or a float where an integer belongs as the general path does,
    and takes the last of a repeated key as a dict does. Anything the general path might read differently
    is left to it: a key that is not a field (it might hold what `msgpack` refuses), a bytes key, a value of
    another type. The ranges are the general path's, in the same field types."""
    try:
        s = _read_scoreboard_body(body)
    except msgspec.DecodeError:  # ValidationError too
        return None
    return ScoreboardState(s.points, s.games, s.server, s.game_scores, s.ends, s.expedite, s.server_player)
