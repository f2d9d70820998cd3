"""The ITTF rules one by one, and each anomaly with an input that raises it and a near miss that must not."""

from __future__ import annotations

from typing import Any

import pytest

from devices.observations import DeviceEvent, ScoreboardState
from hub.rules import tabletennis as tt
from hub.rules.tabletennis import (
    Card,
    Correction,
    Display,
    ExpediteStart,
    TableTennisConfig,
    Tick,
    TimeOut,
    UmpirePoint,
    UmpireUndo,
)

SINGLES_A_FIRST = TableTennisConfig(best_of=5, first_server=0)


def show(points: tuple[int, int], games: tuple[int, int] = (0, 0), **indicators: Any) -> Display:
    return Display(points, games, **indicators)


class Match:
    """A match fed input by input, keeping every fact and anomaly; `at` moves 5 s per input unless given."""

    def __init__(self, config: TableTennisConfig = SINGLES_A_FIRST) -> None:
        self.state = tt.initial(config)
        self.facts: list[tt.Fact] = []
        self.anomalies: list[tt.Anomaly] = []
        self.at = 0.0

    def feed(self, *inputs: Any, at: float | None = None) -> Match:
        for item in inputs:
            self.at = self.at + 5.0 if at is None else at
            outcome = tt.apply(self.state, item, self.at)
            self.state = outcome.state
            self.facts += outcome.facts
            self.anomalies += outcome.anomalies
        return self

    def rallies(self, winners: str, games: tuple[int, int] | None = None) -> Match:
        """One display per rally: "AAB" is two points for A, then one for B."""
        for w in winners:
            a, b = self.state.points
            self.feed(show((a + 1, b) if w == "A" else (a, b + 1), games or self.state.games))
        return self

    def next_game(self, **indicators: Any) -> Match:
        a, b = self.state.points
        games = (self.state.games[0] + (a > b), self.state.games[1] + (b > a))
        return self.feed(show((0, 0), games, **indicators))

    @property
    def codes(self) -> list[str]:
        return [a.code for a in self.anomalies]

    @property
    def server(self) -> str:
        pair = tt.service(self.state)
        assert pair is not None
        return pair[0]

    @property
    def receiver(self) -> str:
        pair = tt.service(self.state)
        assert pair is not None
        return pair[1]


def win_game(m: Match, side: str = "A") -> Match:
    return m.rallies(side * 11).next_game()


# -- game and match ----------------------------------------------------------------------------------------


def test_a_game_is_won_at_11_or_by_two_clear_after_10_all() -> None:
    assert tt.game_over((11, 9))
    assert tt.game_over((9, 11))
    assert not tt.game_over((11, 10))
    assert not tt.game_over((10, 10))
    assert tt.game_over((14, 12))
    assert not tt.game_over((10, 8))


@pytest.mark.parametrize(("best_of", "to_win"), [(3, 2), (5, 3), (7, 4)])
def test_a_best_of_n_match_is_won_by_the_first_to_more_than_half(best_of: int, to_win: int) -> None:
    m = Match(TableTennisConfig(best_of=best_of, first_server=0))
    for _ in range(to_win - 1):
        win_game(m, "B")
    assert m.state.winner is None
    m.rallies("B" * 11)
    assert m.state.winner == 1
    assert [f.kind for f in m.facts][-1] == "match"
    assert tt.match_result(m.state)[0] == (0, to_win)
    assert m.anomalies == []


def test_one_point_more_is_a_rally_with_its_server() -> None:
    m = Match().feed(show((0, 0)), show((1, 0)), show((1, 1)))
    points = [f.data for f in m.facts if f.kind == "point"]
    assert [(p["side"], p["server"]) for p in points] == [(0, 0), (1, 0)]
    assert m.state.rallies == 2 and m.anomalies == []


# -- service order -----------------------------------------------------------------------------------------


def test_service_changes_every_two_points() -> None:
    m = Match()
    seen = []
    for w in "ABABABAB":
        seen.append(m.server)
        m.rallies(w)
    assert seen == ["A", "A", "B", "B", "A", "A", "B", "B"]


def test_server_alternates_every_point_from_10_all() -> None:
    m = Match().rallies("AB" * 10)
    assert m.state.points == (10, 10)
    seen = []
    for w in "ABAB":
        seen.append(m.server)
        m.rallies(w)
    assert seen == ["A", "B", "A", "B"]


def test_who_served_first_in_a_game_receives_first_in_the_next() -> None:
    m = Match()
    assert m.server == "A"
    win_game(m)
    assert m.server == "B"
    win_game(m)
    assert m.server == "A"


def test_first_server_from_the_first_reports_indicator() -> None:
    m = Match(TableTennisConfig(best_of=5)).feed(show((0, 0), server=1))
    assert m.server == "B"
    assert [f.data for f in m.facts if f.kind == "toss"] == [{"first_server": 1, "source": "board"}]


def test_first_server_assumed_side_a_and_said_so_without_config_or_indicator() -> None:
    m = Match(TableTennisConfig(best_of=5)).feed(show((0, 0)))
    assert m.server == "A"
    assert [f.data["source"] for f in m.facts if f.kind == "toss"] == ["assumed"]


def test_a_board_joined_mid_game_gives_the_toss_that_explains_its_indicator() -> None:
    m = Match(TableTennisConfig(best_of=5)).feed(show((3, 2), (1, 0), server=1))  # game 2, 5 points played
    assert m.server == "B"
    assert m.state.toss == ("A", "B")  # B serves game 2 first, so A served game 1 first


def test_doubles_rotation_previous_receiver_serves_to_the_previous_servers_partner() -> None:
    m = Match(TableTennisConfig.from_names(5, True, "A1", "B1"))
    seen = []
    for w in "ABABABABAB":
        seen.append((m.server, m.receiver))
        m.rallies(w)
    cycle = [("A1", "B1"), ("B1", "A2"), ("A2", "B2"), ("B2", "A1"), ("A1", "B1")]
    assert seen == [pair for pair in cycle for _ in range(2)]


def test_doubles_receiving_pair_changes_order_at_5_in_the_last_game() -> None:
    m = Match(TableTennisConfig.from_names(1, True, "A1", "B1"))  # best of 1: game 1 is the last
    m.rallies("AAAAA")  # 5-0: A2 is serving the second of two serves; pair B changes its order
    assert (m.server, m.receiver) == ("A2", "B1")
    cycle = []
    for w in "BBBBBBBB":
        m.rallies(w)
        cycle.append((m.server, m.receiver))
    # ITTF 2.13.6: A1→B1, B1→A2, A2→B2, B2→A1 becomes A1→B2, B2→A2, A2→B1, B1→A1
    assert cycle[1::2] == [("B1", "A1"), ("A1", "B2"), ("B2", "A2"), ("A2", "B1")]
    assert m.anomalies == []


def test_doubles_receiving_order_does_not_change_at_5_before_the_last_game() -> None:
    m = Match(TableTennisConfig.from_names(3, True, "A1", "B1")).rallies("AAAAA")
    assert (m.server, m.receiver) == ("A2", "B2")


def test_doubles_first_receiver_of_a_later_game_served_to_the_first_server_before() -> None:
    m = Match(TableTennisConfig.from_names(5, True, "A1", "B1"))
    m.rallies("A" * 11)
    m.next_game()
    assert (m.server, m.receiver) == ("B1", "A1")  # A1 served to B1 in game 1


def test_doubles_pair_may_choose_its_other_player_to_serve_first_in_a_later_game() -> None:
    m = Match(TableTennisConfig.from_names(5, True, "A1", "B1"))
    m.rallies("A" * 11)
    m.next_game(server=1, server_player="B2")
    assert (m.server, m.receiver) == ("B2", "A2")  # A2 served to B2 in game 1
    assert m.anomalies == []


def test_doubles_first_server_player_taken_from_the_board_when_the_venue_named_only_the_pair() -> None:
    m = Match(TableTennisConfig(best_of=5, doubles=True, first_server=0)).feed(
        show((0, 0), server_player="A2")
    )
    assert (m.server, m.receiver) == ("A2", "B1")
    m.rallies("AB")
    assert (m.server, m.receiver) == ("B1", "A1") and m.codes == []


def test_doubles_a_board_naming_a_player_of_the_receiving_pair_at_0_0_is_a_wrong_server() -> None:
    m = Match(TableTennisConfig.from_names(5, True, "A1", "B1")).feed(show((0, 0), server_player="B1"))
    assert m.codes == ["tt.wrong_server"]


# -- ends --------------------------------------------------------------------------------------------------


def test_ends_change_after_each_game_and_at_5_in_the_last_game() -> None:
    m = Match(TableTennisConfig(best_of=3, first_server=0))
    assert m.state.ends == "normal"
    win_game(m, "A")
    assert m.state.ends == "swapped"
    win_game(m, "B")
    assert m.state.ends == "normal"
    m.rallies("ABABABAB")
    assert m.state.ends == "normal"
    m.rallies("A")  # 5-4
    assert m.state.ends == "swapped"


def test_ends_not_changed_after_a_game_is_flagged() -> None:
    m = Match().rallies("A" * 11).next_game(ends="normal")
    assert m.codes == ["tt.ends_not_changed"]


def test_ends_changed_after_a_game_is_fine() -> None:
    m = Match().rallies("A" * 11).next_game(ends="swapped")
    assert m.anomalies == []


def test_ends_not_changed_at_5_in_the_last_game_is_flagged_once() -> None:
    m = Match(TableTennisConfig(best_of=1, first_server=0))
    for score in [(1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0)]:
        m.feed(show(score, ends="normal"))
    assert m.codes == ["tt.ends_not_changed"]
    assert m.anomalies[0].data["points"] == [5, 0]


# -- expedite ----------------------------------------------------------------------------------------------


def test_expedite_with_ball_in_play_the_interrupted_rallys_server_serves_again() -> None:
    m = Match().rallies("AAB")  # 2-1: A serves the 4th rally? no: 3 played, B serves its 2nd serve
    assert m.server == "B"
    m.feed(ExpediteStart(ball_in_play=True))
    assert m.server == "B"
    seen = []
    for w in "AAAA":
        m.rallies(w)
        seen.append(m.server)
    assert seen == ["A", "B", "A", "B"]  # then every point


def test_expedite_with_ball_not_in_play_the_previous_receiver_serves() -> None:
    m = Match().rallies("AAB")  # the 3rd rally: B served, A received
    m.feed(ExpediteStart(ball_in_play=False))
    assert m.server == "A"
    m.rallies("B")
    assert m.server == "B"


def test_expedite_stays_for_the_rest_of_the_match_and_a_later_game_starts_with_its_normal_server() -> None:
    m = Match().rallies("AAB").feed(ExpediteStart(ball_in_play=False))
    m.rallies("A" * 9)
    m.next_game(expedite=True)
    assert m.state.expedite and m.server == "B"
    m.rallies("A")
    assert m.server == "A"
    m.rallies("A")
    assert m.server == "B"
    assert m.anomalies == []


def test_expedite_due_after_ten_minutes_of_play_under_18_points() -> None:
    m = Match().feed(show((1, 0)), at=10.0).feed(show((2, 0)), at=300.0)
    m.feed(Tick(), at=609.0)
    assert m.codes == []
    m.feed(Tick(), at=611.0)
    assert m.codes == ["tt.expedite_due"]
    m.feed(Tick(), at=700.0)
    assert m.codes == ["tt.expedite_due"]  # once per game


def test_expedite_not_due_once_18_points_are_scored() -> None:
    m = Match()
    for i, w in enumerate("AB" * 9):
        m.rallies(w)
        m.at = 30.0 * (i + 1)
    m.feed(Tick(), at=900.0)
    assert m.state.points == (9, 9)
    assert m.codes == []


def test_time_outs_do_not_count_as_play_for_expedite() -> None:
    m = Match().feed(show((1, 0)), at=0.0).feed(TimeOut(0), at=560.0).feed(show((2, 0)), at=620.0)
    assert m.codes == []


def test_expedite_not_allowed_once_18_points_are_scored() -> None:
    m = Match().rallies("AB" * 9).feed(ExpediteStart(True))
    assert m.codes == ["tt.expedite_not_allowed"]


def test_expedite_allowed_at_17_points() -> None:
    m = Match().rallies("AB" * 8 + "A").feed(ExpediteStart(True))
    assert m.codes == [] and m.state.expedite


def test_expedite_from_the_board_indicator_counts_as_its_introduction() -> None:
    m = Match().rallies("AAB").feed(show((2, 1), expedite=True, server=0))
    assert m.state.expedite and m.server == "A" and m.codes == []


def test_expedite_dropped_in_a_later_game_is_flagged_once() -> None:
    m = Match().rallies("AAB").feed(ExpediteStart(False)).rallies("A" * 9)
    m.next_game(expedite=False).rallies("A", games=(1, 0))
    m.feed(show((1, 0), (1, 0), expedite=False, server=0))
    assert m.codes == ["tt.expedite_dropped"]


def test_expedite_shown_in_a_later_game_is_fine() -> None:
    m = Match().rallies("AAB").feed(ExpediteStart(False)).rallies("A" * 9)
    m.next_game(expedite=True)
    assert m.codes == []


# -- time-outs, cards and penalty points -------------------------------------------------------------------


def test_one_time_out_per_side_per_match() -> None:
    m = Match().feed(TimeOut(0), TimeOut(1))
    assert m.codes == [] and m.state.timeouts == (True, True)
    win_game(m)
    m.feed(TimeOut(0))
    assert m.codes == ["tt.second_timeout"]


def test_a_time_out_is_active_until_the_next_point() -> None:
    m = Match().feed(TimeOut(1))
    assert m.state.timeout_active == 1
    m.rallies("A")
    assert m.state.timeout_active is None


def test_penalty_without_warning_is_flagged_and_the_point_still_given() -> None:
    m = Match().feed(Card(1, "yellow_red"))
    assert m.codes == ["tt.penalty_without_warning"]
    assert m.state.points == (1, 0) and m.state.penalty_points == (1, 0)


def test_yellow_then_yellow_red_gives_one_point_then_two_points() -> None:
    m = Match().feed(Card(1, "yellow"), Card(1, "yellow_red"))
    assert m.state.points == (1, 0)
    m.feed(Card(1, "yellow_red"))
    assert m.state.points == (3, 0)
    assert m.codes == [] and m.state.cards == ((), ("yellow", "yellow_red", "yellow_red"))


def test_a_board_jump_that_shows_an_awarded_penalty_is_not_a_score_jump() -> None:
    m = Match().rallies("AB").feed(Card(0, "yellow"), Card(0, "yellow_red"), Card(0, "yellow_red"))
    m.feed(show((1, 4)))  # +3 for B: one penalty point, then two
    assert m.codes == []
    m.rallies("A")
    assert m.codes == [] and m.state.points == (2, 4)


def test_a_board_that_has_not_shown_the_penalty_yet_is_waited_for() -> None:
    m = Match().rallies("AB").feed(Card(0, "yellow"), Card(0, "yellow_red"))
    m.feed(show((1, 1)))  # the board repeats its display before the umpire enters the point
    assert m.codes == [] and m.state.points == (1, 2)
    m.feed(show((1, 2)))
    assert m.codes == [] and m.state.points == (1, 2)


def test_a_plus_two_without_a_penalty_is_a_score_jump() -> None:
    m = Match().rallies("AB").feed(Card(0, "yellow"), show((1, 3)))
    assert m.codes == ["tt.score_jump"]


def test_penalty_points_count_for_the_service_order() -> None:
    m = Match().feed(Card(0, "yellow"), Card(0, "yellow_red"), Card(0, "yellow_red"))
    assert m.state.points == (0, 3)
    assert m.server == "B"  # three points played: B serves (2.13.3)
    log = m.state.points_log
    assert [(p.side, p.server, p.penalty) for p in log] == [(1, 0, True), (1, 0, True), (1, 1, True)]


def test_penalty_points_that_finish_a_game_carry_the_surplus_into_the_next() -> None:
    m = Match().rallies("A" * 9).feed(Card(1, "yellow"), Card(1, "yellow_red"), Card(1, "yellow_red"))
    assert m.state.points == (11, 0)  # 9-0, one penalty point, then two: the second does not fit
    m.next_game()
    assert m.state.games == (1, 0) and m.state.points == (1, 0)
    m.feed(show((1, 0), (1, 0)))  # the board now shows the carried point
    m.rallies("B")
    assert m.codes == [] and m.state.points == (1, 1)


# -- scoreboard anomalies ----------------------------------------------------------------------------------


def test_two_points_in_one_report_at_10_all_is_a_score_jump() -> None:
    m = Match().rallies("AB" * 10).feed(show((12, 10)))
    assert m.codes == ["tt.score_jump"]
    assert m.state.points == (12, 10)  # kept as the board showed it


def test_two_reports_of_one_point_each_at_10_all_are_fine() -> None:
    m = Match().rallies("AB" * 10).feed(show((11, 10)), show((12, 10)))
    assert m.codes == [] and m.state.winner is None and tt.game_over(m.state.points)


def test_both_sides_scoring_in_one_report_is_a_score_jump() -> None:
    assert Match().rallies("AB").feed(show((2, 2))).codes == ["tt.score_jump"]


def test_a_score_that_goes_down_without_a_correction_is_flagged() -> None:
    m = Match().rallies("AAAB").feed(show((2, 1)))
    assert m.codes == ["tt.score_decrease"]
    assert m.state.points == (2, 1) and len(m.state.points_log) == 3


def test_an_umpire_undo_or_a_referee_correction_is_not_a_score_decrease() -> None:
    m = Match().rallies("AAAB").feed(UmpireUndo(0)).feed(show((2, 1)))
    m.feed(Correction((1, 1), (0, 0), "scorer error")).feed(show((1, 1)))
    assert m.codes == [] and m.state.points == (1, 1)


def test_a_game_closed_at_11_10_is_an_illegal_game_end() -> None:
    m = Match().rallies("AB" * 10 + "A").next_game()
    assert m.codes == ["tt.illegal_game_end"]
    assert m.state.games == (1, 0) and m.state.game_scores == ((11, 10),)  # kept as reported


def test_a_game_closed_at_11_9_is_fine() -> None:
    m = Match().rallies("AB" * 9 + "AA").next_game()
    assert m.codes == [] and m.state.game_scores == ((11, 9),)


def test_points_added_after_a_game_was_won_are_an_illegal_game_end() -> None:
    m = Match().rallies("A" * 11 + "A")
    assert m.codes == ["tt.illegal_game_end"]


def test_the_board_closing_a_game_with_its_last_point_in_its_history_is_fine() -> None:
    m = Match().rallies("A" * 10).feed(show((0, 0), (1, 0), game_scores=((11, 0),)))
    assert m.codes == [] and m.state.game_scores == ((11, 0),)


def test_games_that_jump_by_two_are_a_games_mismatch() -> None:
    assert Match().feed(show((0, 0)), show((0, 0), (2, 0))).codes == ["tt.games_mismatch"]


def test_a_first_display_under_way_is_where_the_match_stands_not_a_jump() -> None:
    m = Match().feed(show((6, 10), (0, 1), game_scores=((6, 11),)))
    assert m.codes == []
    joined = [f for f in m.facts if f.kind == "joined"]
    assert [f.data["points"] for f in joined] == [[6, 10]] and joined[0].data["games"] == [0, 1]
    assert m.state.points == (6, 10) and m.state.games == (0, 1) and m.state.game_scores == ((6, 11),)
    m.rallies("B")  # what follows is judged: the game and the next rally count as ever
    assert m.state.games == (0, 1) and [f.kind for f in m.facts][-1] == "game"
    m.next_game().rallies("A")
    assert m.codes == [] and m.state.games == (0, 2) and m.state.points == (1, 0)
    m.feed(show((5, 1), (0, 2)))
    assert m.codes == ["tt.score_jump"]


def test_joining_a_match_already_won_is_its_result() -> None:
    m = Match().feed(show((0, 0), (1, 3), game_scores=((11, 6), (3, 11), (6, 11), (9, 11))))
    assert m.codes == [] and m.state.winner == 1
    assert tt.match_result(m.state) == ((1, 3), ((11, 6), (3, 11), (6, 11), (9, 11)))
    m = Match().feed(show((6, 11), (0, 2), game_scores=((6, 11), (3, 11))))
    assert m.codes == [] and m.state.winner == 1 and m.state.games == (0, 3)


def test_a_board_history_that_does_not_add_up_to_its_games_is_a_games_mismatch() -> None:
    m = Match().rallies("A" * 11).feed(show((0, 0), (1, 0), game_scores=((9, 11),)))
    assert "tt.games_mismatch" in m.codes


def test_one_game_more_with_a_matching_history_is_fine() -> None:
    m = Match().rallies("A" * 11).feed(show((0, 0), (1, 0), game_scores=((11, 0),)))
    assert m.codes == []


def test_play_after_the_match_was_decided_is_a_match_overrun() -> None:
    m = Match(TableTennisConfig(best_of=3, first_server=0))
    win_game(m)
    m.rallies("A" * 11).feed(show((0, 0), (2, 0)))
    assert m.codes == [] and m.state.winner == 0
    m.feed(show((1, 0), (2, 0)))
    assert m.codes == ["tt.match_overrun"]
    assert tt.match_result(m.state) == ((2, 0), ((11, 0), (11, 0)))  # the decided result stands


def test_a_board_showing_the_wrong_server_is_flagged() -> None:
    m = Match().rallies("AA").feed(show((3, 0), server=0))  # 3 played: B serves
    assert m.codes == ["tt.wrong_server"]
    assert m.anomalies[0].data["expected"] == 1


def test_a_board_showing_the_right_server_is_fine() -> None:
    m = Match().rallies("AA").feed(show((3, 0), server=1), show((4, 0), server=0))
    assert m.codes == []


def test_a_board_not_alternating_every_point_from_10_all_is_flagged() -> None:
    m = Match().rallies("AB" * 10).feed(show((11, 10), server=0))
    assert m.codes == ["tt.wrong_server"]


def test_a_doubles_board_showing_the_wrong_player_is_flagged() -> None:
    m = Match(TableTennisConfig.from_names(5, True, "A1", "B1")).rallies("AB")
    m.feed(show((2, 1), server=1, server_player="B2"))
    assert m.codes == ["tt.wrong_server"]
    m2 = Match(TableTennisConfig.from_names(5, True, "A1", "B1")).rallies("AB")
    m2.feed(show((2, 1), server=1, server_player="B1"))
    assert m2.codes == []


def test_a_repeated_display_is_not_flagged_again() -> None:
    m = Match().rallies("AA").feed(show((3, 0), server=0), show((3, 0), server=0))
    assert m.codes == ["tt.wrong_server"]


# -- corrections (2.14) ------------------------------------------------------------------------------------


def test_an_order_error_corrected_at_the_score_reached_keeps_every_point() -> None:
    # Config says A serves first, but B did; the board shows it, and the referee corrects at 4-3.
    m = Match()
    for score, server in [((0, 0), 1), ((1, 0), 1), ((2, 0), 0), ((2, 1), 0), ((3, 1), 1)]:
        m.feed(show(score, server=server))
    assert "tt.wrong_server" in m.codes
    flagged = len(m.anomalies)
    m.rallies("BBA")  # 4-3
    m.feed(Correction((4, 3), (0, 0), "B served first", server=0))
    assert len(m.anomalies) == flagged  # a correction is never an anomaly by itself
    assert m.state.points == (4, 3) and len(m.state.points_log) == 7  # all points stand (2.14.3)
    assert m.server == "A"  # 7 played under the B-first order: A serves
    m.feed(show((5, 3), server=1), show((6, 3), server=1))
    assert len(m.anomalies) == flagged
    m.rallies("A" * 5)
    m.next_game()
    assert m.server == "A"  # B served first in game 1, so A serves first in game 2


def test_a_correction_sets_the_ends_at_the_score_reached() -> None:
    m = Match().rallies("AB").feed(Correction((1, 1), (0, 0), "wrong ends", ends="swapped"))
    assert m.state.ends == "swapped"
    win_game(m)
    assert m.state.ends == "normal"


def test_a_correction_under_expedite_re_anchors_the_server_at_the_score_reached() -> None:
    m = Match().rallies("AAB").feed(ExpediteStart(ball_in_play=False))  # A serves at 2-1
    m.rallies("BA")  # 3-2: A serves again under every-point alternation
    assert m.server == "A"
    m.feed(Correction((3, 2), (0, 0), "wrong server", server=1))
    assert m.server == "B" and m.state.points == (3, 2) and len(m.state.points_log) == 5
    m.rallies("A")
    assert m.server == "A" and m.codes == []


def test_a_correction_that_closes_a_missed_game_records_it() -> None:
    m = Match().rallies("A" * 11).feed(Correction((0, 0), (1, 0), "board missed the game"))
    assert m.state.game_scores == ((11, 0),) and m.server == "B" and m.codes == []


# -- legacy 21-point rules ---------------------------------------------------------------------------------


def test_legacy21_games_to_21_with_five_serves_each_and_every_point_from_20_all() -> None:
    m = Match(TableTennisConfig(best_of=3, ruleset="legacy21", first_server=0))
    seen = []
    for w in "AB" * 5:
        seen.append(m.server)
        m.rallies(w)
    assert seen == ["A"] * 5 + ["B"] * 5
    m.rallies("AB" * 15)
    assert m.state.points == (20, 20)
    assert [m.server for _ in range(1)] == ["A"]
    m.rallies("A")
    assert m.server == "B" and not tt.game_over(m.state.points, "legacy21")
    m.rallies("A")
    assert tt.game_over(m.state.points, "legacy21")
    m.next_game()
    assert m.codes == []


def test_legacy21_a_game_closed_at_21_20_is_illegal_and_11_0_does_not_end_a_game() -> None:
    m = Match(TableTennisConfig(best_of=3, ruleset="legacy21", first_server=0)).rallies("A" * 11)
    assert not tt.game_over(m.state.points, "legacy21")
    m.next_game()
    assert m.codes == ["tt.illegal_game_end"]


# -- umpire inputs and device reports ----------------------------------------------------------------------


def test_a_wristband_scores_a_whole_match_and_rolls_the_games() -> None:
    m = Match(TableTennisConfig(best_of=3, first_server=0))
    m.feed(*[UmpirePoint(0)] * 11, *[UmpirePoint(1)] * 11, *[UmpirePoint(0)] * 11)
    assert m.state.winner == 0 and tt.match_result(m.state)[1] == ((11, 0), (0, 11), (11, 0))
    assert m.codes == []
    m.feed(UmpirePoint(1))
    assert m.codes == ["tt.match_overrun"]


def test_device_events_are_read_as_rules_inputs() -> None:
    m = Match()
    m.feed(DeviceEvent("timeout", {"side": 1}), DeviceEvent("card", {"side": 0, "card": "yellow"}))
    m.feed(DeviceEvent("point", {"side": 0}), DeviceEvent("undo", {"side": 0}), DeviceEvent("beep", {}))
    m.feed(DeviceEvent("expedite", {"ball_in_play": False}))
    assert m.state.timeouts == (False, True) and m.state.cards == (("yellow",), ())
    assert m.state.points == (0, 0) and m.state.expedite and m.codes == []


def test_a_scoreboard_state_is_read_with_its_optional_indicators() -> None:
    report = ScoreboardState(points=(1, 0), games=(0, 0), server=0)
    for name, value in (("ends", "normal"), ("expedite", False), ("server_player", None)):
        if hasattr(report, name):
            report = ScoreboardState(**{**{f: getattr(report, f) for f in report.__slots__}, name: value})
    m = Match().feed(ScoreboardState(points=(0, 0), games=(0, 0), server=0), report)
    assert m.state.points == (1, 0) and m.codes == []


def test_every_input_round_trips_through_plain_data() -> None:
    inputs = [
        show((3, 2), (1, 0), server=1, game_scores=((11, 4),), ends="swapped", expedite=True),
        TimeOut(1),
        Card(0, "yellow_red", "A2"),
        ExpediteStart(None),
        UmpirePoint(1),
        UmpireUndo(0),
        Correction((4, 4), (1, 1), "order", server="B2", ends="normal"),
        Tick(),
        tt.OtherEvent("beep", {"n": 1}),
    ]
    for item in inputs:
        assert tt.input_from_dict(tt.input_to_dict(item)) == item


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"type": "timeout", "side": 2}, "side must be 0 or 1"),
        ({"type": "card", "side": 0, "card": "green"}, "card must be one of"),
        ({"type": "correction", "points": [1], "games": [0, 0]}, "points must be two non-negative integers"),
        ({"type": "correction", "points": [1, 0], "games": [0, 0], "ends": "left"}, "ends must be one of"),
        ({"type": "display", "points": [1, 0], "games": [0, 0], "server": True}, "server must be one of"),
    ],
)
def test_malformed_input_data_is_refused_naming_the_field(data: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        tt.input_from_dict(data)


def test_a_skeleton_log_body_without_a_type_reads_as_a_display() -> None:
    body = {"points": [3, 2], "games": [1, 0], "server": 1, "game_scores": [[11, 8]]}
    assert tt.input_from_dict(body) == Display((3, 2), (1, 0), 1, ((11, 8),))


def test_a_board_joined_again_after_the_hub_was_away_is_a_catch_up() -> None:
    m = win_game(Match()).rallies("AB")
    caught_up = tt.apply(m.state, show((7, 9), (1, 1), game_scores=((11, 0), (8, 11))), 100.0, joined=True)
    assert caught_up.anomalies == ()
    assert [f.kind for f in caught_up.facts] == ["joined"]
    assert caught_up.state.games == (1, 1) and caught_up.state.game_scores == ((11, 0), (8, 11))
    assert caught_up.state.points == (7, 9)
    unjoined = tt.apply(m.state, show((7, 9), (1, 1), game_scores=((11, 0), (8, 11))), 100.0)
    assert "tt.score_jump" in [a.code for a in unjoined.anomalies]  # not joined: judged
    # a board that only went on by a rally is read as ever, joined or not
    one_more = tt.apply(m.state, show((2, 1), (1, 0)), 100.0, joined=True)
    assert [f.kind for f in one_more.facts] == ["point"] and one_more.anomalies == ()
    at_the_end = win_game(Match()).rallies("A" * 11)
    next_game = tt.apply(at_the_end.state, show((0, 0), (2, 0)), 100.0, joined=True)
    assert next_game.state.game_scores == ((11, 0), (11, 0)) and next_game.state.winner is None


def test_a_match_won_where_the_history_of_its_games_is_not_known_keeps_its_games() -> None:
    m = Match().feed(show((10, 5), (2, 1)))  # joined with no game history
    m.feed(show((11, 5), (2, 1)))
    assert m.state.winner == 0 and tt.match_result(m.state)[0] == (3, 1)
    m.feed(show((0, 0), (3, 1)), show((11, 5), (2, 1)))  # the board rolls the game, or shows it again
    assert m.codes == [] and tt.match_result(m.state)[0] == (3, 1)
    corrected = Match(TableTennisConfig(best_of=5)).feed(UmpirePoint(1), Correction((11, 3), (2, 2)))
    assert corrected.state.winner == 0 and tt.match_result(corrected.state)[0] == (3, 2)


@pytest.mark.parametrize(
    ("points", "games"),
    [((12, 3), (2, 1)), ((30, 3), (1, 1)), ((5, 2), (3, 1)), ((0, 0), (4, 0)), ((0, 0), (3, 3))],
)
def test_a_correction_no_match_can_reach_is_not_taken(
    points: tuple[int, int], games: tuple[int, int]
) -> None:
    m = Match().rallies("AB")
    before = m.state
    m.feed(Correction(points, games))
    assert m.codes == ["tt.impossible_score"] and m.state == before


def test_after_a_correction_undo_has_no_point_to_take_back() -> None:
    m = Match().rallies("BB").feed(Correction((11, 3), (2, 1)), UmpireUndo())
    assert m.state.winner == 0 and m.state.points == (11, 3)
    assert [f.data.get("ignored") for f in m.facts if f.kind == "undo"] == [True]
    m.feed(Correction((10, 3), (2, 1)), UmpirePoint(0), UmpireUndo())
    assert m.state.points == (10, 3) and m.state.winner is None


def test_a_card_naming_a_player_not_on_its_side_is_not_counted() -> None:
    singles = Match().rallies("A").feed(Card(1, "yellow", "A1"))
    assert singles.codes == ["tt.card_player"] and singles.state.cards == ((), ())
    doubles = Match(TableTennisConfig(best_of=5, doubles=True, first_server=0))
    doubles.rallies("A").feed(Card(0, "yellow", "B2"), Card(1, "yellow", "B2"))
    assert doubles.codes == ["tt.card_player"] and doubles.state.cards == ((), ("yellow",))
