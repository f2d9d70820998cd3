"""`ChessSport`: this package as the hub's match model sees it (`hub.rules.registry.SportRules`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from devices.observations import ChessBoardState, ChessClockState, DeviceEvent, DeviceFamily
from hub.rules.articles import Words
from hub.rules.base import Outcome
from hub.rules.chess import codec, export, model, reducer, referee, venue
from hub.rules.chess.articles import ARTICLES, UNSTATED_TIME_CONTROL
from hub.rules.chess.model import ChessConfig, ChessState
from hub.rules.chess.timecontrol import parse_time_control
from hub.rules.clockwords import time_control_words
from hub.rules.sport import Annotate, CheckOption, GameRecords, MatchTerms, SportDefaults


def _pgn(state: ChessState, players: tuple[str, ...]) -> str:
    """The game as PGN, White and Black named."""
    return export.pgn(state, {"White": players[0], "Black": players[1]})


def _game_record(match: Any, venue: Any, event: Any, annotate: Annotate | None) -> str:
    from hub.rules.chess import pgn_feed  # it reads the hub's match and venue models, which import the rules

    return pgn_feed.game_pgn(match, venue, event, annotate)


def _round_record(
    matches: list[Any], venue: Any, round_number: int, event: Any, annotate: Annotate | None
) -> str:
    from hub.rules.chess import pgn_feed

    return pgn_feed.round_pgn(matches, venue, round_number, event, annotate)


class ChessSport(SportDefaults[ChessState]):
    """E-board snapshots and clock readings rebuild a game; a result may be a draw."""

    name = "chess"
    logs = ("moves",)  # its public state's lists that grow a play at a time
    families = frozenset({DeviceFamily.CHESS_BOARD, DeviceFamily.CHESS_CLOCK})
    # a DeviceEvent is a clock's press or a board's button; table tennis reads its own DeviceEvents, so
    # the log encoding of a DeviceEvent stays table tennis's (the same "type": "event" shape either way)
    report_type = (ChessBoardState, ChessClockState, DeviceEvent)  # DeviceEvent: an umpire's taps
    tick = model.Tick
    tick_every_s = 0.25  # a settled board becomes a move within a quarter second even when nothing else comes
    referee_inputs = model.REFEREE_INPUTS
    exports = MappingProxyType({"pgn": _pgn})
    title = ("chess", "satranç")
    match_keys = (
        "time_control",
        "clock_white",
        "board",
        "team_match",
        "awaiting_result_s",
        "pairing",
        "ratings",
        "titles",
        "fide_ids",
    )
    broadcast_delayed = True  # games go out late so that no one can relay moves to a player
    checks_json_lines = False  # `boardcast check chess` reads a DGT capture
    paired_rounds = True  # rounds from the pairing program's report file (TRF), team matches on boards
    articles = MappingProxyType(ARTICLES)
    read_match = staticmethod(venue.read_match)  # its `[[matches]]` terms, checked
    unstated_time_control = UNSTATED_TIME_CONTROL
    records = GameRecords("application/x-chess-pgn; charset=utf-8", _game_record, _round_record)
    separate_clock = True  # a board without a clock of its own beside a Boardcast Wire clock
    board_orientation = True  # an e-board may be set up either way round
    board_categories = MappingProxyType(venue.BOARD_CATEGORIES)
    player_titles = venue.TITLES

    def referee_result(self, result: Any, how: Any, reason: str) -> dict[str, Any]:
        """An arbiter's result the board cannot see as the rules' `set_result` input (`referee.result_input`)."""
        return referee.result_input(result, how, reason)

    def time_control_words(self, info: MatchTerms) -> Words | None:
        """The game's time control ("5 minutes + 3 seconds a move (Fischer)"); None without one."""
        if not info.clock:
            return None
        try:
            return Words(*time_control_words(parse_time_control(info.clock)))
        except ValueError:  # the venue's reader checked it; hand-made terms may not be
            return None

    def clock_view(self, state: ChessState) -> dict[str, Any] | None:
        """The game's clock as a team match's board shows it (`codec.clock_view`)."""
        return codec.clock_view(state)

    check_options = (
        CheckOption(
            "--dgt", "chess: DGT serial capture, base64 per line / DGT kaydı (satır başına base64)", "FILE"
        ),
        CheckOption("--time-control", "chess: e.g. 180+2, 300d5, 40/6000+30:1800+30 / süre kontrolü"),
        CheckOption(
            "--clock-white", "chess: White's clock side / Beyazın saat tarafı", choices=("left", "right")
        ),
        CheckOption(
            "--orientation",
            "chess: the board's way round; auto detects it from the position / tahtanın yönü (auto: konumdan)",
            choices=("auto", "normal", "rotated"),
            default="auto",
        ),
    )

    def check(self, file: str | None, options: Mapping[str, Any]) -> int:
        """`boardcast check chess --dgt FILE`: audit a DGT capture (`check.run`)."""
        from hub.check.common import EXIT_BAD_INPUT
        from hub.rules.chess.check import run

        path = options.get("dgt") or file
        if path is None:
            print("boardcast check chess: give --dgt FILE / --dgt DOSYA verin", file=sys.stderr)
            return EXIT_BAD_INPUT
        return run(
            path, options.get("time_control"), options.get("clock_white"), options.get("orientation", "auto")
        )

    def initial(self, config: ChessConfig) -> ChessState:
        """A game at the starting position, nothing played."""
        return model.initial(config)

    def apply(self, state: ChessState, report: Any, at: float) -> Outcome[ChessState]:
        """Fold one board snapshot, clock reading or arbiter's input (`reducer.apply`)."""
        return reducer.apply(state, report, at)

    def join(self, state: ChessState, report: Any, at: float) -> Outcome[ChessState]:
        """Fold the device's first report after the hub joined it: the clock's next reading is where the
        clock stands (`clock.on_clock`), and the plies the board's next position shows were made while the
        hub was away (`moves._accept`: read as a gap, up to the reconstruction's limit)."""
        return reducer.apply(replace(state, clock_joined=True, board_joined=True), report, at)

    def to_dict(self, state: ChessState) -> dict[str, Any]:
        """The state as plain data (`codec.to_dict`), exactly round-tripped."""
        return codec.to_dict(state)

    def from_dict(self, data: dict[str, Any]) -> ChessState:
        """The inverse of `to_dict`."""
        return codec.from_dict(data)

    def input_to_dict(self, report: Any) -> dict[str, Any]:
        """A board's or clock's report, or an arbiter's input, as plain data."""
        return codec.input_to_dict(report)

    def report_from_dict(self, data: dict[str, Any]) -> Any:
        """The inverse of `input_to_dict`: a rules input."""
        return codec.input_from_dict(data)

    def winner(self, state: ChessState) -> int | None:
        """0 White, 1 Black, None for a draw or a game going on."""
        return model.winner(state)

    def result(self, state: ChessState) -> str | None:
        """ "1-0", "0-1", "1/2-1/2", or None while the game goes on."""
        return model.result(state)

    def final_score(self, state: ChessState) -> tuple[float, float]:
        """The game's points: 1-0, 0-1 or ½-½; 0-0 while it goes on."""
        return _POINTS.get(model.result(state) or "", (0.0, 0.0))

    def attach_spectators(self, hall: Any) -> Any:
        """The engine's evaluation on the hall's chess screens, if its venue has chess and wants it."""
        from hub.rules.chess.evaluation import EvaluationService, find_stockfish

        venue = hall.venue
        if not venue.engine.enabled or all(m.sport != self.name for m in venue.matches):
            return None
        path = find_stockfish()
        return hall.show_extra(
            self.name,
            lambda resend, delay: EvaluationService(resend, delay, venue.engine, path),
            key="evaluation",
        )

    def is_fresh_start(self, report: Any) -> bool:
        """A board showing the starting position (set up for a new game), or a result an umpire entered once
        the table's game is over (the next game's, whose board the umpire's page stands in for)."""
        return model.is_fresh_start(report) or (isinstance(report, DeviceEvent) and report.kind == "result")

    def config(self, info: MatchTerms) -> ChessConfig:
        """The time control and White's clock side from the venue."""
        return ChessConfig.from_text(info.clock, info.clock_white, info.awaiting_result_s, info.orientation)

    def public_state(self, state: ChessState) -> dict[str, Any]:
        """The state without `resume`, the rules' own bookkeeping for a restart."""
        return codec.public_dict(state)


_POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}  # a result's points, White's first
