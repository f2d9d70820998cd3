"""Matches as people read them: an anomaly's messages and a recorded side (a card, a penalty, a forfeit's loser)
naming the match's players (`hub.rules.names`), and the words for a sport and a match status in English and
Turkish, for messages (a Turkish message never carries a sport's id or "protested")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hub.matches.model import STATUS_NAMES, MatchInfo, MatchStatus
from hub.rules.names import named, player_mark, side_mark
from hub.rules.registry import SPORTS

# a venue sport id -> its name in English and Turkish, for messages
SPORT_NAMES = {name: sport.title for name, sport in SPORTS.items()}


def sport_name(sport: str) -> tuple[str, str]:
    """The sport's name in English and Turkish (its `SportRules.title`); an unknown id as it is."""
    return SPORT_NAMES.get(sport, (sport, sport))


def sport_names(sports: Iterable[str], joiner: tuple[str, str] = ("or", "ya da")) -> tuple[str, str]:
    """Sports' names joined with "or" (or `joiner`), in English and in Turkish (each `SportRules.title`)."""
    names = [sport_name(s) for s in sports]
    return _joined([n[0] for n in names], joiner[0]), _joined([n[1] for n in names], joiner[1])


def _joined(words: list[str], last: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def status_name(status: MatchStatus) -> tuple[str, str]:
    """How a message says the status, in English and Turkish ("under appeal", "itirazda")."""
    return STATUS_NAMES[status]


def named_anomaly(view: dict[str, Any], info: MatchInfo) -> dict[str, Any]:
    """An anomaly's view with the side marks of its messages (and of each later occurrence's) written as the
    venue's names for the match."""
    for said in (view, *view.get("occurrences", ())):
        said["message_en"] = named(said["message_en"], info.players, info.doubles, "en")
        said["message_tr"] = named(said["message_tr"], info.players, info.doubles, "tr")
    return view


def side_name(info: MatchInfo, side: Any, player: Any = None) -> str | None:
    """Who a recorded side is: the player (a doubles pair "X / Y", or its one player when `player` is
    "A1".."B2"), as the venue names them; None for a side that is not 0 or 1 or has no name."""
    if side not in (0, 1) or isinstance(side, bool):
        return None
    mark = player_mark(player) if player in ("A1", "A2", "B1", "B2") else side_mark(side)
    name = named(mark, info.players, info.doubles)
    return None if name == mark.strip("{}") else name


def with_names(data: dict[str, Any], info: MatchInfo) -> dict[str, Any]:
    """A recorded body or fact (`{"side": 1, …}`, `{"loser": 0, …}`, a referee input inside it) with the
    player's name beside each side it records: "name" beside "side", "loser_name" beside "loser". A copy:
    what was recorded is never changed."""
    out = dict(data)
    for key, name_key in (("side", "name"), ("loser", "loser_name")):
        if key in out:
            name = side_name(info, out[key], out.get("player") if key == "side" else None)
            if name is not None:
                out[name_key] = name
    if isinstance(out.get("input"), dict):
        out["input"] = with_names(out["input"], info)
    return out


def named_action(entry: dict[str, Any], info: MatchInfo) -> dict[str, Any]:
    """An audit entry (`{"kind": …, "body": {…}}`) with the player's name beside each side its body records."""
    return (
        {**entry, "body": with_names(entry["body"], info)} if isinstance(entry.get("body"), dict) else entry
    )
