"""The backgammon board screen in a real Chromium: the board drawn in SVG from a live demo table, a crafted
position with everything on it (bar, trays, cube, Crawford, clocks, an illegal move), and the wall tile."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from hub.rules import backgammon as bg
from tests.conftest import DemoProcess, start_demo
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def bg_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path_factory.mktemp("bg-demo") / "data", speed=15, tables=1, bg_tables=2)
    yield demo
    demo.stop()


def shots(tmp_path: Path) -> Path:
    """Where screenshots go: BOARDCAST_SHOTS when set (to look at them), else the test's own directory."""
    where = Path(os.environ.get("BOARDCAST_SHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def open_page(browser: Browser, url: str, locale: str = "en-GB", viewport: dict | None = None) -> Page:  # noqa: F811
    context = browser.new_context(locale=locale, viewport=viewport or TV)
    page = context.new_page()
    page.goto(url)
    return page


def checkers_drawn(page: Page) -> int:
    return page.evaluate(
        "() => [...document.querySelectorAll('#bg .point, #bg .bg-bar, #bg .off')]"
        ".reduce((n, g) => n + Math.abs(Number(g.dataset.count)), 0)"
    )


def test_a_live_backgammon_table_shows_its_checkers_and_dice(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, bg_demo.url + "match/BG-R1-T2")
    expect(page.locator("#bg")).to_be_visible(timeout=10_000)
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#bg .bg-name").first).not_to_have_text("")
    page.wait_for_selector("#bg .dice", timeout=20_000)
    assert checkers_drawn(page) == 30
    assert page.locator("#bg .bg-svg circle.ck").count() >= 20
    dice = page.locator("#bg .dice .die")
    expect(dice).to_have_count(2)
    assert all(1 <= int(v) <= 6 for v in dice.evaluate_all("ds => ds.map(d => d.dataset.value)"))
    expect(page.locator("#bg .bg-length")).to_have_text("Match to 5")
    assert re.fullmatch(r"\d+:\d\d", page.locator("#bg .bg-clock").first.inner_text())
    page.wait_for_selector("#bg .bg-move", timeout=20_000)
    page.screenshot(path=str(shots(tmp_path) / "bg-live-tv.png"))


def crafted() -> dict:
    points = [0] * 24
    for i, n in {
        0: 2,
        1: 3,
        2: 2,
        3: 2,
        4: 1,
        5: 1,
        7: 1,
        12: -2,
        17: -3,
        18: -4,
        20: -2,
        22: -1,
        23: -1,
    }.items():
        points[i] = n
    state = {
        "length": 7, "score": {"A": 6, "B": 4}, "phase": "moving", "game": 6, "turn": "B", "dice": [6, 6],
        "points": points, "bar": [0, 1], "off": [0, 0], "cube": {"value": 2, "owner": "A"},
        "crawford": True, "post_crawford": False, "winner": None, "illegal_pending": True,
        "clock": {"remaining_s": [312.0, 45.0], "running": 1, "since": time.time() - 3, "mode": "simple",
                  "delay_s": 12.0},
        "moves": [
            {"side": "A", "kind": "move", "dice": [3, 1], "text": "8/5 6/5", "legal": True},
            {"side": "B", "kind": "move", "dice": [6, 4], "text": "24/14", "legal": True},
            {"side": "A", "kind": "double", "dice": None, "text": "double", "legal": True},
            {"side": "B", "kind": "take", "dice": None, "text": "take", "legal": True},
            {"side": "A", "kind": "move", "dice": [5, 2], "text": "?", "legal": False},
            {"side": "B", "kind": "move", "dice": [6, 6], "text": "no play", "legal": True},
        ],
        "games": [{"number": 5, "score_before": [4, 4], "winner": "A", "points": 2, "crawford": False,
                   "actions": [{"side": "A", "kind": "move"}]}],
    }  # fmt: skip
    state["off"] = [15 - sum(n for n in points if n > 0), 15 - sum(-n for n in points if n < 0) - 1]
    assert bg.board_problem(points, state["bar"], state["off"]) is None
    return {
        "id": "CRAFTED-BG", "sport": "backgammon", "table": "B9", "round": 2,
        "players": ["Hakan Yıldız", "Levent Şen"], "status": "live", "official": False, "version": 11,
        "updated_at": time.time(), "state": state,
    }  # fmt: skip


def draw(page: Page, match: dict) -> None:
    page.evaluate("async (m) => { (await import('/static/match.js')).render(m); }", match)


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_a_crafted_position_shows_bar_trays_cube_crawford_clocks_and_the_move_list(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, bg_demo.url + "static/match.html", viewport=viewport)
    match = crafted()
    draw(page, match)
    expect(page.locator("#bg")).to_be_visible()
    assert checkers_drawn(page) == 30
    expect(page.locator("#bg .bg-bar[data-side='B']")).to_have_attribute("data-count", "1")
    expect(page.locator("#bg .off[data-side='A']")).to_have_attribute(
        "data-count", str(match["state"]["off"][0])
    )
    expect(page.locator("#bg .cube")).to_have_attribute("data-owner", "A")
    expect(page.locator("#bg .cube text")).to_have_text("2")
    expect(page.locator("#bg .dice .die")).to_have_count(2)
    expect(page.locator("#bg .bg-crawford")).to_have_text("Crawford")
    expect(page.locator("#bg .bg-player[data-side='A'] .bg-score")).to_have_text("6")
    expect(page.locator("#bg .bg-player[data-side='B']")).to_have_class("bg-player on-turn")
    expect(page.locator("#bg .bg-player[data-side='B'] .bg-clock")).to_have_class("bg-clock running low")
    expect(page.locator("#bg .bg-player[data-side='A'] .bg-clock")).to_have_text("5:12")
    expect(page.locator("#bg .bg-illegal")).to_be_visible()
    expect(page.locator("#bg .bg-move")).to_have_count(3)
    expect(page.locator("#bg .bg-move").nth(1)).to_contain_text("Doubles → 2")
    expect(page.locator("#bg .bg-cell.illegal")).to_have_count(1)
    expect(page.locator("#bg .bg-phase")).to_have_text("Levent Şen to play 6-6")
    expect(page.locator("#game-no")).to_have_text("Game 6")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(shots(tmp_path) / f"bg-crafted-{name}.png"), full_page=True)
    page.locator("#lang").click()
    expect(page.locator("#bg .bg-phase")).to_have_text("Levent Şen oynuyor: 6-6")


def test_the_wall_shows_a_compact_backgammon_tile_beside_table_tennis(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, bg_demo.url)
    tile = page.locator("#match-BG-R1-T2")
    expect(tile).to_be_visible(timeout=10_000)
    expect(tile.locator(".bg-mini svg")).to_have_count(1)
    expect(tile.locator(".history")).to_contain_text("Match to 5")
    page.wait_for_function(
        "() => document.querySelectorAll('#match-BG-R1-T2 .bg-mini circle.ck').length >= 20", timeout=10_000
    )
    tt = page.locator("#match-TT-R1-T1")
    expect(tt.locator(".bg-mini")).to_have_count(0)
    expect(tt.locator(".points").first).not_to_have_text("")
    page.screenshot(path=str(shots(tmp_path) / "bg-wall-tv.png"), full_page=True)


def test_the_board_screen_and_the_wall_tile_show_the_winning_chances_bar(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    import json
    import urllib.request

    match_id = "BG-R1-T2"
    deadline = time.monotonic() + 60
    while True:  # a position with its chances: a play made and the net's answer in
        with urllib.request.urlopen(bg_demo.url + f"api/matches/{match_id}", timeout=5) as answer:
            view = json.loads(answer.read())
        if view.get("chances") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert view.get("chances"), "no winning chances came for a live backgammon match"
    page = open_page(browser, bg_demo.url + f"match/{match_id}", "tr-TR")
    bar = page.locator("#bg .bg-chances")
    expect(bar).to_be_visible(timeout=10_000)
    expect(bar.locator(".bg-chances-head")).to_contain_text("Kazanma şansı")
    share, width = page.evaluate(  # read together: the next position's chances may redraw the bar
        "() => { const box = document.querySelector('#bg .bg-chances'); const a = box.querySelector('.bg-chances-a');"
        " return [Number(box.dataset.a),"
        " a.getBoundingClientRect().width / a.parentElement.getBoundingClientRect().width]; }"
    )
    assert 0 <= share <= 100
    assert abs(100 * width - share) < 2.5  # the bar's split is the number it shows
    wall = open_page(browser, bg_demo.url + "?sport=backgammon", "en-GB")
    expect(wall.locator(f"#match-{match_id} .bg-chances-bar")).to_be_visible(timeout=10_000)
    page.screenshot(path=str(shots(tmp_path) / "bg-chances-tr.png"))
