"""Backgammon winning chances for spectators: GNU Backgammon's net (`engine`) run off the event loop and
shown behind the broadcast delay (`service`). `attach` turns them on for a hall whose venue shows them."""

from __future__ import annotations

import importlib.util
import logging
from typing import TYPE_CHECKING

from hub.rules.backgammon.chances.engine import Chances, GnubgNet, evaluable, evaluate, evaluate_job
from hub.rules.backgammon.chances.service import ChanceService
from hub.rules.sport import SpectatorExtra

if TYPE_CHECKING:
    from hub.hall.spectators import PublicHall

log = logging.getLogger(__name__)


def attach(hall: PublicHall) -> SpectatorExtra | None:
    """Show winning chances on the hall's backgammon screens if its venue wants them and has backgammon."""
    venue = hall.venue
    if not venue.winning_chances or all(m.sport != "backgammon" for m in venue.matches):
        return None
    if importlib.util.find_spec("gnubg_nn") is None:  # the worker loads it; the hub only looks
        log.warning(
            "winning chances are off: gnubg-nn is not installed (pip install gnubg-nn) "
            "/ kazanma olasılıkları kapalı: gnubg-nn kurulu değil"
        )
        return None
    return hall.show_extra("backgammon", ChanceService)


__all__ = ["ChanceService", "Chances", "GnubgNet", "attach", "evaluable", "evaluate", "evaluate_job"]
