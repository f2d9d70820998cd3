"""An anomaly as a screen shows it: its messages naming the match's players (`hub.rules.names`)."""

from __future__ import annotations

from typing import Any

from hub.matches.model import MatchInfo
from hub.rules.names import named


def named_anomaly(view: dict[str, Any], info: MatchInfo) -> dict[str, Any]:
    """An anomaly's view with the side marks of its messages (and of each later occurrence's) written as the
    venue's names for the match."""
    for said in (view, *view.get("occurrences", ())):
        said["message_en"] = named(said["message_en"], info.players, info.doubles, "en")
        said["message_tr"] = named(said["message_tr"], info.players, info.doubles, "tr")
    return view
