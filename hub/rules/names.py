"""Players' names in anomaly messages: the rules write who as a mark, the views put in the venue's names.

The rules are pure and know sides, not people. A message writes `{A}` / `{B}` for a side (a player, or a
pair in doubles), `{A1}`…`{B2}` for one player of a doubles pair, `{white}` / `{black}` for a chess colour
and its player ("Ayşe Yılmaz (White)"), and `{white_player}` / `{black_player}` for the player alone (after
a clock side: "the left clock (Ayşe Yılmaz)"). `named` renders the marks with the match's players as the
venue file lists them (two names, four in doubles, chess White first) wherever a message is shown: the
match views and `boardcast check`. A side with no name stays "A"/"B", a colour "White"/"Beyaz". Only the
marks are replaced: a brace in reported data (a repr of a device's payload) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_MARK = re.compile(r"\{(A|B|A1|A2|B1|B2|white|black|white_player|black_player)\}")
_COLOURS = {"white": ("White", "Beyaz"), "black": ("Black", "Siyah")}
_DOUBLES_INDEX = {"A1": 0, "A2": 1, "B1": 2, "B2": 3}


def side_mark(side: int) -> str:
    """The mark of side 0 or 1 ("{A}" / "{B}") for a message."""
    return "{A}" if side == 0 else "{B}"


def player_mark(player: str) -> str:
    """The mark of one player of a doubles pair ("A1".."B2") for a message."""
    return "{" + player + "}"


def colour_mark(white: bool, *, player_only: bool = False) -> str:
    """The mark of a chess colour ("{white}" / "{black}"), or of its player alone, for a message."""
    mark = "white" if white else "black"
    return "{" + mark + ("_player}" if player_only else "}")


def named(text: str, players: Sequence[str] = (), doubles: bool = False, lang: str = "en") -> str:
    """`text` with every mark replaced by the players' names, in language `lang` ("en" or "tr")."""
    if "{" not in text:
        return text
    names = [p.strip() if isinstance(p, str) else "" for p in players]

    def name(index: int) -> str:
        return names[index] if index < len(names) else ""

    def render(found: re.Match[str]) -> str:
        mark = found.group(1)
        colour_key, _, player_only = mark.partition("_")
        if colour_key in _COLOURS:
            colour = _COLOURS[colour_key][1 if lang == "tr" else 0]
            who = name(0 if colour_key == "white" else 1)
            if player_only:
                return who or colour
            return f"{who} ({colour})" if who else colour
        if mark in _DOUBLES_INDEX:
            return (name(_DOUBLES_INDEX[mark]) if doubles else "") or mark
        side = 0 if mark == "A" else 1
        if doubles:
            pair = [n for n in (name(2 * side), name(2 * side + 1)) if n]
            return " / ".join(pair) if len(pair) == 2 else mark
        return name(side) or mark

    return _MARK.sub(render, text)
