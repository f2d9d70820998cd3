"""The umpire pad in a real Chromium with touch emulation at 390x844, against a real `boardcast serve`.

A best-of-5 singles and a best-of-5 doubles match are tapped through to the end (with a time-out, a card and
an undo) and end as the same taps fed to `boardcast check tabletennis`; the page taken offline for 20 points
keeps them, sends them in order when the network is back and the hub stores each once; a reload resumes; a
second pad is only shown the score; an umpire's token is refused on another table's pad. Screenshots at
390x844 and 1920x1080 go to BOARDCAST_SHOTS when it is set.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from hub.referee.tokens import hash_token
from hub.rules import tabletennis as tt
from tests.bussupport import Node
from tests.conftest import free_port
from tests.hubsupport import get_json_as
from tests.web.test_board_screen import shots
from tests.web.test_chess_screen import PHONE, TV
from tests.web.test_wall_browser import (  # noqa: F401  (the shared Chromium fixture)
    browser,
    clicked_at,
    mark_clicks,
    shows_within,
    watch_text,
)

pytestmark = pytest.mark.browser

UMPIRE = "umpire-token-tables-1-to-3"
CHIEF = "chief-token-of-the-pad-hall"
ROOT = Path(__file__).resolve().parents[2]
SINGLES = ["Ayşe Yılmaz", "Bilge Kaya"]
DOUBLES = ["Ece Tan", "Fatma Işık", "Gül Er", "Hale Uz"]

VENUE = f"""
[venue]
name = "Pad Salonu"

[[tables]]
id = "T1"
sport = "tabletennis"

[[tables]]
id = "T2"
sport = "tabletennis"

[[tables]]
id = "T3"
sport = "tabletennis"

[[tables]]
id = "T4"
sport = "tabletennis"

[[tables]]
id = "T5"
sport = "backgammon"

[[tables]]
id = "T6"
sport = "chess"

[[matches]]
id = "BG1"
table = "T5"
players = ["Hakan Yıldız", "Levent Şen"]
length = 5

[[matches]]
id = "C1"
table = "T6"
players = ["Elif Kaya", "Kerem Demir"]

[[matches]]
id = "S1"
table = "T1"
players = {json.dumps(SINGLES, ensure_ascii=False)}
best_of = 5

[[matches]]
id = "D1"
table = "T2"
players = {json.dumps(DOUBLES, ensure_ascii=False)}
best_of = 5
doubles = true

[[matches]]
id = "O1"
table = "T3"
players = ["Cem Demir", "Deniz Ak"]
best_of = 5

[[matches]]
id = "X1"
table = "T4"
players = ["Emre Su", "Fikret Ay"]
best_of = 5

[[referees]]
name = "Umut"
role = "umpire"
tables = ["T1", "T2", "T3", "T5", "T6"]
token_sha256 = "{hash_token(UMPIRE)}"

[[referees]]
name = "Başhakem"
role = "chief"
token_sha256 = "{hash_token(CHIEF)}"
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    where = tmp_path_factory.mktemp("pad-hall")
    (where / "hall.toml").write_text(VENUE, encoding="utf-8")
    node = Node(
        ["serve", "--venue", str(where / "hall.toml"), "--data", str(where / "data")],
        free_port(),
        where / "hub.log",
    )
    node.start()
    yield node
    node.stop()


def sign_in(browser: Browser, hub: Node, table: str, viewport: dict = PHONE, locale: str = "tr-TR") -> Page:  # noqa: F811
    """A phone (or, at TV size, a tablet's browser) on `table`'s pad, signed in with the umpire's token."""
    context = browser.new_context(
        viewport=viewport, has_touch=True, is_mobile=viewport is PHONE, locale=locale
    )
    page = context.new_page()
    page.goto(f"{hub.url}pad/{table}")
    page.fill("#token", UMPIRE)
    page.click("#sign-in button[type=submit]")
    return page


def open_pad(browser: Browser, hub: Node, table: str, viewport: dict = PHONE, locale: str = "tr-TR") -> Page:  # noqa: F811
    """`sign_in`, once the pad's buttons are drawn."""
    page = sign_in(browser, hub, table, viewport, locale)
    expect(page.locator(".rally")).to_have_count(2)
    return page


def match(hub: Node, match_id: str) -> dict[str, Any]:
    status, view = get_json_as(f"{hub.url}api/matches/{match_id}", None)
    assert status == 200
    return view


def rallies_to_the_end(doubles: bool, seed: int) -> list[int]:
    """Rally winners that end a best-of-5 match, as the hub's own rules judge it."""
    rng = random.Random(seed)
    state = tt.initial(tt.TableTennisConfig.from_names(5, doubles, None, None, "ittf"))
    sides: list[int] = []
    while state.winner is None:
        side = 0 if rng.random() < 0.55 else 1
        state = tt.apply(state, tt.UmpirePoint(side), float(len(sides))).state
        sides.append(side)
    return sides


def first_game_points(sides: list[int]) -> int:
    """How many of these rallies the first game takes (ITTF 2.11: 11, or 2 clear after 10-10)."""
    points = [0, 0]
    for n, side in enumerate(sides, 1):
        points[side] += 1
        if tt.game_over((points[0], points[1])):
            return n
    return -1


def tap_point(page: Page, side: int) -> None:
    page.locator(f".rally[data-side='{side}']").tap()


def all_sent(page: Page) -> None:
    expect(page.locator("#link")).to_have_class("link link-ok", timeout=10_000)


def checked(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The last line of `boardcast check tabletennis` over `lines`: the result the rules give offline."""
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "hub", "check", "tabletennis", "-"],
        input=text, capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def game_won_shows_the_next_game(page: Page, view: dict[str, Any]) -> None:
    """At a game's end the pad says so and its buttons stand as the next game opens (ends, server)."""
    upcoming = view["state"]["next_game"]
    expect(page.locator(".game-over")).to_contain_text(f"Sıradaki sayı {upcoming['game']}. seti başlatır")
    first = page.locator(".rallies .rally").first
    expect(first).to_have_attribute("data-side", "1" if upcoming["ends"] == "swapped" else "0")
    expect(page.locator(f".rally[data-side='{upcoming['server']}']")).to_have_class(
        re.compile(r"\bserving\b")
    )


def play_through(page: Page, sides: list[int], on_first_game_won: Any) -> list[dict[str, Any]]:
    """Tap every rally, with a time-out for A after the third, a yellow card for B after the fifth and an undo
    of the seventh (tapped again); the same as `boardcast check` lines. `on_first_game_won()` is called once,
    when the first game's last point has been tapped."""
    lines: list[dict[str, Any]] = []
    at = 0.0
    for n, side in enumerate(sides, 1):
        tap_point(page, side)
        lines.append({"at": (at := at + 1), "event": "point", "side": "AB"[side]})
        if n == first_game_points(sides):
            on_first_game_won()
        if n == 3:
            page.locator(".tools[data-side='0'] button", has_text="Mola").tap()
            lines.append({"at": (at := at + 1), "event": "timeout", "side": "A"})
        if n == 5:
            page.locator(".tools[data-side='1'] button", has_text="Kart").tap()
            page.locator(".card-choice .card.yellow").tap()
            lines.append({"at": (at := at + 1), "event": "card", "side": "B", "card": "yellow"})
        if n == 7:
            page.locator(".undo").tap()
            lines.append({"at": (at := at + 1), "event": "undo", "side": "AB"[side]})
            tap_point(page, side)
            lines.append({"at": (at := at + 1), "event": "point", "side": "AB"[side]})
    return lines


@pytest.mark.parametrize(("table", "match_id", "doubles"), [("T1", "S1", False), ("T2", "D1", True)])
def test_a_match_tapped_through_ends_as_the_rules_say_offline(
    browser: Browser,  # noqa: F811
    hub: Node,
    tmp_path: Path,
    table: str,
    match_id: str,
    doubles: bool,
) -> None:
    page = open_pad(browser, hub, table)
    sides = rallies_to_the_end(doubles, seed=5 if doubles else 3)

    def first_game_won() -> None:
        all_sent(page)
        game_won_shows_the_next_game(page, match(hub, match_id))
        page.screenshot(path=str(shots(tmp_path) / f"pad-{table}-game-won-phone.png"), full_page=True)

    # the toss: B serves first (in doubles B2, to A1); the hub's order follows it, as the check's match line says
    toss = {"first_server": "B2", "first_receiver": "A1"} if doubles else {"first_server": "B"}
    page.locator(f".toss .choice[data-toss='{toss['first_server']}']").tap()
    if doubles:
        page.locator(".toss .choice[data-receive='A1']").tap()
    all_sent(page)
    expect(page.locator(".rally.serving")).to_have_attribute("data-side", "1")
    lines = play_through(page, sides, first_game_won)
    expect(page.locator(".toss")).to_have_count(0)  # once play began, the toss is the referee's to correct
    all_sent(page)
    expect(page.locator("#finished")).to_be_visible()
    page.screenshot(path=str(shots(tmp_path) / f"pad-{table}-end-phone.png"), full_page=True)

    served = match(hub, match_id)
    offline = checked([{"match": {"best_of": 5, "doubles": doubles, **toss}}, *lines])
    assert served["state"]["points_log"][0]["server"] == 1
    assert served["status"] == "finished"
    assert served["state"]["games"] == offline["games"]
    assert served["state"]["game_scores"] == offline["scores"]
    assert "AB"[served["state"]["winner"]] == offline["winner"]
    assert served["state"]["timeouts"][0] is True and served["state"]["cards"][1] == ["yellow"]
    assert served["state"]["rallies"] == len(sides) + 1 - 1  # the undone point tapped again, counted once
    if not doubles:
        both_players_sign_off(browser, hub, page, match_id, tmp_path)


def both_players_sign_off(browser: Browser, hub: Node, pad: Page, match_id: str, tmp_path: Path) -> None:  # noqa: F811
    """Each player taps their own name on the pad; the console shows "signed by both" within a second."""
    console = browser.new_context(viewport={"width": 1500, "height": 1000}, locale="tr-TR").new_page()
    console.goto(f"{hub.url}console")
    console.fill("#token", CHIEF)
    console.click("#sign-in-form button[type=submit]")
    row = f"#to-confirm li[data-match='{match_id}']"
    expect(console.locator(row)).to_be_visible()
    watch_text(console, f"{row} .m-signed", "✍ iki oyuncu da onayladı")
    mark_clicks(pad)
    pad.locator(".signoff .agree", has_text=SINGLES[0]).tap()
    expect(pad.locator(".signed.agreed")).to_have_count(1)
    pad.locator(".signoff .agree", has_text=SINGLES[1]).tap()
    shows_within(console, f"{row} .m-signed", "✍ iki oyuncu da onayladı", clicked_at(pad), 1.0)
    expect(pad.locator(".signoff .both")).to_be_visible()
    pad.screenshot(path=str(shots(tmp_path) / "pad-signed-phone.png"), full_page=True)
    console.screenshot(path=str(shots(tmp_path) / "console-signed.png"))
    console.context.close()


def test_an_umpire_is_refused_on_another_tables_pad_and_every_control_is_a_thumbs_width(
    browser: Browser,  # noqa: F811
    hub: Node,
    tmp_path: Path,
) -> None:
    refused = sign_in(browser, hub, "T4", viewport=TV, locale="en-GB")
    expect(refused.locator("#sign-in-error")).to_contain_text("T1, T2, T3, T5, T6")
    expect(refused.locator("#sign-in")).to_be_visible()
    assert match(hub, "X1")["status"] == "scheduled"

    landscape = {"width": 844, "height": 390}
    for viewport, name in (
        (PHONE, "phone"),
        (TV, "tv"),
        ({"width": 360, "height": 640}, "small"),
        (landscape, "landscape"),
    ):
        page = open_pad(browser, hub, "T3", viewport=viewport, locale="en-GB")  # looking takes nothing
        page.locator(".tools[data-side='0'] button", has_text="Card").tap()  # the card choice open too
        sizes = page.evaluate(
            "() => [...document.querySelectorAll('button:not([hidden])')].filter(b => b.offsetParent)"
            ".map(b => [b.textContent.trim(), b.getBoundingClientRect().height, b.getBoundingClientRect().width])"
        )
        small = [(text, h, w) for text, h, w in sizes if h < 48 and text not in ("Sign out",)]
        assert not small, f"controls under 48 px at {name}: {small}"
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), name
        if viewport is landscape:  # sideways, the rally buttons leave undo and the time-outs on screen
            assert page.evaluate(
                "document.querySelector('.undo').getBoundingClientRect().bottom <= innerHeight"
            )
        page.screenshot(path=str(shots(tmp_path) / f"pad-T3-{name}.png"), full_page=True)
        page.context.close()


def test_offline_taps_are_kept_sent_in_order_once_and_a_reload_resumes(
    browser: Browser,  # noqa: F811
    hub: Node,
    tmp_path: Path,
) -> None:
    page = open_pad(browser, hub, "T3")
    for _ in range(3):
        tap_point(page, 0)
    all_sent(page)
    page.context.set_offline(True)
    sides = [n % 2 for n in range(20)]
    for side in sides:
        tap_point(page, side)
    expect(page.locator("#link")).to_contain_text("20 dokunuş")
    assert match(hub, "O1")["state"]["points"] == [3, 0]  # nothing reached the hub
    page.screenshot(path=str(shots(tmp_path) / "pad-offline-phone.png"), full_page=True)

    back = time.monotonic()
    page.context.set_offline(False)
    deadline = back + 2.0
    while match(hub, "O1")["state"]["rallies"] < 23 and time.monotonic() < deadline:
        time.sleep(0.05)
    view = match(hub, "O1")
    assert view["state"]["rallies"] == 23, f"not all stored within 2 s: {view['state']['rallies']}"
    log = view["state"]["points_log"]
    assert [p["side"] for p in log] == [0, 0, 0, *sides]  # in the order tapped
    all_sent(page)

    page.reload()
    expect(page.locator(".rally[data-side='0'] .points")).to_have_text(str(view["state"]["points"][0]))
    tap_point(page, 1)
    all_sent(page)
    assert match(hub, "O1")["state"]["rallies"] == 24

    second = open_pad(browser, hub, "T3")  # another phone: only shows the score
    expect(second.locator("#link")).to_contain_text("başka bir tabletten")  # told before it taps
    expect(second.locator(".rally[data-side='0']")).to_be_disabled()
    second.screenshot(path=str(shots(tmp_path) / "pad-second-phone.png"), full_page=True)
    page.screenshot(path=str(shots(tmp_path) / "pad-live-phone.png"), full_page=True)
    assert match(hub, "O1")["state"]["rallies"] == 24


def enter_game(page: Page, winner: int, value: int = 1, cube: int = 1, resigned: bool = False) -> None:
    """One backgammon game on the pad: its winner, how, the cube, resigned or not; then recorded."""
    page.locator(f".bg-winners .rally[data-side='{winner}']").tap()
    page.locator(f".choices .choice[data-value='{value}']").tap()
    page.locator(f".cubes .choice[data-cube='{cube}']").tap()
    if resigned:
        page.locator(".choice.resign").tap()
    page.locator(".record").tap()
    all_sent(page)


def test_a_backgammon_match_to_five_with_a_gammon_and_a_resignation(
    browser: Browser,  # noqa: F811
    hub: Node,
    tmp_path: Path,
) -> None:
    page = open_pad(browser, hub, "T5")
    enter_game(page, 0)
    enter_game(page, 1, value=2, cube=2)  # a gammon at 2: 1-4, B one away
    expect(page.locator(".hint.crawford")).to_be_visible()
    expect(page.locator(".cubes .choice[data-cube='2']")).to_be_disabled()  # no cube in the Crawford game
    page.screenshot(path=str(shots(tmp_path) / "pad-backgammon-crawford-phone.png"), full_page=True)
    enter_game(page, 0, value=2)  # the Crawford game: 3-4
    enter_game(page, 1, cube=2, resigned=True)  # A resigns a single game at 2: 3-6
    expect(page.locator("#finished")).to_be_visible()
    view = match(hub, "BG1")
    assert view["status"] == "finished" and view["state"]["score"] == {"A": 3, "B": 6}
    expect(page.locator(".pad-score")).to_have_text("Hakan Yıldız 3–6 Levent Şen")
    games = view["state"]["games"]
    assert [(g["points"], g["resigned"], g["crawford"]) for g in games] == [
        (1, 0, False), (4, 0, False), (2, 0, True), (2, 1, False),
    ]  # fmt: skip
    expect(page.locator(".signoff h2")).to_contain_text("3–6")
    page.screenshot(path=str(shots(tmp_path) / "pad-backgammon-end-phone.png"), full_page=True)


def test_a_chess_result_entered_at_the_board(
    browser: Browser,  # noqa: F811
    hub: Node,
    tmp_path: Path,
) -> None:
    page = sign_in(browser, hub, "T6", locale="en-GB")
    expect(page.locator(".choices.results .choice")).to_have_count(3)
    expect(page.locator(".choice[data-how='agreement']")).to_be_disabled()  # a draw only
    page.locator(".choice[data-result='0-1']").tap()
    page.locator(".choice[data-how='resignation']").tap()
    page.screenshot(path=str(shots(tmp_path) / "pad-chess-phone.png"), full_page=True)
    page.locator(".record").tap()
    all_sent(page)
    expect(page.locator("#finished")).to_be_visible()
    view = match(hub, "C1")
    assert view["status"] == "finished" and view["state"]["result"] == "0-1"
    expect(page.locator(".signoff h2")).to_contain_text("0–1")
