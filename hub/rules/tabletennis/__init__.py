"""Table-tennis rules (ITTF 2.11–2.15, 3.4.4, 3.5.2) as one pure reducer over scoreboard and umpire inputs.

`apply(state, input, at)` (`reducer`) folds one input into the match and returns the new state with the
facts and anomalies it saw; time is an argument. The modules, by meaning: `model` (configuration, inputs,
state, the rules of a score), `service` (who serves, the serve order), `messages` (anomaly codes and texts),
`steps` and `reducer` (the fold of one input), `views` (screens), `codec` (plain data), `export` (match card, compact notation),
`sport` (`TableTennisSport`: the package behind the hub's `SportRules`).
"""

from hub.rules.base import Anomaly, Fact, Outcome
from hub.rules.tabletennis.codec import from_dict, input_from_dict, input_to_dict, to_dict, to_input
from hub.rules.tabletennis.messages import ANOMALY_CODES
from hub.rules.tabletennis.model import (
    CARDS,
    DOUBLES_PLAYERS,
    ENDS,
    RULESETS,
    Card,
    Correction,
    Display,
    ExpediteStart,
    Input,
    OtherEvent,
    PointRecord,
    TableTennisConfig,
    TableTennisState,
    Tick,
    TimeOut,
    Toss,
    UmpirePoint,
    UmpireUndo,
    game_over,
    game_target,
    initial,
    match_result,
)
from hub.rules.tabletennis.reducer import apply
from hub.rules.tabletennis.service import service
from hub.rules.tabletennis.views import TILE_KEYS, tile, view

__all__ = [
    "ANOMALY_CODES",
    "CARDS",
    "DOUBLES_PLAYERS",
    "ENDS",
    "RULESETS",
    "TILE_KEYS",
    "Anomaly",
    "Card",
    "Correction",
    "Display",
    "ExpediteStart",
    "Fact",
    "Input",
    "OtherEvent",
    "Outcome",
    "PointRecord",
    "TableTennisConfig",
    "TableTennisState",
    "Tick",
    "TimeOut",
    "Toss",
    "UmpirePoint",
    "UmpireUndo",
    "apply",
    "from_dict",
    "game_over",
    "game_target",
    "initial",
    "input_from_dict",
    "input_to_dict",
    "match_result",
    "service",
    "tile",
    "to_dict",
    "to_input",
    "view",
]
