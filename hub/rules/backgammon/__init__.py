"""Backgammon legality and match state as a pure reducer (Backgammon Tournament Rules §5–§8).

Two layers:

- an exact move model: `Position` (`model`) and one move generator (`moves`) behind `legal_plays`,
  `legal_results`, `partial_results` and the contract function `legal_position_ids`, which agrees with
  GNU Backgammon's generator (max dice, then max pips, results deduplicated by resulting position);
- the match: `initial`, `apply(state, event, at) -> Outcome` (`reducer`, with `turns`, `cube` and
  `score`), which folds dice, board snapshots, clock presses, cube actions and resignations (`resign`), and reports facts and
  anomalies (`bg.*`) without ever rejecting an input.

Also here: the state as plain data and as IDs (`codec`), digital boards' reports (`boards`), Position ID /
Match ID / XGID (`ids`), the `.mat` export (`export`) and `BackgammonSport` (`sport`: the package behind
the hub's `SportRules`).

Sides are 0 = A and 1 = B. `Position.points[0]` is point 1 seen from A: A's checkers are positive and move
from 24 towards 1; B's are negative and move from 1 towards 24.
"""

from hub.rules.backgammon import export, ids
from hub.rules.backgammon.boards import (
    BackgammonConfig,
    apply_report,
    events_of,
    initial_from_config,
    input_from_dict,
    input_to_dict,
)
from hub.rules.backgammon.codec import from_dict, gnubg_id, to_dict, to_xgid, xgid
from hub.rules.backgammon.ids import IdError, board_from_position_id
from hub.rules.backgammon.model import (
    CHECKERS,
    SIDE_NAMES,
    START,
    Move,
    Play,
    Position,
    board_problem,
    notation,
    play_steps,
)
from hub.rules.backgammon.moves import legal_plays, legal_position_ids, legal_results, partial_results
from hub.rules.backgammon.reducer import apply
from hub.rules.backgammon.state import (
    Action,
    BackgammonState,
    BoardSnapshot,
    ClockPress,
    Cube,
    CubeAction,
    Event,
    GameRecord,
    InvalidDice,
    Opening,
    Phase,
    PlayedTurn,
    Resign,
    ResignAnswer,
    ResignReply,
    Roll,
    Tick,
    initial,
)

__all__ = [
    "CHECKERS",
    "SIDE_NAMES",
    "START",
    "Action",
    "BackgammonConfig",
    "BackgammonState",
    "BoardSnapshot",
    "ClockPress",
    "Cube",
    "CubeAction",
    "Event",
    "GameRecord",
    "IdError",
    "InvalidDice",
    "Move",
    "Opening",
    "Phase",
    "Play",
    "PlayedTurn",
    "Position",
    "Resign",
    "ResignAnswer",
    "ResignReply",
    "Roll",
    "Tick",
    "apply",
    "apply_report",
    "board_from_position_id",
    "board_problem",
    "events_of",
    "export",
    "from_dict",
    "gnubg_id",
    "ids",
    "initial",
    "initial_from_config",
    "input_from_dict",
    "input_to_dict",
    "legal_plays",
    "legal_position_ids",
    "legal_results",
    "notation",
    "partial_results",
    "play_steps",
    "to_dict",
    "to_xgid",
    "xgid",
]
