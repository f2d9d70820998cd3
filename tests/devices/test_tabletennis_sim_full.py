"""Full simulated matches against a small referee written here from the ITTF text, and every injectable fault.

The referee below is deliberately a different shape from the simulator: the simulator keeps a running
rotation, the referee computes the server from the point count with the 4-step doubles cycle
(S->R, R->S', S'->R', R'->S) of ITTF 2.13.5, so the two check each other.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardcast_sim.tabletennis import (
    CardPlan,
    ExpeditePlan,
    Fault,
    MatchOptions,
    Ruleset,
    TableTennisMatchSim,
    TableTennisScoreboard,
    TimeOutPlan,
)
from boardcast_sim.tabletennis_match import COUNTS, Card
from devices.observations import DeviceEvent, ScoreboardState
from devices.wire.codec import Frame, WireCodec
from devices.wire.messages import decode_report


def partner(player: str) -> str:
    return player if len(player) == 1 else player[0] + {"1": "2", "2": "1"}[player[1]]


def side(player: str) -> int:
    return "AB".index(player[0])


def cycle(server: str, receiver: str) -> list[tuple[str, str]]:
    """ITTF 2.13.5: the order of service and receipt for one game, from its first server and receiver."""
    return [
        (server, receiver),
        (receiver, partner(server)),
        (partner(server), partner(receiver)),
        (partner(receiver), server),
    ]


@dataclass
class Referee:
    """Reads what a board sends and lists every rule it breaks (as the hub's anomaly codes without "tt.")."""

    best_of: int
    first_pair: tuple[str, str]
    doubles: bool
    ruleset: Ruleset = Ruleset.ITTF
    codes: list[str] = field(default_factory=list)
    points: tuple[int, int] = (0, 0)
    games: tuple[int, int] = (0, 0)
    game: int = 0
    expedite: bool = False
    anchor: tuple[int, int] | None = None  # (points played, cycle step) where expedite began in this game
    swap: tuple[int, int] | None = None  # (points played, pair that changed its receiving order)
    timeouts: set[int] = field(default_factory=set)
    warned: set[int] = field(default_factory=set)
    previous_first: tuple[str, str] | None = None
    displays: int = 0

    @property
    def decided(self) -> bool:
        return max(self.games) > self.best_of // 2

    @property
    def last_game(self) -> bool:
        return self.game == self.best_of - 1

    def step_of(self, played: int) -> int:
        """The cycle step for the point about to be served after `played` points."""
        if self.anchor is not None:
            return self.anchor[1] + played - self.anchor[0]
        count = COUNTS[self.ruleset]
        deuce = 2 * (count.game_points - 1)
        return played // count.serves if played < deuce else deuce // count.serves + played - deuce

    def expected(self, played: int) -> tuple[str, str]:
        server, receiver = cycle(*self.first_pair)[self.step_of(played) % 4]
        if self.swap is not None and played >= self.swap[0]:
            server, receiver = (partner(p) if side(p) == self.swap[1] else p for p in (server, receiver))
        return server, receiver

    def read(self, report: DeviceEvent | ScoreboardState) -> None:
        if isinstance(report, DeviceEvent):
            self.event(report)
        else:
            self.display(report)

    def event(self, event: DeviceEvent) -> None:
        who = event.data.get("side")
        if event.kind == "timeout":
            if who in self.timeouts:
                self.codes.append("second_timeout")
            self.timeouts.add(who)
        elif event.kind == "card":
            if event.data["card"] == "yellow_red" and who not in self.warned:
                self.codes.append("penalty_without_warning")
            self.warned.add(who)
        elif event.kind == "expedite":
            played = sum(self.points)
            step = self.step_of(played)
            if not event.data["ball_in_play"] and played > 0 and self.step_of(played - 1) == step:
                step += 1  # 2.15.3: the receiver of the preceding rally serves
            self.expedite, self.anchor = True, (played, step)

    def display(self, shown: ScoreboardState) -> None:
        self.displays += 1
        if self.decided:
            if shown.points != (0, 0):
                self.codes.append("match_overrun")
            return
        if shown.games != self.games:
            self.turn_game(shown)
        elif shown.points[0] < self.points[0] or shown.points[1] < self.points[1]:
            self.codes.append("score_decrease")
            return  # an older display; the referee keeps the score it had
        elif sum(shown.points) - sum(self.points) > 1:
            self.codes.append("score_jump")
        self.points = shown.points
        count = COUNTS[self.ruleset]
        if self.last_game and self.swap is None and max(self.points) >= count.change_ends_at:
            played = sum(self.points)
            self.swap = (played, side(self.expected(played)[1]))
        if shown.expedite != self.expedite:
            self.codes.append("expedite_dropped")
        if self.decided:
            if shown.server is not None:
                self.codes.append("wrong_server")
            return
        ends = ("normal", "swapped")[(self.game + (self.swap is not None)) % 2]
        if shown.ends != ends:
            self.codes.append("ends_not_changed")
        server, _ = self.expected(sum(self.points))
        if (shown.server, shown.server_player) != (side(server), server if self.doubles else None):
            self.codes.append("wrong_server")

    def turn_game(self, shown: ScoreboardState) -> None:
        a, b = self.points
        count = COUNTS[self.ruleset]
        if not (max(a, b) >= count.game_points and abs(a - b) >= 2):
            self.codes.append("illegal_game_end")
        assert shown.game_scores[-1] == self.points and shown.points == (0, 0)
        self.games, self.game = shown.games, self.game + 1
        self.anchor = (0, 0) if self.expedite else None
        self.swap = None
        if self.decided:
            return
        old = cycle(*self.first_pair)
        if self.doubles:
            # 2.13.4: the pair picks its first server; the first receiver served to that player last game.
            first = shown.server_player
            assert first is not None and side(first) == side(self.first_pair[1])
            receiver = next(s for s, r in old if r == first)
        else:
            first, receiver = self.first_pair[1], self.first_pair[0]
        self.first_pair = (first, receiver)


def referee_for(sim: TableTennisMatchSim) -> Referee:
    options = sim.options
    if options.doubles:
        first = (
            options.first_server_player or ("A1", "B1")[sim.first_server],
            options.first_receiver_player or ("B1", "A1")[sim.first_server],
        )
    else:
        first = ("A", "B") if sim.first_server == 0 else ("B", "A")
    return Referee(sim.best_of, first, options.doubles, Ruleset(options.ruleset))


def play(sim: TableTennisMatchSim) -> tuple[Referee, list[DeviceEvent | ScoreboardState]]:
    referee = referee_for(sim)
    sent: list[DeviceEvent | ScoreboardState] = [sim.state]
    referee.read(sim.state)
    while not sim.finished:
        for report in sim.step():
            assert isinstance(report, DeviceEvent | ScoreboardState)
            sent.append(report)
            referee.read(report)
    return referee, sent


expedite_plans = st.one_of(
    st.none(),
    st.builds(
        ExpeditePlan,
        game=st.one_of(st.none(), st.integers(1, 7)),
        at_points=st.integers(0, 17),
        ball_in_play=st.booleans(),
    ),
)


@st.composite
def match_options(draw: st.DrawFn) -> tuple[int, int, MatchOptions]:
    best_of = draw(st.sampled_from([1, 3, 5, 7]))
    first_server = draw(st.sampled_from([0, 1]))
    doubles = draw(st.booleans())
    first = draw(st.sampled_from(["A1", "A2"] if first_server == 0 else ["B1", "B2"])) if doubles else None
    receiver = draw(st.sampled_from(["B1", "B2"] if first_server == 0 else ["A1", "A2"])) if doubles else None
    options = MatchOptions(
        doubles=doubles,
        ruleset=draw(st.sampled_from(list(Ruleset))),
        first_server_player=first,
        first_receiver_player=receiver,
        vary_doubles_first_server=draw(st.booleans()),
        expedite=draw(expedite_plans),
        timeouts=tuple(
            TimeOutPlan(s, draw(st.integers(0, 60))) for s in draw(st.sets(st.sampled_from([0, 1])))
        ),
        cards=tuple(
            CardPlan(s, r, Card.YELLOW)
            for s, r in draw(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 80))))
        ),
    )
    return best_of, first_server, options


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), match_options())
def test_a_full_legal_match_breaks_no_rule_of_the_independent_referee(
    seed: int, setup: tuple[int, int, MatchOptions]
) -> None:
    best_of, first_server, options = setup
    sim = TableTennisMatchSim(seed, best_of, first_server, options=options)
    referee, sent = play(sim)
    assert referee.codes == []
    assert sim.injected == []
    final = sim.state
    count = COUNTS[Ruleset(options.ruleset)]
    for a, b in final.game_scores:  # 2.11.1: to 11 (21) with 2 clear, past it only by deuce
        assert max(a, b) >= count.game_points and abs(a - b) >= 2
        assert max(a, b) == count.game_points or abs(a - b) == 2
    assert max(final.games) == best_of // 2 + 1 and final.server is None
    events = [r for r in sent if isinstance(r, DeviceEvent)]
    timeout_sides = [e.data["side"] for e in events if e.kind == "timeout"]
    assert len(timeout_sides) == len(set(timeout_sides))  # one each, as planned
    assert set(timeout_sides) <= {t.side for t in options.timeouts}
    assert sum(1 for e in events if e.kind == "expedite") <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.booleans())
def test_once_expedite_is_in_force_service_alternates_after_every_point_for_the_rest_of_the_match(
    seed: int, doubles: bool, ball_in_play: bool
) -> None:
    plan = ExpeditePlan(game=1, at_points=5, ball_in_play=ball_in_play)
    sim = TableTennisMatchSim(seed, 5, seed % 2, options=MatchOptions(doubles=doubles, expedite=plan))
    referee, sent = play(sim)
    assert referee.codes == []
    introduced = next(i for i, r in enumerate(sent) if isinstance(r, DeviceEvent) and r.kind == "expedite")
    assert sent[introduced].data == {"ball_in_play": ball_in_play}
    after = [r for r in sent[introduced + 1 :] if isinstance(r, ScoreboardState)]
    assert all(s.expedite for s in after) and not any(
        s.expedite for s in sent[:introduced] if isinstance(s, ScoreboardState)
    )
    for before, now in itertools.pairwise(after):
        if now.games == before.games and sum(now.points) == sum(before.points) + 1 and now.server is not None:
            assert now.server != before.server


def test_expedite_between_rallies_gives_the_serve_to_the_previous_receiver() -> None:
    # At 3 points the server has served once of two: without expedite he would serve again.
    sim = TableTennisMatchSim(1, 3, 0, options=MatchOptions(expedite=ExpeditePlan(game=1, at_points=3)))
    while sum(sim.state.points) < 3:
        sim.step()
    assert sim.state.server == 1  # points 0-1 by A, 2-3 by B... after 3 points B has served once
    event, shown = sim.step()
    assert isinstance(event, DeviceEvent) and event.kind == "expedite"
    assert isinstance(shown, ScoreboardState) and shown.server == 0 and shown.expedite


def test_expedite_with_the_ball_in_play_lets_the_same_server_serve_again() -> None:
    plan = ExpeditePlan(game=1, at_points=3, ball_in_play=True)
    sim = TableTennisMatchSim(1, 3, 0, options=MatchOptions(expedite=plan))
    while sum(sim.state.points) < 3:
        sim.step()
    _, shown = sim.step()
    assert isinstance(shown, ScoreboardState) and shown.server == 1 and sum(shown.points) == 3


def test_doubles_receiving_order_swaps_at_5_in_the_last_possible_game() -> None:
    sim = TableTennisMatchSim(4, 1, 0, options=MatchOptions(doubles=True))
    referee, sent = play(sim)
    assert referee.codes == []
    shown = [s for s in sent if isinstance(s, ScoreboardState) and s.server_player]
    reached = next(i for i, s in enumerate(shown) if max(s.points) == 5)
    assert [s.server_player for s in shown[:5:2]] == ["A1", "B1", "A2"]  # two serves each
    assert all(s.ends == "normal" for s in shown[:reached])
    assert all(s.ends == "swapped" for s in shown[reached:])  # changed once, at 5


def test_ends_change_after_each_game_and_at_5_in_the_deciding_game() -> None:
    sim = TableTennisMatchSim(2, 5, 1)
    _, sent = play(sim)
    shown = [s for s in sent if isinstance(s, ScoreboardState)]
    for state in shown:
        game = sum(state.games)
        swapped = game % 2 == 1
        if game == 4 and max(state.points) >= 5:
            swapped = not swapped
        if max(state.games) < 3:
            assert state.ends == ("swapped" if swapped else "normal"), state


def test_legacy21_plays_to_21_with_five_serves_each() -> None:
    sim = TableTennisMatchSim(9, 3, 0, options=MatchOptions(ruleset=Ruleset.LEGACY21))
    referee, sent = play(sim)
    assert referee.codes == []
    assert all(max(score) >= 21 for score in sim.state.game_scores)
    first_game = [s.server for s in sent if isinstance(s, ScoreboardState) and sum(s.games) == 0]
    assert first_game[:11] == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]


def test_the_showcase_match_has_a_time_out_a_card_and_expedite() -> None:
    sim = TableTennisMatchSim(3, 5, 0, options=MatchOptions.showcase(doubles=True))
    referee, sent = play(sim)
    assert referee.codes == []
    kinds = [r.kind for r in sent if isinstance(r, DeviceEvent)]
    assert kinds == ["timeout", "card", "expedite"]
    card = next(r for r in sent if isinstance(r, DeviceEvent) and r.kind == "card")
    assert card.data == {"side": 0, "card": "yellow", "player": "A2"}


def test_a_yellow_red_card_after_a_yellow_awards_a_point_to_the_opponent() -> None:
    cards = (CardPlan(1, 3, Card.YELLOW), CardPlan(1, 6, Card.YELLOW_RED))
    sim = TableTennisMatchSim(5, 3, 0, options=MatchOptions(cards=cards))
    referee, sent = play(sim)
    assert referee.codes == []
    at = next(
        i for i, r in enumerate(sent) if isinstance(r, DeviceEvent) and r.data.get("card") == "yellow_red"
    )
    before = next(r for r in reversed(sent[:at]) if isinstance(r, ScoreboardState))
    after = sent[at + 1]
    assert isinstance(after, ScoreboardState) and after.points == (before.points[0] + 1, before.points[1])


# -- faults -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", list(Fault))
@pytest.mark.parametrize("doubles", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3, 17])
def test_each_fault_is_injected_once_and_is_exactly_what_the_referee_flags(
    fault: Fault, doubles: bool, seed: int
) -> None:
    sim = TableTennisMatchSim(seed, 5, seed % 2, options=MatchOptions(doubles=doubles, faults={fault}))
    referee, _ = play(sim)
    assert [f for f, _ in sim.injected] == [fault]
    assert fault.anomaly == f"tt.{fault.value}"
    if fault is Fault.SCORE_JUMP:  # a hidden rally can hide the point where ends and receivers change
        assert referee.codes[0] == fault.value
        assert set(referee.codes) <= {fault.value, "wrong_server", "ends_not_changed"}
    else:
        assert referee.codes == [fault.value]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_faults_by_probability_are_each_recorded_and_each_flagged(seed: int, doubles: bool) -> None:
    odds = {fault: 0.02 for fault in Fault} | {Fault.MATCH_OVERRUN: 0.5}
    options = MatchOptions(
        doubles=doubles,
        faults=odds,
        timeouts=(TimeOutPlan(0, 3),),
        expedite=ExpeditePlan(game=1, at_points=4),
    )
    sim = TableTennisMatchSim(seed, 5, seed % 2, options=options)
    referee, _ = play(sim)
    injected = [f.value for f, _ in sim.injected]
    assert len(sim.injected) == len(injected)
    if Fault.SCORE_JUMP.value not in injected:
        assert sorted(referee.codes) == sorted(injected)
    else:
        assert set(injected) <= set(referee.codes)


def test_illegal_game_end_rolls_to_the_next_game_at_11_10() -> None:
    sim = TableTennisMatchSim(8, 5, 0, options=MatchOptions(faults={Fault.ILLEGAL_GAME_END}))
    play(sim)
    assert any(sorted(score) == [10, 11] for score in sim.state.game_scores)


def test_match_overrun_shows_a_point_after_the_result() -> None:
    sim = TableTennisMatchSim(8, 3, 0, options=MatchOptions(faults={Fault.MATCH_OVERRUN}))
    _, sent = play(sim)
    result, overrun = sent[-2], sent[-1]
    assert isinstance(result, ScoreboardState) and max(result.games) == 2 and result.points == (0, 0)
    assert isinstance(overrun, ScoreboardState) and overrun.games == result.games and sum(overrun.points) == 1
    with pytest.raises(RuntimeError, match="the match is over"):
        sim.step()


def test_a_bad_fault_probability_is_refused() -> None:
    with pytest.raises(ValueError, match="score_jump"):
        TableTennisMatchSim(1, options=MatchOptions(faults={Fault.SCORE_JUMP: 1.5}))


@pytest.mark.parametrize("doubles", [False, True])
def test_a_board_resumed_from_its_display_keeps_the_server_it_showed(doubles: bool) -> None:
    played = TableTennisMatchSim(11, 5, 1, options=MatchOptions(doubles=doubles))
    for _ in range(30):
        played.next_rally()
    shown = played.state
    resumed = TableTennisMatchSim(12, 5, 0, start=shown, options=MatchOptions(doubles=doubles))
    assert resumed.state == shown and resumed.first_server == 1
    while not resumed.finished:
        resumed.step()
    assert resumed.state.game_scores[: len(shown.game_scores)] == shown.game_scores


async def test_the_scoreboard_device_sends_the_new_state_keys_events_and_faults_over_the_wire() -> None:
    options = MatchOptions.showcase(doubles=True, faults={Fault.WRONG_SERVER, Fault.SECOND_TIMEOUT})
    board = TableTennisScoreboard("tt-full", seed=3, speed=1000, boot_epoch=1, options=options)
    board_side, hub_side = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=board_side)
    hub_reader, hub_writer = await asyncio.open_connection(sock=hub_side)
    codec, reports = WireCodec(), []

    async def listen() -> None:
        while data := await hub_reader.read(65536):
            for frame in codec.feed(data):
                assert isinstance(frame, Frame)
                reports.append(decode_report(frame, "tt-scoreboard"))

    def shown() -> list[ScoreboardState]:
        return [r for r in reports if isinstance(r, ScoreboardState)]

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(board.run_on_streams(reader, writer)), group.create_task(listen())]
        async with asyncio.timeout(60):
            await board.done.wait()
            while not (shown() and shown()[-1] == board.state):
                await asyncio.sleep(0.01)
        for task in tasks:
            task.cancel()
    hub_writer.close()
    writer.close()
    states = shown()
    sent_events = [
        r for r in reports if isinstance(r, DeviceEvent) and r.kind in ("timeout", "card", "expedite")
    ]
    assert states[-1] == board.state and all(s.ends in ("normal", "swapped") for s in states)
    assert any(s.server_player for s in states) and any(s.expedite for s in states)
    assert sent_events == board.events and [e.kind for e in sent_events].count("timeout") == 2
    assert sorted(f for f, _ in board.injected) == sorted([Fault.WRONG_SERVER, Fault.SECOND_TIMEOUT])


def test_expedite_can_come_after_a_length_of_play_in_a_game() -> None:
    sim = TableTennisMatchSim(6, 5, 0, options=MatchOptions(expedite=ExpeditePlan(game=2, play_s=40.0)))
    referee, sent = play(sim)
    assert referee.codes == []
    at = next(i for i, r in enumerate(sent) if isinstance(r, DeviceEvent) and r.kind == "expedite")
    shown = sent[at + 1]
    assert isinstance(shown, ScoreboardState) and sum(shown.games) == 1 and 0 < sum(shown.points) < 18
