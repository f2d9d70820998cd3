"""The wall read from across the hall, in a real Chromium against a real demo: results in the big column with
the winner marked, names never cut, chess in the first 1080p screen, hall screens that page by themselves, and
digits big enough for 5 m. Every point is a DOM measurement; screenshots are only kept for people."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
# table tennis and backgammon, two rounds each; 8 chess boards; the team match
ALL_TILES = 4 * 2 + 2 * 2 + 8 + 1
CHESS_TILES = 8 + 1

# Every shown name element of the wall, with what overflows it (a name cut shows as scroll > client).
NAMES_JS = """() => [...document.querySelectorAll('.tile .name')].filter((n) => n.offsetParent !== null)
  .map((n) => ({ text: n.textContent, sw: n.scrollWidth, cw: n.clientWidth, sh: n.scrollHeight, ch: n.clientHeight,
    fitted: n.style.fontSize !== '', lines: Math.round(n.clientHeight / parseFloat(getComputedStyle(n).lineHeight)) }))"""

# The big column of every shown tile that has something in it: font size and box height in pixels.
DIGITS_JS = """() => [...document.querySelectorAll('.tile .points')].filter((p) => p.offsetParent !== null
    && p.textContent.trim() !== '')
  .map((p) => ({ tile: p.closest('.tile').id, text: p.textContent, font: parseFloat(getComputedStyle(p).fontSize),
    height: p.getBoundingClientRect().height }))"""


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """The whole demo hall at its own pace: four table-tennis tables, two backgammon tables, a chess team match."""
    demo = start_demo(
        tmp_path_factory.mktemp("hall") / "data", speed=1, tables=4, bg_tables=2, chess_boards=8
    )
    yield demo
    demo.stop()


_open: list[BrowserContext] = []


@pytest.fixture(autouse=True)
def close_pages() -> Iterator[None]:
    """Each test's pages close after it: live pages left open would keep drawing and slow the next tests."""
    yield
    while _open:
        _open.pop().close()


def open_wall(browser: Browser, url: str, viewport: dict, locale: str = "tr-TR") -> Page:  # noqa: F811
    context = browser.new_context(locale=locale, viewport=viewport)
    _open.append(context)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(error))  # type: ignore[attr-defined]
    page.goto(url)
    return page


def wait_for_hall(page: Page, tiles: int = ALL_TILES) -> None:
    """Until every tile is drawn and every chess board has its names."""
    expect(page.locator(".tile")).to_have_count(tiles, timeout=15_000)
    expect(page.locator("#team-R2-M1 .name").first).not_to_have_text("", timeout=10_000)


def shots(tmp_path: Path) -> Path:
    return tmp_path


@pytest.mark.parametrize("viewport", [TV, LAPTOP, PHONE], ids=["1920x1080", "1366x768", "390x844"])
def test_no_name_is_cut_at_any_size(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    viewport: dict,
    tmp_path: Path,
) -> None:
    page = open_wall(browser, hall.url, viewport)
    wait_for_hall(page)
    names = page.evaluate(NAMES_JS)
    texts = " ".join(n["text"] for n in names)
    for long_name in ("Ayşe Yıldırımoğlu", "Serkan Kocabıyıkoğlu", "Alper Sönmezoğlu", "Hakan Yıldızoğlu"):
        assert long_name in texts, f"{long_name} is not on the wall"
    cut = [n for n in names if n["sw"] > n["cw"] or n["sh"] > n["ch"]]
    assert cut == [], f"names cut at {viewport}: {cut}"
    assert all(n["lines"] <= 2 for n in names), [n for n in names if n["lines"] > 2]
    if viewport is not PHONE:  # in columns the long names need room: two lines, or shrunk (one line cut them)
        assert any(n["fitted"] or n["lines"] == 2 for n in names if "Kocabıyıkoğlu" in n["text"])
    page.screenshot(path=str(tmp_path / f"wall-{viewport['width']}.png"))
    assert page.errors == []  # type: ignore[attr-defined]

    team = open_wall(browser, hall.url + "team/R2-M1", viewport)  # the team match's board rows
    expect(team.locator("#boards .pname")).to_have_count(16, timeout=10_000)
    rows = team.locator("#boards .pname").evaluate_all(
        "ns => ns.map((n) => ({ text: n.textContent, sw: n.scrollWidth, cw: n.clientWidth, sh: n.scrollHeight,"
        " ch: n.clientHeight }))"
    )
    assert "Serkan Kocabıyıkoğlu" in [r["text"] for r in rows]
    assert [r for r in rows if r["sw"] > r["cw"] or r["sh"] > r["ch"]] == []


@pytest.mark.parametrize("viewport", [TV, LAPTOP, PHONE], ids=["1920x1080", "1366x768", "390x844"])
def test_no_name_is_cut_on_a_match_page(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    viewport: dict,
) -> None:
    page = open_wall(browser, hall.url, viewport)
    # a doubles pair (and its row in the game history), a long-named backgammon player, a long-named chess player
    for match, long_name in (
        ("TT-R1-T2", "Arslanoğlu"),
        ("BG-R1-T5", "Hakan Yıldızoğlu"),
        ("R2-M1-B2", "Kocabıyıkoğlu"),
    ):
        page.goto(hall.url + f"match/{match}")
        names = page.locator(".pname:visible, .bg-name:visible, .chess-name:visible, #history th:visible")
        expect(names.filter(has_text=long_name).first).to_be_visible(timeout=10_000)
        cut = names.evaluate_all(
            "ns => ns.map((n) => [n.textContent, n.scrollWidth, n.clientWidth]).filter(([, sw, cw]) => sw > cw)"
        )
        assert cut == [], f"{match} at {viewport}: {cut}"
    assert page.errors == []  # type: ignore[attr-defined]


def test_chess_is_in_the_first_1080p_screen_and_scheduled_matches_are_one_line(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
) -> None:
    page = open_wall(browser, hall.url, TV)
    wait_for_hall(page)
    head = page.locator('.group-head[data-sport="chess"]')
    first = page.locator("#team-R2-M1")
    assert head.evaluate("h => h.getBoundingClientRect().top") < TV["height"]
    # some of the first tile, not a sliver
    assert first.evaluate("t => t.getBoundingClientRect().top") < TV["height"] - 40
    scheduled = page.locator('.tile[data-status="scheduled"]')
    assert scheduled.count() >= 4  # round 2 waits at every table-tennis and backgammon table
    rows = scheduled.evaluate_all(
        """ts => ts.map((t) => ({ id: t.id, compact: t.classList.contains('compact'),
          height: t.getBoundingClientRect().height,
          line: parseFloat(getComputedStyle(t.querySelector('.compact-names')).lineHeight),
          names: t.querySelector('.compact-names').getBoundingClientRect().height }))"""
    )
    for row in rows:
        assert row["compact"], row
        assert row["names"] <= row["line"] * 1.1, f"not one line at 1920 px: {row}"
        assert row["height"] < 60, row
    # a compact row names its players, table, round and status
    one = page.locator("#match-TT-R2-T1")
    players = get_json(hall.url + "api/matches/TT-R2-T1")["players"]
    expect(one.locator(".compact-names")).to_have_text(f"{players[0]} – {players[1]}")
    expect(one.locator(".status")).to_have_text("Planlandı")
    expect(one.locator(".table")).to_have_text("Masa T1")
    expect(one.locator(".round")).to_have_text("Tur 2")


def test_big_column_digits_are_readable_at_five_metres(browser: Browser, hall: DemoProcess) -> None:  # noqa: F811
    page = open_wall(browser, hall.url, TV)
    wait_for_hall(page)
    page.wait_for_function(  # every chess clock read once
        "() => [...document.querySelectorAll('.tile .chess-clock')].filter((c) => c.offsetParent).length === 16",
        timeout=15_000,
    )
    digits = page.evaluate(DIGITS_JS)
    assert len(digits) >= 2 * (4 + 2 + 1)  # every live table-tennis, backgammon and team tile, both rows
    floor = 0.03 * TV["height"]
    small = [d for d in digits if d["font"] < floor or d["height"] < floor]
    assert small == [], f"under 3 % of {TV['height']} px: {small}"
    # a chess game's state is its clocks: as big as the big column's digits
    clocks = page.evaluate(DIGITS_JS.replace(".points", ".chess-clock"))
    assert len(clocks) == 2 * 8
    assert [c for c in clocks if c["font"] < floor] == [], clocks


@pytest.mark.parametrize(
    ("match", "selector"),
    [("TT-R1-T1", "#side-0 .points"), ("BG-R1-T5", ".bg-score"), ("R2-M1-B1", ".chess-player .chess-clock")],
    ids=["tabletennis-points", "backgammon-score", "chess-clock"],
)
def test_match_page_digits_are_six_percent_of_the_screen(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    match: str,
    selector: str,
) -> None:
    page = open_wall(browser, hall.url + f"match/{match}", TV)
    digits = page.locator(selector).first
    expect(digits).to_be_visible(timeout=15_000)
    expect(digits).not_to_have_text("")
    font, height = page.evaluate(  # one look: the backgammon side is drawn afresh every second
        "(s) => { const d = document.querySelector(s);"
        " return [parseFloat(getComputedStyle(d).fontSize), d.getBoundingClientRect().height]; }",
        selector,
    )
    assert font >= 0.06 * TV["height"], (match, font)
    assert height >= 0.06 * TV["height"], (match, height)


def visible_tiles(page: Page) -> list[dict]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#wall .tile')].filter((t) => t.offsetParent !== null)
          .map((t) => ({ id: t.id, top: t.getBoundingClientRect().top, bottom: t.getBoundingClientRect().bottom }))"""
    )


def paged(page: Page) -> dict:
    """The page shown, its label and its tiles, read in one go (a page turn cannot fall in between)."""
    return page.evaluate(
        """() => ({ page: document.querySelector('#wall').dataset.page,
          label: document.querySelector('#pager').textContent,
          tiles: [...document.querySelectorAll('#wall .tile')].filter((t) => t.offsetParent !== null)
            .map((t) => ({ id: t.id, bottom: t.getBoundingClientRect().bottom })) })"""
    )


def test_a_chess_hall_screen_pages_through_its_tiles_by_itself(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_wall(browser, hall.url + "?sport=chess&rotate=2", LAPTOP)
    wait_for_hall(page)
    page.wait_for_function("() => Number(document.querySelector('#wall').dataset.pages) >= 2", timeout=10_000)
    pages = int(page.locator("#wall").get_attribute("data-pages") or 0)
    seen: set[str] = set()
    for _ in range(pages):
        now = paged(page)  # one look: the page, its label and its tiles at the same moment
        assert now["label"] == f"Sayfa {now['page']}/{pages}"
        shown = now["tiles"]
        assert shown, f"page {now['page']} shows nothing"
        assert all(t["bottom"] <= LAPTOP["height"] for t in shown), f"page {now['page']} overflows: {shown}"
        assert not seen & {t["id"] for t in shown}, "a tile on two pages"
        seen |= {t["id"] for t in shown}
        page.screenshot(path=str(tmp_path / f"chess-page-{now['page']}.png"))
        page.wait_for_function(
            f"() => document.querySelector('#wall').dataset.page !== '{now['page']}'", timeout=5_000
        )
    assert len(seen) == CHESS_TILES, seen
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight + 1")
    page.locator("#lang").click()
    page.wait_for_function(
        "() => document.querySelector('#pager').textContent.startsWith('Page ')", timeout=5_000
    )
    now = paged(page)
    assert now["label"] == f"Page {now['page']}/{pages}"

    tv = open_wall(browser, hall.url + "?sport=chess&rotate=8", TV)  # the same screen on a 1080p TV
    wait_for_hall(tv)
    tv.wait_for_function("() => document.querySelector('#wall').dataset.pages", timeout=10_000)
    assert all(t["bottom"] <= TV["height"] for t in visible_tiles(tv))

    scrolling = open_wall(browser, hall.url + "?sport=chess", LAPTOP)  # without `rotate` the page scrolls
    wait_for_hall(scrolling)
    expect(scrolling.locator("#pager")).to_be_hidden()
    assert len(visible_tiles(scrolling)) == CHESS_TILES
    for p in (page, tv, scrolling):
        assert p.errors == []  # type: ignore[attr-defined]


def finished(status: str = "finished", **extra) -> dict:
    return {"status": status, "official": False, "version": 40, "updated_at": time.time(), "round": 1,
            "result": None, **extra}  # fmt: skip


def test_crafted_backgammon_and_chess_results_and_a_referee_result_in_the_big_column(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
) -> None:
    page = open_wall(browser, hall.url, TV, locale="en-GB")
    wait_for_hall(page)
    show = "async (m) => { (await import('/static/wall.js')).show(m); }"
    bg_state = {"score": {"A": 2, "B": 5}, "winner": "B", "length": 5, "points": [0] * 24, "bar": [0, 0],
                "off": [3, 15], "cube": {"value": 1, "owner": None}, "phase": "over"}  # fmt: skip
    page.evaluate(show, {**finished(), "id": "X-BG", "sport": "backgammon", "table": "T90",
                         "players": ["Hakan Yıldızoğlu", "Levent Şen"], "state": bg_state})  # fmt: skip
    bg = page.locator("#match-X-BG")
    expect(bg.locator(".points")).to_have_text(["2", "5"])
    expect(bg.locator(".side-1")).to_have_class("row side-1 winner")
    expect(bg.locator(".provenance")).to_have_text("Informational")

    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    chess_state = {"fen": start, "board_fen": start, "moves": [], "result": "1/2-1/2", "result_reason": "agreement",
                   "turn": "white", "clock": None}  # fmt: skip
    page.evaluate(show, {**finished(), "id": "X-CH", "sport": "chess", "table": "T91",
                         "players": ["Serkan Kocabıyıkoğlu", "Kaan Erdoğan"], "state": chess_state})  # fmt: skip
    chess = page.locator("#match-X-CH")
    expect(chess.locator(".points")).to_have_text(["½", "½"])
    expect(chess.locator(".row.winner")).to_have_count(0)  # a draw has no winner

    # A referee's result supersedes what the board showed: the 1-0 the board never saw, a forfeit here.
    page.evaluate(show, {**finished("forfeit", official=True, version=41), "id": "X-CH", "sport": "chess",
                         "table": "T91", "players": ["Serkan Kocabıyıkoğlu", "Kaan Erdoğan"], "state": chess_state,
                         "result": {"winner": 0, "score": [1, 0], "source": "forfeit"}})  # fmt: skip
    expect(chess.locator(".points")).to_have_text(["1", "0"])
    expect(chess.locator(".side-0")).to_have_class("row side-0 winner")
    expect(chess.locator(".side-1")).to_have_class("row side-1 loser")
    expect(chess.locator(".provenance")).to_have_text("Official result")
    expect(chess.locator(".referee-result")).to_have_text("Referee's result: 1–0 (forfeit)")
    assert chess.locator(".side-0 .name").evaluate("n => getComputedStyle(n, '::before').content") == '"✓ "'
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """One table-tennis table playing its two rounds fast."""
    demo = start_demo(tmp_path_factory.mktemp("quick") / "data", speed=400, tables=1)
    yield demo
    demo.stop()


def referee_action(demo: DemoProcess, match: str, body: dict) -> dict:
    request = urllib.request.Request(
        demo.url + f"api/matches/{match}/actions",
        method="POST",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {demo.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_a_finished_table_tennis_match_shows_games_won_and_its_winner(
    browser: Browser,  # noqa: F811
    quick: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_wall(browser, quick.url, TV)
    tile = page.locator("#match-TT-R2-T1")  # the last round: no later round locks it against a correction
    expect(tile).to_have_attribute("data-status", "finished", timeout=60_000)
    state = get_json(quick.url + "api/matches/TT-R2-T1")["state"]
    winner, games = state["winner"], state["games"]
    expect(tile.locator(".points")).to_have_text([str(games[0]), str(games[1])])  # not the next game's "0 0"
    expect(tile.locator(f".side-{winner}")).to_have_class(f"row side-{winner} winner")
    expect(tile.locator(f".side-{1 - winner}")).to_have_class(f"row side-{1 - winner} loser")
    expect(tile.locator(".history")).to_have_text(" · ".join(f"{a}-{b}" for a, b in state["game_scores"]))
    expect(tile.locator(".provenance")).to_have_text("Bilgilendirme amaçlıdır")  # until a referee confirms
    weight, colour = tile.locator(".history").evaluate(
        "h => [getComputedStyle(h).fontWeight, getComputedStyle(h).color]"
    )
    assert int(weight) >= 700 and colour != "rgb(139, 148, 158)"  # the result is no longer small and grey
    tick = tile.locator(f".side-{winner} .name").evaluate("n => getComputedStyle(n, '::before').content")
    assert tick == '"✓ "'
    assert tile.evaluate("t => t.title === '' && t.querySelector('.row.winner').title") == "Kazandı"
    page.screenshot(path=str(tmp_path / "finished.png"))

    loser = 1 - winner
    score = [1, 1]
    score[loser] = 3  # the referee gives it the other way
    referee_action(quick, "TT-R2-T1", {"action": "correct", "score": score, "reason": "scoreboard swapped"})
    expect(tile.locator(".points")).to_have_text([str(score[0]), str(score[1])], timeout=5_000)
    expect(tile.locator(f".side-{loser}")).to_have_class(f"row side-{loser} winner")
    expect(tile.locator(".provenance")).to_have_text("Bilgilendirme amaçlıdır")
    assert page.errors == []  # type: ignore[attr-defined]
