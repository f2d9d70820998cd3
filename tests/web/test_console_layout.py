"""The referee console's layout in a real Chromium over the demo with a long queue: at 1920×1080, 1366×768 and
390×844 no text of the console is cut, chess names in "All matches" read light on dark, rule titles are whole,
no raw anomaly code stands in the text, and at 1920×1080 "All matches" is in view beside the queue, each
column scrolling by itself."""

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
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
LONG_QUEUE = 10  # waiting items: more than one 1080-pixel screen holds

# Every shown element of the page that holds text and is a box of its own (an inline one is inside such a
# box, which then overflows too), with what its text needs beyond its width.
CUT_JS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.offsetParent !== null && e.textContent.trim() !== ''
    && getComputedStyle(e).display !== 'inline' && !['SCRIPT', 'STYLE'].includes(e.tagName))
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => ({ tag: e.tagName, cls: e.className, text: e.textContent.trim().slice(0, 60),
    sw: e.scrollWidth, cw: e.clientWidth }))"""

# Text nodes (not titles or attributes) that read like a raw anomaly code.
RAW_CODES_JS = """() => { const found = []; const walk = document.createTreeWalker(document.querySelector('#queue'),
  NodeFilter.SHOW_TEXT); while (walk.nextNode()) { const text = walk.currentNode.textContent;
  if (/\\b(tt|bg|chess|device|log|match)\\.[a-z_]+\\b/.test(text)) found.push(text.trim().slice(0, 80)); }
  return found; }"""


def waiting_items(demo: DemoProcess) -> int:
    matches = referee_get(demo, "api/referee/matches")
    assert isinstance(matches, list)
    return sum(1 for m in matches for a in m["anomalies"] if a["state"] in ("open", "acknowledged"))


@pytest.fixture(scope="module")
def long_queue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """The demo's hall (table tennis, backgammon, the chess team match), fast, until its queue is long."""
    demo = start_demo(
        tmp_path_factory.mktemp("layout") / "data", speed=60, tables=4, bg_tables=2, chess_boards=8
    )
    deadline = time.monotonic() + 180
    while waiting_items(demo) < LONG_QUEUE:
        assert time.monotonic() < deadline, waiting_items(demo)
        time.sleep(1)
    yield demo
    demo.stop()


def signed_in(browser: Browser, demo: DemoProcess, viewport: dict[str, int], locale: str) -> Page:  # noqa: F811
    page = open_page(browser, demo.url + "console", locale, viewport)
    sign_in(page, demo.token)
    expect(page.locator("#queue li.anomaly")).not_to_have_count(0, timeout=20_000)
    expect(page.locator("#matches-body tr")).not_to_have_count(0)
    expect(page.locator("#devices-body tr")).not_to_have_count(0)
    page.wait_for_timeout(500)  # the next frame's drawing done
    return page


def contrast(foreground: str, background: str) -> float:
    """The WCAG contrast ratio of two `rgb(…)` colours."""

    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize(
    ("viewport", "locale"),
    [(FULL_HD, "tr-TR"), (LAPTOP, "en-GB"), (PHONE, "tr-TR")],
    ids=["1920x1080", "1366x768", "390x844"],
)
def test_no_text_of_the_console_is_cut_and_no_raw_code_stands_in_the_queue(
    browser: Browser,  # noqa: F811
    long_queue: DemoProcess,
    viewport: dict[str, int],
    locale: str,
    tmp_path: Path,
) -> None:
    page = signed_in(browser, long_queue, viewport, locale)
    cut = page.evaluate(CUT_JS)
    assert cut == [], cut
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    assert page.evaluate(RAW_CODES_JS) == []
    codes = page.eval_on_selector_all("#queue li.anomaly .msg", "(ms) => ms.map((m) => m.title)")
    assert codes and all(re.fullmatch(r"[a-z]+\.[a-z_]+", c) for c in codes)  # kept as the tooltip
    rules = page.locator("#queue li.anomaly .rule")
    assert (
        page.eval_on_selector_all(
            "#queue li.anomaly .rule",
            "(rs) => rs.filter((r) => getComputedStyle(r).textOverflow === 'ellipsis'"
            " || getComputedStyle(r).whiteSpace === 'nowrap').length",
        )
        == 0
        and rules.count() > 0
    )
    link = page.locator("#matches-body a.game-link").first
    colour, panel = link.evaluate(
        "(a) => [getComputedStyle(a).color, getComputedStyle(a.closest('.panel')).backgroundColor]"
    )
    assert contrast(colour, panel) >= 4.5, (colour, panel)
    screenshot(page, f"console-layout-{viewport['width']}.png", tmp_path)


def test_at_1920_all_matches_is_in_view_beside_a_long_queue_and_each_column_scrolls_alone(
    browser: Browser,  # noqa: F811
    long_queue: DemoProcess,
) -> None:
    page = signed_in(browser, long_queue, FULL_HD, "en-GB")
    expect(page.locator("#queue li.anomaly")).to_have_count(waiting_items(long_queue), timeout=10_000)
    seen: dict[str, Any] = page.evaluate(
        """() => {
          const box = (s) => document.querySelector(s).getBoundingClientRect();
          const queue = document.querySelector('.queue-panel');
          const rows = [...document.querySelectorAll('#matches-body tr')].map((r) => r.getBoundingClientRect());
          return { height: innerHeight, page: document.documentElement.scrollHeight, matches: box('.matches-panel'),
            queue: box('.queue-panel'), queueScroll: queue.scrollHeight, queueClient: queue.clientHeight,
            rowsInView: rows.filter((r) => r.bottom <= innerHeight).length };
        }"""
    )
    assert seen["queueScroll"] > seen["queueClient"], seen  # the queue is longer than the screen...
    assert seen["page"] <= seen["height"], seen  # ...and scrolls in its own column, not the page
    assert 0 <= seen["matches"]["top"] < 0.6 * seen["height"] and seen["rowsInView"] >= 8, seen  # in view
    assert seen["matches"]["right"] <= seen["queue"]["left"], seen  # beside the queue
    page.mouse.move(seen["queue"]["left"] + 50, seen["queue"]["top"] + 200)
    page.mouse.wheel(0, 2000)  # scrolling the queue moves the queue only
    page.wait_for_timeout(300)
    assert page.locator(".queue-panel").evaluate("(q) => q.scrollTop") > 0
    assert page.locator(".matches-panel").bounding_box()["y"] == pytest.approx(seen["matches"]["y"], abs=1)
