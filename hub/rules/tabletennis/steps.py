"""The rule steps one input is folded through (`reducer._Fold` composes them): the toss, a point scored, a
score taken as reported, a game closed, the expedite system, and the umpire's and referee's inputs."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from hub.rules.base import Anomaly, Fact
from hub.rules.tabletennis.messages import _anomaly, _who, fmt
from hub.rules.tabletennis.model import (
    DOUBLES_PLAYERS,
    Card,
    Correction,
    Display,
    PointRecord,
    TableTennisState,
    Toss,
    _partner,
    _side,
    ends_changes,
    game_over,
    game_target,
    is_last_game,
    match_result,
    one_game_more,
    swap_point,
)
from hub.rules.tabletennis.service import (
    expedite_allowed,
    fit_order,
    next_pair,
    order_for_game,
    pair_at,
    pair_with_server,
    service,
)

# what an input after the match's end was, in a message (`_Steps.after_match`)
_AFTER_MATCH = {
    "point": ("a point", "bir sayı"),
    "timeout": ("a time-out", "bir mola"),
    "expedite": ("the expedite system", "hızlandırma kuralı"),
}


class _Steps:
    """One input being folded: the state so far and what the rules saw on the way."""

    def __init__(self, state: TableTennisState, at: float) -> None:
        self.s = state
        self.at = at
        self.facts: list[Fact] = []
        self.anomalies: list[Anomaly] = []

    def fact(self, kind: str, **data: Any) -> None:
        self.facts.append(Fact(kind, data))

    def flag(self, anomaly: Anomaly) -> None:
        self.anomalies.append(anomaly)

    def ensure_toss(self, display: Display | None = None) -> None:
        """The first server: from config, else the first report's indicator, else side A (said so)."""
        s = self.s
        if s.toss is not None:
            return
        doubles = s.config.doubles
        default = ("A1", "B1") if doubles else ("A", "B")
        probe = replace(s, toss=default, game_order=default)
        if display is not None:
            probe = replace(probe, points=display.points, games=display.games)
            order = fit_order(probe, display.server, display.server_player, prefer_first_receiver=True)
            if order is not None:
                toss = order if probe.game_number % 2 == 1 else (order[1], order[0])
                self.s = replace(
                    s, toss=toss, game_order=order_for_game(replace(s, toss=toss), s.game_number)
                )
                self.fact("toss", first_server=_side(toss[0]), **self._players(toss), source="board")
                return
        self.s = replace(s, toss=default, game_order=order_for_game(replace(s, toss=default), s.game_number))
        self.fact("toss", first_server=0, **self._players(default), source="assumed")

    def toss(self, t: Toss) -> None:
        """The toss entered (2.13.1): it sets the serving order while no rally has been played; after, the order
        stands and a referee corrects it (2.14)."""
        s = self.s
        pair = toss_pair(t, s.config.doubles)
        if pair is None:
            self.flag(
                _anomaly(
                    "tt.toss_after_play",
                    f"The toss entered ({named_toss(t, 'en')}) is not one for this match; the serving order "
                    f"stands.",
                    f"Girilen kura ({named_toss(t, 'tr')}) bu maça uymuyor; servis sırası değişmedi.",
                    server=t.server,
                    receiver=t.receiver,
                )
            )
            return
        if s.toss == pair:
            return
        if s.points_log or s.games != (0, 0) or s.points != (0, 0):
            self.flag(
                _anomaly(
                    "tt.toss_after_play",
                    f"The toss was entered ({pair[0]} to serve) after play began; the serving order stands. A "
                    f"referee corrects an order that was wrong (2.14).",
                    f"Kura oyun başladıktan sonra girildi ({pair[0]} servis); servis sırası değişmedi. Yanlış "
                    f"sırayı hakem düzeltir (2.14).",
                    server=pair[0],
                    receiver=pair[1],
                )
            )
            return
        self.s = replace(s, toss=pair, game_order=order_for_game(replace(s, toss=pair), s.game_number))
        self.fact("toss", first_server=_side(pair[0]), **self._players(pair), source="umpire")

    def _players(self, pair: tuple[str, str]) -> dict[str, Any]:
        if not self.s.config.doubles:
            return {}
        return {"first_server_player": pair[0], "first_receiver_player": pair[1]}

    def score_point(self, side: int, *, penalty: bool = False) -> None:
        s = self.s
        pair = service(s)
        game = s.game_number
        points = list(s.points)
        points[side] += 1
        new_points = (points[0], points[1])
        record = PointRecord(
            game,
            new_points,
            side,
            _side(pair[0]) if pair else 0,
            pair[0] if pair and s.config.doubles else None,
            self.at,
            penalty,
        )
        paused = s.paused
        if s.timeout_at is not None:
            paused += min(60.0, max(0.0, self.at - s.timeout_at))
        self.s = replace(
            s,
            points=new_points,
            points_log=(*s.points_log, record),
            rallies=s.rallies + (0 if penalty else 1),
            game_clock=self.at if s.game_clock is None else s.game_clock,
            paused=paused,
            timeout_active=None,
            timeout_at=None,
        )
        self.fact(
            "penalty_point" if penalty else "point",
            side=side,
            points=list(new_points),
            game=game,
            server=record.server,
            **({"server_player": record.server_player} if s.config.doubles else {}),
        )
        self.after_points(s.points)

    def after_points(self, before: tuple[int, int]) -> None:
        """What a new score reached brings: the change at 5 in the last game, a game or the match won."""
        s = self.s
        if game_over(before, s.config.ruleset):
            return  # the game was over already; whoever changed the score was flagged for it
        if is_last_game(s) and s.swap_at is None and max(s.points) >= swap_point(s.config.ruleset):
            self.s = s = replace(s, swap_at=sum(s.points))
            self.fact("ends_change", game=s.game_number, points=list(s.points), ends=s.ends)
        if s.winner is None and game_over(s.points, s.config.ruleset):
            side = 0 if s.points[0] > s.points[1] else 1
            self.fact("game", side=side, score=list(s.points), game=s.game_number)
            if s.games[side] + 1 >= s.games_to_win:
                # the deciding game is counted at once: no later report rolls it (a hand-scored table's
                # last point is the last input); the points stay as the game ended
                won, scores = match_result(s)
                known = scores if len(scores) == sum(won) else None  # a history the board never gave stays so
                self.s = replace(
                    s, winner=side, final_scores=known, games=won, game_scores=scores, timeout_active=None
                )
                self.fact("match", side=side, games=list(won))

    def set_points(self, points: tuple[int, int]) -> None:
        """Take a score as reported (a jump or a decrease), keeping the points log in step."""
        s = self.s
        game = s.game_number
        log = list(s.points_log)
        for side in (0, 1):
            excess = s.points[side] - points[side]
            i = len(log) - 1
            while excess > 0 and i >= 0 and log[i].game == game:
                if log[i].side == side:
                    del log[i]
                    excess -= 1
                i -= 1
        before = s.points
        self.s = replace(s, points=points, points_log=tuple(log))
        if max(points) < swap_point(s.config.ruleset):
            self.s = replace(self.s, swap_at=None)
        self.after_points(before)

    def reopen_deciding_game(self) -> None:
        """The match's last game back in play at its final score (its last point about to be taken back)."""
        s = self.s
        scores = s.final_scores if s.final_scores is not None else s.game_scores
        if s.winner is None or not scores or s.points not in (scores[-1], (0, 0)):
            return  # not decided by its last point here (a board's games, a correction): nothing to reopen
        last = scores[-1]
        games = list(s.games)
        games[0 if last[0] > last[1] else 1] -= 1
        self.s = replace(
            s,
            winner=None,
            final_scores=None,
            games=(games[0], games[1]),
            game_scores=scores[:-1],
            points=last,
        )

    def new_game(self, closing_side: int) -> None:
        """Roll into the next game: record the finished one, change ends, and set the next serve order."""
        s = self.s
        final = s.points
        if not (game_over(final, s.config.ruleset) and final[closing_side] > final[1 - closing_side]):
            self.flag(
                _anomaly(
                    "tt.illegal_game_end",
                    f"Game {s.game_number} was closed for {_who(closing_side)} at {fmt(final)}, "
                    f"a score that does not win a game.",
                    f"{s.game_number}. oyun {fmt(final)} skorunda {_who(closing_side)} lehine kapatıldı; "
                    f"bu skor oyunu bitirmez.",
                    game=s.game_number,
                    score=list(final),
                    side=closing_side,
                )
            )
            self.fact("game", side=closing_side, score=list(final), game=s.game_number, legal=False)
        games = list(s.games)
        games[closing_side] += 1
        carry = s.carry
        self.s = following_game(s, (games[0], games[1]))
        if self.s.winner is None and max(self.s.games) >= self.s.games_to_win:
            self.s = replace(self.s, winner=closing_side, final_scores=self.s.game_scores)
            self.fact("match", side=closing_side, games=list(self.s.games))
        for side in (0, 1):  # 3.5.2 (HMO): penalty points that did not fit in a game count in the next
            for _ in range(carry[side]):
                if self.s.winner is None:
                    self.score_point(side, penalty=True)
                    u = list(self.s.unshown)
                    u[side] += 1
                    self.s = replace(self.s, unshown=(u[0], u[1]))

    def _overrun(self, d: Display) -> None:
        s = self.s
        self.flag(
            _anomaly(
                "tt.match_overrun",
                f"The match was already won by {_who(s.winner or 0)}; the board then showed "
                f"{fmt(d.points)} in games {fmt(d.games)}.",
                f"Maçı {_who(s.winner or 0)} zaten kazanmıştı; tabela sonra {fmt(d.games)} oyunda "
                f"{fmt(d.points)} gösterdi.",
                winner=s.winner,
                points=list(d.points),
                games=list(d.games),
            )
        )
        self.s = replace(s, points=d.points, games=d.games)

    def check_expedite_due(self) -> None:
        """2.15.1: after 10 minutes' play in a game with fewer than 18 points, the expedite system is due."""
        s = self.s
        if s.expedite or s.winner is not None or s.game_clock is None or s.expedite_due_game == s.game_number:
            return
        if game_over(s.points, s.config.ruleset) or not expedite_allowed(s):
            return
        paused = s.paused
        if s.timeout_at is not None:
            paused += min(60.0, max(0.0, self.at - s.timeout_at))
        limit = 900.0 if s.config.ruleset == "legacy21" else 600.0
        played = self.at - s.game_clock - paused
        if played >= limit:
            self.flag(
                _anomaly(
                    "tt.expedite_due",
                    f"Game {s.game_number} has been played for {played / 60:.1f} minutes at {fmt(s.points)}; "
                    f"the expedite system is due (2.15.1).",
                    f"{s.game_number}. oyun {fmt(s.points)} skorunda {played / 60:.1f} dakikadır oynanıyor; "
                    f"hızlandırma sistemi uygulanmalı (2.15.1).",
                    game=s.game_number,
                    points=list(s.points),
                    played_s=round(played, 1),
                )
            )
            self.s = replace(s, expedite_due_game=s.game_number)

    def introduce_expedite(
        self, ball_in_play: bool | None, *, board_server: int | None = None, board_player: str | None = None
    ) -> None:
        """2.15.3: who serves when expedite starts; then service alternates every point (2.15.4)."""
        s = self.s
        if s.expedite:
            return
        game, played = s.game_number, sum(s.points)
        if not expedite_allowed(s):
            self.flag(
                _anomaly(
                    "tt.expedite_not_allowed",
                    f"Game {game}: the expedite system was introduced at {fmt(s.points)}; it may not be "
                    f"introduced once 18 points have been scored (2.15.2).",
                    f"{game}. oyun: hızlandırma sistemi {fmt(s.points)} skorunda başlatıldı; 18 sayı "
                    f"oynandıktan sonra başlatılamaz (2.15.2).",
                    game=game,
                    points=list(s.points),
                )
            )
        in_play = pair_at(s, played)  # the interrupted rally's server serves again
        if played == 0 or in_play is None:
            not_in_play = in_play
        else:  # the receiver of the previous rally serves
            last = pair_at(s, played - 1)
            not_in_play = next_pair(last) if last else None
            if not_in_play and s.config.doubles and is_last_game(s) and s.swap_at == played:
                not_in_play = (not_in_play[0], _partner(not_in_play[1]))
        chosen = not_in_play
        if ball_in_play is True:
            chosen = in_play
        elif ball_in_play is None and in_play is not None and not_in_play is not None:
            if board_player is not None and s.config.doubles:
                chosen = in_play if board_player == in_play[0] else not_in_play
            elif board_server is not None:
                chosen = in_play if board_server == _side(in_play[0]) else not_in_play
        self.s = replace(
            s,
            expedite=True,
            expedite_since=(game, s.points),
            expedite_anchor=(game, played, chosen[0], chosen[1]) if chosen else None,
        )
        self.fact(
            "expedite",
            game=game,
            points=list(s.points),
            ball_in_play=ball_in_play,
            server=_side(chosen[0]) if chosen else None,
            **({"server_player": chosen[0]} if chosen and s.config.doubles else {}),
        )

    def timeout(self, side: int) -> None:
        if self.after_match("timeout", side):
            return
        s = self.s
        if s.timeouts[side]:
            self.flag(
                _anomaly(
                    "tt.second_timeout",
                    f"{_who(side)} called a second time-out; one per player or pair per match (3.4.4.2).",
                    f"{_who(side)} ikinci kez mola istedi; maç başına bir mola hakkı vardır (3.4.4.2).",
                    side=side,
                    game=s.game_number,
                    points=list(s.points),
                )
            )
        used = list(s.timeouts)
        used[side] = True
        self.s = replace(s, timeouts=(used[0], used[1]), timeout_active=side, timeout_at=self.at)
        self.fact("timeout", side=side, game=s.game_number, points=list(s.points))

    def card(self, c: Card) -> None:
        s = self.s
        side = c.side
        if c.player is not None and (not s.config.doubles or _side(c.player) != side):
            self.flag(
                _anomaly(
                    "tt.card_player",
                    f"A card for {_who(side)} named player {c.player}, who is not on that side; it was not "
                    f"counted (a card names a player only in doubles, one of the side's two).",
                    f"{_who(side)} için verilen kart {c.player} oyuncusunu adlandırdı; bu oyuncu o tarafta "
                    f"değil, kart sayılmadı (oyuncu yalnız çiftlerde, tarafın iki oyuncusundan biri olarak "
                    f"adlandırılır).",
                    side=side,
                    player=c.player,
                )
            )
            return
        given = s.cards[side]
        if c.card == "yellow_red" and "yellow" not in given:
            self.flag(
                _anomaly(
                    "tt.penalty_without_warning",
                    f"{_who(side)} got yellow and red cards (a penalty point) with no yellow card before "
                    f"(3.5.2: a warning comes first).",
                    f"{_who(side)} önceden sarı kart görmeden sarı-kırmızı kart (ceza sayısı) gördü "
                    f"(3.5.2: önce uyarı verilir).",
                    side=side,
                    game=s.game_number,
                    points=list(s.points),
                )
            )
        cards = list(s.cards)
        cards[side] = (*given, c.card)
        self.s = replace(s, cards=(cards[0], cards[1]))
        award = 0
        if c.card == "yellow_red":
            award = 2 if "yellow_red" in given else 1  # 3.5.2: 1 point, then 2 points each time
        self.fact("card", side=side, card=c.card, player=c.player, penalty_points=award)
        other = 1 - side
        penalty = list(self.s.penalty_points)
        penalty[other] += award
        self.s = replace(self.s, penalty_points=(penalty[0], penalty[1]))
        for _ in range(award):
            if self.s.winner is not None:
                break
            if game_over(self.s.points, s.config.ruleset):
                carry = list(self.s.carry)
                carry[other] += 1
                self.s = replace(self.s, carry=(carry[0], carry[1]))
                continue
            self.score_point(other, penalty=True)
            unshown = list(self.s.unshown)
            unshown[other] += 1
            self.s = replace(self.s, unshown=(unshown[0], unshown[1]))

    def umpire_point(self, side: int) -> None:
        s = self.s
        if s.winner is not None:
            self.after_match("point", side)
            return
        if game_over(s.points, s.config.ruleset):
            self.new_game(0 if s.points[0] > s.points[1] else 1)
            if self.after_match("point", side):  # the game closed was the match's (its games set by hand)
                return
        self.score_point(side)

    def after_match(self, what: str, side: int | None) -> bool:
        """An umpire's point, time-out or expedite once the match is won: flagged, the score kept (whether
        the match was over). A referee's input so flagged is refused (`hub.referee.inputs`)."""
        s = self.s
        if s.winner is None:
            return False
        won, _ = match_result(s)
        en, tr = _AFTER_MATCH[what]
        self.flag(
            _anomaly(
                "tt.match_overrun",
                f"The match was already won by {_who(s.winner)} ({fmt(won)}); {en} was entered after it.",
                f"Maçı {_who(s.winner)} zaten kazanmıştı ({fmt(won)}); ardından {tr} girildi.",
                winner=s.winner,
                games=list(won),
                input=what,
                **({} if side is None else {"side": side}),
            )
        )
        return True

    def umpire_undo(self, side: int | None) -> None:
        """Take back the last point of the game in play (the last one won by `side`, when named)."""
        before = self.s
        self.reopen_deciding_game()
        s = self.s
        game = s.game_number
        played = [p for p in s.points_log if p.game == game]
        last = next((p for p in reversed(played) if not p.penalty and side in (None, p.side)), None)
        if last is None or played[-1].points != s.points:  # none, or a score a correction set: no point
            self.s = before
            self.fact("undo", side=side, ignored=True)
            return
        taken = last.side
        points = list(s.points)
        points[taken] -= 1
        self.set_points((points[0], points[1]))
        self.s = replace(self.s, rallies=max(0, self.s.rallies - 1))
        self.fact("undo", side=taken, points=points, game=game)

    def set_games(self, games: tuple[int, int], scores: tuple[tuple[int, int], ...], **more: Any) -> None:
        """Games as a report or a referee sets them, not as rallies won them: the game in play starts again
        at 0-0 with the service order the rules give it."""
        self.s = replace(
            self.s,
            games=games,
            game_scores=scores,
            points=(0, 0),
            swap_at=None,
            order_anchor=None,
            unshown=(0, 0),
            game_clock=None,
            paused=0.0,
            **more,
        )
        self.s = replace(self.s, game_order=order_for_game(self.s, self.s.game_number))

    def winner_by_games(self, games: tuple[int, int], scores: tuple[tuple[int, int], ...]) -> bool:
        """Declare the winner once `games` reach the games to win (with `scores` when they name every game);
        whether this did."""
        s = self.s
        if s.winner is not None or max(games) < s.games_to_win:
            return False
        known = scores if len(scores) == sum(games) else None  # else the games stand as reported
        self.s = replace(s, winner=0 if games[0] > games[1] else 1, final_scores=known)
        return True

    def correction(self, c: Correction) -> None:
        s = self.s
        problem = _impossible(s, c)
        if problem is not None:
            en, tr = problem
            self.flag(
                _anomaly(
                    "tt.impossible_score",
                    f"A correction to {fmt(c.points)} in games {fmt(c.games)} was not taken: {en}.",
                    f"{fmt(c.games)} oyunda {fmt(c.points)} düzeltmesi alınmadı: {tr}.",
                    points=list(c.points),
                    games=list(c.games),
                )
            )
            return
        if c.games != s.games:
            scores = s.game_scores[: sum(c.games)]
            if one_game_more(s.games, c.games) and game_over(s.points, s.config.ruleset):
                scores = (*s.game_scores, s.points)  # the game the board missed closing
            self.set_games(c.games, scores, carry=(0, 0), winner=None, final_scores=None)
        self.s = replace(self.s, unshown=(0, 0))
        self.set_points(c.points)
        self.winner_by_games(self.s.games, self.s.game_scores)
        s = self.s
        if c.server is not None:
            server_side = c.server if isinstance(c.server, int) else _side(c.server)
            player = c.server if isinstance(c.server, str) and s.config.doubles else None
            pair = service(s)
            if pair is None or _side(pair[0]) != server_side or (player and pair[0] != player):
                order = fit_order(s, server_side, player)
                if order is not None:
                    game = s.game_number
                    toss = order if game % 2 == 1 else (order[1], order[0])
                    if s.config.doubles and game > 1:
                        toss = s.toss or toss  # in doubles a later game's order is the pair's own choice
                    self.s = replace(s, game_order=order, toss=toss)
                else:
                    wanted = player or ("AB"[server_side] if not s.config.doubles else None)
                    anchor = pair_with_server(pair, wanted, server_side, s.config.doubles)
                    if anchor is not None:
                        self.s = replace(s, order_anchor=(s.game_number, sum(s.points), anchor[0], anchor[1]))
        if c.ends is not None:
            self.s = replace(self.s, ends_anchor=(ends_changes(self.s), c.ends), ends_flagged=None)
        s = self.s
        pair = service(s)
        self.fact(
            "correction",
            points=list(c.points),
            games=list(c.games),
            reason=c.reason,
            server=_side(pair[0]) if pair else None,
            ends=s.ends,
        )


def _impossible(s: TableTennisState, c: Correction) -> tuple[str, str] | None:
    """Why no match of these terms reaches the corrected score (English, Turkish), or None when one can."""
    target, to_win = game_target(s.config.ruleset), s.games_to_win
    a, b = sorted(c.points)
    if max(c.games) > to_win or min(c.games) >= to_win:
        return f"a side wins the match at {to_win} games", f"maç {to_win} oyunda kazanılır"
    if max(c.games) == to_win and c.points != (0, 0):
        return "no game is played once the match is won", "maç kazanıldıktan sonra oyun oynanmaz"
    if b > target and b - a > 2:  # past the target only at deuce: the game ends two points clear
        return f"a game ends at {target} with a lead of two", f"oyun iki sayı farkla {target}'de biter"
    return None


def following_game(s: TableTennisState, games: tuple[int, int], **more: Any) -> TableTennisState:
    """The state once the game is closed at its score and the next one begins, `games` won (`new_game`)."""
    previous = s.game_order
    return replace(
        s,
        games=games,
        game_scores=(*s.game_scores, s.points),
        points=(0, 0),
        swap_at=None,
        order_anchor=None,
        game_order=(previous[1], previous[0]) if previous else None,  # 2.13.6
        unshown=(0, 0),
        carry=(0, 0),
        game_clock=None,
        paused=0.0,
        timeout_active=None,
        timeout_at=None,
        **more,
    )


def toss_pair(t: Toss, doubles: bool) -> tuple[str, str] | None:
    """The first server and receiver a toss gives, or None when it names no such pair for the match."""
    if not doubles:
        return (
            (t.server, "B" if t.server == "A" else "A")
            if t.server in ("A", "B") and t.receiver is None
            else None
        )
    if t.server not in DOUBLES_PLAYERS or t.receiver not in DOUBLES_PLAYERS or t.server[0] == t.receiver[0]:
        return None
    return (t.server, t.receiver)


def named_toss(t: Toss, lang: str) -> str:
    """A toss as a message says it: who serves, and who receives when it names one."""
    if lang == "tr":
        return f"{t.server} servis" + (f", {t.receiver} karşılar" if t.receiver else "")
    return f"{t.server} to serve" + (f", {t.receiver} to receive" if t.receiver else "")
