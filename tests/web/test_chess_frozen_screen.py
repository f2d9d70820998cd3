"""A finished game and a quiet one on the chess screens, in a real Chromium: a finished game shows its final
position whatever the board does afterwards; a quiet live game says it waits for its result, on the game page
and the wall tile, in both languages."""

from __future__ import annotations

import re

import chess
import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import DemoProcess
from tests.web.test_chess_screen import (  # noqa: F401  (page_demo: the shared hub serving the pages)
    RUY_LOPEZ,
    SCHOLARS_MATE,
    chess_view,
    draw,
    expected_pieces,
    open_page,
    page_demo,
    pieces,
    running_clock,
)
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser


def test_a_finished_game_shows_its_final_position_not_the_board_set_up_again(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,  # noqa: F811
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html")
    # a view whose board_fen is the start position again (what an older hub sent after the game): never drawn
    match = chess_view(
        SCHOLARS_MATE,
        clock=running_clock(5_390_000, 5_380_000, None),
        result="1-0",
        reason="checkmate",
        status="finished",
        board_fen=chess.STARTING_BOARD_FEN,
    )
    draw(page, match)
    final = match["state"]["fen"]
    expect(page.locator("#chess")).to_have_attribute("data-moving", "false")
    expect(page.locator("#chess .chess-moving")).to_be_hidden()
    expect(page.locator("#chess .diff")).to_have_count(0)
    assert pieces(page) == expected_pieces(final)
    expect(page.locator("#chess .chess-status")).to_have_text("1–0 · White wins (checkmate)")
    # the hub sends the final position once the game is over: that is what is drawn
    draw(
        page, chess_view(SCHOLARS_MATE, result="1-0", reason="checkmate", status="finished", board_fen=final)
    )
    assert pieces(page) == expected_pieces(final)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_quiet_game_says_it_waits_for_its_result_on_the_game_page_and_the_wall(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,  # noqa: F811
) -> None:
    quiet = chess_view(RUY_LOPEZ, clock=running_clock(5_321_000, 5_395_000, None))
    quiet["state"]["awaiting_result"] = True
    quiet["updated_at"] -= 200  # quiet for longer than a tile counts as stale: here the hub says why
    page = open_page(browser, page_demo.url + "static/match.html", locale="tr-TR")
    draw(page, quiet)
    expect(page.locator("#status")).to_have_text("Sonuç bekleniyor")
    expect(page.locator("#status")).to_have_class(re.compile(r"\bawaiting\b"))
    expect(page.locator("#chess .chess-status")).to_have_text("Sonuç bekleniyor")
    expect(page.locator("#age")).not_to_have_class(re.compile(r"\bstale\b"))
    page.locator("#lang").click()
    expect(page.locator("#status")).to_have_text("Waiting for result")
    expect(page.locator("#chess .chess-status")).to_have_text("Waiting for result")
    # play resumes: the flag is gone, the status is live again with the player to move
    draw(page, chess_view(RUY_LOPEZ, clock=running_clock(5_321_000, 5_395_000, "white")))
    expect(page.locator("#chess .chess-status")).to_have_text("White to move")
    expect(page.locator("#status")).not_to_have_class(re.compile(r"\bawaiting\b"))
    assert page.errors == []  # type: ignore[attr-defined]

    wall = open_page(browser, page_demo.url)
    expect(wall.locator("#match-TT-R1-T1")).to_be_visible(timeout=10_000)
    wall.evaluate("async (m) => { (await import('/static/wall.js')).show(m); }", quiet)
    tile = wall.locator("#match-CRAFTED-CHESS")
    expect(tile.locator(".status")).to_have_text(re.compile("waiting for result", re.I))
    expect(tile.locator(".history")).to_have_text("Board 3 · 3... a6 · Waiting for result")
    expect(tile).to_have_class(re.compile(r"\bchess-awaiting\b"))
    expect(tile).not_to_have_class(re.compile(r"\bstale\b"))
    wall.evaluate(
        "async (m) => { (await import('/static/wall.js')).show(m); }",
        {**chess_view(RUY_LOPEZ, result="0-1", reason="resignation", status="finished"), "version": 30},
    )
    expect(tile.locator(".history")).to_have_text("Board 3 · 3... a6 · 0–1")
    expect(tile).not_to_have_class(re.compile(r"\bchess-awaiting\b"))
    assert wall.errors == []  # type: ignore[attr-defined]
