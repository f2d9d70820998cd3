"""The match screen in a real Chromium against a real `boardcast demo`: one table, live, readable across a hall."""

from __future__ import annotations

import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.test_wall_browser import browser, shows_within, watch_text  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
MATCH = "TT-R1-T1"


@pytest.fixture(scope="module")
def live_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path_factory.mktemp("match-demo") / "data", speed=30, tables=2)
    yield demo
    demo.stop()


def open_page(browser: Browser, url: str, locale: str = "tr-TR", viewport: dict | None = None) -> Page:  # noqa: F811
    context = browser.new_context(locale=locale, viewport=viewport or TV)
    page = context.new_page()
    page.goto(url)
    return page


def draw(page: Page, match: dict) -> None:
    """Draw a crafted match with the screen's own render(), the function the live feed calls."""
    page.evaluate("async (m) => { (await import('/static/match.js')).render(m); }", match)


def points_text(page: Page) -> str:
    return page.locator("#side-0 .points").inner_text() + ":" + page.locator("#side-1 .points").inner_text()


def no_horizontal_overflow(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def crafted(**state) -> dict:
    base = {
        "best_of": 5, "doubles": False, "points": [9, 10], "games": [2, 1], "game": 4,
        "game_scores": [[11, 7], [4, 11], [13, 11]], "server": 1, "receiver": 0, "ends": "swapped",
        "expedite": True, "expedite_since": {"game": 4, "points": [5, 4]}, "timeouts": [True, True],
        "timeout_active": 1, "cards": [["yellow"], ["yellow", "yellow_red"]], "penalty_points": [0, 1],
        "winner": None,
    }  # fmt: skip
    return {
        "id": "CRAFTED", "sport": "tabletennis", "table": "T9", "round": 3,
        "players": ["Ayşe Yılmaz", "Elif Kaya"], "status": "live", "official": False, "version": 7,
        "updated_at": time.time(), "state": {**base, **state},
    }  # fmt: skip


def test_match_screen_shows_the_players_and_live_scores_marked_informational(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    players = get_json(live_demo.url + f"api/matches/{MATCH}")["players"]
    page = open_page(browser, live_demo.url + f"match/{MATCH}")
    expect(page.locator("#connection")).to_have_text("Bağlı")
    expect(page.locator("#side-0 .pname")).to_have_text(players[0])
    expect(page.locator("#side-1 .pname")).to_have_text(players[1])
    expect(page.locator("#table")).to_have_text("Masa T1")
    expect(page.locator("#round")).to_have_text("Tur 1")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator("#provenance")).to_have_class("provenance informational")

    board = page.locator("#board")
    expect(board).to_have_attribute("data-status", "live", timeout=10_000)
    before = points_text(page)
    version = int(board.get_attribute("data-version"))
    page.wait_for_function(
        f"() => Number(document.querySelector('#board').dataset.version) > {version}", timeout=15_000
    )
    expect(page.locator("#side-0 .points")).not_to_have_text("")
    page.wait_for_function(
        "(before) => document.querySelector('#side-0 .points').textContent + ':' +"
        " document.querySelector('#side-1 .points').textContent !== before",
        arg=before,
        timeout=15_000,
    )
    # Exactly one side serves while the match is live, and it is the computed state.server.
    state = get_json(live_demo.url + f"api/matches/{MATCH}")["state"]
    if state.get("server") in (0, 1) and state.get("winner") is None:
        expect(page.locator(".side.serving")).to_have_count(1)
    expect(page.locator("#age")).to_contain_text("Güncelleme")
    page.screenshot(path=str(tmp_path / "match-live-tv.png"))


def test_a_confirmed_result_turns_official_within_a_second(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    demo = start_demo(tmp_path / "data", speed=400, tables=1)
    try:
        page = open_page(browser, demo.url + f"match/{MATCH}", locale="en-GB")
        expect(page.locator("#provenance")).to_have_text("Informational")
        expect(page.locator("#board")).to_have_attribute("data-status", "finished", timeout=40_000)
        expect(page.locator("#provenance")).to_have_text("Informational")
        expect(page.locator(".side.winner")).to_have_count(1)
        expect(page.locator(".side.winner .won")).to_have_text("Winner")
        watch_text(page, "#provenance", "Official result")
        sent = time.time() * 1000
        request = urllib.request.Request(
            demo.url + f"api/matches/{MATCH}/confirm",
            method="POST",
            data=b"",
            headers={"Authorization": f"Bearer {demo.token}"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
        shows_within(page, "#provenance", "Official result", sent, 1.0)
        expect(page.locator("#provenance")).to_have_class("provenance official")
        expect(page.locator("#board")).to_have_attribute("data-official", "true")
        final = get_json(demo.url + f"api/matches/{MATCH}")
        assert final["official"] is True
        games = final["state"]["games"]
        # Decided: the big numbers are the games won.
        expect(page.locator("#board")).to_have_class("board decided")
        expect(page.locator("#side-0 .points")).to_have_text(str(games[0]))
        expect(page.locator("#side-1 .points")).to_have_text(str(games[1]))
        expect(page.locator("#history tr")).to_have_count(3)
        expect(page.locator("#history tr").first.locator("th")).to_have_count(1 + sum(games))
        page.screenshot(path=str(tmp_path / "match-official-tv.png"))
    finally:
        demo.stop()


def test_language_follows_the_browser_and_the_switch_sticks(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
) -> None:
    page = open_page(browser, live_demo.url + f"match/{MATCH}", locale="en-US")
    expect(page.locator("#provenance")).to_have_text("Informational")
    expect(page.locator("#table")).to_have_text("Table T1")
    expect(page.locator("#connection")).to_have_text("Connected")
    expect(page.locator("#side-0 .games-label")).to_have_text("Games")
    page.locator("#lang").click()
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator("#table")).to_have_text("Masa T1")
    expect(page.locator("#side-0 .games-label")).to_have_text("Set")
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    page.reload()
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator("#lang")).to_have_text("EN")


def test_each_wall_tile_links_to_its_match_screen(browser: Browser, live_demo: DemoProcess) -> None:  # noqa: F811
    page = open_page(browser, live_demo.url)
    expect(page.locator(".tile")).to_have_count(4)
    for match in get_json(live_demo.url + "api/matches"):
        expect(page.locator(f"#match-{match['id']} a.table")).to_have_attribute(
            "href", f"/match/{match['id']}"
        )
    page.locator(f"#match-{MATCH}").click(position={"x": 40, "y": 70})  # anywhere on the tile
    page.wait_for_url(f"**/match/{MATCH}")
    players = get_json(live_demo.url + f"api/matches/{MATCH}")["players"]
    expect(page.locator("#side-0 .pname")).to_have_text(players[0])
    page.locator("a.back").click()
    page.wait_for_url(live_demo.url)
    expect(page.locator(".tile")).to_have_count(4)


def test_a_phone_gets_the_whole_scoreboard_without_sideways_scrolling(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, live_demo.url + f"match/{MATCH}", locale="tr-TR", viewport=PHONE)
    expect(page.locator("#board")).to_have_attribute("data-version", re.compile(r"^\d+$"))  # drawn
    assert no_horizontal_overflow(page)
    side0, side1 = page.locator("#side-0").bounding_box(), page.locator("#side-1").bounding_box()
    assert side0["x"] >= 0 and side0["x"] + side0["width"] <= PHONE["width"]
    assert abs(side0["x"] - side1["x"]) < 1  # stacked, one above the other
    page.screenshot(path=str(tmp_path / "match-live-phone.png"))

    wall = open_page(browser, live_demo.url, locale="tr-TR", viewport=PHONE)
    expect(wall.locator(".tile")).to_have_count(4)
    assert no_horizontal_overflow(wall)


def test_markers_for_serve_ends_expedite_timeouts_and_cards(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    # match.html straight from /static: no match id in the path, so no feed overwrites the crafted state.
    page = open_page(browser, live_demo.url + "static/match.html", locale="tr-TR")
    expect(page.locator("#not-found")).to_be_visible()
    draw(page, crafted())
    expect(page.locator("#not-found")).to_be_hidden()

    # Ends swapped: side 1 stands on the left, and the screen mirrors that.
    expect(page.locator("#board")).to_have_attribute("data-ends", "swapped")
    expect(page.locator("#side-1")).to_have_attribute("data-position", "left")
    assert page.locator("#side-1").bounding_box()["x"] < page.locator("#side-0").bounding_box()["x"]
    expect(page.locator("#ends-note")).to_be_visible()

    # The computed server carries the ball.
    expect(page.locator("#side-1")).to_have_attribute("data-serving", "true")
    expect(page.locator("#side-0")).to_have_attribute("data-serving", "false")
    expect(page.locator("#side-1 .ball")).to_be_visible()
    expect(page.locator("#side-0 .ball")).to_be_hidden()

    expect(page.locator("#expedite")).to_be_visible()
    expect(page.locator("#expedite")).to_contain_text("Hızlandırma")
    expect(page.locator("#expedite")).to_contain_text("4. sette 5-4 skorundan beri")

    expect(page.locator("#side-1 .timeout")).to_have_attribute("data-state", "active")
    expect(page.locator("#side-1 .timeout")).to_have_text("Molada")
    expect(page.locator("#side-0 .timeout")).to_have_attribute("data-state", "used")
    draw(page, crafted(points=[11, 9], games=[3, 1], winner=0, timeout_active=None))  # the match over
    expect(page.locator("#side-0 .timeout")).to_be_hidden()
    expect(page.locator("#side-1 .timeout")).to_be_hidden()
    draw(page, crafted())
    expect(page.locator("#side-0 .card")).to_have_count(1)
    expect(page.locator("#side-0 .card-yellow")).to_have_attribute("aria-label", "Sarı kart")
    expect(page.locator("#side-1 .card")).to_have_count(2)
    expect(page.locator("#side-1 .card-yellow_red")).to_be_visible()
    expect(page.locator("#side-1 .penalty")).to_have_text("Ceza: 1 sayı")
    expect(page.locator("#side-0 .penalty")).to_be_hidden()

    expect(page.locator("#side-0 .points")).to_have_text("9")
    expect(page.locator("#side-1 .points")).to_have_text("10")
    expect(page.locator("#side-0 .games-value")).to_have_text("2")
    expect(page.locator("#compact")).to_have_text("7/-4/11")
    expect(page.locator("#history tr").nth(1).locator("td.game-won")).to_have_count(2)
    expect(page.locator("#game-no")).to_have_text("4. set")
    expect(page.locator("#table")).to_have_text("Masa T9")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    page.screenshot(path=str(tmp_path / "markers-tv.png"))

    # The switch re-draws the same state in English.
    page.locator("#lang").click()
    expect(page.locator("#expedite")).to_contain_text("Expedite")
    expect(page.locator("#side-1 .card-yellow_red")).to_have_attribute("aria-label", "Yellow + red card")

    # Doubles: pairs, and the serving and receiving players within them.
    doubles = crafted(
        doubles=True, ends="normal", server=0, server_player="A2", receiver_player="B1",
        expedite=False, timeout_active=None, cards=[[], ["red"]],
    )  # fmt: skip
    doubles["players"] = ["Ayşe Yılmaz", "Zeynep Şahin", "Elif Kaya", "Deniz Arslan"]
    draw(page, doubles)
    expect(page.locator("#side-0")).to_have_attribute("data-position", "left")
    assert page.locator("#side-0").bounding_box()["x"] < page.locator("#side-1").bounding_box()["x"]
    expect(page.locator("#side-0 .pname")).to_have_text(["Ayşe Yılmaz", "Zeynep Şahin"])
    expect(page.locator("#side-1 .pname")).to_have_text(["Elif Kaya", "Deniz Arslan"])
    expect(page.locator('[data-player="A2"]')).to_have_attribute("data-role", "serve")
    expect(page.locator('[data-player="B1"]')).to_have_attribute("data-role", "receive")
    expect(page.locator("[data-role]")).to_have_count(2)
    expect(page.locator("#expedite")).to_be_hidden()
    expect(page.locator("#ends-note")).to_be_hidden()
    expect(page.locator("#side-1 .card-red")).to_be_visible()
    page.screenshot(path=str(tmp_path / "markers-doubles-tv.png"))

    phone = open_page(browser, live_demo.url + "static/match.html", locale="tr-TR", viewport=PHONE)
    for match in (crafted(), doubles):
        draw(phone, match)
        assert no_horizontal_overflow(phone)
    phone.screenshot(path=str(tmp_path / "markers-doubles-phone.png"))
    draw(phone, crafted())
    phone.screenshot(path=str(tmp_path / "markers-phone.png"))


def test_missing_fields_degrade_to_a_plain_scoreboard_and_silence_is_marked(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
) -> None:
    page = open_page(browser, live_demo.url + "static/match.html", locale="en-GB")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # An engine that lags behind the contract: no ends, no cards, no time-outs, no expedite.
    draw(
        page,
        {
            "id": "OLD", "table": "T2", "round": 1, "players": ["A", "B"], "status": "live", "official": False,
            "version": 3, "updated_at": time.time() - 300,
            "state": {"best_of": 5, "points": [3, 2], "games": [0, 0], "game_scores": [], "server": 0},
        },
    )  # fmt: skip
    expect(page.locator("#side-0")).to_have_attribute("data-position", "left")
    expect(page.locator("#side-0")).to_have_attribute("data-serving", "true")
    expect(page.locator(".card, .timeout:visible, .penalty:visible, #expedite:visible")).to_have_count(0)
    expect(page.locator("#side-1 .points")).to_have_text("2")
    expect(page.locator("#compact")).to_have_text("—")
    expect(page.locator("#age")).to_have_class("age stale")
    expect(page.locator("#age")).to_contain_text("silent")
    # No state at all yet (a scheduled match).
    draw(page, {"id": "NEW", "table": "T3", "round": 2, "players": ["C", "D"], "status": "scheduled",
                "official": False, "version": 0, "updated_at": None, "state": None})  # fmt: skip
    expect(page.locator("#side-0 .points")).to_have_text("0")
    expect(page.locator(".side.serving")).to_have_count(0)
    expect(page.locator("#age")).to_have_text("no data")
    assert errors == []


def test_wall_tile_shows_serve_expedite_timeout_card_markers_and_history(
    browser: Browser,  # noqa: F811
    live_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, live_demo.url, locale="tr-TR")
    expect(page.locator(".tile")).to_have_count(4)
    match = crafted()
    page.evaluate("async (m) => { (await import('/static/wall.js')).show(m); }", match)
    tile = page.locator("#match-CRAFTED")
    expect(tile.locator("a.table")).to_have_attribute("href", "/match/CRAFTED")
    expect(tile.locator(".side-1 .serve")).to_have_class("serve on")
    expect(tile.locator(".side-0 .serve")).to_have_class("serve")
    expect(tile.locator(".expedite")).to_be_visible()
    expect(tile.locator(".side-1 .mark.timeout.active")).to_have_count(1)
    expect(tile.locator(".side-0 .mark.timeout.used")).to_have_count(1)
    expect(tile.locator(".side-1 .mark.card")).to_have_count(2)
    expect(tile.locator(".side-1 .mark.penalty")).to_have_text("+1")
    expect(tile.locator(".history")).to_have_text("11-7 · 4-11 · 13-11")
    assert tile.evaluate("t => t.className") == "tile"  # the markers live inside; the tile's classes stay
    doubles = crafted(
        doubles=True,
        expedite=False,
        timeouts=[False, False],
        timeout_active=None,
        cards=[[], []],
        penalty_points=[0, 0],
    )
    doubles["id"] = "CRAFTED-D"
    doubles["players"] = ["Ayşe Yılmaz", "Zeynep Şahin", "Elif Kaya", "Deniz Arslan"]
    page.evaluate("async (m) => { (await import('/static/wall.js')).show(m); }", doubles)
    pair = page.locator("#match-CRAFTED-D")
    expect(pair.locator(".side-0 .name")).to_have_text("Ayşe Yılmaz /\nZeynep Şahin")
    expect(pair.locator(".expedite")).to_be_hidden()
    expect(pair.locator(".mark")).to_have_count(0)
    page.screenshot(path=str(tmp_path / "wall-markers-tv.png"))
