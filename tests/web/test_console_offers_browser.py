"""The console offers only what the hub accepts, in a real Chromium against a real `boardcast demo`.

A round-1 match whose table has started round 2 is locked: its dialog offers nothing that would change the
result, but still the appeal while its 15 minutes run (the lock does not shorten them); a finished round-2 match
counts down the time left to appeal, in its row and its
dialog, and drops the appeal from its choices when the window closes (the page's clock moved on by Playwright);
the to-confirm list shows Decide, not Confirm, once an appeal is open.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import DemoProcess, start_demo
from tests.web.test_console_browser import DESK, referee_get, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

LOCKED, OPEN, OTHER = "TT-R1-T1", "TT-R2-T1", "TT-R2-T2"
LEFT = re.compile(r"^(\d+):(\d\d) left to appeal$")


@pytest.fixture
def two_rounds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Two table-tennis tables, two rounds each, fast: both rounds end within a minute or so."""
    demo = start_demo(tmp_path_factory.mktemp("offers-demo") / "data", speed=60, tables=2)
    yield demo
    demo.stop()


def views_when_played(demo: DemoProcess) -> dict[str, Any]:
    """The console views once round 1 is locked and both round-2 matches have finished."""
    deadline = time.monotonic() + 120
    while True:
        views = {m["id"]: m for m in referee_get(demo, "api/referee/matches")}  # type: ignore[union-attr]
        if views[LOCKED]["locked"] and all(views[m]["status"] == "finished" for m in (OPEN, OTHER)):
            return views
        assert time.monotonic() < deadline, {m: (v["status"], v["locked"]) for m, v in views.items()}
        time.sleep(0.5)


def left_s(page: Page, selector: str) -> int:
    """The seconds a countdown shows."""
    found = LEFT.match(page.locator(selector).inner_text().strip())
    assert found, page.locator(selector).inner_text()
    return int(found[1]) * 60 + int(found[2])


def test_a_locked_match_still_offers_its_appeal_and_an_open_one_counts_down_until_it_closes(
    browser: Browser,  # noqa: F811
    two_rounds: DemoProcess,
) -> None:
    views = views_when_played(two_rounds)
    assert "appeal" in views[LOCKED]["offers"] and views[LOCKED]["locked_at"] < views[LOCKED]["appeal_until"]
    assert views[LOCKED]["appeal_until"] == views[LOCKED]["finished_at"] + 15 * 60
    assert "appeal" in views[OPEN]["offers"]

    page = browser.new_context(locale="en-GB", viewport=DESK).new_page()
    page.clock.install()  # the page's own clock, moved on below to close the appeal window
    page.goto(two_rounds.url + "console")
    sign_in(page, two_rounds.token)

    # the locked match: its appeal still counts down; the dialog offers what the hub does, and no correction
    locked_row = page.locator(f'#matches-body tr[data-match="{LOCKED}"]')
    expect(locked_row.locator(".appeal-left")).to_have_text(LEFT)
    locked_row.locator("button[data-action=act]").click()
    expect(page.locator("#action-match")).to_contain_text(re.compile(r"\d+:\d\d left to appeal"))
    offered = page.locator("#action-kind option").evaluate_all("(os) => os.map((o) => o.value)")
    assert offered == views[LOCKED]["offers"] == ["confirm", "penalty", "appeal"], offered
    page.select_option("#action-kind", "penalty")
    kinds = page.locator("#action-fields select[name=penalty] option").evaluate_all(
        "(os) => os.map((o) => o.value)"
    )
    assert kinds == views[LOCKED]["penalty_kinds"] == ["warning"]  # nothing that would change a locked result
    page.locator("#action-cancel").click()

    # an open appeal window counts down, in the row and in the dialog
    open_row = page.locator(f'#matches-body tr[data-match="{OPEN}"]')
    row_left = f'#matches-body tr[data-match="{OPEN}"] .appeal-left'
    expect(page.locator(row_left)).to_have_text(LEFT)
    first = left_s(page, row_left)
    assert 0 < first <= 15 * 60 and abs(first - (views[OPEN]["appeal_until"] - time.time())) < 5
    page.wait_for_timeout(2_100)
    assert left_s(page, row_left) < first  # it counts down by itself, with no message from the hub
    open_row.locator("button[data-action=act]").click()
    expect(page.locator("#action-match")).to_contain_text(re.compile(r"\d+:\d\d left to appeal"))
    page.select_option("#action-kind", "appeal")
    page.fill("#action-fields textarea[name=reason]", "Game 2 was 9-11, not 11-9.")
    page.locator("#action-submit").click()
    expect(page.locator("#action-dialog")).to_be_hidden()

    # under appeal: the to-confirm list offers the decision, not the confirmation; the row shows no countdown
    waiting = page.locator(f'#to-confirm li[data-match="{OPEN}"]')
    expect(waiting).to_have_attribute("data-status", "protested")
    expect(waiting.locator("button[data-action=decide]")).to_be_enabled()
    expect(waiting.locator("button[data-action=confirm]")).to_have_count(0)
    expect(open_row.locator(".appeal-left")).to_have_count(0)
    other = page.locator(f'#to-confirm li[data-match="{OTHER}"]')
    expect(other.locator("button[data-action=confirm]")).to_be_visible()
    expect(other.locator("button[data-action=decide]")).to_have_count(0)

    # the window closes while the dialog is open: the page drops the appeal itself
    page.locator(f'#matches-body tr[data-match="{OTHER}"] button[data-action=act]').click()
    expect(page.locator("#action-kind option[value=appeal]")).to_have_count(1)
    page.clock.fast_forward("16:00")
    expect(page.locator("#action-kind option[value=appeal]")).to_have_count(0)
    expect(page.locator("#action-match")).to_contain_text("Appeal window closed")
    expect(page.locator(f'#matches-body tr[data-match="{OTHER}"] .appeal-left')).to_have_text(
        "Appeal window closed"
    )
    page.locator("#action-cancel").click()
    page.locator("#lang").click()
    expect(page.locator(f'#matches-body tr[data-match="{LOCKED}"] .appeal-left')).to_have_text(
        "İtiraz süresi doldu"
    )
