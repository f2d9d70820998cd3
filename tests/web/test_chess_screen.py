"""The chess screens in a real Chromium: the board in SVG with clocks and moves, the team match view and the wall
tiles, drawn from crafted views through the pages' own renderers, then live against a demo with chess boards."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import DemoProcess, get_json, start_demo
from tests.web.test_board_screen import shots
from tests.web.test_wall_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.browser

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
RUY_LOPEZ = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
SCHOLARS_MATE = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]


@pytest.fixture(scope="module")
def page_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    """Any running hub serves the pages; the crafted views are drawn into them."""
    demo = start_demo(tmp_path_factory.mktemp("chess-pages") / "data", speed=5, tables=1)
    yield demo
    demo.stop()


def open_page(browser: Browser, url: str, locale: str = "en-GB", viewport: dict | None = None) -> Page:  # noqa: F811
    context = browser.new_context(locale=locale, viewport=viewport or TV)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def chess_view(
    sans: list[str],
    *,
    clock: dict | None = None,
    result: str | None = None,
    reason: str | None = None,
    board_fen: str | None = None,
    pending: bool = False,
    status: str = "live",
    official: bool = False,
    anomalies: list[dict] | None = None,
) -> dict:
    """A chess match view as the hub's public_view gives it, the game played from the start with python-chess."""
    board = chess.Board()
    moves = []
    started = time.time() - 600
    for ply, san in enumerate(sans, start=1):
        move = board.parse_san(san)
        moves.append(
            {
                "ply": ply,
                "uci": move.uci(),
                "san": board.san(move),
                "clock_ms": 5_400_000 - ply * 7_000 + 30_000,
                "at": started + ply * 20,
            }
        )
        board.push(move)
    state = {
        "fen": board.fen(),
        "board_fen": board_fen or board.board_fen(),
        "turn": "white" if board.turn == chess.WHITE else "black",
        "moves": moves,
        "clock": clock,
        "result": result,
        "result_reason": reason,
        "pending": pending,
        "time_control": "5400+30",
    }
    return {
        "id": "CRAFTED-CHESS", "sport": "chess", "table": "C3", "round": 2,
        "players": ["Ayşe Yılmaz", "Kerem Demir"], "status": status, "official": official, "version": 21,
        "updated_at": time.time(), "team_match": "TM-R2", "board": 3, "state": state, "facts": [],
        "anomalies": anomalies or [],
    }  # fmt: skip


def running_clock(white_ms: int, black_ms: int, running: str | None, ago_s: float = 0.0) -> dict:
    return {
        "white_ms": white_ms,
        "black_ms": black_ms,
        "running": running,
        "as_of": time.time() - ago_s,
        "white_side": "left",
    }


def draw(page: Page, match: dict) -> None:
    """Draw a crafted view with the match screen's own render(), the function the live feed calls."""
    page.evaluate("async (m) => { (await import('/static/match.js')).render(m); }", match)


def pieces(page: Page, root: str = "#chess") -> dict[str, str]:
    """Square name -> piece letter of every piece drawn in the SVG."""
    return page.evaluate(
        f"() => Object.fromEntries([...document.querySelectorAll('{root} .chess-svg .pc')]"
        ".map(g => [g.dataset.square, g.dataset.piece]))"
    )


def expected_pieces(fen: str) -> dict[str, str]:
    board = chess.BaseBoard(fen.split(" ")[0])  # a full FEN or the placement alone
    return {chess.square_name(sq): piece.symbol() for sq, piece in board.piece_map().items()}


def no_horizontal_overflow(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def clock_seconds(text: str) -> float:
    """ "1:28:41" / "4:05" / "0:07.3" -> seconds."""
    parts = [float(p) for p in text.split(":")]
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds


# -- (1) the board screen, from crafted views --------------------------------------------------------------------


def test_the_start_position_shows_32_pieces_and_no_moves(browser: Browser, page_demo: DemoProcess) -> None:  # noqa: F811
    page = open_page(browser, page_demo.url + "static/match.html")
    draw(page, chess_view([], clock=running_clock(5_400_000, 5_400_000, None)))
    expect(page.locator("#chess")).to_be_visible()
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#chess .pc")).to_have_count(32)
    assert pieces(page) == expected_pieces(chess.STARTING_FEN)
    expect(page.locator("#chess .sq")).to_have_count(64)
    expect(page.locator("#chess .coord")).to_have_count(16)
    expect(page.locator("#chess .hl")).to_have_count(0)
    expect(page.locator("#chess .chess-empty")).to_have_text("No moves yet")
    expect(page.locator("#chess .chess-status")).to_have_text("White to move")
    # White at the bottom: a1 is drawn lower and further left than h8.
    a1 = page.locator("#chess .sq[data-square='a1']").bounding_box()
    h8 = page.locator("#chess .sq[data-square='h8']").bounding_box()
    assert a1["y"] > h8["y"] and a1["x"] < h8["x"]
    expect(page.locator("#chess .chess-clock")).to_have_text(["1:30:00", "1:30:00"])
    expect(page.locator("#chess .chess-clock.running")).to_have_count(0)
    expect(page.locator("#game-no")).to_have_text("Board 3")
    expect(page.locator("#chess .chess-pgn")).to_have_attribute("href", "/pgn/CRAFTED-CHESS.pgn")
    expect(page.locator("#chess .chess-round-pgn")).to_have_attribute("href", "/pgn/round-2.pgn")
    expect(page.locator("#chess .chess-team")).to_have_attribute("href", "/team/TM-R2")
    expect(page.locator("#chess .chess-control")).to_have_text("Time control: 90′ + 30″")
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_after_a_few_moves_the_pieces_clocks_and_move_list_are_right_in_both_languages(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html", viewport=viewport)
    match = chess_view(RUY_LOPEZ, clock=running_clock(5_321_000, 5_395_000, "white", ago_s=3))
    draw(page, match)
    expect(page.locator("#chess .pc")).to_have_count(32)
    assert pieces(page) == expected_pieces(match["state"]["fen"])
    assert pieces(page)["b5"] == "B" and "f1" not in pieces(page) and pieces(page)["a6"] == "p"
    # The last move (a7-a6) is highlighted on both squares.
    highlighted = page.locator("#chess .hl").evaluate_all("rs => rs.map(r => r.dataset.square)")
    assert highlighted == ["a7", "a6"]
    # White's clock runs, counted down from as_of by the page; Black's stands.
    white = page.locator("#chess .chess-player[data-colour='white'] .chess-clock")
    black = page.locator("#chess .chess-player[data-colour='black'] .chess-clock")
    expect(white).to_have_class(re.compile(r"\brunning\b"))
    expect(black).not_to_have_class(re.compile(r"\brunning\b"))
    expect(black).to_have_text("1:29:55")
    shown = clock_seconds(white.inner_text())
    assert 5318 - 2 <= shown <= 5318
    page.wait_for_function(
        f"() => document.querySelector(\"#chess .chess-player[data-colour='white'] .chess-clock\")"
        f".textContent !== '{white.inner_text()}'",
        timeout=3_000,
    )
    assert clock_seconds(white.inner_text()) < shown
    expect(page.locator("#chess .chess-player[data-colour='white']")).to_have_class(
        re.compile(r"\bon-move\b")
    )
    expect(page.locator("#chess .chess-player[data-colour='white'] .chess-name")).to_have_text("Ayşe Yılmaz")
    # Black's card is on top, White's below the board.
    top = page.locator("#chess .chess-player[data-slot='top']")
    expect(top).to_have_attribute("data-colour", "black")
    # The move list: three numbered rows in SAN with each mover's clock, the last move marked.
    rows = page.locator("#chess .chess-move")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("1.")
    expect(rows.nth(0).locator(".chess-san")).to_have_text(["e4", "e5"])
    expect(rows.nth(0).locator(".chess-clk")).to_have_text(["1:30:23", "1:30:16"])
    expect(rows.nth(2).locator(".chess-san")).to_have_text(["Bb5", "a6"])
    expect(page.locator("#chess .chess-ply.last .chess-san")).to_have_text("a6")
    expect(page.locator("#chess .chess-status")).to_have_text("White to move")
    expect(page.locator("#provenance")).to_have_text("Informational")
    assert no_horizontal_overflow(page)
    if name == "tv":  # the board is the big thing on a hall screen
        box = page.locator("#chess .chess-svg").bounding_box()
        assert box["height"] >= 700
    else:  # on a phone the board spans the width
        box = page.locator("#chess .chess-svg").bounding_box()
        assert box["width"] >= 340
    page.screenshot(path=str(shots(tmp_path) / f"chess-ruy-lopez-{name}.png"), full_page=True)

    page.locator("#lang").click()
    expect(page.locator("#chess .chess-status")).to_have_text("Hamle sırası beyazda")
    expect(page.locator("#chess .chess-moves h2")).to_have_text("Hamleler")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    expect(page.locator("#game-no")).to_have_text("3. masa")
    expect(page.locator("#chess .chess-control")).to_have_text("Tempo: 90′ + 30″")
    expect(page.locator("#chess .pc")).to_have_count(32)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_checkmate_shows_the_result_and_stops_the_clocks(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html", locale="tr-TR")
    match = chess_view(
        SCHOLARS_MATE,
        clock=running_clock(5_390_000, 5_380_000, "black", ago_s=30),
        result="1-0",
        reason="checkmate",
        status="finished",
    )
    draw(page, match)
    expect(page.locator("#chess .chess-status")).to_have_text("1–0 · Beyaz kazandı (mat)")
    expect(page.locator("#chess .chess-player[data-colour='white'] .chess-point")).to_have_text("1")
    expect(page.locator("#chess .chess-player[data-colour='black'] .chess-point")).to_have_text("0")
    expect(page.locator("#chess .chess-player[data-colour='white']")).to_have_class(re.compile(r"\bwinner\b"))
    # A decided game's clocks stand still even if the last reading said one was running.
    expect(page.locator("#chess .chess-clock.running")).to_have_count(0)
    expect(page.locator("#chess .chess-player[data-colour='black'] .chess-clock")).to_have_text("1:29:40")
    expect(page.locator("#chess .check")).to_have_attribute("data-square", "e8")
    expect(page.locator("#chess .chess-result")).to_have_text("1–0")
    assert pieces(page)["f7"] == "Q"
    expect(page.locator("#chess .pc")).to_have_count(31)
    draw(page, {**match, "official": True, "status": "official"})
    expect(page.locator("#provenance")).to_have_text("Resmî sonuç")
    expect(page.locator("#provenance")).to_have_class("provenance official")
    page.locator("#lang").click()
    expect(page.locator("#chess .chess-status")).to_have_text("1–0 · White wins (checkmate)")
    page.screenshot(path=str(shots(tmp_path) / "chess-mate-tv.png"))


def test_a_board_mid_move_shows_what_the_board_shows_marked_moving(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html")
    game = chess.Board()
    game.push_san("e4")
    lifted = game.copy()
    lifted.remove_piece_at(chess.G8)  # Black has lifted the knight and not placed it yet
    match = chess_view(
        ["e4"], clock=running_clock(5_400_000, 5_400_000, "black"), board_fen=lifted.board_fen()
    )
    match["state"]["pending"] = True
    draw(page, match)
    expect(page.locator("#chess .chess-moving")).to_be_visible()
    expect(page.locator("#chess .chess-moving")).to_have_text("Board moving")
    expect(page.locator("#chess .pc")).to_have_count(31)
    assert "g8" not in pieces(page)
    expect(page.locator("#chess .diff")).to_have_count(1)
    expect(page.locator("#chess .diff")).to_have_attribute("data-square", "g8")
    # The game position is unchanged: the move list still ends with e4, Black to move.
    expect(page.locator("#chess .chess-ply.last .chess-san")).to_have_text("e4")
    expect(page.locator("#chess .chess-status")).to_have_text("Black to move")
    # Once the board matches the game again the marker goes.
    draw(page, chess_view(["e4"], clock=running_clock(5_400_000, 5_400_000, "black")))
    expect(page.locator("#chess .chess-moving")).to_be_hidden()
    expect(page.locator("#chess .diff")).to_have_count(0)


def test_an_illegal_move_under_review_flipping_and_a_clock_that_never_goes_below_zero(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html")
    anomaly = {
        "code": "chess.illegal_move",
        "severity": "error",
        "state": "open",
        "message_en": "",
        "message_tr": "",
    }
    match = chess_view(RUY_LOPEZ, clock=running_clock(2_000, 300_000, "white", ago_s=10), anomalies=[anomaly])
    draw(page, match)
    expect(page.locator("#chess .chess-illegal")).to_have_text("Illegal move — under review")
    white = page.locator("#chess .chess-player[data-colour='white'] .chess-clock")
    expect(white).to_have_text("0:00.0")
    expect(white).to_have_class(re.compile(r"\bflag\b"))
    expect(page.locator("#chess .chess-player[data-colour='black'] .chess-clock")).to_have_text("5:00")
    page.locator("#chess .chess-flip").click()
    expect(page.locator("#chess .chess-svg")).to_have_attribute("data-flipped", "true")
    expect(page.locator("#chess .chess-player[data-slot='top']")).to_have_attribute("data-colour", "white")
    a1 = page.locator("#chess .sq[data-square='a1']").bounding_box()
    h8 = page.locator("#chess .sq[data-square='h8']").bounding_box()
    assert a1["y"] < h8["y"] and a1["x"] > h8["x"]
    # The hub resolves the anomaly: the banner goes, the board stays turned.
    draw(page, {**match, "anomalies": [{**anomaly, "state": "resolved"}]})
    expect(page.locator("#chess .chess-illegal")).to_be_hidden()
    expect(page.locator("#chess .chess-svg")).to_have_attribute("data-flipped", "true")


# -- (2) the team match view and the wall tiles, from crafted views -----------------------------------------------

CATEGORIES = {
    1: ("open", "genel"), 2: ("open", "genel"), 3: ("open", "genel"), 4: ("open", "genel"),
    5: ("under 20", "20 yaş ve altı"), 6: ("woman", "kadın"), 7: ("under 16", "16 yaş ve altı"),
    8: ("under 16 girl", "16 yaş ve altı kadın"),
}  # fmt: skip
RESULTS = ["1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "0-1", None, "1/2-1/2"]


def team_view(results: list[str | None] = RESULTS, official: bool = False) -> dict:
    """A team view as hub.tournament.teams.team_match_view gives it, scored the way it scores (home White on odd boards)."""
    boards, score = [], [0.0, 0.0]
    points = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}
    for board, result in enumerate(results, start=1):
        home_white = board % 2 == 1
        if result:
            white, black = points[result]
            score[0] += white if home_white else black
            score[1] += black if home_white else white
        boards.append(
            {
                "board": board, "category_en": CATEGORIES[board][0], "category_tr": CATEGORIES[board][1],
                "match_id": f"CH-R1-B{board}", "white": f"White Player {board}", "black": f"Black Player {board}",
                "home_is_white": home_white, "result": result, "status": "finished" if result else "live",
                "official": official and bool(result),
            }
        )  # fmt: skip
    decided = sum(1 for r in results if r)
    complete = decided == len(results)
    match_points = None
    if complete:
        match_points = [2, 0] if score[0] > score[1] else [0, 2] if score[1] > score[0] else [1, 1]
    return {
        "kind": "team_match", "id": "TM-R1", "sport": "chess", "round": 1, "teams": ["Ankara SK", "İzmir Satranç"], "boards": boards,
        "score": [int(s) if s == int(s) else s for s in score], "decided": decided, "complete": complete,
        "match_points": match_points, "official": official and complete,
    }  # fmt: skip


def draw_team(page: Page, view: dict) -> None:
    page.evaluate("async (v) => { (await import('/static/team.js')).renderTeam(v); }", view)


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_the_team_view_shows_both_teams_the_score_and_eight_boards(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, page_demo.url + "static/team.html", locale="tr-TR", viewport=viewport)
    view = team_view()
    assert view["score"] == [3.5, 3.5]
    draw_team(page, view)
    expect(page.locator("#not-found")).to_be_hidden()
    expect(page.locator("#home-name")).to_have_text("Ankara SK")
    expect(page.locator("#away-name")).to_have_text("İzmir Satranç")
    expect(page.locator("#home-score")).to_have_text("3½")
    expect(page.locator("#away-score")).to_have_text("3½")
    expect(page.locator("#match-points")).to_be_hidden()
    expect(page.locator("#decided")).to_have_text("7/8 masa bitti")
    rows = page.locator("#boards .team-board")
    expect(rows).to_have_count(8)
    links = page.locator("#boards a.team-row").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert links == [f"/match/CH-R1-B{n}" for n in range(1, 9)]
    first = rows.nth(0)  # board 1: home has White and won 1-0
    expect(first.locator(".c-no")).to_have_text("1")
    expect(first.locator(".c-cat")).to_have_text("genel")
    expect(first.locator(".c-home .pname")).to_have_text("White Player 1")
    expect(first.locator(".c-home .colour")).to_have_attribute("data-colour", "white")
    expect(first.locator(".c-away .colour")).to_have_attribute("data-colour", "black")
    expect(first.locator(".c-res")).to_have_text("1–0")
    third = rows.nth(2)  # board 3: home has White and lost 0-1
    expect(third.locator(".c-res")).to_have_text("0–1")
    second = rows.nth(1)  # board 2: home has Black, a draw
    expect(second.locator(".c-home .pname")).to_have_text("Black Player 2")
    expect(second.locator(".c-home .colour")).to_have_attribute("data-colour", "black")
    expect(second.locator(".c-res")).to_have_text("½–½")
    sixth = rows.nth(5)  # board 6: home has Black and won (0-1)
    expect(sixth.locator(".c-res")).to_have_text("1–0")
    expect(sixth.locator(".c-cat")).to_have_text("kadın")
    seventh = rows.nth(6)
    expect(seventh.locator(".c-res")).to_have_text("–")
    expect(seventh.locator(".c-status")).to_have_text("Canlı")
    expect(page.locator("#provenance")).to_have_text("Bilgilendirme amaçlıdır")
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(shots(tmp_path) / f"team-live-{name}.png"), full_page=True)

    done = team_view([*RESULTS[:6], "0-1", "1/2-1/2"], official=True)  # board 7: home White loses -> away 4½
    assert done["score"] == [3.5, 4.5] and done["match_points"] == [0, 2]
    draw_team(page, done)
    expect(page.locator("#away-score")).to_have_text("4½")
    expect(page.locator("#match-points")).to_have_text("Maç puanı: 0–2")
    expect(page.locator("#outcome")).to_have_text("İzmir Satranç kazandı")
    expect(page.locator("#away-name")).to_have_class(re.compile(r"\bwinner\b"))
    expect(page.locator("#provenance")).to_have_text("Resmî sonuç")
    page.locator("#lang").click()
    expect(page.locator("#match-points")).to_have_text("Match points: 0–2")
    expect(rows.nth(7).locator(".c-cat")).to_have_text("under 16 girl")
    expect(page.locator("#decided")).to_have_text("8 of 8 boards done")
    page.screenshot(path=str(shots(tmp_path) / f"team-done-{name}.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_wall_shows_a_chess_tile_and_a_team_tile_linking_to_the_team_view(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    page = open_page(browser, page_demo.url)
    expect(page.locator("#match-TT-R1-T1")).to_be_visible(timeout=10_000)
    match = chess_view(RUY_LOPEZ, clock=running_clock(5_321_000, 5_395_000, "white"))
    page.evaluate("async (m) => { (await import('/static/wall.js')).show(m); }", match)
    page.evaluate("async (v) => { (await import('/static/wall.js')).showTeam(v, 5); }", team_view())
    tile = page.locator("#match-CRAFTED-CHESS")
    expect(tile).to_have_class(re.compile(r"\bchess-tile\b"))
    expect(tile.locator(".chess-mini .pc")).to_have_count(32)
    expect(tile.locator(".side-0 .name")).to_have_text("Ayşe Yılmaz")
    expect(tile.locator(".side-0 .serve")).to_have_class(re.compile(r"chess-dot-white.*\bon\b"))
    expect(tile.locator(".side-0 .chess-clock")).to_have_class(re.compile(r"\brunning\b"))
    expect(tile.locator(".side-1 .chess-clock")).to_have_text("1:29:55")
    expect(tile.locator(".history")).to_have_text("Board 3 · 3... a6")
    expect(tile.locator(".table")).to_have_attribute("href", "/match/CRAFTED-CHESS")

    team = page.locator("#team-TM-R1")
    expect(team.locator(".table")).to_have_attribute("href", "/team/TM-R1")
    expect(team.locator(".points")).to_have_text(["3½", "3½"])
    expect(team.locator(".name")).to_have_text(["Ankara SK", "İzmir Satranç"])
    expect(team.locator(".history")).to_have_text("7 of 8 boards done")
    # The team match leads its games on the wall.
    order = page.locator("#wall > .tile").evaluate_all("ts => ts.map(t => t.id)")
    assert order.index("team-TM-R1") < order.index("match-CRAFTED-CHESS")

    page.evaluate(
        "async (m) => { (await import('/static/wall.js')).show(m); }",
        {**chess_view(SCHOLARS_MATE, result="1-0", reason="checkmate", status="finished"), "version": 30},
    )
    expect(tile.locator(".points")).to_have_text(["1", "0"])
    expect(tile.locator(".side-0")).to_have_class(re.compile(r"\bwinner\b"))
    expect(tile.locator(".history")).to_have_text("Board 3 · 4. Qxf7# · 1–0")
    page.locator("#lang").click()
    expect(team.locator(".history")).to_have_text("7/8 masa bitti")
    expect(tile.locator(".history")).to_have_text("3. masa · 4. Qxf7# · 1–0")
    page.screenshot(path=str(shots(tmp_path) / "chess-wall-tv.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


# -- (3) live, against a demo with chess boards and a team match --------------------------------------------------


@pytest.fixture(scope="module")
def chess_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path_factory.mktemp("chess-demo") / "data", speed=20, tables=1, chess_boards=8)
    yield demo
    demo.stop()


def test_a_live_chess_board_team_match_and_wall(
    browser: Browser,  # noqa: F811
    chess_demo: DemoProcess,
    tmp_path: Path,
) -> None:
    teams = get_json(chess_demo.url + "api/team-matches")
    assert teams, "the demo has a team match"
    team = teams[0]
    # a game that has ended stands still, so the page and the API can be caught at the same version even on
    # a loaded machine (a live game's clock changes the version every second); board 7 mates in 15 plies
    deadline = time.monotonic() + 90
    while not (ended := [b for b in team["boards"] if b["result"]]):
        assert time.monotonic() < deadline, "no demo game ended within 90 s"
        time.sleep(0.5)
        team = get_json(chess_demo.url + f"api/team-matches/{team['id']}")
    game = ended[0]["match_id"]

    page = open_page(browser, chess_demo.url + f"match/{game}")
    expect(page.locator("#chess")).to_be_visible(timeout=10_000)
    expect(page.locator("#connection")).to_have_text("Connected")
    page.wait_for_function(
        "() => document.querySelectorAll('#chess .chess-move').length >= 2", timeout=30_000
    )
    count = page.locator("#chess .pc").count()
    assert 2 <= count <= 32
    # The page draws what the hub serves: catch a moment when both stand at the same version and compare.
    for _ in range(40):
        version, drawn, sans = page.evaluate(
            "() => [Number(document.querySelector('#chess').dataset.version),"
            " Object.fromEntries([...document.querySelectorAll('#chess .pc')]"
            ".map(g => [g.dataset.square, g.dataset.piece])),"
            " [...document.querySelectorAll('#chess .chess-san')].map(s => s.textContent)]"
        )
        view = get_json(chess_demo.url + f"api/matches/{game}")
        if view["version"] == version:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the page never stood at the hub's version")
    assert view["sport"] == "chess"
    assert drawn == expected_pieces(view["state"]["board_fen"])
    assert sans == [m["san"] for m in view["state"]["moves"]]
    expect(page.locator("#chess .chess-name").first).not_to_have_text("")
    page.screenshot(path=str(shots(tmp_path) / "chess-live-tv.png"))

    team_page = open_page(browser, chess_demo.url + f"team/{team['id']}")
    expect(team_page.locator("#boards .team-board")).to_have_count(len(team["boards"]), timeout=10_000)
    expect(team_page.locator("#home-name")).to_have_text(team["teams"][0])
    expect(team_page.locator("#boards a.team-row").first).to_have_attribute(
        "href", f"/match/{team['boards'][0]['match_id']}"
    )
    team_page.screenshot(path=str(shots(tmp_path) / "team-live-demo-tv.png"), full_page=True)

    wall = open_page(browser, chess_demo.url)
    expect(wall.locator(f"#team-{team['id']}")).to_be_visible(timeout=10_000)
    expect(wall.locator(f"#match-{game} .chess-mini .pc").first).to_be_visible()
    wall.screenshot(path=str(shots(tmp_path) / "chess-wall-live.png"), full_page=True)
    for p in (page, team_page, wall):
        assert p.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_the_engines_evaluation_is_a_bar_beside_the_board_and_a_line_and_absent_without_one(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    page = open_page(browser, page_demo.url + "static/match.html", viewport=viewport)
    match = chess_view(RUY_LOPEZ, clock=running_clock(5_321_000, 5_395_000, "white", ago_s=3))
    draw(page, match)
    expect(page.locator("#chess .chess-eval")).to_be_hidden()  # no engine: nothing shown, no empty bar
    evaluation = {"cp": 35, "mate": None, "depth": 18, "pv": ["Ba4", "Nf6", "O-O"], "text": "+0.35", "at": 0}
    draw(page, {**match, "evaluation": evaluation})
    bar = page.locator("#chess .chess-eval")
    expect(bar).to_be_visible()
    expect(bar.locator(".chess-eval-text")).to_have_text("+0.35")
    expect(page.locator("#chess .chess-eval-line")).to_have_text("+0.35 · depth 18 · Ba4 Nf6 O-O")
    share = page.evaluate("() => parseFloat(document.querySelector('#chess .chess-eval-white').style.height)")
    assert 52 < share < 54  # lichess's curve: +0.35 is a little over half for White
    board = page.locator("#chess .chess-board").bounding_box()
    box = bar.bounding_box()
    assert (
        board and box and abs(box["height"] - board["height"]) < 2 and box["x"] + box["width"] <= board["x"]
    )
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(shots(tmp_path) / f"chess-eval-{name}.png"))
    draw(page, {**match, "evaluation": {**evaluation, "cp": None, "mate": -2, "text": "#-2"}})
    expect(bar.locator(".chess-eval-text")).to_have_text("#-2")
    assert page.evaluate("() => document.querySelector('#chess .chess-eval-white').style.height") == "0%"
    assert not page.errors  # type: ignore[attr-defined]


def test_a_hall_screen_shows_no_analysis(browser: Browser, page_demo: DemoProcess) -> None:  # noqa: F811
    """`?hall=1` marks a screen players can see: neither the engine's evaluation nor winning chances on it."""
    page = open_page(browser, page_demo.url + "static/match.html?hall=1")
    evaluation = {"cp": 35, "mate": None, "depth": 18, "pv": ["Ba4"], "text": "+0.35", "at": 0}
    draw(page, {**chess_view(RUY_LOPEZ), "evaluation": evaluation})
    expect(page.locator("#chess .chess-status")).to_have_text("White to move")
    assert (
        page.locator("#chess .chess-eval").is_hidden() and page.locator("#chess .chess-eval-line").is_hidden()
    )
    assert "+0.35" not in page.content() and "Ba4" not in page.content()
    assert not page.errors  # type: ignore[attr-defined]


def test_the_wall_tile_shows_the_evaluation_and_a_hall_wall_does_not(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
) -> None:
    evaluation = {"cp": -120, "mate": None, "depth": 20, "pv": ["Ba4"], "text": "-1.20", "at": 0}
    match = {**chess_view(RUY_LOPEZ), "evaluation": evaluation}
    for search, shown in (("", "Board 3 · 3... a6 · Eval -1.20"), ("?hall=1", "Board 3 · 3... a6")):
        page = open_page(browser, page_demo.url + search)
        expect(page.locator("#match-TT-R1-T1")).to_be_visible(timeout=10_000)
        page.evaluate("async (m) => { (await import('/static/wall.js')).show(m); }", match)
        expect(page.locator("#match-CRAFTED-CHESS .history")).to_have_text(shown)
        page.context.close()


@pytest.mark.parametrize(("viewport", "name"), [(TV, "tv"), (PHONE, "phone")])
def test_the_team_view_shows_each_live_boards_evaluation_and_a_hall_screen_none(
    browser: Browser,  # noqa: F811
    page_demo: DemoProcess,
    tmp_path: Path,
    viewport: dict,
    name: str,
) -> None:
    view = team_view([None, "1-0", None, None, "0-1", None, None, None])
    evaluations = {0: ("+0.35", 35, None), 2: ("#-2", None, -2), 3: ("-1.20", -120, None)}
    for index, (text, cp, mate) in evaluations.items():
        view["boards"][index]["evaluation"] = {
            "cp": cp,
            "mate": mate,
            "depth": 20,
            "pv": [],
            "text": text,
            "at": 0,
        }
    page = open_page(browser, page_demo.url + "static/team.html", viewport=viewport)
    draw_team(page, view)
    rows = page.locator("#boards .team-board")
    for index, (text, _, _) in evaluations.items():
        expect(rows.nth(index).locator(".chess-eval-chip-text")).to_have_text(text)
    expect(page.locator(".chess-eval-chip")).to_have_count(len(evaluations))
    white = "() => document.querySelectorAll('.chess-eval-chip-white')[1].style.width"
    assert page.evaluate(white) == "0%"  # Black mates: no white in the bar
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(shots(tmp_path) / f"team-eval-{name}.png"))
    hall = open_page(browser, page_demo.url + "static/team.html?hall=1", viewport=viewport)
    draw_team(hall, view)
    expect(hall.locator("#boards .team-board")).to_have_count(8)
    expect(hall.locator(".chess-eval-chip")).to_have_count(0)
    assert "+0.35" not in hall.content()
