"""Backgammon performance ratings: the errors and PR read from the worker's analysis agree with GNU
Backgammon's own statistics of the same match (its `analyse match` of the exported `.mat`, the same ply),
checker play and cube apart, forced plays counted as gnubg counts them; the bands; a match analysed as it is
played counts each decision once and shows only what is behind the delay."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_backgammon_match import ROOT, played_state, simulate
from test_backgammon_moves import gnubg_cli, run_gnubg_python

from hub.rules import backgammon as bg
from hub.rules.backgammon.analysis import AnalysisService, analyse_once, band, game_analysis, summarise
from hub.rules.backgammon.analysis.service import marker_of
from hub.rules.backgammon.check import ANALYSIS_KEYS, read_event
from hub.rules.backgammon.export import match_to_mat
from hub.venue.model import PerformanceSettings

GNUBG_STATS = """
import gnubg, json
gnubg.command('set analysis chequerplay evaluation plies {ply}')
gnubg.command('set analysis cubedecision evaluation plies {ply}')
gnubg.command('import mat {mat}')
gnubg.command('analyse match')
stats = gnubg.match(1, 0, 1)['stats']
out = {{}}
for player in 'XO':
    moves, cube = stats[player]['moves'], stats[player]['cube']
    out[player] = {{
        'checker': moves['error-skill'], 'unforced': moves['unforced-moves'], 'total': moves['total-moves'],
        'cube': sum(v for k, v in cube.items() if k.startswith('err-') and k.endswith('-skill')),
        'close': cube['close-cube'], 'luck': stats[player]['dice']['luck'],
    }}
print('RES', json.dumps(out))
"""


def boardcast_check(*argv: str) -> subprocess.CompletedProcess[str]:
    """`boardcast check backgammon ARGV…` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "hub", "check", "backgammon", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def ours(state: bg.BackgammonState, ply: int = 0) -> tuple[Any, ...]:
    games = analyse_once(gnubg_cli(), match_to_mat(state), 0, ply)
    return summarise([game_analysis(g["index"], g["records"]) for g in games], ply)


def gnubgs(state: bg.BackgammonState, tmp_path: Path, ply: int = 0) -> dict[str, dict[str, float]]:
    mat = tmp_path / "match.mat"
    mat.write_text(match_to_mat(state))
    [line] = run_gnubg_python(GNUBG_STATS.format(mat=mat, ply=ply), tmp_path)
    result: dict[str, dict[str, float]] = json.loads(line)
    return result


def pr(error: float, decisions: float) -> float:
    return 500 * error / decisions if decisions else 0.0


def test_pr_agrees_with_gnubgs_own_analysis_of_ten_matches(tmp_path: Path) -> None:
    forced = 0
    for seed in range(10):
        state = played_state(100 + seed, 3 + 2 * (seed % 3))
        mine = ours(state)
        theirs = gnubgs(state, tmp_path)
        for player, name in zip(mine, "XO", strict=True):
            g = theirs[name]
            assert player.checker_decisions == g["unforced"]  # a forced play or a dance is not a decision
            assert player.cube_decisions == g["close"]
            assert abs(player.checker_pr - pr(g["checker"], g["unforced"])) < 0.5
            assert abs(player.cube_pr - pr(g["cube"], g["close"])) < 0.5
            assert abs(player.pr - pr(g["checker"] + g["cube"], g["unforced"] + g["close"])) < 0.5
            assert abs(player.luck - g["luck"]) < 0.01
            forced += int(g["total"] - g["unforced"])
    assert forced > 0  # the matches had forced plays, and they were left out as gnubg leaves them out


def test_a_deeper_ply_agrees_too(tmp_path: Path) -> None:
    state = played_state(7, 3)
    mine = ours(state, ply=1)
    theirs = gnubgs(state, tmp_path, ply=1)
    for player, name in zip(mine, "XO", strict=True):
        g = theirs[name]
        assert player.ply == 1
        assert abs(player.pr - pr(g["checker"] + g["cube"], g["unforced"] + g["close"])) < 0.5


def test_bands_follow_the_bmab_scale() -> None:
    assert band(3.9)[0] == "Grand Master"
    assert band(4.0)[0] == "Grand Master"
    assert band(4.1)[0] == "Master"
    assert band(6.5)[0] == "Master"
    assert band(9.9) == ("Advanced", "İleri")
    assert band(16.0)[0] == "Intermediate"
    assert band(16.1)[0] == "Beginner"


def states_of(seed: int, length: int) -> list[tuple[float, bg.BackgammonState]]:
    lines = simulate(seed, length)
    state = bg.initial(length)
    out = []
    for number, line in enumerate(lines[1:], start=2):
        at, event = read_event(line, number)
        state = bg.apply(state, event, at).state
        out.append((at, state))
    return out


def test_a_match_analysed_as_it_is_played_counts_each_decision_once() -> None:
    states = states_of(11, 3)
    final = states[-1][1]

    async def run() -> tuple[dict[str, Any] | None, dict[str, Any] | None, int]:
        service = AnalysisService(lambda _: None, 0.0, PerformanceSettings(), gnubg_cli())
        service.start()
        try:
            for index, (_, state) in enumerate(states):
                service.note("M", state, float(index))
                if index % 25 == 0:
                    await asyncio.sleep(0.05)  # the worker takes some states and misses others, as live
            deadline = time.monotonic() + 60
            while service._covered.get("M") != marker_of(final) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return service.shown("M", time.time()), service.report("M"), service.analysed
        finally:
            service.close()
            await asyncio.sleep(0.2)  # its task ends the gnubg process

    shown, report, analysed = asyncio.run(run())
    whole = ours(final)
    assert analysed >= 2  # it analysed the match as it went, not only once at the end
    assert shown is not None and report is not None and report["complete"]
    assert shown["players"] == [p.to_dict() for p in whole]
    assert report["players"] == shown["players"]
    counted = sum(d["counted"] for d in report["decisions"])
    assert counted == sum(p.decisions for p in whole)
    assert report["largest"] == sorted(report["largest"], key=lambda d: -d["error"])


def test_spectators_see_a_state_s_figures_only_once_the_delay_has_passed() -> None:
    states = states_of(12, 3)[:120]

    async def run() -> tuple[Any, Any, Any]:
        service = AnalysisService(lambda _: None, 2.0, PerformanceSettings(), gnubg_cli())
        service.start()
        try:
            start = time.time()
            for _, state in states[:60]:
                service.note("M", state, start)
            deadline = time.monotonic() + 30
            while "M" not in service._covered and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            early = service.shown("M", time.time())
            later_at = time.time()
            for _, state in states[60:]:
                service.note("M", state, later_at)
            await asyncio.sleep(max(0.0, start + 2.05 - time.time()))
            after = service.shown("M", time.time())
            return early, after, start
        finally:
            service.close()
            await asyncio.sleep(0.2)  # its task ends the gnubg process

    early, after, start = asyncio.run(run())
    assert early is None  # analysed, but not yet 2 s old
    assert after is not None and after["at"] == start  # the first state's figures, not the newer one's
    first_half = states[59][1]
    assert after["players"] == [p.to_dict() for p in ours_upto(first_half)]


def ours_upto(state: bg.BackgammonState) -> tuple[Any, ...]:
    games = analyse_once(gnubg_cli(), match_to_mat(state, current=True), 0, 0)
    return summarise([game_analysis(g["index"], g["records"]) for g in games], 0, marker_of(state))


def test_a_match_gnubg_cannot_read_fails_with_its_reason() -> None:
    from hub.rules.backgammon.analysis import AnalysisError

    broken = " 3 point match\n\n Game 1\n this is not a game at all\n"
    with pytest.raises(AnalysisError, match="gnubg"):
        analyse_once(gnubg_cli(), broken)
    assert analyse_once(gnubg_cli(), " 3 point match\n") == []  # nothing played: nothing to analyse

    async def after_a_good_one() -> None:  # the worker keeps the last match it read: never analyse that one
        from hub.rules.backgammon.analysis.worker import GnubgProcess

        worker = GnubgProcess(gnubg_cli())
        try:
            assert await worker.analyse(match_to_mat(played_state(3, 3)), 0, 0)
            with pytest.raises(AnalysisError, match="games of the 1"):
                await worker.analyse(broken, 0, 0)
        finally:
            await worker.close()

    asyncio.run(after_a_good_one())


def test_check_analysis_adds_one_line_per_player(tmp_path: Path) -> None:
    lines = simulate(21, 3)
    file = tmp_path / "match.jsonl"
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = boardcast_check("--analysis", str(file))
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[-3]["type"] == "result"
    analysis = out[-2:]
    state = states_of(21, 3)[-1][1]
    expected = [p.to_dict() for p in ours(state)]
    for line, player in zip(analysis, expected, strict=True):
        assert line == {"type": "analysis", **{k: player[k] for k in ANALYSIS_KEYS}}
    assert [line["side"] for line in analysis] == ["A", "B"]


def test_check_analysis_with_a_ply_out_of_range_is_refused(tmp_path: Path) -> None:
    proc = boardcast_check("--analysis", "x.jsonl", "--analysis-ply", "5")
    assert proc.returncode == 2 and "--analysis-ply 5" in proc.stderr


BG_VENUE = """[venue]
name = "Tavla"
{venue}

[[tables]]
id = "T1"
sport = "backgammon"

[[matches]]
id = "M1"
table = "T1"
players = ["A", "B"]
length = 3
{more}
"""


def test_the_venue_sets_the_analysis_and_its_screens_and_a_mistake_is_named() -> None:
    from hub.venue import VenueError, parse_venue

    venue = parse_venue(
        BG_VENUE.format(venue="performance = { ply = 1 }", more='[[screens]]\nname = "hall-1"\n'),
        Path("v.toml"),
    )
    assert venue.performance == PerformanceSettings(True, 1) and venue.hall_screens == ("hall-1",)
    assert (
        parse_venue(BG_VENUE.format(venue="", more=""), Path("v.toml")).performance == PerformanceSettings()
    )
    for text, said in (
        ("performance = { plies = 1 }", "unknown key plies; known: enabled, ply"),
        ("performance = { ply = 3 }", "performance.ply"),
        ("performance = { enabled = 0 }", "performance.enabled"),
    ):
        with pytest.raises(VenueError, match=said):
            parse_venue(BG_VENUE.format(venue=text, more=""), Path("v.toml"))
    for more, said in (
        ('[[screens]]\nname = "a b"\n', "1 to 40 letters"),
        ('[[screens]]\nname = "%s"\n' % ("x" * 41), "1 to 40 letters"),
        ("[[screens]]\n", "name: is required"),
        ('[[screens]]\nname = "x"\n[[screens]]\nname = "x"\n', "listed twice"),
        ('[[screens]]\nname = "x"\nhall = true\n', "hall"),
    ):
        with pytest.raises(VenueError, match=said):
            parse_venue(BG_VENUE.format(venue="", more=more), Path("v.toml"))


async def test_a_listed_hall_screen_is_sent_to_its_page_with_hall_1_and_a_match_without_analysis_is_404(
    tmp_path: Path,
) -> None:
    import urllib.request

    from hub.venue import parse_venue
    from tests.hubsupport import get_json_as, running_hub

    venue = parse_venue(BG_VENUE.format(venue="", more='[[screens]]\nname = "hall-1"\n'), tmp_path / "v.toml")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)

    def status_and_location(url: str) -> tuple[int, str | None]:
        try:
            with opener.open(url, timeout=10) as response:
                return response.status, None
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("location")

    async with running_hub(tmp_path, venue) as url:
        for page in ("", "match/M1", "match/M1/analysis", "standings"):
            code, location = await asyncio.to_thread(status_and_location, f"{url}{page}?screen=hall-1")
            if page == "standings":  # no report file: no page, listed screen or not
                assert code == 404
                continue
            assert (code, location) == (307, f"/{page}?screen=hall-1&hall=1")
            code, _ = await asyncio.to_thread(status_and_location, f"{url}{page}?screen=hall-1&hall=1")
            assert code == 200
        for screen, said in (("Hall-1", "did you mean hall-1?"), ("desk-2", "the venue lists: hall-1")):
            code, answer = await asyncio.to_thread(get_json_as, f"{url}match/M1?screen={screen}", None)
            assert code == 404 and said in answer["error"]  # a misspelt hall screen shows nothing
        code, answer = await asyncio.to_thread(get_json_as, f"{url}api/matches/M1/analysis", None)
        assert code == 404 and "no analysis" in answer["error"]


def test_a_venue_can_turn_the_ratings_off_and_a_hub_without_gnubg_says_so() -> None:
    from hub.feed.fanout import Fanout
    from hub.hall.spectators import PublicHall
    from hub.rules.backgammon.analysis import attach
    from hub.venue import parse_venue

    on = PublicHall(parse_venue(BG_VENUE.format(venue="", more=""), Path("v.toml")), Fanout())
    assert attach(on) is not None and "performance" in on.extras["backgammon"]
    off = parse_venue(BG_VENUE.format(venue="performance = { enabled = false }", more=""), Path("v.toml"))
    hall = PublicHall(off, Fanout())
    assert attach(hall) is None and "backgammon" not in hall.extras

    async def without_gnubg() -> dict[str, Any]:
        service = AnalysisService(lambda _: None, 0.0, PerformanceSettings(), None)
        service.start()
        service.note("M", states_of(3, 3)[40][1], time.time())  # noted, never analysed, nothing breaks
        assert service.shown("M", time.time()) is None and service.report("M") is None
        return service.health()

    health = asyncio.run(without_gnubg())
    assert health["running"] is False and "not installed" in health["error"]


def test_check_analysis_of_a_match_with_nothing_played_gives_no_pr(tmp_path: Path) -> None:
    file = tmp_path / "match.jsonl"
    file.write_text(json.dumps({"match": {"length": 3}}) + "\n")
    proc = boardcast_check("--analysis", str(file))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()][-2:]
    assert [(x["type"], x["decisions"], x["pr"], x["band"]) for x in lines] == [
        ("analysis", 0, None, None)
    ] * 2


def test_check_refuses_an_analysis_ply_without_analysis(tmp_path: Path) -> None:
    file = tmp_path / "match.jsonl"
    file.write_text(json.dumps({"match": {"length": 3}}) + "\n")
    for argv, said in (
        ([str(file), "--analysis-ply", "1"], "--analysis-ply needs --analysis FILE"),
        (["--analysis", str(file), "--analysis-ply", ""], "--analysis-ply : 0, 1 or 2"),
    ):
        proc = boardcast_check(*argv)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    plain = boardcast_check(str(file))
    assert plain.returncode == 0 and json.loads(plain.stdout.splitlines()[-1])["type"] == "result"
