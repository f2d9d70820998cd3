"""A seeded table-tennis match under the ITTF rules, step by step, with the display errors it can be told to make.

Pure: no clock, no I/O. `TableTennisMatchSim.step()` returns what the scoreboard sends for one step of play:
a `ScoreboardState` after a rally, a game change or a penalty point, or a `DeviceEvent` (time-out, card,
expedite) followed by the display it changes; what it is told to do is a `tabletennis_options.MatchOptions`.
The service order is kept as a running rotation (who serves, who receives, how many serves so far), written
from the rule text and not shared with the hub's engine, so the two implementations check each other:

- 2.13.3: service changes after every 2 points (5 in the legacy 21-point count), and after every point from
  10-10 (20-20) or under the expedite system.
- 2.13.4-2.13.5: in doubles the receiver becomes the server and the partner of the previous server receives.
- 2.13.6: the side that served first in a game receives first in the next; in the last possible game of a
  doubles match the pair due to receive next changes its receiving order when a side first reaches 5.
- 2.13.7: ends change after each game and when a side first reaches 5 in the last possible game.
- 2.15: the expedite system, once introduced, stays for the rest of the match; service then alternates after
  every point, starting per 2.15.3 (the server of an interrupted rally serves again; between rallies the
  receiver of the preceding rally serves).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from boardcast_sim.tabletennis_options import (
    COUNTS,
    EXPEDITE_MAX_POINTS,
    PLAIN_MATCH,
    Card,
    CardPlan,
    EventKind,
    ExpeditePlan,
    Fault,
    MatchOptions,
    Ruleset,
    TimeOutPlan,
)
from devices.observations import DeviceEvent, Ends, Report, ScoreboardState

RALLY_SECONDS = (2.0, 7.0)


def game_over(points: tuple[int, int], game_points: int = 11) -> bool:
    """ITTF 2.11.1: a game is won by the first to 11 (21 in legacy), or by 2 clear from 10-10."""
    return max(points) >= game_points and abs(points[0] - points[1]) >= 2


def side_of(player: str) -> int:
    """The side a player plays for: "A", "A1", "A2" are side 0; "B", "B1", "B2" side 1."""
    return 0 if player.startswith("A") else 1


def partner(player: str) -> str:
    """A doubles player's partner ("A1" <-> "A2"); a singles player ("A") is their own partner."""
    if len(player) == 1:
        return player
    return player[0] + ("2" if player[1] == "1" else "1")


@dataclass(slots=True)
class _Rotation:
    """Who serves, who receives, and how many times the server has served since the last change."""

    server: str
    receiver: str
    served: int = 0

    def change(self) -> None:
        """2.13.3/2.13.5: the receiver serves; the previous server's partner (or the server) receives."""
        self.server, self.receiver, self.served = self.receiver, partner(self.server), 0


@dataclass(slots=True)
class _Plan:
    """The incidents still to come: time-outs, cards and the expedite introduction."""

    timeouts: list[TimeOutPlan] = field(default_factory=list)
    cards: list[CardPlan] = field(default_factory=list)
    expedite: ExpeditePlan | None = None


class TableTennisMatchSim:
    """A seeded match producing the scoreboard's reports step by step; pure, no clock."""

    def __init__(
        self,
        seed: int,
        best_of: int = 5,
        first_server: int = 0,
        *,
        start: ScoreboardState | None = None,
        options: MatchOptions = PLAIN_MATCH,
    ) -> None:
        if best_of < 1 or best_of % 2 == 0:
            raise ValueError(f"best_of must be an odd number of games, got {best_of}")
        if first_server not in (0, 1):
            raise ValueError(f"first_server must be 0 or 1, got {first_server}")
        self.best_of = best_of
        self.first_server = first_server
        self.options = options
        self.count = COUNTS[Ruleset(options.ruleset)]
        self._rng = random.Random(seed)
        self._side0_wins = self._rng.uniform(0.35, 0.65)  # chance that side 0 wins a rally
        self._clock_rng = random.Random(seed ^ 0x7173)
        self._fault_rng = random.Random(f"faults-{seed}")
        self._first_pair = self._toss_pair(first_server)
        self._rotation = _Rotation(*self._first_pair)
        self._game_first_pair = self._first_pair
        start = start or ScoreboardState(points=(0, 0), games=(0, 0))
        if sum(start.games) != len(start.game_scores):
            raise ValueError(
                f"start shows {sum(start.games)} games won but {len(start.game_scores)} finished game scores"
            )
        if max(start.games) > self.games_to_win:
            raise ValueError(f"start games {start.games} exceed a best-of-{best_of} match")
        self._points = (0, 0)
        self._games = start.games
        self._game_scores = start.game_scores
        self._ends = Ends.NORMAL
        self._expedite = False
        self._ends_changed_in_game = False
        self._ends_changed_now = False  # the last point reached 5 in the last possible game
        self._game_closed = False  # the board shows a game's last score; the next step turns the game
        self._game_play_s = 0.0
        self.rallies = sum(a + b for a, b in start.game_scores)  # points shown so far in the match
        self.rally_seconds = (
            0.0  # simulated length of the last rally; play time counts for ExpeditePlan.play_s
        )
        self._timeouts_used = [False, False]
        self._yellows = [False, False]
        self._penalties_given = [0, 0]
        self._penalty_points: deque[int] = deque()  # sides still to be awarded a penalty point
        self._queue: deque[tuple[Report, ...]] = deque()
        self._overrun_pending = False
        self._overran = False
        self.injected: list[tuple[Fault, int]] = []  # every fault injected, with self.rallies at the time
        self.reports: list[Report] = []  # everything step() returned, in order
        self._plan = _Plan(list(options.timeouts), list(options.cards), options.expedite)
        self._fault_odds: dict[Fault, float] = {}
        self._fault_from: dict[Fault, int] = {}
        self._resume(start)
        self._fault_odds, self._fault_from = self._fault_schedule(options.faults)
        self._state = self._display()

    # -- public --------------------------------------------------------------------------------------

    @property
    def games_to_win(self) -> int:
        """Games a side needs to take the match."""
        return self.best_of // 2 + 1

    @property
    def state(self) -> ScoreboardState:
        """What the scoreboard shows now."""
        return self._state

    @property
    def decided(self) -> bool:
        """Whether a side has won the match."""
        return max(self._games) >= self.games_to_win

    @property
    def finished(self) -> bool:
        """Whether the board has nothing more to show (the match is decided, any overrun shown)."""
        return self.decided and not self._overrun_pending and not self._queue

    @property
    def winner(self) -> int | None:
        """The side that won the match, or None while it is being played."""
        if not self.decided:
            return None
        return 0 if self._games[0] > self._games[1] else 1

    @property
    def expedite(self) -> bool:
        """Whether the expedite system is in force."""
        return self._expedite

    def next_rally(self) -> ScoreboardState:
        """Play steps until the display changes (events on the way are kept in `reports`); return it."""
        while True:
            reports = self.step()
            if isinstance(reports[-1], ScoreboardState):
                return reports[-1]

    def step(self) -> tuple[Report, ...]:
        """One step of play: the reports the board sends for it, the last one usually the new display."""
        if self.finished:
            raise RuntimeError("the match is over; no more rallies")
        reports = self._queue.popleft() if self._queue else self._next()
        for report in reports:
            if isinstance(report, ScoreboardState):
                self._state = report
        self.reports.extend(reports)
        return reports

    # -- steps ---------------------------------------------------------------------------------------

    def _next(self) -> tuple[Report, ...]:
        if self.decided:
            return self._overrun()
        if self._game_closed:
            return self._turn_game()
        if self._penalty_points:
            side = self._penalty_points.popleft()
            self._score(side)
            return (self._display(),)
        return self._incident() or self._rally()

    def _rally(self) -> tuple[Report, ...]:
        before = self._display()
        self._play_one()
        if not self._game_closed and self._roll(Fault.SCORE_JUMP):
            self._play_one()  # played, never shown: the display goes 2 points on
            self._inject(Fault.SCORE_JUMP)
            return (self._display(),)
        shown = self._display()
        if self._ends_changed_now and self._roll(Fault.ENDS_NOT_CHANGED):
            self._inject(Fault.ENDS_NOT_CHANGED)
            self._queue.append((shown,))  # the umpire turns the ends over at the next display
            return (replace(shown, ends=_other(self._ends).value),)
        if not self._game_closed and self._roll(Fault.WRONG_SERVER):
            self._inject(Fault.WRONG_SERVER)
            wrong = self._rotation.receiver
            return (replace(shown, server=side_of(wrong), server_player=self._player_shown(wrong)),)
        if before.games == shown.games and self._roll(Fault.SCORE_DECREASE):
            self._queue.append((before,))  # the older display, once ...
            self._queue.append((shown,))  # ... then the true one again
            self._inject(Fault.SCORE_DECREASE)
        return (shown,)

    def _play_one(self) -> None:
        server_side = side_of(self._rotation.server)
        side0_wins = self._side0_wins + (0.04 if server_side == 0 else -0.04)  # a small edge on serve
        winner = 0 if self._rng.random() < side0_wins else 1
        if self._rigging_game_end():
            a, b = self._points
            near = self.count.game_points - 1
            if max(a, b) >= near and min(a, b) < near:
                winner = 0 if a < b else 1  # the trailing side catches up: the game must reach deuce
        self.rally_seconds = self._clock_rng.uniform(*RALLY_SECONDS)
        self._game_play_s += self.rally_seconds
        self._score(winner)

    def _score(self, winner: int) -> None:
        """One point to a side (a rally or a penalty), then the service order and ends move on."""
        self._ends_changed_now = False
        points = list(self._points)
        points[winner] += 1
        self._points = (points[0], points[1])
        self.rallies += 1
        rotation = self._rotation
        rotation.served += 1
        deuce = min(self._points) >= self.count.game_points - 1
        if self._expedite or deuce or rotation.served >= self.count.serves:
            rotation.change()
        reached = max(self._points) == self.count.change_ends_at
        if self._last_possible_game and reached and not self._ends_changed_in_game:
            self._ends_changed_in_game = True
            self._ends = _other(self._ends)
            self._ends_changed_now = True
            rotation.receiver = partner(rotation.receiver)  # 2.13.6: doubles only; singles no-op
        a, b = self._points
        if game_over(self._points, self.count.game_points):
            self._game_closed = True
        elif max(a, b) >= self.count.game_points and abs(a - b) == 1 and self._roll(Fault.ILLEGAL_GAME_END):
            self._game_closed = True
            self._inject(Fault.ILLEGAL_GAME_END)

    def _turn_game(self) -> tuple[Report, ...]:
        winner = 0 if self._points[0] > self._points[1] else 1
        games = list(self._games)
        games[winner] += 1
        self._games = (games[0], games[1])
        self._game_scores = (*self._game_scores, self._points)
        self._start_game()
        shown = self._display()
        if self.decided:
            self._overrun_pending = self._roll(Fault.MATCH_OVERRUN)
            return (shown,)
        if self._roll(Fault.ENDS_NOT_CHANGED):
            self._inject(Fault.ENDS_NOT_CHANGED)
            shown = replace(shown, ends=_other(self._ends).value)
            self._queue.append((self._display(),))
        if self._expedite and self._roll(Fault.EXPEDITE_DROPPED):
            self._inject(Fault.EXPEDITE_DROPPED)
            shown = replace(shown, expedite=False)
            if not self._queue:
                self._queue.append((self._display(),))
        return (shown,)

    def _start_game(self) -> None:
        self._points = (0, 0)
        self._game_closed = False
        self._ends_changed_in_game = False
        self._game_play_s = 0.0
        if not self.decided:
            self._ends = _other(self._ends)  # 2.13.7: after each game (not after the last)
        server, receiver = self._game_first_pair
        if self.options.doubles:
            # 2.13.4: the serving pair picks its first server; the first receiver is the player who served to
            # that server in the previous game. Continuing, the previous first receiver serves to the
            # previous first server; the other choice is their partners.
            pick_partners = self.options.vary_doubles_first_server and self._rng.random() < 0.5
            server, receiver = receiver, server
            if pick_partners:
                server, receiver = partner(server), partner(receiver)
        else:
            server, receiver = receiver, server  # 2.13.6: who served first now receives first
        self._game_first_pair = (server, receiver)
        self._rotation = _Rotation(server, receiver)

    def _incident(self) -> tuple[Report, ...] | None:
        for plan in self._plan.timeouts:
            if plan.at_rally <= self.rallies:
                self._plan.timeouts.remove(plan)
                if self._timeouts_used[plan.side]:
                    self._inject(Fault.SECOND_TIMEOUT)
                self._timeouts_used[plan.side] = True
                return (DeviceEvent(EventKind.TIMEOUT.value, {"side": plan.side}),)
        used = [side for side in (0, 1) if self._timeouts_used[side]]
        if used and self._roll(Fault.SECOND_TIMEOUT):
            self._inject(Fault.SECOND_TIMEOUT)
            return (DeviceEvent(EventKind.TIMEOUT.value, {"side": used[0]}),)
        for card in self._plan.cards:
            if card.at_rally <= self.rallies:
                self._plan.cards.remove(card)
                if card.card is Card.YELLOW_RED and not self._yellows[card.side]:
                    self._inject(Fault.PENALTY_WITHOUT_WARNING)
                return self._card(card.side, Card(card.card), card.player)
        unwarned = [side for side in (0, 1) if not self._yellows[side]]
        if unwarned and self._roll(Fault.PENALTY_WITHOUT_WARNING):
            self._inject(Fault.PENALTY_WITHOUT_WARNING)
            return self._card(unwarned[-1], Card.YELLOW_RED, None)
        return self._introduce_expedite()

    def _card(self, side: int, card: Card, player: str | None) -> tuple[Report, ...]:
        data: dict[str, object] = {"side": side, "card": card.value}
        if player is not None:
            data["player"] = player
        self._yellows[side] = True  # a yellow_red also counts as warned from now on
        if card is Card.YELLOW_RED:
            points = 1 if self._penalties_given[side] == 0 else 2  # 3.5.2
            self._penalties_given[side] += 1
            self._penalty_points.extend([1 - side] * points)
        return (DeviceEvent(EventKind.CARD.value, data),)

    def _introduce_expedite(self) -> tuple[Report, ...] | None:
        plan = self._plan.expedite
        if plan is None or self._expedite:
            return None
        game = sum(self._games) + 1
        total = sum(self._points)
        if plan.game is not None and game > plan.game:
            self._plan.expedite = None  # its game passed without the conditions holding
            return None
        if (
            (plan.game is not None and game != plan.game)
            or total < plan.at_points
            or (plan.play_s is not None and self._game_play_s < plan.play_s)
            or total >= EXPEDITE_MAX_POINTS
        ):
            return None
        self._plan.expedite = None
        self._expedite = True
        rotation = self._rotation
        if not plan.ball_in_play and rotation.served > 0:
            rotation.change()  # 2.15.3: the receiver of the preceding rally serves
        rotation.served = 0  # with the ball in play, the interrupted rally's server serves it again
        return (DeviceEvent(EventKind.EXPEDITE.value, {"ball_in_play": plan.ball_in_play}), self._display())

    def _overrun(self) -> tuple[Report, ...]:
        self._overrun_pending = False
        self._overran = True
        self._inject(Fault.MATCH_OVERRUN)
        side = self._rng.randrange(2)
        self.rallies += 1
        points = (1, 0) if side == 0 else (0, 1)
        return (replace(self._display(), points=points),)

    # -- faults --------------------------------------------------------------------------------------

    def _fault_schedule(
        self, faults: Collection[Fault] | Mapping[Fault, float]
    ) -> tuple[dict[Fault, float], dict[Fault, int]]:
        if isinstance(faults, Mapping):
            odds = {Fault(f): float(p) for f, p in faults.items()}
            for fault, p in odds.items():
                if not 0.0 <= p <= 1.0:
                    raise ValueError(f"fault {fault.value!r} probability must be 0..1, got {p}")
            return odds, {}
        chosen = {Fault(f): 1.0 for f in faults}
        starts = {fault: self.rallies + self._fault_rng.randint(2, 12) for fault in sorted(chosen)}
        if Fault.SECOND_TIMEOUT in chosen and not self._plan.timeouts:
            side = self._fault_rng.randrange(2)
            self._plan.timeouts.append(TimeOutPlan(side, starts[Fault.SECOND_TIMEOUT]))
            starts[Fault.SECOND_TIMEOUT] += 3
        if Fault.EXPEDITE_DROPPED in chosen and self._plan.expedite is None:
            self._plan.expedite = ExpeditePlan(game=None, at_points=6)
        return chosen, starts

    def _roll(self, fault: Fault) -> bool:
        """Whether to inject fault at this moment, where it can happen (consumes the fault rng only)."""
        odds = self._fault_odds.get(fault)
        if odds is None:
            return False
        if fault in self._fault_from:  # set mode: once, from its seeded start
            done = any(f is fault for f, _ in self.injected) or (
                fault is Fault.MATCH_OVERRUN and self._overran
            )
            return not done and self.rallies >= self._fault_from[fault]
        return self._fault_rng.random() < odds

    def _rigging_game_end(self) -> bool:
        """Set mode: once ILLEGAL_GAME_END is due, steer the game to deuce so that 11-10 comes."""
        start = self._fault_from.get(Fault.ILLEGAL_GAME_END)
        return (
            start is not None
            and self.rallies >= start
            and not any(f is Fault.ILLEGAL_GAME_END for f, _ in self.injected)
        )

    def _inject(self, fault: Fault) -> None:
        self.injected.append((fault, self.rallies))

    # -- display -------------------------------------------------------------------------------------

    @property
    def _last_possible_game(self) -> bool:
        return sum(self._games) == self.best_of - 1

    def _toss_pair(self, first_server: int) -> tuple[str, str]:
        if not self.options.doubles:
            return ("A", "B") if first_server == 0 else ("B", "A")
        server = self.options.first_server_player or ("A1" if first_server == 0 else "B1")
        receiver = self.options.first_receiver_player or ("B1" if first_server == 0 else "A1")
        if server not in ("A1", "A2", "B1", "B2") or receiver not in ("A1", "A2", "B1", "B2"):
            raise ValueError(f"doubles players are A1, A2, B1, B2; got {server!r} and {receiver!r}")
        if side_of(server) != first_server or side_of(receiver) == first_server:
            raise ValueError(
                f"first server {server!r} must play for side {first_server} and first receiver "
                f"{receiver!r} for the other side"
            )
        return server, receiver

    def _resume(self, start: ScoreboardState) -> None:
        """Set up the game in progress at start as if played from 0-0, keeping the server it shows.

        A board that powers up with the score it kept also kept who serves: of the tosses that lead to
        start, the one given is tried first, then the others, until the server shown matches.
        """
        given = self._first_pair
        players = ("A1", "A2", "B1", "B2") if self.options.doubles else ("A", "B")
        others = [(s, r) for s in players for r in players if side_of(s) != side_of(r) and (s, r) != given]
        rallies = self.rallies
        for pair in (given, *others):
            self._first_pair = self._game_first_pair = pair
            self._ends, self._ends_changed_in_game, self._game_closed = Ends.NORMAL, False, False
            self._points = (0, 0)
            turns = sum(self._games) - (1 if self.decided else 0)  # no change of ends after the last game
            for _ in range(sum(self._games)):
                server, receiver = self._game_first_pair
                self._game_first_pair = (receiver, server)
            self._ends = Ends.NORMAL if turns % 2 == 0 else Ends.SWAPPED
            self._rotation = _Rotation(*self._game_first_pair)
            self._expedite = bool(start.expedite)
            while self._points != start.points:  # a balanced path: passes 10-10 whenever the score did
                a, b = self._points
                behind = 0 if (a < start.points[0] and (a <= b or b >= start.points[1])) else 1
                self._score(behind)
            self.rallies = rallies + sum(start.points)
            self._game_closed = game_over(self._points, self.count.game_points)
            shown = self._display()
            if (
                start.server is None
                or self.decided
                or (shown.server == start.server and start.server_player in (None, shown.server_player))
            ):
                break
        else:  # no toss explains the server shown: keep the given one
            self._first_pair = given
            self._resume(replace(start, server=None, server_player=None))
        self.first_server = side_of(self._first_pair[0])

    def _player_shown(self, player: str) -> str | None:
        return player if self.options.doubles else None

    def _display(self) -> ScoreboardState:
        server = server_player = None
        if not self.decided:
            server = side_of(self._rotation.server)
            server_player = self._player_shown(self._rotation.server)
        return ScoreboardState(
            points=self._points,
            games=self._games,
            server=server,
            game_scores=self._game_scores,
            ends=self._ends.value,
            expedite=self._expedite,
            server_player=server_player,
        )


def _other(ends: Ends) -> Ends:
    return Ends.SWAPPED if ends is Ends.NORMAL else Ends.NORMAL
