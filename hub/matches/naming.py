"""An anomaly as a screen shows it: its messages naming the match's players (`hub.rules.names`)."""

from __future__ import annotations

from typing import Any

from hub.matches.model import MatchInfo
from hub.rules.names import named


def named_anomaly(view: dict[str, Any], info: MatchInfo) -> dict[str, Any]:
    """An anomaly's view with the side marks of its messages written as the venue's names for the match."""
    view["message_en"] = named(view["message_en"], info.players, info.doubles, "en")
    view["message_tr"] = named(view["message_tr"], info.players, info.doubles, "tr")
    return view
