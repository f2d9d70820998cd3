"""The referee console flips a chess table's board in a real Chromium against a real `boardcast demo` with DGT
boards on pseudo-terminals: Act… offers "Flip board", the choice goes to the rules as the `orientation` referee
input (logged as the arbiter's), and the game logs what the arbiter decided."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess, start_demo
from tests.hubsupport import get_json_as
from tests.web.test_console_browser import open_page, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


@pytest.fixture
def chess_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path_factory.mktemp("orient-demo") / "data", speed=3, tables=1, chess_boards=2)
    yield demo
    demo.stop()


def test_the_console_flips_a_board_and_the_game_logs_it(
    browser: Browser,  # noqa: F811
    chess_demo: DemoProcess,
) -> None:
    demo = chess_demo
    console = open_page(browser, demo.url + "console", "en-GB")
    sign_in(console, demo.token)
    row = console.locator('#matches-body tr[data-match="R2-M1-B1"]')
    expect(row).to_have_attribute("data-status", "live", timeout=30_000)
    row.locator("button[data-action=act]").click()
    console.select_option("#action-kind", "orientation")
    expect(console.locator("#action-fields textarea")).to_have_count(0)  # an input takes no reason
    console.select_option("#action-fields select[name=orientation]", "normal")
    console.locator("#action-submit").click()
    expect(console.locator("#action-dialog")).to_be_hidden()
    status, match = get_json_as(demo.url + "api/matches/R2-M1-B1", demo.token)
    assert status == 200
    said = [f["data"] for f in match["facts"] if f["kind"] == "board_orientation"]
    assert said and said[-1]["orientation"] == "normal" and said[-1]["source"] == "referee", match["facts"][
        -5:
    ]
    status, games = get_json_as(demo.url + "api/referee/matches", demo.token)
    assert status == 200
    actions = next(g["actions"] for g in games if g["id"] == "R2-M1-B1")
    assert [a["body"]["input"] for a in actions if a["kind"] == "referee.input"] == [
        {"type": "orientation", "orientation": "normal"}
    ]

    # in Turkish the same choice reads as an arbiter knows it
    console.locator("#lang").click()
    row.locator("button[data-action=act]").click()
    console.select_option("#action-kind", "orientation")
    expect(console.locator("#action-fields select[name=orientation] option").first).to_have_text(
        "Ters kurulmuş (a1 Siyahın solunda)"
    )
