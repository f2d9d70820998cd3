"""The referee console and the spectator screens in a real Chromium against a real `boardcast demo`.

A referee signs in with a token, sees the anomalies the simulated boards make with their rule and evidence,
handles them, confirms a result and declares a forfeit; the spectator pages show it as official within a
second; a spectator cannot reach any referee action (the API refuses it, not only the page). Set
BOARDCAST_SCREENSHOTS=DIR to keep the wall and console screenshots (both languages) in DIR, as `docs/` does.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from hub.referee import SYSTEM_ACTOR
from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.test_wall_browser import (  # noqa: F401  (the shared Chromium fixture)
    browser,
    clicked_at,
    mark_clicks,
    shows_within,
    watch_text,
)

pytestmark = pytest.mark.browser

DESK = {"width": 1500, "height": 1000}
REFEREE = "Demo Hakem / Demo Referee"


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Four table-tennis tables (the fourth board errs on purpose) and two backgammon tables, fast."""
    demo = start_demo(tmp_path_factory.mktemp("console-demo") / "data", speed=60, tables=4, bg_tables=2)
    yield demo
    demo.stop()


@pytest.fixture
def fresh_hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """The same demo, started for one test: at this speed both rounds are over in well under a minute, so a
    test that needs live matches must not wait behind the module's other tests."""
    demo = start_demo(tmp_path_factory.mktemp("wall-demo") / "data", speed=60, tables=4, bg_tables=2)
    yield demo
    demo.stop()


def screenshot(page: Page, name: str, tmp: Path) -> None:
    """Keep a screenshot beside the test's files, and in BOARDCAST_SCREENSHOTS when it is set."""
    page.screenshot(path=str(tmp / name), full_page=True)
    keep = os.environ.get("BOARDCAST_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(keep) / name), full_page=True)


def open_page(browser: Browser, url: str, locale: str = "tr-TR", viewport: dict | None = None) -> Page:  # noqa: F811
    context = browser.new_context(locale=locale, viewport=viewport or DESK)
    page = context.new_page()
    page.goto(url)
    return page


def sign_in(page: Page, token: str) -> None:
    page.fill("#token", token)
    page.click("#sign-in-form button[type=submit]")
    expect(page.locator("#console")).to_be_visible()


def referee_get(demo: DemoProcess, path: str) -> object:
    import urllib.request

    request = urllib.request.Request(demo.url + path, headers={"Authorization": f"Bearer {demo.token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_a_referee_signs_in_sees_an_anomaly_with_its_rule_and_evidence_and_handles_it(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, hall.url + "console")
    expect(page.locator("#console")).to_be_hidden()
    page.fill("#token", "not-the-token")
    page.click("#sign-in-form button[type=submit]")
    expect(page.locator("#sign-in-error")).to_have_text("Bu anahtar geçerli değil.")
    sign_in(page, hall.token)
    expect(page.locator("#who")).to_have_text(f"{REFEREE} (başhakem)")
    expect(page.locator("#connection")).to_have_text("Bağlı")

    item = page.locator('li.anomaly[data-code^="tt."][data-state="open"]').first
    expect(item).to_be_visible(timeout=60_000)
    key = item.get_attribute("data-key")
    match_id, anomaly_id = key.split("/")
    item = page.locator(f'li.anomaly[data-key="{key}"]')
    expect(item.locator(".rule")).to_contain_text("ITTF")
    # the document, its rule number and the rule's title, as the referees know them; never a design note
    expect(item.locator(".rule .rule-source")).to_have_text(
        re.compile(r"^Kural: ITTF El Kitabı: .+ [23]\.\d+(\.\d+)* · \S")
    )
    expect(item.locator(".rule")).not_to_contain_text("seed")
    expect(item.locator(".msg")).not_to_contain_text("{")  # the side marks are written as the players' names
    item.locator("button[data-action=evidence]").click()
    rows = item.locator(".evidence tbody tr")
    expect(rows.first).to_be_visible()
    expect(item.locator(".evidence tr.shows")).to_have_count(
        1
    )  # the report that shows it, among those before
    expect(item.locator(".evidence tr.shows td").first).to_have_text(anomaly_id.split(".")[0])

    item.locator("button[data-action=acknowledge]").click()
    expect(item).to_have_attribute("data-state", "acknowledged")
    item.locator("button[data-action=dismiss]").click()
    expect(page.locator("#action-dialog")).to_be_visible()
    page.locator("#action-submit").click()  # no reason yet: the form will not send
    expect(page.locator("#action-dialog")).to_be_visible()
    page.fill("#action-fields textarea[name=reason]", "Hakem masada gördü; sayı doğru.")
    page.locator("#action-submit").click()
    expect(page.locator("#action-dialog")).to_be_hidden()
    expect(item).to_have_count(0)  # handled: out of the queue of waiting anomalies
    page.check("#show-handled")
    expect(item).to_have_attribute("data-state", "dismissed")
    expect(item.locator(".a-state")).to_contain_text("Hakem masada gördü; sayı doğru.")

    audit = page.locator(f'#audit-body tr[data-kind="referee.anomaly"][data-match="{match_id}"]')
    expect(audit).to_have_count(2)
    expect(audit.first.locator("td").nth(1)).to_have_text(REFEREE)
    entries = referee_get(hall, "api/referee/audit")
    mine = [e for e in entries if e["kind"] == "referee.anomaly" and e["body"]["anomaly"] == anomaly_id]
    assert [e["body"]["state"] for e in mine] == ["dismissed", "acknowledged"]  # newest first
    assert all(e["actor"] == REFEREE for e in mine)
    screenshot(page, "console-tr.png", tmp_path)


def test_a_confirmed_result_is_official_on_the_spectator_pages_within_a_second(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
    tmp_path: Path,
) -> None:
    console = open_page(browser, hall.url + "console", "en-GB")
    sign_in(console, hall.token)
    waiting = console.locator('#to-confirm li[data-status="finished"]').first
    expect(waiting).to_be_visible(timeout=60_000)
    match_id = waiting.get_attribute("data-match")
    spectator = open_page(browser, hall.url + f"match/{match_id}", "en-GB", {"width": 390, "height": 844})
    wall = open_page(browser, hall.url, "en-GB")
    expect(spectator.locator("#provenance")).to_have_text("Informational")
    expect(wall.locator(f"#match-{match_id}")).to_have_count(1)

    watch_text(spectator, "#provenance", "Official result")
    watch_text(wall, f"#match-{match_id} .provenance", "Official result")
    mark_clicks(console)
    console.locator(f'#to-confirm li[data-match="{match_id}"] button[data-action=confirm]').click()
    clicked = clicked_at(console)
    shows_within(spectator, "#provenance", "Official result", clicked, 1.0)
    shows_within(wall, f"#match-{match_id} .provenance", "Official result", clicked, 1.0)
    expect(console.locator(f'#to-confirm li[data-match="{match_id}"]')).to_have_count(0)
    row = console.locator(f'#audit-body tr[data-kind="referee.confirm"][data-match="{match_id}"]')
    expect(row.locator("td").nth(1)).to_have_text(REFEREE)
    assert get_json(hall.url + f"api/matches/{match_id}")["official"] is True
    screenshot(console, "console-en.png", tmp_path)


def test_a_forfeit_from_the_console_writes_the_match_length_and_shows_official(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
) -> None:
    console = open_page(browser, hall.url + "console", "en-GB")
    sign_in(console, hall.token)
    wall = open_page(browser, hall.url, "en-GB")
    match_id = "BG-R2-T6"  # the last backgammon match on its table: no round after it to lock it
    # the wall has loaded and drawn the hall before the action: the second is from the action to the screen
    expect(wall.locator("#connection")).to_have_text("Live")
    expect(wall.locator(f"#match-{match_id}")).to_have_count(1)
    console.locator(f'#matches-body tr[data-match="{match_id}"] button[data-action=act]').click()
    console.select_option("#action-kind", "forfeit")
    console.select_option("#action-fields select[name=loser]", "1")
    console.fill("#action-fields textarea[name=reason]", "Not at the table 10 minutes after the call.")
    watch_text(wall, f"#match-{match_id} .provenance", "Official result")
    mark_clicks(console)
    console.locator("#action-submit").click()
    submitted = clicked_at(console)
    expect(console.locator("#action-dialog")).to_be_hidden()
    tile = wall.locator(f"#match-{match_id}")
    shows_within(wall, f"#match-{match_id} .provenance", "Official result", submitted, 1.0)
    expect(tile.locator(".referee-result")).to_have_text("Referee's result: 5–0 (forfeit)")
    expect(tile).to_have_attribute("data-status", "forfeit")
    # a second forfeit is refused by the hub, and the console says why
    console.locator(f'#matches-body tr[data-match="{match_id}"] button[data-action=act]').click()
    expect(console.locator("#action-kind option[value=forfeit]")).to_have_count(0)
    console.locator("#action-cancel").click()


def people_actions(audit: list[dict]) -> list[dict]:
    """The audit's actions taken by people, not by the hub itself (its round locks)."""
    return [a for a in audit if a["actor"] != SYSTEM_ACTOR]


def test_a_spectator_cannot_reach_a_referee_action(
    browser: Browser,  # noqa: F811
    hall: DemoProcess,
) -> None:
    spectator = open_page(browser, hall.url + "match/TT-R1-T1", "en-GB")
    expect(spectator.locator("#connection")).to_have_text("Connected")
    before = people_actions(referee_get(hall, "api/referee/audit"))
    answers = spectator.evaluate(
        """async () => {
          const post = (path, body, auth) => fetch(path, { method: "POST", body: JSON.stringify(body),
            headers: auth ? { Authorization: auth } : {} }).then((r) => r.status);
          return [
            await post("/api/matches/TT-R1-T1/actions", { action: "confirm" }),
            await post("/api/matches/TT-R1-T1/actions", { action: "forfeit", loser: 0, reason: "x" }, "Bearer guess"),
            await post("/api/matches/TT-R2-T2/actions", { action: "correct", score: [3, 0], reason: "x" }),
            await post("/api/matches/TT-R1-T1/confirm", {}),
            await post("/api/matches/TT-R1-T1/inputs", { type: "timeout", side: 0 }),
            await fetch("/api/referee/matches").then((r) => r.status),
            await fetch("/api/referee/audit", { headers: { Authorization: "Bearer guess" } }).then((r) => r.status),
          ];
        }"""
    )
    assert answers == [401, 401, 401, 401, 401, 401, 401]
    refused = spectator.evaluate(
        """() => new Promise((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          ws.onopen = () => ws.send(JSON.stringify({ subscribe: ["referee"] }));
          ws.onmessage = (event) => { resolve(JSON.parse(event.data)); ws.close(); };
        })"""
    )
    assert refused["topic"] == "referee" and "referee token" in refused["error"]
    # nothing a spectator tried reached the log (the live demo's own round locks may, meanwhile)
    assert people_actions(referee_get(hall, "api/referee/audit")) == before
    console = open_page(browser, hall.url + "console", "en-GB")
    expect(console.locator("#sign-in")).to_be_visible()
    expect(console.locator("li.anomaly")).to_have_count(0)


def test_the_wall_updates_live_grouped_by_sport_and_filters_by_sport_and_table(
    browser: Browser,  # noqa: F811
    fresh_hall: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, fresh_hall.url, "tr-TR")
    expect(page.locator(".tile")).to_have_count(12)
    expect(page.locator(".group-head")).to_have_text(["Masa tenisi", "Tavla"])
    live = page.locator('.tile[data-status="live"]').first
    expect(live).to_be_visible(timeout=30_000)
    match_id = live.get_attribute("data-match")
    version = int(live.get_attribute("data-version"))
    page.wait_for_function(
        f"() => Number(document.querySelector('#match-{match_id}').dataset.version) > {version}",
        timeout=20_000,
    )
    expect(page.locator(f"#match-{match_id} .age")).to_have_text("şimdi")
    screenshot(page, "wall-tr.png", tmp_path)

    page.select_option("#sport-filter", "backgammon")
    expect(page.locator(".tile:visible")).to_have_count(4)
    expect(page.locator(".group-head:visible")).to_have_text(["Tavla"])
    page.select_option("#table-filter", "T5")
    expect(page.locator(".tile:visible")).to_have_count(2)
    assert "sport=backgammon" in page.url and "table=T5" in page.url
    page.reload()  # a hall screen keeps its filter in its address
    expect(page.locator(".tile:visible")).to_have_count(2)
    expect(page.locator("#table-filter")).to_have_value("T5")
    page.select_option("#sport-filter", "")
    page.select_option("#table-filter", "")
    expect(page.locator(".tile:visible")).to_have_count(12)

    page.locator("#lang").click()
    expect(page.locator(".group-head")).to_have_text(["Table tennis", "Backgammon"])
    expect(page.locator("#sport-filter option").first).to_have_text("All sports")
    screenshot(page, "wall-en.png", tmp_path)
