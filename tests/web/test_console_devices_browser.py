"""The console's device panel in a real Chromium, against a real hub whose table-tennis board is a simulator on a
pty: the board unplugged mid-match shows on the panel (and its queue item) within the silence timeout, in
Turkish and English, and both clear when the board is plugged back; a table with no device says so."""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from hub.venue import TableConfig
from tests.conftest import get_json
from tests.hubsupport import REFEREE_TOKEN, running_hub, venue
from tests.test_device_outage_hub import SILENCE_TIMEOUT_S
from tests.web.test_console_browser import open_page, screenshot, sign_in
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


class HubWithBoard:
    """A hub in a thread of its own (its own event loop) with T1's board on a pty, and T2 without a device."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.port_path = tmp_path / "ttyACM0"
        self.first, self.second = open_pty_pair(), open_pty_pair()
        os.symlink(self.first.slave_path, self.port_path)
        self.board = TableTennisScoreboard("tt-1", seed=31, speed=100, boot_epoch=1)
        self.url = ""
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._playing: asyncio.Task[Any] | None = None
        self._thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self._main(),), daemon=True
        )

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        v = venue(
            TableConfig("T1", "tabletennis", str(self.port_path), "tt-1"), TableConfig("T2", "tabletennis")
        )
        async with running_hub(self.tmp_path, v) as url:
            self.url = url
            self._playing = asyncio.create_task(self.board.run_on_fd(self.first.master_fd))
            self._ready.set()
            await self._stop.wait()
            self._playing.cancel()

    def start(self) -> None:
        self._thread.start()
        assert self._ready.wait(20)

    def _run(self, make: Any) -> None:
        async def call() -> None:
            make()

        future: Future[None] = asyncio.run_coroutine_threadsafe(call(), self.loop)
        future.result(5)

    def unplug(self) -> None:
        """The board stops and its cable is pulled."""

        def pull() -> None:
            assert self._playing is not None
            self._playing.cancel()
            self.first.close()

        self._run(pull)

    def plug_back(self) -> None:
        """The board is plugged into the same port and goes on from the score it kept."""

        def plug() -> None:
            link = self.tmp_path / "next-link"
            os.symlink(self.second.slave_path, link)
            os.replace(link, self.port_path)
            resumed = TableTennisScoreboard("tt-1", seed=32, speed=100, boot_epoch=2, start=self.board.state)
            self._playing = asyncio.ensure_future(resumed.run_on_fd(self.second.master_fd))

        self._run(plug)

    def stop(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)
        for pty in (self.first, self.second):
            pty.close()  # safe twice: the unplugged one is closed already


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubWithBoard]:
    running = HubWithBoard(tmp_path)
    running.start()
    yield running
    running.stop()


def live(url: str) -> bool:
    match = get_json(url + "api/matches/M-T1")
    return bool(match["status"] == "live" and match["state"]["rallies"] >= 3)


def console_once_live(browser: Browser, hub: HubWithBoard, locale: str) -> Page:  # noqa: F811
    """The console, signed in, once T1's match is live (15 s at most)."""
    deadline = time.monotonic() + 15
    while not live(hub.url):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    page = open_page(browser, hub.url + "console", locale, {"width": 1366, "height": 768})
    sign_in(page, REFEREE_TOKEN)
    return page


def test_an_unplugged_board_shows_on_the_device_panel_and_in_the_queue_until_it_is_back(
    browser: Browser,  # noqa: F811
    hub: HubWithBoard,
    tmp_path: Path,
) -> None:
    page = console_once_live(browser, hub, "tr-TR")
    row = page.locator('#devices-body tr[data-table="T1"]')
    expect(row).to_have_attribute("data-status", "connected", timeout=10_000)
    expect(row.locator(".d-status")).to_have_text("bağlı")
    expect(row.locator(".d-name")).to_contain_text("tt-1")
    expect(row.locator(".d-seen")).to_have_text(re.compile(r"^(şimdi|\d+ sn önce)$"))
    expect(page.locator('#devices-body tr[data-table="T2"] .d-name')).to_have_text("cihaz yok")

    hub.unplug()
    expect(row).to_have_attribute("data-status", "disconnected", timeout=SILENCE_TIMEOUT_S * 1000)
    expect(row).to_have_class(re.compile(r"\bdev-alert\b"))
    expect(row.locator(".d-status")).to_have_text("bağlantı yok, yeniden deneniyor")
    expect(row.locator(".d-live")).to_have_text("canlı maç")
    expect(page.locator("#devices-count")).to_have_text("1")
    item = page.locator('#queue li.anomaly[data-code="device.offline"][data-state="open"]')
    expect(item).to_have_count(1, timeout=SILENCE_TIMEOUT_S * 1000)
    expect(item.locator(".msg")).to_contain_text(
        "T1 masasının cihazı (tt-1) maç sırasında bildirim göndermiyor"
    )
    expect(item.locator(".rule .rule-source")).to_have_text("Kural: Boardcast · Maç sırasında masanın cihazı")
    row.scroll_into_view_if_needed()
    screenshot(page, "console-device-away-tr.png", tmp_path)
    page.click("#lang")
    expect(row.locator(".d-status")).to_have_text("disconnected, retrying")
    expect(item.locator(".msg")).to_contain_text(
        "Table T1's device (tt-1) stopped reporting during the match"
    )
    screenshot(page, "console-device-away-en.png", tmp_path)

    hub.plug_back()
    expect(row).to_have_attribute("data-status", "connected", timeout=20_000)
    expect(item).to_have_count(0)  # closed by the hub: out of the queue of waiting items
    expect(page.locator("#devices-count")).to_have_text("")
    page.check("#show-handled")
    closed = page.locator('#queue li.anomaly[data-code="device.offline"]')
    expect(closed).to_have_attribute("data-state", "resolved")
    expect(closed.locator(".a-state")).to_contain_text("Boardcast (automatic)")
    expect(page.locator('#audit-body tr[data-kind="referee.anomaly"][data-actor="boardcast"]')).to_have_count(
        1
    )


def test_a_referee_hands_a_table_to_the_umpires_pad_and_back_and_prints_the_table_cards(
    browser: Browser,  # noqa: F811
    hub: HubWithBoard,
    tmp_path: Path,
) -> None:
    page = console_once_live(browser, hub, "en-GB")
    row = page.locator('#devices-body tr[data-table="T1"][data-slot=""]')
    expect(row.locator(".d-switch")).to_have_text("Score from the pad")
    expect(page.locator('#devices-body tr[data-table="T2"] .d-switch')).to_have_count(0)  # no device to leave
    page.once("dialog", lambda dialog: dialog.accept("the display went dark"))
    row.locator(".d-switch").click()
    expect(row.locator(".d-aside")).to_contain_text("Set aside")
    expect(row.locator(".d-switch")).to_have_text("Back to the device")
    audit = page.locator('#audit-body tr[data-kind="referee.scored_by"]')
    expect(audit).to_have_count(1)
    row.scroll_into_view_if_needed()
    screenshot(page, "console-device-set-aside-en.png", tmp_path)
    page.once("dialog", lambda dialog: dialog.accept("repaired"))
    row.locator(".d-switch").click()
    expect(row.locator(".d-aside")).to_have_count(0)
    expect(audit).to_have_count(2)

    page.evaluate("window.print = () => { window.printed = true; }")  # no print dialog in a headless test
    page.click("#print-cards")
    page.wait_for_function("window.printed === true")
    cards = page.locator("#cards .table-card")
    expect(cards).to_have_count(2)
    expect(cards.first.locator(".card-url")).to_have_text(f"{hub.url}pad/T1")
    assert cards.first.locator(".card-qr svg").count() == 1
    page.emulate_media(media="print")
    screenshot(page, "console-table-cards-print.png", tmp_path)
    assert page.evaluate("getComputedStyle(document.querySelector('body > main')).display") == "none"
