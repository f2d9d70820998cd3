"""The spectator wall in a real Chromium: every table live, informational until a referee confirms."""

from __future__ import annotations

import shutil
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import DemoProcess, get_json, start_demo

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def watch_text(page: Page, selector: str, text: str) -> None:
    """Have the page note the moment (its `Date.now()`) the element at `selector` first reads `text`
    (whitespace folded). The page's own clock times a product bound: Playwright's polling and its round trips
    to the browser, which a loaded machine stretches to hundreds of milliseconds, stay out of the figure."""
    page.evaluate(
        """([selector, text]) => {
            const key = `shown:${selector}:${text}`;
            const look = () => {
                const element = document.querySelector(selector);
                if (window[key] === undefined && element !== null
                    && element.textContent.replace(/\\s+/g, " ").trim() === text) window[key] = Date.now();
            };
            look();
            new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true});
        }""",
        [selector, text],
    )


def mark_clicks(page: Page) -> None:
    """Have the page note the moment (its `Date.now()`) of each click, before the page's own handlers run."""
    page.evaluate("document.addEventListener('click', () => { window.clickedAt = Date.now(); }, true)")


def clicked_at(page: Page) -> float:
    """The page's `Date.now()` at its last click (see `mark_clicks`)."""
    return float(page.evaluate("window.clickedAt"))


def shows_within(page: Page, selector: str, text: str, since_ms: float, seconds: float) -> None:
    """Assert that the element at `selector`, watched by `watch_text`, read `text` at most `seconds` after
    `since_ms` (a `Date.now()`, or Python's `time.time() * 1000`: the same clock). Waits up to 30 s for it to
    show at all, so a slow machine fails on the measured figure, not on a wait."""
    key = f"shown:{selector}:{text}"
    page.wait_for_function("key => window[key] !== undefined", arg=key, timeout=30_000)
    took = (float(page.evaluate("key => window[key]", key)) - since_ms) / 1000
    assert took <= seconds, f"{selector} read {text!r} {took:.3f} s after the action (bound {seconds} s)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is required for the page tests and was not found at {CHROMIUM}; run scripts/test.sh"
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def fast_demo(tmp_path: Path) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path / "data", speed=30)
    yield demo
    demo.stop()


def open_wall(browser: Browser, url: str, locale: str, viewport: dict | None = None) -> Page:
    context = browser.new_context(locale=locale, viewport=viewport or {"width": 1600, "height": 900})
    page = context.new_page()
    page.goto(url)
    return page


def test_wall_shows_every_table_live_and_marks_results_informational(browser: Browser, fast_demo) -> None:
    page = open_wall(browser, fast_demo.url, "tr-TR")
    tiles = page.locator(".tile")
    expect(tiles).to_have_count(8)
    expect(page.locator("#connection")).to_have_text("Canlı")
    expect(page.locator("#match-TT-R1-T1 .provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator(".notice")).to_contain_text("bilgilendirme amaçlıdır")

    first = page.locator("#match-TT-R1-T1")
    expect(first).to_have_attribute("data-status", "live", timeout=10_000)
    version = int(first.get_attribute("data-version"))
    page.wait_for_function(
        f"() => Number(document.querySelector('#match-TT-R1-T1').dataset.version) > {version}", timeout=10_000
    )
    points = first.locator(".side-0 .points").inner_text() + first.locator(".side-1 .points").inner_text()
    assert points.strip() != ""

    page.locator("#lang").click()
    expect(page.locator("#match-TT-R1-T1 .provenance")).to_have_text("Informational")
    expect(page.locator("#connection")).to_have_text("Live")
    page.screenshot(path=str(Path(fast_demo.data).parent / "wall.png"))


def test_english_browser_gets_english_and_a_confirmed_result_turns_official(
    browser: Browser, tmp_path
) -> None:
    demo = start_demo(tmp_path / "data", speed=400, tables=1)
    try:
        page = open_wall(browser, demo.url, "en-GB", viewport={"width": 390, "height": 844})  # a phone
        expect(page.locator("#match-TT-R1-T1 .provenance")).to_have_text("Informational")
        expect(page.locator("#match-TT-R1-T1")).to_have_attribute("data-status", "finished", timeout=40_000)
        watch_text(page, "#match-TT-R1-T1 .provenance", "Official result")
        sent = time.time() * 1000
        request = urllib.request.Request(
            demo.url + "api/matches/TT-R1-T1/confirm",
            method="POST",
            data=b"",
            headers={"Authorization": f"Bearer {demo.token}"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
        shows_within(page, "#match-TT-R1-T1 .provenance", "Official result", sent, 1.0)
        # official, and decided: its result in the big column
        expect(page.locator("#match-TT-R1-T1")).to_have_class("tile decided official")
        assert get_json(demo.url + "api/matches/TT-R1-T1")["official"] is True
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    finally:
        demo.stop()
