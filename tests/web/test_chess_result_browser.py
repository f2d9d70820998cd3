"""A result the board cannot see, given in a real Chromium against a real `boardcast demo` with DGT boards on
pseudo-terminals: from the referee console's dialog and from the game's referee view, it reaches the game page
(the large result line a checkmate gets), the wall tile and the team page within a second; a spectator's page
has no such button."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess, start_demo
from tests.hubsupport import get_json_as
from tests.web.test_console_browser import REFEREE, open_page, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


@pytest.fixture
def slow_chess_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Two DGT boards played slowly enough that both games are still on while the referee acts."""
    demo = start_demo(tmp_path_factory.mktemp("result-demo") / "data", speed=3, tables=1, chess_boards=2)
    yield demo
    demo.stop()


def test_a_referee_records_a_resignation_and_an_agreement_and_every_screen_shows_it(
    browser: Browser,  # noqa: F811
    slow_chess_demo: DemoProcess,
) -> None:
    demo = slow_chess_demo
    console = open_page(browser, demo.url + "console", "en-GB")
    sign_in(console, demo.token)
    spectator = open_page(browser, demo.url + "match/R2-M1-B2", "en-GB")
    wall = open_page(browser, demo.url, "en-GB")
    expect(spectator.locator(".chess-status")).to_have_text("White to move", timeout=30_000)
    expect(spectator.locator("#game-result-button")).to_have_count(0)  # a spectator holds no token

    # the console: Act… on board 2, the result action is offered first while the game is on
    row = console.locator('#matches-body tr[data-match="R2-M1-B2"]')
    expect(row).to_have_attribute("data-status", "live", timeout=30_000)
    row.locator("button[data-action=act]").click()
    expect(console.locator("#action-kind")).to_have_value("result")
    console.select_option("#action-fields select[name=result]", "0-1")
    console.select_option("#action-fields select[name=how]", "resignation")
    console.fill("#action-fields textarea[name=reason]", "White resigned at the board")
    sent = time.monotonic()
    console.locator("#action-submit").click()
    expect(spectator.locator(".chess-status")).to_have_text("0–1 · Black wins (resignation)", timeout=1_000)
    expect(wall.locator("#match-R2-M1-B2 .side-1 .points")).to_have_text("1", timeout=1_000)
    assert time.monotonic() - sent < 1.5  # the click, the hub, the feed and two pages within the second
    expect(console.locator("#action-dialog")).to_be_hidden()
    audit = console.locator('#audit-body tr[data-kind="referee.input"][data-match="R2-M1-B2"]')
    expect(audit.locator("td").nth(4)).to_have_text("0-1 · Resignation · White resigned at the board")

    # the game's referee view: from the console's link, in the signed-in tab
    console.locator('#matches-body tr[data-match="R2-M1-B1"] a.game-link').click()
    expect(console.locator("#game-result-button")).to_be_visible()
    console.locator("#game-result-button").click()
    console.select_option("#game-result-dialog select[name=result]", "1/2-1/2")
    console.select_option("#game-result-dialog select[name=how]", "agreement")
    console.locator("#game-result-dialog button[data-action=submit]").click()
    expect(console.locator("#game-result-dialog")).to_have_count(0)
    expect(console.locator(".chess-status")).to_have_text("½–½ · Draw (agreement)", timeout=1_000)

    team = open_page(browser, demo.url + "team/R2-M1", "en-GB")
    expect(team.locator('#boards .team-board[data-board="1"]')).to_have_attribute("data-result", "1/2-1/2")
    expect(team.locator('#boards .team-board[data-board="2"]')).to_have_attribute("data-result", "0-1")
    status, games = get_json_as(demo.url + "api/referee/matches", demo.token)
    assert status == 200
    actors = {g["id"]: [a["actor"] for a in g["actions"]] for g in games if g["sport"] == "chess"}
    assert actors == {"R2-M1-B1": [REFEREE], "R2-M1-B2": [REFEREE]}
