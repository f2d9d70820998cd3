"""`BackgammonSport`: this package as the hub's match model sees it (`hub.rules.registry.SportRules`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from types import MappingProxyType
from typing import Any, TextIO

from devices.observations import BackgammonBoardEvent, BackgammonBoardState, DeviceEvent, DeviceFamily
from hub.rules.articles import Words
from hub.rules.backgammon import boards, codec, export, join, venue
from hub.rules.backgammon.articles import ARTICLES, UNSTATED_TIME_CONTROL
from hub.rules.backgammon.boards import BackgammonConfig
from hub.rules.backgammon.model import START
from hub.rules.backgammon.state import BackgammonState, Tick
from hub.rules.base import Outcome
from hub.rules.clockwords import time_control_words
from hub.rules.sport import CheckOption, MatchTerms, SportDefaults


def _mat(state: BackgammonState, players: tuple[str, ...]) -> str:
    """The match as Jellyfish `.mat` text, players unnamed shown as A and B."""
    return export.match_to_mat(state, (players[0] or "A", players[1] or "B")).rstrip("\n")


def _ids(state: BackgammonState, players: tuple[str, ...]) -> dict[str, str]:
    """The position as GNU Backgammon's ID and as an XGID."""
    return {"gnubg_id": codec.gnubg_id(state), "xgid": codec.xgid(state)}


class BackgammonSport(SportDefaults[BackgammonState]):
    """A digital board's snapshots, dice and presses feed a match to a length, with or without a clock."""

    name = "backgammon"
    logs = ("moves", "games")  # its public state's lists that grow a play at a time
    families = frozenset({DeviceFamily.BACKGAMMON_BOARD})
    report_type = (BackgammonBoardState, BackgammonBoardEvent, DeviceEvent)  # DeviceEvent: an umpire's taps
    tick = Tick  # a clock's flag falls on time
    exports = MappingProxyType({"mat": _mat, "ids": _ids})
    # a resignation a board cannot report and its answer; a game scored by hand
    referee_inputs = (*boards.RESIGN_INPUTS, *boards.HAND_INPUTS)
    title = ("backgammon", "tavla")
    match_keys = ("length", "clock", "start_score")
    draw_key = "length"
    draw_key_help = (
        "match length in points when the CSV gives none",
        "CSV vermediğinde maçın kaç sayılık olduğu",
    )
    appeal_rule = ("Backgammon Tournament Rules §10", "Tavla Turnuva Kuralları §10")
    articles = MappingProxyType(ARTICLES)
    read_match = staticmethod(venue.read_match)  # its `[[matches]]` terms, checked
    unstated_time_control = UNSTATED_TIME_CONTROL

    def time_control_words(self, info: MatchTerms) -> Words | None:
        """The match's clock ("10 minutes with a delay of 12 seconds a move"); None without one."""
        if not info.clock:
            return None
        try:
            control = BackgammonConfig.from_text(info.length, info.clock).control()
        except ValueError:  # the venue's reader checked it; hand-made terms may not be
            return None
        return None if control is None else Words(*time_control_words(control))

    def attach_spectators(self, hall: Any) -> Any:
        """Winning chances and performance ratings on the hall's screens of this sport, each if its venue wants
        it (`chances.attach`, `analysis.attach`)."""
        from hub.rules.backgammon import analysis, chances

        analysis.attach(hall)
        return chances.attach(hall)

    def round_scores(self, state: BackgammonState) -> tuple[Sequence[float], tuple[Sequence[float], ...]]:
        """The match score in points, and the points each game won, on the winner's side."""
        games = tuple(
            (g.points, 0) if g.winner == 0 else (0, g.points) for g in state.games if g.winner is not None
        )
        return state.score, games

    check_options = (
        CheckOption(
            "--analysis",
            "backgammon: the match file, also analysed by GNU Backgammon (each player's PR) / maç dosyası, GNU "
            "Backgammon çözümlemesiyle (oyuncu başına PR)",
            "FILE",
        ),
        CheckOption(
            "--analysis-ply", "backgammon: the analysis's ply, 0-2 (default 0) / çözümleme derinliği", "PLY"
        ),
    )

    def check(self, file: str | None, options: Mapping[str, Any]) -> int:
        """`boardcast check backgammon FILE`, or `--analysis FILE` to add each player's analysis."""
        from hub.check import run
        from hub.check.common import EXIT_BAD_INPUT

        analysed, ply = options.get("analysis"), options.get("analysis_ply")
        if analysed is None:
            if ply is not None:
                print(
                    "boardcast check backgammon: --analysis-ply needs --analysis FILE / --analysis-ply için "
                    "--analysis DOSYA gerekli",
                    file=sys.stderr,
                )
                return EXIT_BAD_INPUT
            return super().check(file, options)
        ply = "0" if ply is None else ply
        if file is not None or ply not in ("0", "1", "2"):
            problem = (
                "give FILE or --analysis FILE, not both"
                if file is not None
                else f"--analysis-ply {ply}: 0, 1 or 2"
            )
            print(f"boardcast check backgammon: {problem} / hatalı seçenek", file=sys.stderr)
            return EXIT_BAD_INPUT
        return run(self.name, analysed, check=partial(_check_analysed, ply=int(ply)))

    def check_lines(self, lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
        """`boardcast check` of a recorded match's JSON lines (`check.run`)."""
        from hub.rules.backgammon import check

        return check.run(lines, out, err)

    def initial(self, config: BackgammonConfig) -> BackgammonState:
        """A match not yet started, to its length, with its clock."""
        return boards.initial_from_config(config)

    def apply(self, state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
        """Fold one board report (`boards.apply_report`: the events it stands for, through the reducer); the
        first board state after the hub joined the board is a catch-up (`join.join`)."""
        if state.awaiting_board:
            return join.join(state, report, at)
        if state.joined_turn:
            return join.after_join(state, report, at)
        return boards.apply_report(state, report, at)

    def join(self, state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
        """Fold a board's first report after the hub joined it (`join.join`): where the match stands."""
        return join.join(state, report, at)

    def to_dict(self, state: BackgammonState) -> dict[str, Any]:
        """The state as plain data (`codec.to_dict`)."""
        return codec.to_dict(state)

    def from_dict(self, data: dict[str, Any]) -> BackgammonState:
        """The inverse of `to_dict`, from a snapshot of any version."""
        return codec.from_dict(data)

    def public_state(self, state: BackgammonState) -> dict[str, Any]:
        """Spectators get the whole state, as a snapshot holds it less its version (`codec.public_dict`)."""
        return codec.public_dict(state)

    def input_to_dict(self, report: Any) -> dict[str, Any]:
        """A board's report as plain data."""
        return boards.input_to_dict(report)

    def report_from_dict(self, data: dict[str, Any]) -> Any:
        """The inverse of `input_to_dict`: a board's report."""
        return boards.input_from_dict(data)

    def winner(self, state: BackgammonState) -> int | None:
        """The side that won the match."""
        return state.winner

    def is_fresh_start(self, report: Any) -> bool:
        """The starting position with no dice and a centred cube (a board set up for a new match), or a game
        scored by hand once the table's match is over."""
        if isinstance(report, DeviceEvent):
            return report.kind in boards.HAND_INPUTS
        return (
            isinstance(report, BackgammonBoardState)
            and tuple(report.points) == START.points
            and tuple(report.bar) == (0, 0)
            and tuple(report.off) == (0, 0)
            and report.dice is None
            and report.cube_value == 1
        )

    def config(self, info: MatchTerms) -> BackgammonConfig:
        """Length, clock (`simple:600:12`) and the score the match starts at, from the venue."""
        return replace(
            BackgammonConfig.from_text(info.length, info.clock or ""), start_score=info.start_score
        )

    def forfeit_score(self, info: MatchTerms) -> tuple[float, float]:
        """The match length to none: "skor maç uzunluğu–0 yazılır" (Backgammon Tournament Rules §9)."""
        return (info.length, 0)


def _check_analysed(lines: Iterable[str], name: str, out: TextIO, err: TextIO, ply: int) -> int:
    """`check.run` with each player's analysis at `ply` after the result."""
    from hub.rules.backgammon import check

    return check.run(lines, out, err, ply)
