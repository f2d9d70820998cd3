"""The toss entered on a pad (or by a referee): it sets the serving order before the first rally; after, the
order stands and the toss is flagged; a toss that names no pair of the match changes nothing."""

from __future__ import annotations

import pytest

from devices.observations import DeviceEvent
from hub.rules import tabletennis as tt
from hub.rules.registry import TABLE_TENNIS


def _match(doubles: bool) -> tt.TableTennisState:
    return tt.initial(tt.TableTennisConfig.from_names(5, doubles, None, None, "ittf"))


def _fold(state: tt.TableTennisState, *reports: object) -> tuple[tt.TableTennisState, list[str]]:
    codes: list[str] = []
    for n, report in enumerate(reports):
        outcome = tt.apply(state, report, float(n))
        state = outcome.state
        codes += [a.code for a in outcome.anomalies]
    return state, codes


def test_a_singles_toss_gives_the_first_serve() -> None:
    state, codes = _fold(_match(False), DeviceEvent("toss", {"server": "B"}), tt.UmpirePoint(0))
    assert codes == [] and state.points_log[0].server == 1
    assert [
        f for f in tt.apply(_match(False), DeviceEvent("toss", {"server": "B"}), 0).facts if f.kind == "toss"
    ]


def test_a_doubles_toss_gives_the_first_server_and_receiver() -> None:
    state, codes = _fold(
        _match(True), DeviceEvent("toss", {"server": "B2", "receiver": "A1"}), tt.UmpirePoint(1)
    )
    assert codes == [] and state.points_log[0].server_player == "B2"
    assert state.toss == ("B2", "A1")


@pytest.mark.parametrize(
    ("doubles", "data"),
    [(False, {"server": "A1"}), (True, {"server": "A1", "receiver": "A2"}), (True, {"server": "B"})],
)
def test_a_toss_that_names_no_pair_of_the_match_changes_nothing(doubles: bool, data: dict[str, str]) -> None:
    state, codes = _fold(_match(doubles), DeviceEvent("toss", data))
    assert codes == ["tt.toss_after_play"] and state.toss is None


def test_a_toss_after_the_first_rally_is_flagged_and_the_order_stands() -> None:
    state, codes = _fold(_match(False), tt.UmpirePoint(0), DeviceEvent("toss", {"server": "B"}))
    assert codes == ["tt.toss_after_play"] and state.toss == ("A", "B")


def test_the_toss_reads_back_from_the_log_and_a_malformed_one_is_kept_as_sent() -> None:
    body = TABLE_TENNIS.input_to_dict(tt.Toss("A2", "B1"))
    assert TABLE_TENNIS.report_from_dict(body) == tt.Toss("A2", "B1")
    assert isinstance(tt.to_input(DeviceEvent("toss", {"server": "C"})), tt.OtherEvent)
    with pytest.raises(ValueError, match="server must be one of A, B, A1"):
        TABLE_TENNIS.report_from_dict({"type": "toss", "server": "C"})
