"""Live backgammon performance ratings in Chromium, from a demo whose board plays and whose hub runs GNU
Backgammon: the board screen and the wall tile show each player's PR, a hall screen shows none of it, and the
analysis report is the referee's while the match is played (spectators are told to wait for its end)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.test_board_screen import PHONE, TV, open_page, shots
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

ANALYSIS_CLASSES = (".bg-performance", ".bg-perf-line", ".bg-chances", ".chess-eval")


@pytest.fixture(scope="module")
def analysed_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DemoProcess, str]]:
    # the demo's default pace: a faster board keeps the machine busier for the tests beside this one
    demo = start_demo(tmp_path_factory.mktemp("perf"), tables=1, bg_tables=1, engine=True)
    try:
        matches = [m for m in get_json(demo.url + "api/matches") if m["sport"] == "backgammon"]
        match = min(matches, key=lambda m: m["round"])  # the board's first match: the one it plays now
        until_performance(demo, match["id"])
        yield demo, match["id"]
    finally:
        demo.stop()


def until_performance(demo: DemoProcess, match_id: str, within: float = 90.0) -> dict:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        view = get_json(demo.url + f"api/matches/{match_id}")
        if view.get("performance"):
            return view
        time.sleep(0.3)
    raise AssertionError(f"no performance ratings within {within} s: {view.get('performance')!r}")


def live_analysed_match(demo: DemoProcess, within: float = 90.0) -> str:
    """The backgammon match the board plays now, once it has ratings (the demo's board goes from one round's
    match to the next, so an earlier test's match may be over by now)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for match in get_json(demo.url + "api/matches"):
            if match["sport"] == "backgammon" and match["status"] == "live" and match.get("performance"):
                return str(match["id"])
        time.sleep(0.3)
    raise AssertionError(f"no live backgammon match with ratings within {within} s")


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_the_board_screen_shows_each_players_pr(
    browser: Browser,  # noqa: F811
    analysed_demo: tuple[DemoProcess, str],
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    demo, match_id = analysed_demo
    page = open_page(browser, demo.url + f"match/{match_id}", viewport=viewport)
    box = page.locator("#bg .bg-performance")
    expect(box).to_be_visible(timeout=15_000)
    expect(box.locator(".bg-perf-row")).to_have_count(2)
    for row in box.locator(".bg-perf-row").all():
        assert float(row.locator(".bg-perf-pr").inner_text()) >= 0
        expect(row.locator(".bg-perf-band")).not_to_be_empty()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(shots(tmp_path) / f"bg-performance-{name}.png"))


def test_the_wall_tile_shows_the_pr_of_both_players(
    browser: Browser,  # noqa: F811
    analysed_demo: tuple[DemoProcess, str],
) -> None:
    demo, match_id = analysed_demo
    page = open_page(browser, demo.url)
    expect(page.locator(f"#match-{match_id} .bg-perf-line")).to_have_text(
        re.compile(r"^PR \d+\.\d · \d+\.\d$"), timeout=15_000
    )


@pytest.mark.parametrize("path", ["", "match/{id}", "match/{id}/analysis"])
def test_a_hall_screen_shows_no_analysis_at_all(
    browser: Browser,  # noqa: F811
    analysed_demo: tuple[DemoProcess, str],
    path: str,
) -> None:
    demo, match_id = analysed_demo
    page = open_page(browser, demo.url + path.format(id=match_id) + "?hall=1")
    page.wait_for_timeout(1500)  # the feed's first messages are drawn
    for selector in ANALYSIS_CLASSES:
        expect(page.locator(selector)).to_have_count(0)
    assert "PR " not in page.locator("body").inner_text()
    if path.endswith("analysis"):
        expect(page.locator("#message")).to_have_text("Screens in the playing hall show no analysis.")
    if path == "":  # a tap on a tile keeps the screen a hall screen, and so does the way back
        expect(page.locator(f"#match-{match_id} a.table")).to_have_attribute(
            "href", f"/match/{match_id}?hall=1"
        )
    else:
        expect(page.locator("a.back")).to_have_attribute("href", re.compile(r"\?hall=1$"))


def test_the_analysis_report_is_the_referees_while_the_match_is_played(
    browser: Browser,  # noqa: F811
    analysed_demo: tuple[DemoProcess, str],
    tmp_path: Path,
) -> None:
    demo, _ = analysed_demo
    match_id = live_analysed_match(demo)
    spectator = open_page(browser, demo.url + f"match/{match_id}/analysis")
    expect(spectator.locator("#message")).to_have_text("The analysis is shown once the match is over.")
    expect(spectator.locator("#analysis")).to_be_hidden()

    referee = browser.new_context(locale="en-GB", viewport=TV)
    referee.add_init_script(f"sessionStorage.setItem('boardcast.referee', {demo.token!r})")
    page = referee.new_page()
    page.goto(demo.url + f"match/{match_id}/analysis")
    expect(page.locator(".an-players tbody tr")).to_have_count(2, timeout=15_000)
    expect(page.locator(".an-engine")).to_contain_text("0-ply")
    cards = page.locator(".an-largest .an-error")
    if cards.count():
        expect(cards.first.locator(".bg-svg")).to_be_visible()
        expect(cards.first.locator("dt").first).to_have_text("Played")
    page.screenshot(path=str(shots(tmp_path) / "bg-analysis-tv.png"), full_page=True)
    phone = referee.new_page()
    phone.set_viewport_size(PHONE)
    phone.goto(demo.url + f"match/{match_id}/analysis")
    expect(phone.locator(".an-players tbody tr")).to_have_count(2, timeout=15_000)
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(path=str(shots(tmp_path) / "bg-analysis-phone.png"))


def test_health_says_the_analysis_runs(analysed_demo: tuple[DemoProcess, str]) -> None:
    demo, _ = analysed_demo
    extras = get_json(demo.url + "api/health")["spectator_extras"]
    assert extras["performance"]["running"] is True
    assert extras["performance"]["analysed"] >= 1 and extras["performance"]["ply"] == 0
