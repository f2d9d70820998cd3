"""The team match page shows what a relay shows of each board: the players' titles and ratings and the game's
clocks, the running one counting down (late by the broadcast delay), drawn through the page's own renderTeam
at 1920x1080 and 390x844 in a real Chromium."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess
from tests.web.test_board_screen import shots
from tests.web.test_chess_screen import (
    PHONE,
    TV,
    draw_team,
    no_horizontal_overflow,
    open_page,
    page_demo,
    team_view,
)
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser
__all__ = ["page_demo"]  # the module's hub fixture, shared

TITLES = [("GM", "IM"), ("WGM", None), (None, None), ("FM", "CM"), (None, "WFM"), ("WIM", None), (None, None), (None, "WCM")]  # fmt: skip


def with_players(view: dict, now: float) -> dict:
    """The team view with titles, ratings (board 3's Black unrated) and clocks: board 7 live, White's running
    for 12 s since the reading; the others stopped."""
    for board, (white_title, black_title) in zip(view["boards"], TITLES, strict=True):
        n = board["board"]
        board["white_title"], board["black_title"] = white_title, black_title
        board["white_rating"] = 2500 - 30 * n
        board["black_rating"] = None if n == 3 else 2450 - 30 * n
        running = "white" if board["status"] == "live" else None
        board["clock"] = {"white_ms": 1_800_000 + n * 1000, "black_ms": 2_400_000, "running": running,
                          "as_of": now - 12 if running else now - 100}  # fmt: skip
    return view


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_each_board_shows_titles_ratings_and_the_clocks(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, page_demo.url + "static/team.html", locale="tr-TR", viewport=viewport)
    draw_team(page, with_players(team_view(), time.time()))
    rows = page.locator("#boards .team-board")
    expect(rows).to_have_count(8)
    first = rows.nth(0)  # home White: GM, 2470; away Black: IM, 2420
    expect(first.locator(".c-home .ptitle")).to_have_text("GM")
    expect(first.locator(".c-home .pname")).to_have_text("GM White Player 1")
    expect(first.locator(".c-home .prating")).to_have_text("2470")
    expect(first.locator(".c-away .ptitle")).to_have_text("IM")
    expect(first.locator(".c-away .prating")).to_have_text("2420")
    expect(first.locator(".c-home .pclock")).to_have_text("30:01")  # stopped: as read
    expect(first.locator(".c-away .pclock")).to_have_text("40:00")
    second = rows.nth(1)  # board 2: home has Black (no title), away White is a WGM
    expect(second.locator(".c-away .ptitle")).to_have_text("WGM")
    expect(second.locator(".c-home .ptitle")).to_have_count(0)
    third = rows.nth(2)  # board 3: Black (away) unrated: no rating shown
    expect(third.locator(".c-away .prating")).to_have_count(0)
    expect(third.locator(".c-home .prating")).to_have_text("2410")
    live = rows.nth(6)  # board 7: live, White (home) on move, 12 s gone since the reading
    white_clock = live.locator(".c-home .pclock")
    expect(white_clock).to_have_class(re.compile(r"\brunning\b"))
    expect(white_clock).to_have_text(re.compile(r"^29:5[4-5]$"))
    expect(white_clock).to_have_attribute("title", "Saat işliyor")
    expect(live.locator(".c-away .pclock")).not_to_have_class(re.compile(r"\brunning\b"))
    shown = white_clock.text_content()
    page.wait_for_timeout(1300)
    assert white_clock.text_content() != shown  # counting down between the hub's readings
    # Every name and clock inside the screen, nothing pushed sideways.
    assert no_horizontal_overflow(page)
    for box in page.locator("#boards .pclock, #boards .pname").evaluate_all(
        "es => es.map(e => { const b = e.getBoundingClientRect(); return [b.left, b.right]; })"
    ):
        assert box[0] >= 0 and box[1] <= viewport["width"], box
    if viewport == TV:  # eight boards with their players' lines still fit a hall screen, no scrolling
        assert page.evaluate("document.documentElement.scrollHeight") <= TV["height"]
    page.screenshot(path=str(shots(tmp_path) / f"team-players-{name}.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_delayed_broadcast_runs_the_clock_late_and_a_board_without_a_clock_shows_none(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url + "static/team.html", locale="en-GB")
    view = with_players(team_view(), time.time())
    view["broadcast_delay_s"] = 10  # the reading 12 s ago is shown as 2 s old
    view["boards"][0]["clock"] = None
    draw_team(page, view)
    live = page.locator("#boards .team-board").nth(6)
    expect(live.locator(".c-home .pclock")).to_have_text(re.compile(r"^30:0[4-5]$"))
    expect(page.locator("#boards .team-board").nth(0).locator(".pclock")).to_have_count(0)
    expect(page.locator("#boards .team-board").nth(0).locator(".prating")).to_have_count(2)
    assert page.errors == []  # type: ignore[attr-defined]
