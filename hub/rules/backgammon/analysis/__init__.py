"""Backgammon performance ratings for spectators: each player's decisions analysed by GNU Backgammon
(`worker`, `gnubg_worker`), read into errors and PR as gnubg's own statistics read them (`decisions`), live
and behind the broadcast delay (`service`). `attach` turns them on for a hall whose venue shows them."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hub.rules.backgammon.analysis.decisions import (
    Decision,
    GameAnalysis,
    Kind,
    PlayerAnalysis,
    band,
    game_analysis,
    summarise,
)
from hub.rules.backgammon.analysis.service import AnalysisService
from hub.rules.backgammon.analysis.worker import AnalysisError, analyse_once, find_gnubg
from hub.rules.sport import SpectatorExtra

if TYPE_CHECKING:
    from hub.hall.spectators import PublicHall

log = logging.getLogger(__name__)


def attach(hall: PublicHall) -> SpectatorExtra | None:
    """Show performance ratings on the hall's backgammon screens if its venue wants them and has backgammon."""
    venue = hall.venue
    if not venue.performance.enabled or all(m.sport != "backgammon" for m in venue.matches):
        return None
    path = find_gnubg()
    return hall.show_extra(
        "backgammon",
        lambda resend, delay: AnalysisService(resend, delay, venue.performance, path),
        key="performance",
    )


__all__ = [
    "AnalysisError",
    "AnalysisService",
    "Decision",
    "GameAnalysis",
    "Kind",
    "PlayerAnalysis",
    "analyse_once",
    "attach",
    "band",
    "find_gnubg",
    "game_analysis",
    "summarise",
]
