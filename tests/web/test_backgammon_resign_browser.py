"""Backgammon resignations in a real Chromium against a real `boardcast demo` (a simulated board on a
pseudo-terminal): the referee console records a resignation and its acceptance as referee inputs, the rules
end the game with the value times the cube, and the board screen shows an offer and a resigned game as the
rules' own state gives them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from hub.rules import backgammon as bg
from tests.conftest import DemoProcess, start_demo
from tests.hubsupport import get_json_as
from tests.web.test_board_screen import draw
from tests.web.test_board_screen import open_page as open_screen
from tests.web.test_console_browser import open_page, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def bg_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path_factory.mktemp("resign-demo") / "data", speed=1, tables=1, bg_tables=1)
    yield demo
    demo.stop()


def facts(demo: DemoProcess, match_id: str) -> list[dict[str, Any]]:
    status, match = get_json_as(demo.url + f"api/matches/{match_id}", demo.token)
    assert status == 200
    return match["facts"]


def in_game(demo: DemoProcess, match_id: str) -> None:
    """Wait until the board's game is under way (past its opening roll): a resignation needs a game."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, match = get_json_as(demo.url + f"api/matches/{match_id}", demo.token)
        if status == 200 and (match.get("state") or {}).get("phase") in ("await_roll", "moving"):
            return
        time.sleep(0.2)
    pytest.fail(f"{match_id} never got past its opening roll")


def test_the_console_records_a_resignation_and_its_acceptance_and_the_rules_score_it(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
) -> None:
    demo, match_id = bg_demo, "BG-R1-T2"
    console = open_page(browser, demo.url + "console", "en-GB")
    sign_in(console, demo.token)
    row = console.locator(f'#matches-body tr[data-match="{match_id}"]')
    expect(row).to_have_attribute("data-status", "live", timeout=30_000)
    in_game(demo, match_id)
    row.locator("button[data-action=act]").click()
    console.select_option("#action-kind", "resign")
    expect(console.locator("#action-fields textarea")).to_have_count(0)  # an input takes no reason
    expect(console.locator("#action-fields select[name=value] option")).to_have_text(
        ["A single game (cube × 1)", "A gammon (cube × 2)", "A backgammon (cube × 3)"]
    )
    console.select_option("#action-fields select[name=side]", "0")
    console.select_option("#action-fields select[name=value]", "2")
    console.locator("#action-submit").click()
    expect(console.locator("#action-dialog")).to_be_hidden()

    row.locator("button[data-action=act]").click()
    console.select_option("#action-kind", "accept")
    console.select_option("#action-fields select[name=side]", "1")
    console.locator("#action-submit").click()
    expect(console.locator("#action-dialog")).to_be_hidden()

    said = facts(demo, match_id)
    kinds = [f["kind"] for f in said]
    assert "resign" in kinds and "accept" in kinds, kinds[-10:]
    resign = next(f["data"] for f in said if f["kind"] == "resign")
    assert (resign["side"], resign["value"], resign["win"]) == ("A", 2, "gammon")
    game = next(f["data"] for f in said[kinds.index("accept") :] if f["kind"] == "game")
    assert game["winner"] == "B" and game["resigned"] and game["points"] == resign["points"]
    assert game["points"] in (2, 4, 8, 16)  # two times the cube
    status, matches = get_json_as(demo.url + "api/referee/matches", demo.token)
    assert status == 200
    inputs = [
        a["body"]["input"]
        for a in next(m["actions"] for m in matches if m["id"] == match_id)
        if a["kind"] == "referee.input"
    ]
    players = next(m["players"] for m in matches if m["id"] == match_id)
    assert inputs == [  # as logged, with the player's name the referee view writes beside each side
        {"type": "resign", "side": 0, "value": 2, "name": players[0]},
        {"type": "accept", "side": 1, "name": players[1]},
    ]

    # a value the rules do not know is refused by the hub, naming the field, and nothing is logged
    row.locator("button[data-action=act]").click()
    console.select_option("#action-kind", "resign")
    console.evaluate(
        "() => { document.querySelector('#action-fields select[name=value] option').value = '4'; }"
    )
    console.locator("#action-submit").click()
    expect(console.locator("#action-error")).to_contain_text('"value" must be 1 (single), 2 (gammon) or 3')
    console.locator("#action-cancel").click()
    status, matches = get_json_as(demo.url + "api/referee/matches", demo.token)
    actions = next(m["actions"] for m in matches if m["id"] == match_id)
    assert len([a for a in actions if a["kind"] == "referee.input"]) == 2


def rules_state() -> dict[str, Any]:
    """The rules' own state: a game resigned as a gammon with the cube on 2, then an offer standing."""
    state = bg.initial(7, score=(1, 2))
    for event in (
        bg.Opening((3, 1)),
        bg.BoardSnapshot(*_after(bg.START, [(8, 5, False), (6, 5, False)])),
        bg.ClockPress(0),
        bg.Cube(bg.CubeAction.DOUBLE, 1),
        bg.Cube(bg.CubeAction.TAKE, 0),
        bg.Resign(0, 2),
        bg.ResignReply(bg.ResignAnswer.ACCEPT, 1),  # B wins 4: 1-6
        bg.Opening((6, 2)),
        bg.Resign(1, 3),
    ):
        state = bg.apply(state, event, 1.0).state
    assert state.score == (1, 6) and state.resign_offer == (1, 3)
    return bg.to_dict(state)


def _after(start: bg.Position, steps) -> tuple[tuple[int, ...], tuple[int, int], tuple[int, int]]:
    pos = bg.play_steps(start, steps)
    return pos.points, pos.bar, pos.off


def test_the_board_screen_shows_an_offer_and_a_resigned_game(
    browser: Browser,  # noqa: F811
    bg_demo: DemoProcess,
) -> None:
    page = open_screen(browser, bg_demo.url + "static/match.html")
    match = {
        "id": "RESIGN-BG", "sport": "backgammon", "table": "B9", "round": 1,
        "players": ["Hakan Yıldız", "Levent Şen"], "status": "live", "official": False, "version": 3,
        "updated_at": 0, "state": rules_state(),
    }  # fmt: skip
    draw(page, match)
    expect(page.locator("#bg .bg-phase")).to_have_text(
        "Levent Şen offers to resign (backgammon, 3 points); Hakan Yıldız to accept or reject"
    )
    expect(page.locator("#bg .bg-game-list li")).to_have_text(
        ["Game 1: Levent Şen wins 4 points (gammon, resigned)"]
    )
    expect(page.locator("#bg .bg-move").last).to_contain_text("Resigns (backgammon)")
    page.locator("#lang").click()
    expect(page.locator("#bg .bg-phase")).to_have_text(
        "Levent Şen pes ediyor (katmerli mars, 3 puan); Hakan Yıldız kabul edecek mi?"
    )
    expect(page.locator("#bg .bg-game-list li")).to_have_text(
        ["1. oyun: Levent Şen 4 puan kazandı (mars, pes etti)"]
    )
