"""A table-tennis card given through the referee inputs shows on the console's audit with the player's name, in
both languages, in a real Chromium against a real `boardcast demo` (not as `{"side": 1, …}`)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.hubsupport import post_json
from tests.web.test_console_browser import open_page, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser
MATCH = "TT-R1-T1"


@pytest.fixture
def slow_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """One table-tennis table played slowly: its first match is still on while the referee cards a player."""
    demo = start_demo(tmp_path_factory.mktemp("card-demo") / "data", speed=1, tables=1, bg_tables=0)
    yield demo
    demo.stop()


def test_a_card_input_is_shown_with_the_players_name_on_the_console(
    browser: Browser,  # noqa: F811
    slow_demo: DemoProcess,
) -> None:
    demo = slow_demo
    deadline = time.monotonic() + 20
    while get_json(demo.url + f"api/matches/{MATCH}")["status"] != "live":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    players = get_json(demo.url + f"api/matches/{MATCH}")["players"]
    status, _ = post_json(
        demo.url + f"api/matches/{MATCH}/inputs", {"type": "card", "side": 1, "card": "yellow"}, demo.token
    )
    assert status == 200
    facts = get_json(demo.url + f"api/matches/{MATCH}")["facts"]  # the spectators' view names the player too
    assert [f["data"]["name"] for f in facts if f["kind"] == "card"] == [players[1]]

    console = open_page(browser, demo.url + "console", "en-GB")
    sign_in(console, demo.token)
    row = console.locator(f'#audit-body tr[data-kind="referee.input"][data-match="{MATCH}"] td').nth(4)
    expect(row).to_have_text(f"Yellow card → {players[1]}")
    console.locator("#lang").click()
    expect(row).to_have_text(f"Sarı kart → {players[1]}")
