"""Generated legal matches fold without a single anomaly, and the engine's server follows the ITTF text.

`ServeModel` below is written from the rules, point by point (2.13.3–2.13.7, 2.15.3–2.15.6), and shares no
code with the engine: it plays the match, and the engine only sees what a scoreboard and an umpire report.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.rules import tabletennis as tt

PARTNER = {"A1": "A2", "A2": "A1", "B1": "B2", "B2": "B1"}


def side_of(player: str) -> int:
    return 0 if player.startswith("A") else 1


@dataclass
class ServeModel:
    """Who serves and receives, which ends, as the ITTF rules say it, simulated point by point."""

    doubles: bool
    best_of: int
    server: str
    receiver: str
    game: int = 1
    points: list[int] = field(default_factory=lambda: [0, 0])
    games: list[int] = field(default_factory=lambda: [0, 0])
    scores: list[tuple[int, int]] = field(default_factory=list)
    expedite: bool = False
    ends_swapped: bool = False
    reached_five_at: int | None = None
    first_of_game: tuple[str, str] = ("", "")
    served_to: dict[str, str] = field(default_factory=dict)  # receiver -> who served to him, this game
    last_rally: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        self.first_of_game = (self.server, self.receiver)

    def partner(self, player: str) -> str:
        return PARTNER[player] if self.doubles else player

    @property
    def last_game(self) -> bool:
        return self.game == self.best_of

    def game_over(self) -> bool:
        return max(self.points) >= 11 and abs(self.points[0] - self.points[1]) >= 2

    def match_over(self) -> bool:
        return max(self.games) > self.best_of // 2

    def point(self, winner: int) -> None:
        """A point is scored (a rally, or a penalty point: both count for the service order)."""
        self.served_to[self.receiver] = self.server
        self.last_rally = (self.server, self.receiver)
        self.points[winner] += 1
        # 2.13.3: service changes after each 2 points; from 10-all, or under expedite, after each point.
        if self.expedite or min(self.points) >= 10 or sum(self.points) % 2 == 0:
            # 2.13.5 (doubles): the previous receiver serves, the partner of the previous server receives.
            self.server, self.receiver = self.receiver, self.partner(self.server)
        # 2.13.6 / 2.13.7: in the last possible game, when a side first scores 5, ends change and the pair
        # due to receive changes its order.
        if self.last_game and self.reached_five_at is None and max(self.points) == 5:
            self.reached_five_at = sum(self.points)
            self.ends_swapped = not self.ends_swapped
            if self.doubles:
                self.receiver = PARTNER[self.receiver]

    def next_game(self, rng: random.Random) -> None:
        self.scores.append((self.points[0], self.points[1]))
        self.games[0 if self.points[0] > self.points[1] else 1] += 1
        self.game += 1
        self.points = [0, 0]
        self.ends_swapped = not self.ends_swapped  # 2.13.7: ends change after each game
        self.reached_five_at = None
        first_server, first_receiver = self.first_of_game
        if self.doubles:
            # 2.13.6: the pair that served first receives first; 2.13.4: the serving pair chooses which of
            # them serves first, and the first receiver is the player who served to him in the game before.
            server = rng.choice([first_receiver, PARTNER[first_receiver]])
            receiver = self.served_to[server]
        else:
            server, receiver = first_receiver, first_server
        self.server, self.receiver = server, receiver
        self.first_of_game = (server, receiver)
        self.served_to = {}
        self.last_rally = None

    def start_expedite(self, ball_in_play: bool) -> None:
        """2.15.3: ball in play — the interrupted rally's server serves; not in play — the last receiver."""
        if not ball_in_play and self.last_rally is not None:
            last_server, last_receiver = self.last_rally
            self.server, self.receiver = last_receiver, self.partner(last_server)
            if self.doubles and self.reached_five_at == sum(self.points):
                self.receiver = PARTNER[self.receiver]  # the order change at 5 that has just come due
        self.expedite = True

    def display(self, *, game_over: bool = False) -> tt.Display:
        server = None if game_over else side_of(self.server)
        return tt.Display(
            (self.points[0], self.points[1]),
            (self.games[0], self.games[1]),
            server,
            tuple(self.scores),
            "swapped" if self.ends_swapped else "normal",
            self.expedite,
            None if game_over or not self.doubles else self.server,
        )


@dataclass
class Plan:
    best_of: int
    doubles: bool
    first_server: str
    first_receiver: str
    config_knows_first_server: bool
    expedite_at: tuple[int, int, bool] | None  # game, points played, ball in play
    timeout_at: tuple[int, int] | None  # rally number, side
    yellow_at: tuple[int, int] | None  # rally number, side
    penalty_after_yellow: bool


@st.composite
def plans(draw: st.DrawFn) -> tuple[Plan, int]:
    best_of = draw(st.sampled_from([3, 5, 7]))
    doubles = draw(st.booleans())
    if doubles:
        first_server = draw(st.sampled_from(["A1", "A2", "B1", "B2"]))
        other = "B" if first_server[0] == "A" else "A"
        first_receiver = draw(st.sampled_from([other + "1", other + "2"]))
    else:
        first_server = draw(st.sampled_from(["A", "B"]))
        first_receiver = "B" if first_server == "A" else "A"
    expedite = draw(st.none() | st.tuples(st.integers(1, best_of), st.integers(0, 17), st.booleans()))
    timeout = draw(st.none() | st.tuples(st.integers(1, 60), st.integers(0, 1)))
    yellow = draw(st.none() | st.tuples(st.integers(1, 60), st.integers(0, 1)))
    plan = Plan(
        best_of,
        doubles,
        first_server,
        first_receiver,
        draw(st.booleans()) or doubles,
        expedite,
        timeout,
        yellow,
        draw(st.booleans()),
    )
    return plan, draw(st.integers(0, 2**32 - 1))


def config_for(plan: Plan) -> tt.TableTennisConfig:
    if not plan.config_knows_first_server:
        return tt.TableTennisConfig(best_of=plan.best_of)  # the toss comes from the board's indicator
    if plan.doubles:
        return tt.TableTennisConfig.from_names(plan.best_of, True, plan.first_server, plan.first_receiver)
    return tt.TableTennisConfig.from_names(plan.best_of, False, plan.first_server)


def play(plan: Plan, seed: int):
    """Yield (at, input, model) for a legal match played by the model; the model is as after the input."""
    rng = random.Random(seed)
    model = ServeModel(plan.doubles, plan.best_of, plan.first_server, plan.first_receiver)
    at = 0.0
    rally = 0
    yellow_given = False
    yield at, model.display(), model
    while not model.match_over():
        if model.game_over():
            at += 30.0
            model.next_game(rng)
            yield at, model.display(), model
            continue
        played = sum(model.points)
        if plan.expedite_at and not model.expedite:
            game, when, in_play = plan.expedite_at
            if model.game == game and played == when:
                at += 1.0
                model.start_expedite(in_play)
                yield at, tt.ExpediteStart(in_play), model
        rally += 1
        if plan.timeout_at and plan.timeout_at[0] == rally:
            at += 30.0
            yield at, tt.TimeOut(plan.timeout_at[1]), model
        if plan.yellow_at and rally >= plan.yellow_at[0] and not yellow_given:
            yellow_given = True
            at += 1.0
            yield at, tt.Card(plan.yellow_at[1], "yellow"), model
            if plan.penalty_after_yellow:
                at += 1.0
                model.point(1 - plan.yellow_at[1])  # 3.5.2: yellow and red, one point to the opponent
                yield at, tt.Card(plan.yellow_at[1], "yellow_red"), model
                at += 1.0
                yield at, model.display(game_over=model.game_over()), model
                continue
        at += rng.uniform(2.0, 8.0)
        model.point(0 if rng.random() < 0.5 else 1)
        yield at, model.display(game_over=model.game_over()), model


@settings(max_examples=150, deadline=None)
@given(plans())
def test_a_legal_match_has_no_anomaly_and_the_server_is_the_rules_server_on_every_point(
    drawn: tuple[Plan, int],
) -> None:
    plan, seed = drawn
    state = tt.initial(config_for(plan))
    servers: list[tuple[int, str]] = []
    for at, item, model in play(plan, seed):
        before = tt.service(state)
        outcome = tt.apply(state, item, at)
        assert outcome.anomalies == (), (item, outcome.anomalies)
        if [f for f in outcome.facts if f.kind in ("point", "penalty_point")]:
            assert before is not None
            servers.append((side_of(before[0]), before[0]))
        state = outcome.state
        if not model.game_over() and not model.match_over():
            server, receiver = tt.service(state) or ("?", "?")
            if plan.doubles:
                assert (server, receiver) == (model.server, model.receiver), (model.points, model.game)
            else:
                assert side_of(server) == side_of(model.server), (model.points, model.game)
            assert state.ends == ("swapped" if model.ends_swapped else "normal")
    assert state.winner == (0 if model.games[0] > model.games[1] else 1)
    won, scores = tt.match_result(state)
    assert list(scores) == model.scores
    assert list(won) == model.games
    assert [(p.server, p.server_player) for p in state.points_log] == [
        (s, p if plan.doubles else None) for s, p in servers
    ]


@settings(max_examples=40, deadline=None)
@given(plans())
def test_the_state_round_trips_through_plain_data_at_every_step(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    state = tt.initial(config_for(plan))
    for at, item, _ in play(plan, seed):
        state = tt.apply(state, tt.input_from_dict(json.loads(json.dumps(tt.input_to_dict(item)))), at).state
        assert tt.from_dict(json.loads(json.dumps(tt.to_dict(state)))) == state
