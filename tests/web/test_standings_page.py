"""The spectators' standings page in a real Chromium: crafted individual and team views drawn through the page's own
`renderStandings` (the function the live feed calls) on a real hub, both languages, the provenance states, a
40-team table on a 1920x1080 hall screen and on a 390 px phone; then live: a hub serving a published Swiss
whose last round is played in the hall, the page following the referee's results over /ws."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from hub.tournament.trf import parse_trf
from tests.bussupport import Node
from tests.conftest import DemoProcess, free_port, get_json, start_demo
from tests.hub.test_round_export import HELD, blanked, round_games, venue_text
from tests.hubsupport import post_json
from tests.web.test_board_screen import shots
from tests.web.test_chess_screen import PHONE, TV
from tests.web.test_chess_screen import open_page as open_any_page
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Any running hub serves the page's files; the crafted views are drawn into it."""
    demo = start_demo(tmp_path_factory.mktemp("standings-page") / "data", speed=5, tables=1)
    yield demo
    demo.stop()


def open_page(browser: Browser, url: str, locale: str = "tr-TR", viewport: dict | None = None) -> Page:  # noqa: F811
    """A page as the other screens' tests open it, once its script has drawn the language button."""
    page = open_any_page(browser, url, locale, viewport)
    page.wait_for_function("document.getElementById('lang').textContent !== ''")
    return page


def draw(page: Page, view: dict) -> None:
    """Draw a crafted view with the page's own renderStandings(), the function the live feed calls."""
    page.evaluate("async (v) => { (await import('/static/standings.js')).renderStandings(v); }", view)


def texts(page: Page, selector: str) -> list[str]:
    return page.locator(selector).all_text_contents()


def no_horizontal_scroll(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


INDIVIDUAL_ROWS = [
    # name, starting number, rank, points, BH-1, SB, DE
    ("Ayşe Yılmaz", 3, 1, 4.5, 12.5, 11.25, 0),
    ("Kerem Demir", 1, 2, 4.0, 13.0, 10.5, 0.5),
    ("Elif Kaya", 7, 2, 4.0, 13.0, 10.5, 0.5),
    ("Mert Şahin", 2, 4, 3.5, None, 8.0, 0),
    ("Zeynep Arslan", 5, 5, 0.5, 6.5, 0.5, 0),
]


def individual_view(**changes: object) -> dict:
    """An individual event's standings as the hub's view gives them: a place shared by two players, halves, a
    tie-break the engine left out (None), the round's byes and forfeits."""
    rows = [
        {"rank": rank, "name": name, "number": number, "points": points,
         "tiebreaks": {key: value for key, value in zip(["BH-1", "SB", "DE"], tbs, strict=True) if value is not None}}
        for name, number, rank, points, *tbs in INDIVIDUAL_ROWS
    ]  # fmt: skip
    view = {
        "event": "Türkiye Kulüpler Şampiyonası", "kind": "individual", "rounds": 9, "round": 3,
        "official": False, "counted": 12, "provisional": 4, "pending": 3,
        "tiebreaks": ["BH-1", "SB", "DE"], "rows": rows,
        "byes": [
            {"name": "Can Öztürk", "number": 12, "code": "H", "points": 0.5},
            {"name": "Deniz Aydın", "number": 9, "code": "U", "points": 1.0},
            {"name": "Ece Koç", "number": 4, "code": "+", "points": 1.0},
            {"name": "Fatih Çelik", "number": 6, "code": "-", "points": 0},
        ],
        "error": None,
    }  # fmt: skip
    view.update(changes)
    return view


def team_view(teams: int = 10, *, prizes: bool = True, tiebreaks: list[str] | None = None) -> dict:
    """A team event's standings: match points falling by one every second team (pairs share a place), game points
    with halves, and board prizes for two board categories."""
    names = ["Ankara SK", "İzmir Satranç", "Kocaeli Büyükşehir Belediyesi Kağıtspor", "Bursa Osmangazi",
             "Antalya Muratpaşa", "Eskişehir Odunpazarı Satranç İhtisas Kulübü", "Trabzon Ortahisar", "Konya SK"]  # fmt: skip
    tiebreaks = tiebreaks or ["BH-1", "GP", "DE"]
    rows = []
    for i in range(teams):
        rank = i + 1 if i % 2 == 0 else i  # 1, 1, 3, 3, ...: every pair shares a place
        values = {
            "BH-1": 60 - i * 1.5,
            "GP": 30 - i * 0.5,
            "DE": 0,
            "BH": 66 - i,
            "SB": 40.5 - i,
            "WIN": 7 - i % 7,
        }
        rows.append(
            {"rank": rank, "name": f"{names[i % len(names)]}{'' if i < len(names) else f' {i // len(names) + 1}'}",
             "number": teams - i, "points": max(0, 18 - i // 2), "tiebreaks": {k: values.get(k, 0) for k in tiebreaks}}
        )  # fmt: skip
    view = {
        "event": "Türkiye Kulüpler Şampiyonası", "kind": "team", "rounds": 9, "round": 9, "official": True,
        "counted": teams * 4 * 9 // 2, "provisional": 0, "pending": 0, "tiebreaks": tiebreaks, "rows": rows,
        "byes": [{"name": names[1], "number": teams - 1, "code": "F", "points": 2}], "error": None,
    }  # fmt: skip
    if prizes:
        view["board_prizes"] = [
            {"board": 1, "category_en": "open", "category_tr": "genel", "rows": [
                {"rank": 1, "name": "Ayşe Yılmaz", "team": "Ankara SK", "games": 7, "points": 5.5,
                 "performance": 2210, "wins": 4, "percent": 78.6},
                {"rank": 2, "name": "Kerem Demir", "team": "İzmir Satranç", "games": 8, "points": 5.5,
                 "performance": 2150, "wins": 4, "percent": 68.75},
            ]},
            {"board": 5, "category_en": "woman", "category_tr": "kadın", "rows": [
                {"rank": 1, "name": "Elif Kaya", "team": "Konya SK", "games": 7, "points": 6,
                 "performance": None, "wins": 5, "percent": 85.7},
            ]},
            # The engine's own shape is taken too: several boards, the names as a pair, "lines", 0 for no game.
            {"boards": [7, 8], "name": ["under 16", "16 yaş altı"], "lines": [
                {"rank": 1, "name": "Can Öztürk", "team": "Ankara SK", "games": 2, "points": 2,
                 "performance": 0, "wins": 2, "percent": 100.0},
            ]},
        ]  # fmt: skip
    return view


def test_an_individual_event_in_both_languages_with_shared_places_byes_provenance_and_errors(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html")
    draw(page, individual_view())
    expect(page.locator("#not-found")).to_be_hidden()
    expect(page.locator("#event")).to_have_text("Türkiye Kulüpler Şampiyonası")
    expect(page.locator("#round")).to_have_text("Tur 3/9")
    rows = page.locator("#tables tbody tr")
    expect(rows).to_have_count(5)
    assert texts(page, "#tables td.st-name") == [r[0] for r in INDIVIDUAL_ROWS]
    assert texts(page, "#tables td.st-no") == ["3", "1", "7", "2", "5"]
    # A shared place is written once, as the places it spans; the next place skips them.
    assert texts(page, "#tables td.st-rank") == ["1", "2–3", "", "4", "5"]
    assert page.locator("#tables tbody tr").evaluate_all("rs => rs.map(r => r.dataset.shared)") == [
        "false", "true", "true", "false", "false",
    ]  # fmt: skip
    assert texts(page, "#tables td.st-points") == ["4½", "4", "4", "3½", "½"]
    assert texts(page, "#tables thead th") == ["Sıra", "No", "Oyuncu", "Puan", "BH-1", "SB", "DE"]
    first, fourth = rows.nth(0), rows.nth(3)
    # one way of writing fractions: Sonneborn-Berger's quarters as ¼ and ¾ beside the halves, never 0.25
    assert texts(page, "#tables tbody tr:nth-child(1) td.st-tb") == ["12½", "11¼", "0"]
    expect(fourth.locator('td[data-tiebreak="BH-1"]')).to_have_text("–")  # left out by the engine: a dash
    expect(rows.nth(1).locator('td[data-tiebreak="DE"]')).to_have_text("½")
    expect(first.locator("td.st-points")).to_have_text("4½")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır — 4 sonuç hakem onayı bekliyor")
    expect(page.locator("#provenance")).to_have_class(re.compile(r"\binformational\b"))
    expect(page.locator("#counted")).to_have_text("12 oyun sonucu sayıldı")
    expect(page.locator("#pending")).to_have_text("3. turda 3 oyun sürüyor")
    expect(page.locator("#error")).to_be_hidden()
    # The round's byes and forfeits, with the codes used explained.
    expect(page.locator("#byes-title")).to_have_text("3. tur: bay ve hükmen sonuçlar")
    assert texts(page, "#bye-list .bye-name") == ["Can Öztürk", "Deniz Aydın", "Ece Koç", "Fatih Çelik"]
    assert texts(page, "#bye-list .code") == ["H", "U", "+", "-"]
    assert texts(page, "#bye-list .bye-points") == ["½", "1", "1", "0"]
    legend = {
        "U": "eşlendirmenin verdiği bay",
        "H": "yarım puanlık bay",
        "+": "hükmen galibiyet",
        "-": "hükmen mağlubiyet",
    }
    assert texts(page, "#codes dt") == list(legend)  # in the order the codes are defined, only those used
    assert texts(page, "#codes dd") == list(legend.values())
    expect(page.locator("#prizes")).to_be_hidden()  # an individual event has no board prizes
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(shots(tmp_path) / "standings-individual-tr.png"), full_page=True)

    page.locator("#lang").click()
    expect(page.locator("#round")).to_have_text("Round 3 of 9")
    expect(page.locator("#provenance")).to_have_text("Informational — 4 results await a referee")
    expect(page.locator("#pending")).to_have_text("3 games of round 3 still being played")
    assert texts(page, "#tables thead th")[:4] == ["Rk", "No.", "Player", "Pts"]
    expect(page.locator("#byes-title")).to_have_text("Round 3: byes and forfeits")
    assert texts(page, "#codes dd") == [
        "pairing-allocated bye",
        "half-point bye",
        "forfeit win",
        "forfeit loss",
    ]
    expect(page.locator('#tables th[data-tiebreak="BH-1"]')).to_have_attribute("title", "Buchholz cut-1")

    # Every result confirmed: official. A report file that could not be read again: said, the old copy shown.
    draw(page, individual_view(official=True, provisional=0, pending=0, byes=[]))
    expect(page.locator("#provenance")).to_have_text("Official")
    expect(page.locator("#provenance")).to_have_class(re.compile(r"\bofficial\b"))
    expect(page.locator("#pending")).to_have_text("")
    expect(page.locator("#byes")).to_be_hidden()
    error = "event.trf:12:93: a result code must be one of 1 0 = + - D W L H F U Z"
    draw(page, individual_view(error=error))
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_contain_text(error)
    expect(page.locator("#error")).to_contain_text("could not be read again")
    expect(rows).to_have_count(5)  # the older copy is still shown
    page.locator("#lang").click()
    expect(page.locator("#error")).to_contain_text("yeniden okunamadı")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır — 4 sonuç hakem onayı bekliyor")
    draw(page, individual_view(official=True, provisional=0))
    expect(page.locator("#provenance")).to_have_text("Resmî")
    numberless = individual_view()
    for row in numberless["rows"]:
        del row["number"]
    draw(page, numberless)  # no starting numbers given: no column for them
    assert texts(page, "#tables thead th") == ["Sıra", "Oyuncu", "Puan", "BH-1", "SB", "DE"]
    assert texts(page, "#tables tbody tr:nth-child(1) td") == ["1", "Ayşe Yılmaz", "4½", "12½", "11¼", "0"]
    page.screenshot(path=str(shots(tmp_path) / "standings-individual-official-tr.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_team_event_titles_match_points_and_shows_one_board_prize_table_per_category(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html")
    view = team_view(6)
    draw(page, view)
    assert texts(page, "#tables thead th") == ["Sıra", "No", "Takım", "Takım puanı", "BH-1", "GP", "DE"]
    expect(page.locator("#tables thead th.st-points")).to_have_attribute("title", "Takım (maç) puanı")
    assert texts(page, "#tables td.st-name") == [row["name"] for row in view["rows"]]
    assert texts(page, "#tables td.st-rank") == ["1–2", "", "3–4", "", "5–6", ""]
    assert texts(page, "#tables td.st-points") == ["18", "18", "17", "17", "16", "16"]
    assert texts(page, "#tables td[data-tiebreak='BH-1']") == ["60", "58½", "57", "55½", "54", "52½"]
    expect(page.locator("#provenance")).to_have_text("Resmî")
    expect(page.locator("#pending")).to_be_hidden()
    expect(page.locator("#codes dd")).to_have_text(["tam puanlık bay"])
    expect(page.locator("#prizes-title")).to_have_text("Masa ödülleri")
    prize_tables = page.locator("#prize-tables table")
    expect(prize_tables).to_have_count(3)
    expect(prize_tables.locator("caption")).to_have_text(
        ["1. masa — genel", "5. masa — kadın", "7–8. masa — 16 yaş altı"]
    )
    board_1 = prize_tables.nth(0)
    assert board_1.locator("thead th").all_text_contents() == [
        "Sıra", "Oyuncu", "Takım", "Oyun", "Puan", "Perf.", "Gal.", "%",
    ]  # fmt: skip
    assert board_1.locator("td.p-name").all_text_contents() == ["Ayşe Yılmaz", "Kerem Demir"]
    assert board_1.locator("td.p-rank").all_text_contents() == ["1", "2"]
    assert board_1.locator("td.p-points").all_text_contents() == ["5½", "5½"]
    assert board_1.locator("td.p-percent").all_text_contents() == ["78,6", "68,8"]
    expect(prize_tables.nth(1).locator("td.p-performance")).to_have_text("–")  # no performance yet: a dash
    expect(prize_tables.nth(2).locator("td.p-performance")).to_have_text("–")
    expect(prize_tables.nth(2).locator("td.p-percent")).to_have_text("100")
    page.screenshot(path=str(shots(tmp_path) / "standings-team-tr.png"), full_page=True)
    page.locator("#lang").click()
    expect(page.locator("#tables thead th.st-points")).to_have_text("MP")
    expect(page.locator("#tables thead th.st-points")).to_have_attribute("title", "Match points")
    expect(page.locator("#tables thead th.st-name")).to_have_text("Team")
    expect(prize_tables.locator("caption")).to_have_text(
        ["Board 1 — open", "Board 5 — woman", "Boards 7–8 — under 16"]
    )
    expect(board_1.locator("td.p-percent").first).to_have_text("78.6")
    expect(page.locator("#codes dd")).to_have_text(["full-point bye"])
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_40_team_table_fits_a_1920x1080_hall_screen(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html", viewport=TV)
    draw(page, team_view(40))
    rows = page.locator("#tables tbody tr")
    expect(rows).to_have_count(40)
    assert page.evaluate("scrollY") == 0
    boxes = rows.evaluate_all(
        "rs => rs.map(r => { const b = r.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })"
    )
    outside = [
        box for box in boxes if min(box[0], box[1]) < 0 or box[2] > TV["width"] or box[3] > TV["height"]
    ]
    assert not outside, outside
    # Readable from the hall: the rows' text at least 20 px high (the fitting never goes below that here).
    size = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#tables td.st-name')).fontSize)"
    )
    assert size >= 20, size
    # Still in rank order: down the first column, then the second.
    assert [int(n) for n in texts(page, "#tables td.st-no")] == list(range(40, 0, -1))
    assert page.locator("#tables table").count() == 2
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(shots(tmp_path) / "standings-40-teams-tv.png"))

    # A place shared across the columns' break (30 rows: 15 a column) is named again at the top of the second.
    view = team_view(30)
    for i, row in enumerate(view["rows"]):
        row["rank"] = 14 if 13 <= i <= 16 else i + 1
    draw(page, view)
    columns = page.locator("#tables table")
    expect(columns).to_have_count(2)
    assert columns.nth(0).locator("td.st-rank").all_text_contents()[12:] == ["13", "14–17", ""]
    assert columns.nth(1).locator("td.st-rank").all_text_contents()[:3] == ["14–17", "", "18"]
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_phone_never_scrolls_sideways_the_table_scrolls_in_its_box(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html", viewport=PHONE)
    wide = ["BH-1", "GP", "DE", "BH", "SB", "WIN"]
    draw(page, team_view(40, tiebreaks=wide))
    expect(page.locator("#tables tbody tr")).to_have_count(40)
    assert page.locator("#tables table").count() == 1  # one column on a phone
    assert no_horizontal_scroll(page)
    box = page.evaluate(
        "(() => { const b = document.querySelector('#tables .st-box'); return [b.scrollWidth, b.clientWidth]; })()"
    )
    assert box[1] <= 390
    page.screenshot(path=str(shots(tmp_path) / "standings-40-teams-phone.png"))
    draw(page, individual_view())
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(shots(tmp_path) / "standings-individual-phone.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_hall_screen_pages_a_long_table_then_the_byes_and_prizes(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html?rotate=2", locale="en-GB", viewport=TV)
    draw(page, team_view(70))  # 60 rows a page: rows 1-60, rows 61-70, then the byes and board prizes
    expect(page.locator("#pager")).to_have_text("Page 1/3")
    expect(page.locator("#tables tbody tr")).to_have_count(60)
    assert page.locator("#tables table").count() == 3
    assert [int(n) for n in texts(page, "#tables td.st-no")] == list(range(70, 10, -1))
    expect(page.locator("#extras-page")).to_be_hidden()
    expect(page.locator("#pager")).to_have_text("Page 2/3", timeout=5_000)
    expect(page.locator("#tables tbody tr")).to_have_count(10)
    assert [int(n) for n in texts(page, "#tables td.st-no")] == list(range(10, 0, -1))
    assert texts(page, "#tables td.st-rank")[:2] == ["61–62", ""]
    expect(page.locator("#pager")).to_have_text("Page 3/3", timeout=5_000)
    expect(page.locator("#extras-page")).to_be_visible()
    expect(page.locator("#table-page")).to_be_hidden()
    expect(page.locator("#prize-tables table")).to_have_count(3)
    expect(page.locator("#pager")).to_have_text("Page 1/3", timeout=5_000)
    expect(page.locator("#tables tbody tr")).to_have_count(60)
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_wall_links_to_the_standings_only_when_the_event_has_them(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url)
    page.wait_for_load_state("networkidle")
    expect(
        page.locator("#standings-link")
    ).to_be_hidden()  # the demo venue has no tournament: /api/standings 404


# -- live: a real hub with a [tournament] venue ---------------------------------------------------------------


@pytest.fixture
def event_hub(tmp_path: Path) -> Iterator[tuple[Node, list[tuple[int, int, str]], Path]]:
    """`boardcast serve` on a hall playing the last round of held_swiss_9 (blanked in its report file), the
    round's eight games on chess tables with their pairings; no devices: the referee enters the results."""
    text = HELD.read_text(encoding="utf-8")
    original = parse_trf(text, str(HELD))
    games = round_games(original)
    (tmp_path / "event.trf").write_text(blanked(original, text), encoding="utf-8")
    venue = tmp_path / "hall.toml"
    venue.write_text(venue_text(original, games), encoding="utf-8")
    hub = Node(
        ["serve", "--venue", str(venue), "--data", str(tmp_path / "data")], free_port(), tmp_path / "hub.log"
    )
    hub.start()
    yield hub, games, tmp_path / "event.trf"
    hub.stop()


def page_rows(page: Page) -> list[list[str]]:
    return page.locator("#tables tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.querySelectorAll('td')].map(td => td.textContent))"
    )


def api_rows(view: dict[str, Any]) -> list[list[str]]:
    """The rows as the page should write them: a shared place once, halves as ½ (quarters ¼ ¾), no number column when
    the view gives none."""
    rows, previous = [], None
    for row in view["rows"]:
        same = [r for r in view["rows"] if r["rank"] == row["rank"]]
        rank = "" if row["rank"] == previous else (
            f"{row['rank']}–{row['rank'] + len(same) - 1}" if len(same) > 1 else str(row["rank"])
        )  # fmt: skip
        previous = row["rank"]
        number = [str(row["number"])] if "number" in row else []
        values = [row["points"], *(row["tiebreaks"][name] for name in view["tiebreaks"])]
        rows.append([rank, *number, row["name"], *(half(v) for v in values)])
    return rows


def half(value: float) -> str:
    """4.5 -> "4½", 0.5 -> "½", 4 -> "4", Sonneborn-Berger's 20.25 -> "20¼": fractions one way, in quarters."""
    assert value * 4 == int(value * 4), value  # these columns are all in quarters
    whole = int(value)
    quarter = ["", "¼", "½", "¾"][int((value - whole) * 4)]
    return (str(whole) if whole or not quarter else "") + quarter


def follows(page: Page, url: str, within: float = 10.0) -> dict[str, Any]:
    """Wait until the page shows the rows /api/standings gives (the hub sends at most one standings a second)."""
    deadline = time.monotonic() + within
    while True:
        view = get_json(url + "api/standings")
        if page_rows(page) == api_rows(view):
            return view
        assert time.monotonic() < deadline, (page_rows(page), api_rows(view))
        time.sleep(0.2)


def enter(url: str, game: str, result: str) -> None:
    """The referee writes a game's result as the score sheet has it."""
    how = "agreement" if result == "1/2-1/2" else "resignation"
    status, answer = post_json(
        f"{url}api/matches/{game}/actions", {"action": "result", "result": result, "how": how}
    )
    assert status == 200, answer


def test_the_live_standings_follow_the_referees_results_over_the_feed(
    browser: Browser,  # noqa: F811
    event_hub: tuple[Node, list[tuple[int, int, str]], Path],
    tmp_path: Path,
) -> None:
    hub, games, report_file = event_hub
    url = hub.url
    wall = open_page(browser, url, locale="en-GB")
    expect(wall.locator("#standings-link")).to_be_visible(timeout=10_000)  # the venue has a tournament
    expect(wall.locator("#standings-link")).to_have_attribute("href", "/standings")
    expect(wall.locator("#standings-link")).to_have_text("Standings")

    # The page's /ws goes through a route the test can cut, and hold (answering nothing) while the hall moves on.
    sockets: list[WebSocketRoute] = []
    to_hub = [True]

    def through(ws: WebSocketRoute) -> None:
        sockets.append(ws)
        if to_hub[0]:
            ws.connect_to_server()

    context = browser.new_context(locale="en-GB", viewport=TV)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route_web_socket(re.compile(r"/ws$"), through)
    page.goto(url + "standings")
    expect(page.locator("#connection")).to_have_text("Connected", timeout=10_000)
    expect(page.locator("#tables tbody tr")).to_have_count(16, timeout=10_000)
    view = follows(page, url)
    assert view["round"] == 9 and view["from_hall"] == 0
    filed = view["counted"]  # rounds 1-8 from the report file: counted, as their points are shown
    assert filed > 0
    expect(page.locator("#counted")).to_have_text(f"{filed} game results counted")
    assert (
        page.evaluate("document.documentElement.scrollHeight") <= 1080
    )  # nothing below: no scrolling at all
    expect(page.locator("#event")).to_have_text(view["event"])
    expect(page.locator("#round")).to_have_text("Round 9 of 9")
    expect(page.locator("#pending")).to_have_text(f"{len(games)} games of round 9 still being played")
    assert texts(page, "#tables thead th")[:3] == ["Rk", "Player", "Pts"]
    assert texts(page, "#tables thead th.st-tb") == view["tiebreaks"]
    assert texts(page, "#bye-list .bye-name") == [bye["name"] for bye in view["byes"]]
    page.screenshot(path=str(shots(tmp_path) / "standings-live-before.png"), full_page=True)

    # The referee enters the first game's result: counted at once, informational until confirmed.
    result = games[0][2]
    enter(url, "G1", result)
    expect(page.locator("#provenance")).to_have_text(
        "Informational — 1 result awaits a referee", timeout=10_000
    )
    expect(page.locator("#counted")).to_have_text(f"{filed + 1} game results counted, 1 from the hall")
    expect(page.locator("#pending")).to_have_text(f"{len(games) - 1} games of round 9 still being played")
    after = follows(page, url)
    points = {row["name"]: row["points"] for row in view["rows"]}
    moved = {
        row["name"]: row["points"] - points[row["name"]]
        for row in after["rows"]
        if row["points"] != points[row["name"]]
    }
    assert sorted(moved.values()) == sorted({"1-0": [1], "0-1": [1], "1/2-1/2": [0.5, 0.5]}[result])
    page.screenshot(path=str(shots(tmp_path) / "standings-live-informational.png"), full_page=True)

    status, answer = post_json(url + "api/matches/G1/actions", {"action": "confirm"})
    assert status == 200, answer
    # confirmed, but seven games are still being played: informational, with nothing awaiting a referee
    expect(page.locator("#provenance")).to_have_text("Informational", timeout=10_000)
    expect(page.locator("#provenance")).to_have_class(re.compile(r"\binformational\b"))
    page.locator("#lang").click()
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator("#counted")).to_have_text(f"{filed + 1} oyun sonucu sayıldı, 1 tanesi salondan")

    # A dropped feed: the second result comes while the page is away; back, it gets the whole view again.
    to_hub[0] = False
    sockets[-1].close()
    expect(page.locator("#connection")).to_have_text("Bağlantı koptu, yeniden deneniyor…")
    expect(page.locator("#connection")).to_have_text("Bağlı", timeout=10_000)  # held: no hub behind it
    held = len(sockets)
    enter(url, "G2", games[1][2])
    assert get_json(url + "api/standings")["from_hall"] == 2
    time.sleep(
        1.5
    )  # past the hub's one-second gathering of results: the change has gone out, not to this page
    expect(page.locator("#counted")).to_have_text(f"{filed + 1} oyun sonucu sayıldı, 1 tanesi salondan")
    to_hub[0] = True
    sockets[-1].close()
    expect(page.locator("#counted")).to_have_text(
        f"{filed + 2} oyun sonucu sayıldı, 2 tanesi salondan", timeout=10_000
    )
    assert len(sockets) == held + 1
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır — 1 sonuç hakem onayı bekliyor")
    follows(page, url)

    # The report file spoilt: the older copy stays in use, the page says why, over the feed.
    good = report_file.read_text(encoding="utf-8")
    report_file.write_text(good.replace("\n001 ", "\n001x", 1), encoding="utf-8")
    enter(url, "G3", games[2][2])
    expect(page.locator("#error")).to_be_visible(timeout=10_000)
    error = get_json(url + "api/standings")["error"]
    assert error and error.startswith("event.trf:") and str(report_file.parent) not in error  # no server path
    expect(page.locator("#error")).to_have_text(
        f"Rapor dosyası yeniden okunamadı, önceki hali gösteriliyor: {error}"
    )
    expect(page.locator("#counted")).to_have_text(f"{filed + 3} oyun sonucu sayıldı, 3 tanesi salondan")
    follows(page, url)
    page.screenshot(path=str(shots(tmp_path) / "standings-live-error-tr.png"), full_page=True)
    assert errors == []


def demo_league_view(**changes: object) -> dict:
    """The demo league's standings as the hub gives them in round 2: round 1 counted from the report file, the
    Bursa-Trabzon match forfeited whole, board prizes asking two games (no one has two yet)."""
    view = team_view(4, prizes=False)
    view.update(
        {
            "round": 2, "rounds": 3, "official": False, "counted": 24, "from_hall": 0, "provisional": 0,
            "pending": 8, "byes": [],
            "team_forfeits": [
                {"teams": ["Bursa Gençlik Spor", "Trabzon Satranç Akademi"], "score": [8.0, 0.0], "numbers": [3, 4]}
            ],
            "board_prize_min_games": 2,
            "board_prizes": [
                {"boards": [1, 2, 3, 4], "category_en": "open", "category_tr": "genel", "rows": []},
                {"boards": [5], "category_en": "under 20", "category_tr": "20 yaş ve altı", "rows": [
                    {"rank": 1, "name": "Efe Tunç", "team": "Ankara Satranç Kulübü", "games": 2, "forfeits": 1,
                     "points": 2.5, "performance": 2398, "wins": 2, "percent": 83.3},
                    {"rank": 2, "name": "Arda Yurt", "team": "İzmir Satranç İhtisas", "games": 2, "forfeits": 0,
                     "points": 0.25, "performance": 1702, "wins": 0, "percent": 12.5},
                ]},
            ],
        }
    )  # fmt: skip
    view.update(changes)
    return view


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_a_forfeited_team_match_is_one_line_and_counted_results_are_the_file_s_too(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html", viewport=viewport)
    draw(page, demo_league_view())
    expect(page.locator("#counted")).to_have_text("24 oyun sonucu sayıldı")
    lines = page.locator("#team-forfeits .team-forfeit")
    expect(lines).to_have_count(1)  # one line, not the 16 players' forfeits
    expect(lines.first).to_have_text(
        re.compile(r"Bursa Gençlik Spor\s*8–0\s*Trabzon Satranç Akademi\s*\(hükmen\)")
    )
    expect(page.locator("#bye-list .bye")).to_have_count(0)
    expect(page.locator("#codes dt")).to_have_count(0)
    # on a phone the line takes at most two lines' height before the board prizes
    height = lines.first.evaluate("e => e.getBoundingClientRect().height")
    font = lines.first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert height <= 2.6 * font * 1.3, (height, font)
    prizes = page.locator("#prize-tables table")
    expect(prizes.nth(0).locator("td.p-empty")).to_have_text("Henüz 2 oyun oynamış oyuncu yok")
    # one column, one way: a quarter beside halves is ¼, never 0.25
    expect(prizes.nth(1).locator("td.p-points")).to_have_text(["2½", "¼"])
    expect(prizes.nth(1).locator("td.p-games").first).to_have_attribute(
        "title", "1 hükmen sonuç puanda sayılır, oyun sayısında sayılmaz"
    )
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(shots(tmp_path) / f"standings-demo-league-{name}.png"), full_page=True)
    page.locator("#lang").click()
    expect(lines.first).to_have_text(re.compile(r"8–0\s*Trabzon Satranç Akademi\s*\(forfeit\)"))
    expect(page.locator("#counted")).to_have_text("24 game results counted")
    draw(page, demo_league_view(from_hall=5, counted=29))
    expect(page.locator("#counted")).to_have_text("29 game results counted, 5 from the hall")
    expect(prizes.nth(0).locator("td.p-empty")).to_have_text("No player has played 2 games yet")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_column_that_is_not_in_quarters_is_written_in_decimals_throughout(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url + "static/standings.html")
    view = individual_view(tiebreaks=["BH-1", "AOB"])
    aob = [12.5, 11.333, 11, 9.25, 4]
    for row, value in zip(view["rows"], aob, strict=True):
        row["tiebreaks"] = {"BH-1": row["tiebreaks"].get("BH-1", 0), "AOB": value}
    draw(page, view)
    assert texts(page, "#tables td[data-tiebreak='AOB']") == ["12.50", "11.33", "11.00", "9.25", "4.00"]
    assert texts(page, "#tables td[data-tiebreak='BH-1']") == ["12½", "13", "13", "0", "6½"]
    formats = page.evaluate(
        "async () => { const m = await import('/static/standings.js');"
        " return [m.fmtNumber(0.25), m.fmtNumber(4.75), m.fmtNumber(-0.5), m.fmtNumber(3), m.fmtNumber(null)]; }"
    )
    assert formats == ["¼", "4¾", "−½", "3", "–"]
    assert page.errors == []  # type: ignore[attr-defined]
