"""The referee console through a whole demo round, in a real Chromium: one item per repeated problem, the
first matches waiting for confirmation (the rest in their panel's own scroll) and the worst items in the first
screen at 1920×1080, a phone's 390 px with
nothing cut off, bulk acknowledgement, and a confirmed match's handled items folded away."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import DemoProcess, start_demo
from tests.web.test_console_browser import open_page, referee_get, screenshot, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

FULL_HD = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


def matches(demo: DemoProcess) -> list[dict[str, Any]]:
    answer = referee_get(demo, "api/referee/matches")
    assert isinstance(answer, list)
    return answer


@pytest.fixture(scope="module")
def round_over(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """The default demo (four table-tennis tables, two backgammon tables, the eight-board chess team match
    whose last clock forgets the increment), fast, until every match of both rounds has ended."""
    demo = start_demo(
        tmp_path_factory.mktemp("round") / "data", speed=60, tables=4, bg_tables=2, chess_boards=8
    )
    deadline = time.monotonic() + 240
    while any(m["status"] in ("scheduled", "live") for m in matches(demo)):
        assert time.monotonic() < deadline, [(m["id"], m["status"]) for m in matches(demo)]
        time.sleep(2)
    yield demo
    demo.stop()


def waiting(match: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in match["anomalies"] if a["state"] in ("open", "acknowledged")]


def test_the_faulty_clock_is_one_increment_missing_item_per_side_with_its_count(
    round_over: DemoProcess,
) -> None:
    faulty = [
        m for m in matches(round_over) if any(a["code"] == "chess.increment_missing" for a in m["anomalies"])
    ]
    assert len(faulty) == 1, [m["id"] for m in faulty]
    items = [a for a in faulty[0]["anomalies"] if a["code"] == "chess.increment_missing"]
    assert sorted(a["data"]["side"] for a in items) == ["left", "right"]  # one item per side of the clock
    for item in items:
        assert item["count"] >= 10 and item["count"] == 1 + len(item["occurrences"])
        assert item["first_at"] < item["last_at"]
        said = [item["message_en"], *(o["message_en"] for o in item["occurrences"])]
        assert all("{" not in m and "got no increment" in m for m in said), said[:2]  # names, not marks
    every = sum(len(m["anomalies"]) for m in matches(round_over))
    assert every < 40, every  # the whole round's queue: dozens of presses are two items, not dozens


def first_screen(page: Page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
          height: window.innerHeight,
          width: document.documentElement.scrollWidth,
          confirm: [...document.querySelectorAll('#to-confirm li')].map((e) => e.getBoundingClientRect().bottom),
          items: [...document.querySelectorAll('#queue li.anomaly')].map((e) => e.getBoundingClientRect().bottom),
          confirmTop: document.querySelector('.confirm-panel').getBoundingClientRect().top,
          queueTop: document.querySelector('.queue-panel').getBoundingClientRect().top,
        })"""
    )


def test_at_1920_the_first_screen_shows_the_first_matches_to_confirm_every_match_and_the_ten_worst_items(
    browser: Browser,  # noqa: F811
    round_over: DemoProcess,
    tmp_path: Path,
) -> None:
    to_confirm = [m for m in matches(round_over) if m["status"] in ("finished", "protested")]
    page = open_page(browser, round_over.url + "console", "en-GB", FULL_HD)
    sign_in(page, round_over.token)
    expect(page.locator("#to-confirm li")).to_have_count(len(to_confirm), timeout=20_000)
    open_items = sum(len(waiting(m)) for m in matches(round_over))
    expect(page.locator("#queue li.anomaly")).to_have_count(open_items)
    seen = first_screen(page)
    # the first confirmations in view, the rest in the panel's own scroll; every match below them, beside the queue
    confirm = page.locator(".confirm-panel")
    panel, every = confirm.bounding_box(), page.locator(".matches-panel").bounding_box()
    assert panel is not None and every is not None
    in_view = [bottom for bottom in seen["confirm"] if bottom <= panel["y"] + panel["height"]]
    assert len(seen["confirm"]) >= 15 and len(in_view) >= 8, seen
    assert (
        confirm.evaluate("(c) => c.scrollHeight > c.clientHeight && getComputedStyle(c).overflowY") == "auto"
    )
    assert every["y"] < seen["height"] - 300, every
    assert len(seen["items"]) >= 10 and max(seen["items"][:10]) <= seen["height"], seen
    # the queue is worst first: no error after a warning, across the groups
    severities = page.eval_on_selector_all("#queue li.anomaly", "(items) => items.map((i) => i.className)")
    ranks = [0 if "sev-error" in c else 1 if "sev-warning" in c else 2 for c in severities]
    groups = page.eval_on_selector_all(
        "#queue > li", "(gs) => gs.map((g) => g.querySelector('li.anomaly').className)"
    )
    first_ranks = [0 if "sev-error" in c else 1 if "sev-warning" in c else 2 for c in groups]
    assert first_ranks == sorted(first_ranks) and min(ranks) == first_ranks[0]
    # a repeated problem shows its count, and the names the venue gives
    counted = page.locator('#queue li.anomaly[data-code="chess.increment_missing"] .a-count')
    expect(counted).to_have_count(2)
    expect(counted.first).to_have_text(re.compile(r"×\d+"))
    before = page.locator(".confirm-panel").bounding_box()
    queue = page.locator(".queue-panel").bounding_box()
    assert before is not None and queue is not None
    page.mouse.move(queue["x"] + 50, queue["y"] + 200)
    page.mouse.wheel(0, 1500)  # scrolled down the queue, the confirmations stay where they were, in view
    page.wait_for_timeout(300)
    assert page.locator(".queue-panel").evaluate("(q) => q.scrollTop") > 0
    assert page.locator(".confirm-panel").bounding_box() == before and 0 <= before["y"] < 100
    screenshot(page, "console-round-1920.png", tmp_path)


def test_on_a_phone_nothing_is_cut_off_and_the_confirmations_come_first(
    browser: Browser,  # noqa: F811
    round_over: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, round_over.url + "console", "tr-TR", PHONE)
    sign_in(page, round_over.token)
    expect(page.locator("#queue li.anomaly").first).to_be_visible(timeout=20_000)
    seen = first_screen(page)
    assert seen["width"] <= PHONE["width"], seen  # no sideways scrolling
    assert seen["confirmTop"] < seen["queueTop"] and seen["confirmTop"] < seen["height"] / 2
    buttons = page.locator("#to-confirm button[data-action=confirm]")
    expect(buttons.first).to_be_visible()
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('#queue li.anomaly, #to-confirm li')]
             .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).length"""
    )
    assert overflowing == 0
    screenshot(page, "console-round-phone.png", tmp_path)


def test_one_bulk_acknowledge_takes_both_sides_of_the_faulty_clock_for_one_reason(
    browser: Browser,  # noqa: F811
    round_over: DemoProcess,
) -> None:
    [faulty] = [
        m for m in matches(round_over) if any(a["code"] == "chess.increment_missing" for a in m["anomalies"])
    ]
    page = open_page(browser, round_over.url + "console", "en-GB", FULL_HD)
    sign_in(page, round_over.token)
    item = page.locator(
        f'#queue li.anomaly[data-match="{faulty["id"]}"][data-code="chess.increment_missing"]'
    )
    expect(item).to_have_count(2, timeout=20_000)
    item.first.locator("button[data-action=acknowledge-code]").click()
    expect(page.locator("#action-dialog")).to_be_visible()
    expect(page.locator("#action-title")).to_contain_text("2 items")
    page.fill(
        "#action-fields textarea[name=reason]", "The clock was set without the increment; arbiter told."
    )
    page.locator("#action-submit").click()
    expect(page.locator("#action-dialog")).to_be_hidden()
    expect(item.and_(page.locator('[data-state="acknowledged"]'))).to_have_count(2)
    audit = [e for e in referee_get(round_over, "api/referee/audit") if e["match"] == faulty["id"]]  # type: ignore[union-attr]
    bulk = [e for e in audit if e["kind"] == "referee.anomaly"]
    assert len(bulk) == 1 and len(bulk[0]["body"]["anomalies"]) == 2
    assert bulk[0]["body"]["reason"].startswith("The clock was set")


def test_a_confirmed_matchs_handled_items_fold_away(
    browser: Browser,  # noqa: F811
    round_over: DemoProcess,
) -> None:
    [target] = [m for m in matches(round_over) if m["status"] == "finished" and len(waiting(m)) >= 2][:1]
    page = open_page(browser, round_over.url + "console", "en-GB", FULL_HD)
    sign_in(page, round_over.token)
    group = page.locator(f'#queue > li.q-group[data-match="{target["id"]}"]')
    expect(group).to_have_count(1, timeout=20_000)
    group.locator("button[data-action=dismiss-all]").click()
    page.fill("#action-fields textarea[name=reason]", "Checked at the table.")
    page.locator("#action-submit").click()
    expect(page.locator("#action-dialog")).to_be_hidden()
    expect(group).to_have_count(0)  # nothing waiting: out of the queue
    page.check("#show-handled")
    expect(group).to_have_count(1)  # handled, not yet confirmed: shown on request
    page.locator(f'#to-confirm li[data-match="{target["id"]}"] button[data-action=confirm]').click()
    expect(group).to_have_count(0)  # confirmed: its handled items fold away even then
