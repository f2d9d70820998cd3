"""The table of sports the hub knows: each sport's reducer, its state codec and the reports it accepts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from devices.observations import (
    BackgammonBoardEvent,
    BackgammonBoardState,
    ChessBoardState,
    ChessClockState,
    DeviceEvent,
    DeviceFamily,
    ScoreboardState,
)
from hub.rules import backgammon, chess, tabletennis
from hub.rules.backgammon import export as backgammon_export
from hub.rules.base import Fact, Outcome
from hub.rules.tabletennis import export as tabletennis_export


@dataclass(frozen=True, slots=True)
class Sport:
    """How one sport plugs into the match model."""

    name: str
    families: frozenset[str]  # device families whose reports feed this sport
    report_type: tuple[type, ...]  # the device report classes the sport's rules accept
    initial: Callable[..., Any]
    apply: Callable[[Any, Any, float], Outcome[Any]]
    to_dict: Callable[[Any], dict[str, Any]]
    from_dict: Callable[[dict[str, Any]], Any]
    input_to_dict: Callable[[Any], dict[str, Any]]  # a device report or rules input as plain data ("type")
    report_from_dict: Callable[[dict[str, Any]], Any]  # the inverse of input_to_dict: a rules input
    winner: Callable[[Any], int | None]
    is_fresh_start: Callable[[Any], bool]  # a report that can only open a new match (0-0, no games)
    config: Callable[[Any], Any]  # the rules' match configuration from the venue's MatchInfo
    tick: Callable[[], Any] | None = None  # an input meaning "time passed", for rules that watch the clock
    tick_every_s: float = 15.0  # how often the hub lets time pass for this sport's live matches
    result: Callable[[Any], str | None] | None = None  # "1-0", "1/2-1/2": for sports with draws
    view: Callable[[Any], dict[str, Any]] | None = None  # what screens get, when less than to_dict's all
    # what a venue wall tile gets, when less than `view`: the wall carries every match to thousands of screens
    tile: Callable[[Any], dict[str, Any]] | None = None
    referee_inputs: tuple[str, ...] = ()  # input "type"s a referee may record on a match of this sport
    # a forfeit's score (winner's, loser's) from the venue's MatchInfo: backgammon writes length-0 (seed 000 §9)
    forfeit_score: Callable[[Any], tuple[float, float]] = lambda info: (1, 0)
    exports: dict[str, Callable[[Any, tuple[str, ...]], Any]] = field(
        default_factory=dict
    )  # name -> (state, players)
    # replay's shortcut (`hub.matches.fold_events`): fold match event rows [start, end) while each is a
    # device report the rules can take as plainly as a rally, returning (state, how many, facts) where
    # `facts(n)` gives the newest n facts those rows raised, each with its row from `start`. Exactly what
    # `apply` gives on each; a sport without it folds row by row.
    fold_reports: (
        Callable[
            [Any, Sequence[tuple[Any, ...]], int, int],
            tuple[Any, int, Callable[[int], list[tuple[int, Fact]]]],
        ]
        | None
    ) = None

    def public_state(self, state: Any) -> dict[str, Any]:
        """The sport state as spectators' screens get it (no bookkeeping the rules keep for themselves)."""
        return self.view(state) if self.view is not None else self.to_dict(state)

    def tile_state(self, state: Any) -> dict[str, Any]:
        """The sport state as a venue wall tile gets it: the score, not its history."""
        return self.tile(state) if self.tile is not None else self.public_state(state)

    def is_over(self, state: Any) -> bool:
        """True once the live data says the match has ended (a winner, or a result such as a draw)."""
        if self.result is not None:
            return self.result(state) is not None
        return self.winner(state) is not None


def _tt_fresh_start(report: Any) -> bool:
    return (
        isinstance(report, ScoreboardState)
        and tuple(report.points) == (0, 0)
        and tuple(report.games) == (0, 0)
    )


TABLE_TENNIS = Sport(
    name="tabletennis",
    families=frozenset({DeviceFamily.TT_SCOREBOARD, DeviceFamily.TT_WRISTBAND}),
    report_type=(ScoreboardState, DeviceEvent),
    initial=tabletennis.initial,
    apply=tabletennis.apply,
    to_dict=tabletennis.to_dict,
    from_dict=tabletennis.from_dict,
    input_to_dict=tabletennis.input_to_dict,
    report_from_dict=tabletennis.input_from_dict,
    winner=lambda state: state.winner,
    is_fresh_start=_tt_fresh_start,
    config=lambda info: tabletennis.TableTennisConfig.from_names(
        info.best_of, info.doubles, info.first_server, info.first_receiver, info.ruleset
    ),
    tick=tabletennis.Tick,
    view=tabletennis.view,
    tile=tabletennis.tile,
    referee_inputs=("timeout", "card", "expedite", "correction", "point", "undo"),
    forfeit_score=lambda info: (info.best_of // 2 + 1, 0),  # the games needed to win, to none
    fold_reports=tabletennis.fold_rallies,
    exports={
        "card": lambda state, players: tabletennis_export.match_card(state, players),
        "compact": lambda state, players: tabletennis_export.compact(state),
    },
)


def _bg_fresh_start(report: Any) -> bool:
    """The starting position with no dice and a centred cube: a board set up for a new match."""
    return (
        isinstance(report, BackgammonBoardState)
        and tuple(report.points) == backgammon.START.points
        and tuple(report.bar) == (0, 0)
        and tuple(report.off) == (0, 0)
        and report.dice is None
        and report.cube_value == 1
    )


def _bg_config(info: Any) -> backgammon.BackgammonConfig:
    """Length and clock (`simple:600:12`) from the venue's MatchInfo."""
    return backgammon.BackgammonConfig.from_text(info.length, info.clock or "")


BACKGAMMON = Sport(
    name="backgammon",
    families=frozenset({DeviceFamily.BACKGAMMON_BOARD}),
    report_type=(BackgammonBoardState, BackgammonBoardEvent),
    initial=backgammon.initial_from_config,
    apply=backgammon.apply_report,
    to_dict=backgammon.to_dict,
    from_dict=backgammon.from_dict,
    input_to_dict=backgammon.input_to_dict,
    report_from_dict=backgammon.input_from_dict,
    winner=lambda state: state.winner,
    is_fresh_start=_bg_fresh_start,
    config=_bg_config,
    tick=backgammon.Tick,
    forfeit_score=lambda info: (info.length, 0),  # "skor maç uzunluğu–0 yazılır" (seed 000 §9)
    exports={
        "mat": lambda state, players: backgammon_export.match_to_mat(
            state, (players[0] or "A", players[1] or "B")
        ).rstrip("\n"),
        "ids": lambda state, players: {
            "gnubg_id": backgammon.gnubg_id(state),
            "xgid": backgammon.xgid(state),
        },
    },
)

CHESS = Sport(
    name="chess",
    families=frozenset({DeviceFamily.CHESS_BOARD, DeviceFamily.CHESS_CLOCK}),
    # a DeviceEvent is a Wire clock's press or a board's button; table tennis reads its own DeviceEvents, so
    # the log encoding of a DeviceEvent stays table tennis's (the same "type": "event" shape either way)
    report_type=(ChessBoardState, ChessClockState),
    initial=chess.initial,
    apply=chess.apply,
    to_dict=chess.to_dict,
    from_dict=chess.from_dict,
    input_to_dict=chess.input_to_dict,
    report_from_dict=chess.input_from_dict,
    winner=chess.winner,
    is_fresh_start=chess.is_fresh_start,
    config=lambda info: chess.ChessConfig.from_text(info.clock, info.clock_white),
    tick=chess.Tick,
    tick_every_s=0.25,  # a settled board becomes a move within a quarter second even when nothing else comes
    result=chess.result,
    view=lambda state: {k: v for k, v in chess.to_dict(state).items() if k != "resume"},
    referee_inputs=chess.REFEREE_INPUTS,
    exports={"pgn": lambda state, players: chess.pgn(state, {"White": players[0], "Black": players[1]})},
)

SPORTS: dict[str, Sport] = {s.name: s for s in (TABLE_TENNIS, BACKGAMMON, CHESS)}
# each sport's own report classes (not their subclasses): the sport that encodes it, first one named first
_REPORT_TO_DICT: dict[type, Callable[[Any], dict[str, Any]]] = {}
for _sport in SPORTS.values():
    for _cls in _sport.report_type:
        _REPORT_TO_DICT.setdefault(_cls, _sport.input_to_dict)


def report_to_dict(report: Any) -> dict[str, Any]:
    """A device report as plain data for the log body, in the encoding of the sport that reads it."""
    encode = _REPORT_TO_DICT.get(type(report))  # one per device report logged: a lookup, not a search
    if encode is not None:
        return encode(report)
    for sport in SPORTS.values():
        if isinstance(report, sport.report_type):
            return sport.input_to_dict(report)
    raise TypeError(f"no log encoding for {type(report).__name__}")
