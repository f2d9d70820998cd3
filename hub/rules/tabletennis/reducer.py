"""The table-tennis reducer: `apply(state, input, at)` folds one input into the match (ITTF 2.11–2.15, 3.4.4,
3.5.2) and returns the new state with the facts and anomalies it saw; it never raises on a rule violation.

The server, receiver and ends are computed (`service`), and a device's indicators are compared with them,
never trusted. Scoreboards report what they display, not rallies, so a display is compared with the score
reached: one point more for one side is a rally, a jump that an awarded penalty explains is that penalty,
anything else is kept as reported and flagged.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from hub.rules.base import Outcome
from hub.rules.names import player_mark
from hub.rules.tabletennis.codec import to_input
from hub.rules.tabletennis.messages import _anomaly, _scores, _who, fmt
from hub.rules.tabletennis.model import (
    DOUBLES_PLAYERS,
    ENDS,
    Card,
    Correction,
    Display,
    ExpediteStart,
    OtherEvent,
    TableTennisState,
    Tick,
    TimeOut,
    Toss,
    UmpirePoint,
    UmpireUndo,
    _partner,
    _side,
    ends_changes,
    game_over,
    match_result,
    one_game_more,
)
from hub.rules.tabletennis.service import service
from hub.rules.tabletennis.steps import _Steps


class _Fold(_Steps):
    """One input folded through every rule: a scoreboard display read and checked, or an umpire's input."""

    def display(self, d: Display, *, joined: bool = False) -> None:
        s = self.s
        changed = s.last_display != d
        if s.last_display is None and not s.points_log and d.ends in ENDS:  # the toss winner chose an end
            probe = replace(s, points=d.points, games=d.games)
            if probe.ends != d.ends:
                self.s = s = replace(s, ends_anchor=(ends_changes(probe), d.ends))
                self.fact("ends", ends=d.ends, source="board")
        self.ensure_toss(d)
        s = self.s
        if (
            s.winner is None
            and (joined or (s.last_display is None and not s.points_log))
            and not _follows(s, d)
        ):
            self.join(d)
        elif s.winner is not None:
            self._after_decision(d)
        elif d.games == s.games:
            self._same_game(d.points)
        elif one_game_more(s.games, d.games):
            closing = 0 if d.games[0] > s.games[0] else 1
            if len(d.game_scores) == sum(d.games) and d.game_scores[-1] != s.points:
                shown_final = d.game_scores[-1]  # the board's record of the game just closed
                if shown_final[0] >= s.points[0] and shown_final[1] >= s.points[1]:
                    self._same_game(shown_final)
            self.new_game(closing)
            self._first_server_choice(d)
            if self.s.winner is None:
                self._same_game(d.points)
            elif d.points != (0, 0):
                self._overrun(d)
        else:
            self._games_mismatch(d)
        if self.s.points == (0, 0) and self.s.winner is None:
            self._first_server_choice(d)
        if changed:
            self._check_board(d)
        self.s = replace(self.s, last_display=d)

    def join(self, d: Display) -> None:
        """A display of a match already under way, the first since the hub joined the board (the hub started
        or restarted, the board plugged in mid-match): the score, games and history it shows are where the
        match stands, a catch-up, not a jump; only what follows is judged."""
        s = self.s
        known = (*s.game_scores, s.points) if game_over(s.points, s.config.ruleset) else s.game_scores
        scores = d.game_scores if len(d.game_scores) == sum(d.games) else known[: sum(d.games)]
        decided = False
        if d.games != s.games:
            self.set_games(d.games, scores)
            decided = self.winner_by_games(d.games, scores)
        if (
            self.s.game_clock is None
        ):  # the game's ten minutes (2.15.1) count from here: its start is not known
            self.s = replace(self.s, game_clock=self.at)
        game, (a, b) = self.s.game_number, d.points
        self.fact(
            "joined",
            points=list(d.points),
            games=list(d.games),
            game_scores=[list(g) for g in scores],
            game=game,
            message_en=f"Joined at game {game}, {a}–{b} (games {d.games[0]}–{d.games[1]}).",
            message_tr=f"{game}. oyunda {a}–{b} skorunda katılındı (oyunlar {d.games[0]}–{d.games[1]}).",
        )
        if decided:
            self.fact("match", side=self.s.winner, games=list(d.games))
        self.set_points(d.points)  # a game (or the match) the board shows won at its last point ends here

    def _first_server_choice(self, d: Display) -> None:
        """2.13.4: in doubles the serving pair chooses which of its players serves first; a board at 0-0
        showing the other one is that choice (in game 1 only when the venue did not name the player)."""
        s = self.s
        order = s.game_order
        if not s.config.doubles or order is None or d.server_player not in DOUBLES_PLAYERS:
            return
        if s.game_number == 1 and s.config.first_server_player is not None:
            return
        if d.server_player == _partner(order[0]):
            # the first receiver is still the player who served to the first server in the game before
            if s.game_number == 1:  # the receiving pair makes its own choice in game 1 (2.13.2)
                self.s = replace(s, game_order=(d.server_player, order[1]), toss=(d.server_player, order[1]))
            else:
                self.s = replace(s, game_order=(d.server_player, _partner(order[1])))
            self.fact("first_server_choice", game=s.game_number, player=d.server_player)

    def _same_game(self, shown: tuple[int, int]) -> None:
        s = self.s
        base = (s.points[0] - s.unshown[0], s.points[1] - s.unshown[1])
        delta = (shown[0] - base[0], shown[1] - base[1])
        if delta[0] < 0 or delta[1] < 0:
            self.flag(
                _anomaly(
                    "tt.score_decrease",
                    f"Game {s.game_number}: the score went down from {fmt(base)} to {fmt(shown)} "
                    f"with no correction.",
                    f"{s.game_number}. oyun: skor düzeltme olmadan {fmt(base)} iken {fmt(shown)} oldu.",
                    game=s.game_number,
                    **{"from": list(base), "to": list(shown)},
                )
            )
            self.s = replace(self.s, unshown=(0, 0))
            self.set_points(shown)
            return
        rest = delta
        if s.unshown != (0, 0) and delta[0] >= s.unshown[0] and delta[1] >= s.unshown[1]:
            rest = (delta[0] - s.unshown[0], delta[1] - s.unshown[1])  # the board now shows the penalty
            self.s = replace(s, unshown=(0, 0))
        if rest == (0, 0):
            return
        if rest in ((1, 0), (0, 1)) and not game_over(self.s.points, s.config.ruleset):
            self.score_point(0 if rest[0] else 1)
            return
        target = (self.s.points[0] + rest[0], self.s.points[1] + rest[1])
        if game_over(self.s.points, s.config.ruleset):
            self.flag(
                _anomaly(
                    "tt.illegal_game_end",
                    f"Game {s.game_number} was already won at {fmt(self.s.points)}; the board then showed "
                    f"{fmt(target)}.",
                    f"{s.game_number}. oyun {fmt(self.s.points)} ile kazanılmıştı; tabela sonra "
                    f"{fmt(target)} gösterdi.",
                    game=s.game_number,
                    score=list(self.s.points),
                    shown=list(target),
                )
            )
        else:
            self.flag(
                _anomaly(
                    "tt.score_jump",
                    f"Game {s.game_number}: the score went from {fmt(self.s.points)} to {fmt(target)} "
                    f"in one report, not one rally.",
                    f"{s.game_number}. oyun: skor tek raporda {fmt(self.s.points)} iken {fmt(target)} "
                    f"oldu; bu tek bir sayı değil.",
                    game=s.game_number,
                    **{"from": list(self.s.points), "to": list(target)},
                )
            )
        self.set_points(target)

    def _after_decision(self, d: Display) -> None:
        """A display once the match is won: the board may show the last game's end, or roll it into its games
        count (at 0-0 or keeping the game's score); anything else is an overrun."""
        s = self.s
        won, scores = match_result(s)
        last = scores[-1] if scores else (0, 0)
        before_last = list(won)
        before_last[0 if last[0] > last[1] else 1] -= 1
        if d.games == (before_last[0], before_last[1]) and d.points == last:
            return  # the board still shows the deciding game's last point
        if (d.games == s.games and d.points == s.points) or (d.games == won and d.points in ((0, 0), last)):
            if d.games == won and s.games != won:  # a games count kept as a board reported it
                self.s = replace(s, games=won, game_scores=scores)
            self.s = replace(self.s, points=d.points)
            return
        self._overrun(d)

    def _games_mismatch(self, d: Display) -> None:
        s = self.s
        self.flag(
            _anomaly(
                "tt.games_mismatch",
                f"Games went from {fmt(s.games)} to {fmt(d.games)} in one report.",
                f"Oyun skoru tek raporda {fmt(s.games)} iken {fmt(d.games)} oldu.",
                **{"from": list(s.games), "to": list(d.games)},
            )
        )
        scores = s.game_scores
        if len(d.game_scores) == sum(d.games):
            scores = d.game_scores
        elif len(scores) > sum(d.games):
            scores = scores[: sum(d.games)]
        self.set_games(d.games, scores)
        self.set_points(d.points)
        if self.winner_by_games(d.games, scores):
            self.fact("match", side=self.s.winner, games=list(d.games))

    def _check_board(self, d: Display) -> None:
        """Compare the board's indicators and history with the computed ones."""
        self._check_history(d)
        if self.s.winner is not None or game_over(self.s.points, self.s.config.ruleset):
            return  # between games and after the match a board may show either way
        self._check_expedite_light(d)
        self._check_server(d)
        self._check_ends(d)

    def _check_history(self, d: Display) -> None:
        """The board's game history must add up to its games and agree with the games played."""
        s = self.s
        if d.game_scores and len(d.game_scores) == sum(d.games):
            counted = [0, 0]
            for a, b in d.game_scores:
                counted[0 if a > b else 1] += 1
            ours = s.final_scores if s.final_scores is not None else s.game_scores
            differs = tuple(counted) != d.games or (
                len(ours) >= len(d.game_scores) and ours[: len(d.game_scores)] != d.game_scores
            )
            last = s.last_display
            if differs and (last is None or last.game_scores != d.game_scores or last.games != d.games):
                self.flag(
                    _anomaly(
                        "tt.games_mismatch",
                        f"The board's game history {_scores(d.game_scores)} does not match games "
                        f"{fmt(d.games)} and the games played ({_scores(ours)}).",
                        f"Tabelanın oyun geçmişi {_scores(d.game_scores)}, {fmt(d.games)} oyun skoru ve "
                        f"oynanan oyunlarla ({_scores(ours)}) uyuşmuyor.",
                        shown=[list(g) for g in d.game_scores],
                        games=list(d.games),
                        played=[list(g) for g in ours],
                    )
                )

    def _check_expedite_light(self, d: Display) -> None:
        """A board's expedite light starts the expedite system; once on, it stays on (2.15.6)."""
        s = self.s
        if d.expedite is True and not s.expedite:
            self.introduce_expedite(None, board_server=d.server, board_player=d.server_player)
        elif d.expedite is False and s.expedite and s.expedite_since is not None:
            game = s.game_number
            if game > s.expedite_since[0] and s.expedite_dropped_game != game:
                self.flag(
                    _anomaly(
                        "tt.expedite_dropped",
                        f"Game {game}: the board shows no expedite, but the expedite system has been in "
                        f"force since game {s.expedite_since[0]} and stays to the end of the match (2.15.6).",
                        f"{game}. oyun: tabela hızlandırma sistemini göstermiyor; sistem "
                        f"{s.expedite_since[0]}. oyundan beri geçerli ve maç sonuna kadar sürer (2.15.6).",
                        game=game,
                        since_game=s.expedite_since[0],
                    )
                )
                self.s = replace(s, expedite_dropped_game=game)

    def _check_server(self, d: Display) -> None:
        """The board's server indicator against the computed server (a side; a player in doubles)."""
        s = self.s
        pair = service(s)
        if pair is not None:
            server = _side(pair[0])
            wrong_side = d.server is not None and d.server != server
            wrong_player = s.config.doubles and d.server_player is not None and d.server_player != pair[0]
            if wrong_side or wrong_player:
                shown = (
                    player_mark(d.server_player) if wrong_player and d.server_player else _who(d.server or 0)
                )
                due = player_mark(pair[0]) if s.config.doubles else _who(server)
                self.flag(
                    _anomaly(
                        "tt.wrong_server",
                        f"Game {s.game_number} at {fmt(s.points)}: the board shows {shown} serving; "
                        f"{due} should serve.",
                        f"{s.game_number}. oyun {fmt(s.points)}: tabela servisi {shown} gösteriyor; "
                        f"servis {due} oyuncusunda olmalı.",
                        game=s.game_number,
                        points=list(s.points),
                        shown=d.server_player if s.config.doubles and d.server_player else d.server,
                        expected=pair[0] if s.config.doubles else server,
                    )
                )

    def _check_ends(self, d: Display) -> None:
        """The board's ends against the computed ends, flagged once per change of ends."""
        s = self.s
        if d.ends is not None and d.ends != s.ends:
            changes = ends_changes(s)
            if s.ends_flagged != changes:
                self.flag(
                    _anomaly(
                        "tt.ends_not_changed",
                        f"Game {s.game_number} at {fmt(s.points)}: the board shows ends {d.ends}; "
                        f"they should be {s.ends} (change after each game and at 5 in the last game).",
                        f"{s.game_number}. oyun {fmt(s.points)}: tabela tarafları {d.ends} gösteriyor; "
                        f"{s.ends} olmalı (her oyundan sonra ve son oyunda 5'te taraf değişir).",
                        game=s.game_number,
                        points=list(s.points),
                        shown=d.ends,
                        expected=s.ends,
                    )
                )
                self.s = replace(s, ends_flagged=changes)


def _follows(s: TableTennisState, d: Display) -> bool:
    """A display that goes on from the score reached as play does: the same, or one rally more."""
    over = game_over(s.points, s.config.ruleset)
    if d.games != s.games:  # the next game begun, its first rally at most
        return over and one_game_more(s.games, d.games) and d.points in ((0, 0), (1, 0), (0, 1))
    delta = (d.points[0] - s.points[0], d.points[1] - s.points[1])
    return delta in ((0, 0), (1, 0), (0, 1)) and not over


def apply(
    state: TableTennisState, report: Any, at: float, *, joined: bool = False
) -> Outcome[TableTennisState]:
    """Fold one input (an engine input, or a device's ScoreboardState or DeviceEvent) into the match;
    `joined` for a board's first report since the hub joined it (`_Fold.join`).

    Never raises on a rule violation: the input is kept as reported and the violation is an anomaly.
    """
    item = to_input(report)
    fold = _Fold(state, at)
    fold.check_expedite_due()
    if isinstance(item, Display):
        fold.display(item, joined=joined)
    elif isinstance(item, OtherEvent | Tick):
        pass
    elif isinstance(item, Toss):  # before any toss is assumed: it is the toss
        fold.toss(item)
    else:
        fold.ensure_toss()
        if isinstance(item, TimeOut):
            fold.timeout(item.side)
        elif isinstance(item, Card):
            fold.card(item)
        elif isinstance(item, ExpediteStart):
            if not fold.after_match("expedite", None):
                fold.introduce_expedite(item.ball_in_play)
        elif isinstance(item, UmpirePoint):
            fold.umpire_point(item.side)
        elif isinstance(item, UmpireUndo):
            fold.umpire_undo(item.side)
        elif isinstance(item, Correction):
            fold.correction(item)
    return Outcome(fold.s, tuple(fold.facts), tuple(fold.anomalies))
