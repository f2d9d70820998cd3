"""Nothing cut on a spectator screen, in a real Chromium at a 1080p TV, a laptop and a phone: the wall, a match
page of each sport, a chess game, a team match and the standings, over the demo and over the same hall with
every name 24 characters or longer. Each page is measured in the DOM: no text box is narrower than its text
(a name cut mid-word, an ellipsis, a word pushed out of its box), every name and clock of a live game is in the
viewport (on a landscape screen the whole game page is), the wall's rows fill the width, and a tie-break's code
is one line. Screenshots are kept for people."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.longnames_hall import LONG_NAMES
from tests.web.test_chess_screen import chess_view, draw, running_clock
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

VIEWPORTS = {"1920x1080": (1920, 1080), "1366x768": (1366, 768), "390x844": (390, 844)}
TILES = 4 * 2 + 2 * 2 + 8 + 1  # two rounds at four table-tennis and two backgammon tables, 8 boards, the team

# Every shown element with text whose text is wider than its box (and the box does not scroll sideways), or
# taller than a box that clips it: a cut name, an ellipsis, a clamped line.
CUT_JS = r"""() => {
  const cut = [];
  const scrolls = (v) => v === 'auto' || v === 'scroll';
  for (const e of document.body.querySelectorAll('*')) {
    if (['SELECT', 'OPTION', 'SCRIPT', 'STYLE', 'TEMPLATE'].includes(e.tagName) || e.closest('svg')) continue;
    if (!e.getClientRects().length || e.clientWidth === 0 || !e.textContent.trim()) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden') continue;
    const wide = e.scrollWidth > e.clientWidth && !scrolls(cs.overflowX);
    const clipped = (cs.overflowY === 'hidden' || cs.overflowY === 'clip') && e.scrollHeight > e.clientHeight;
    if (wide || clipped) {
      cut.push({ el: `${e.tagName}.${e.className}`, text: e.textContent.trim().slice(0, 60),
        sw: e.scrollWidth, cw: e.clientWidth, sh: e.scrollHeight, ch: e.clientHeight });
    }
  }
  return cut;
}"""

# The names and clocks of the game on a match page, with any that are not wholly inside the viewport.
GAME_JS = r"""() => {
  const shown = [...document.querySelectorAll(
    '.pname, .chess-name, .chess-player .chess-clock, .bg-name, .bg-player .bg-clock')]
    .filter((e) => e.getClientRects().length && e.textContent.trim());
  const out = shown.filter((e) => { const r = e.getBoundingClientRect();
    return r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5; });
  return { shown: shown.map((e) => e.textContent.trim()),
    out: out.map((e) => [e.className, e.textContent.trim(), JSON.stringify(e.getBoundingClientRect())]) };
}"""

# The wall's rows of tiles (by their tops) that end short of the wall's right edge: empty width.
ROWS_JS = r"""() => {
  const wall = document.querySelector('#wall');
  const right = wall.getBoundingClientRect().right - parseFloat(getComputedStyle(wall).paddingRight);
  const rows = new Map();
  for (const t of wall.querySelectorAll(':scope > .tile')) {
    if (!t.getClientRects().length) continue;
    const box = t.getBoundingClientRect(), top = Math.round(box.top);
    rows.set(top, Math.max(rows.get(top) ?? 0, box.right));
  }
  return [...rows].filter(([, end]) => right - end > 2).map(([top, end]) => ({ top, empty: right - end }));
}"""

# The standings' tie-break headings that take more than one line.
HEADINGS_JS = r"""() => [...document.querySelectorAll('.st-table thead th.st-tb')].filter((th) => {
  const range = document.createRange(); range.selectNodeContents(th);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
}).map((th) => th.textContent)"""


@dataclass(frozen=True, slots=True)
class Hall:
    """A running demo hall, and whether its names are the long ones."""

    demo: DemoProcess
    long_names: bool


@pytest.fixture(scope="module", params=["demo", "long-names"])
def hall(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hall]:
    """The demo hall at its own pace (games stay live while the pages are read), or the same hall with long
    names: four table-tennis tables (one plays doubles), two backgammon tables, a chess team match."""
    module = "hub" if request.param == "demo" else "tests.web.longnames_hall"
    demo = start_demo(
        tmp_path_factory.mktemp(request.param) / "data",
        speed=1,
        tables=4,
        bg_tables=2,
        chess_boards=8,
        module=module,
    )
    yield Hall(demo, long_names=request.param == "long-names")
    demo.stop()


def look(page: Page, shots: Path, name: str) -> None:
    """What a person looks at, and what no page may have: a text cut, a script error."""
    page.wait_for_timeout(300)  # names are fitted at the next frame; let the page settle
    page.screenshot(path=str(shots / f"{name}.png"))
    cut = page.evaluate(CUT_JS)
    assert cut == [], f"{name}: text cut: {cut}"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), f"{name} scrolls sideways"


def live(demo: DemoProcess, sport: str, doubles: bool = False) -> str:
    """A live match of the sport (a doubles one if asked)."""
    for view in get_json(demo.url + "api/matches"):
        if view["sport"] == sport and view["status"] == "live" and (len(view["players"]) == 4) == doubles:
            return view["id"]
    raise AssertionError(f"no live {sport} match")


@pytest.mark.parametrize("size", VIEWPORTS)
def test_nothing_is_cut_on_a_spectator_page(
    browser: Browser,  # noqa: F811
    hall: Hall,
    size: str,
    tmp_path: Path,
) -> None:
    width, height = VIEWPORTS[size]
    context = browser.new_context(locale="tr-TR", viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    long_names, demo = hall.long_names, hall.demo
    try:
        page.goto(demo.url)
        expect(page.locator(".tile")).to_have_count(TILES, timeout=15_000)
        expect(page.locator("#team-R2-M1 .name").first).not_to_have_text("", timeout=10_000)
        if long_names:
            expect(page.locator(".tile .name").filter(has_text=LONG_NAMES[0]).first).to_be_visible()
        look(page, tmp_path, f"wall-{size}")
        assert page.evaluate(ROWS_JS) == [], f"a wall row leaves width empty at {size}"

        for match in (live(demo, "tabletennis"), live(demo, "tabletennis", doubles=True), live(demo, "backgammon"),
                      live(demo, "chess")):  # fmt: skip
            page.goto(demo.url + f"match/{match}")
            names = page.locator(".pname:visible, .bg-name:visible, .chess-name:visible")
            expect(names.first).not_to_have_text("", timeout=10_000)
            if "BG" in match or "R2-M1" in match:  # a game's clocks, once read
                expect(page.locator(".bg-clock:visible, .chess-clock:visible").first).to_be_visible(
                    timeout=10_000
                )
            look(page, tmp_path, f"match-{match}-{size}")
            game = page.evaluate(GAME_JS)
            assert len(game["shown"]) >= 2, game
            assert game["out"] == [], f"{match} at {size}: outside the screen: {game['out']}"
            if long_names:
                assert any(len(name) >= 24 for name in game["shown"]), game["shown"]
            if width > height:  # a hall screen shows the whole game page: the history and the age too
                assert page.evaluate("document.documentElement.scrollHeight <= innerHeight"), (
                    f"{match} scrolls"
                )

        page.goto(demo.url + "team/R2-M1")
        expect(page.locator("#boards .pname")).to_have_count(16, timeout=10_000)
        look(page, tmp_path, f"team-{size}")

        page.goto(demo.url + "standings")
        expect(page.locator(".st-table tbody tr").first).to_be_visible(timeout=10_000)
        look(page, tmp_path, f"standings-{size}")
        assert page.locator(".st-table thead th.st-tb").count() >= 1
        assert page.evaluate(HEADINGS_JS) == [], f"a tie-break heading wraps at {size}"
        assert errors == []
    finally:
        context.close()


def long_game(plies: int = 120) -> list[str]:
    """A legal game of `plies` moves (random, seeded): far longer than a move list has room for."""
    board, sans, rng = chess.Board(), [], random.Random(35)
    while len(sans) < plies and not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        sans.append(board.san(move))
        board.push(move)
    return sans


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_long_game_keeps_both_players_and_clocks_on_screen(
    browser: Browser,  # noqa: F811
    size: str,
    tmp_path: Path,
    pages_hub: DemoProcess,
) -> None:
    width, height = VIEWPORTS[size]
    context = browser.new_context(locale="tr-TR", viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(pages_hub.url + "static/match.html")
        game = chess_view(long_game(), clock=running_clock(95_000, 183_000, "white"))
        game["players"] = [LONG_NAMES[0], LONG_NAMES[1]]
        draw(page, game)
        expect(page.locator("#chess .chess-move")).to_have_count(60)
        look(page, tmp_path, f"long-game-{size}")
        seen = page.evaluate(GAME_JS)
        assert set(LONG_NAMES[:2]) <= set(seen["shown"]), seen
        assert len(seen["shown"]) == 4, seen  # both names, both clocks
        assert seen["out"] == [], f"outside the screen at {size}: {seen['out']}"
        # the newest move is in sight: the list scrolled inside its own box (on a TV) or the page (a phone)
        last = page.locator("#chess .chess-ply.last")
        box, shown = last.evaluate(
            "(e) => { const l = e.closest('.chess-move-list').getBoundingClientRect(), r = e.getBoundingClientRect();"
            " return [[l.top, l.bottom], [r.top, r.bottom]]; }"
        )
        assert box[0] - 0.5 <= shown[0] and shown[1] <= box[1] + 0.5, (box, shown)
        if width > height:
            assert page.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the page scrolls"
    finally:
        context.close()


@pytest.fixture(scope="module")
def pages_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Any running hub serves the pages the crafted game is drawn into."""
    demo = start_demo(tmp_path_factory.mktemp("pages") / "data", speed=1, tables=1)
    yield demo
    demo.stop()
