"""What a broadcast relay needs of a chess game beyond its moves: the players' titles, ratings and FIDE ids and
the event's name and city from the report file in the PGN, and the report file's own time control (its 122
line) taken at round import when --time-control is not given."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest

from hub.matches import MatchStatus, new_match
from hub.rules.chess.pgn_feed import event_tags, game_pgn, round_pgn
from hub.tournament.controls import read_time_control
from hub.tournament.export import ExportFormat, export_round_file
from hub.tournament.rounds import RoundError, add_to_venue, pgn_title, plan_trf_round
from hub.tournament.teams import team_match_view
from hub.tournament.trf import load_trf, parse_trf
from hub.venue import VenueError, load_venue, parse_venue
from tests.hub.chess_support import Table
from tests.hubsupport import running_hub

DEMO_EVENT = Path(__file__).resolve().parents[2] / "boardcast_sim" / "games" / "demo.trf"
TABLES = "".join(f'[[tables]]\nid = "T{n}"\nsport = "chess"\n\n' for n in range(1, 17))
HALL = '[venue]\nname = "Salon A"\n\n' + TABLES


def with_field(line: str, start: int, end: int, value: str, *, right: bool = False) -> str:
    """A 001 line with columns start..end (0-based, end excluded) holding `value`."""
    width = end - start
    text = value.rjust(width) if right else value.ljust(width)
    return line[:start] + text + line[end:]


def event_file(tmp_path: Path, control: str | None = "5400+30") -> Path:
    """The demo league's report file with titles and FIDE ids for two players, and `control` as its 122
    line (none when None); player 2 unrated."""
    lines = []
    for line in DEMO_EVENT.read_text(encoding="utf-8").splitlines():
        if line.startswith("122"):
            if control is None:
                continue
            line = f"122 {control}"
        if line.startswith("001    1 "):
            line = with_field(with_field(line, 10, 13, "GM"), 57, 68, "34567890", right=True)
        if line.startswith("001   17 "):
            line = with_field(with_field(line, 10, 13, "wf"), 57, 68, "12345678", right=True)
        if line.startswith("001    2 "):
            line = with_field(line, 48, 52, "0", right=True)
        lines.append(line)
    path = tmp_path / "league.trf"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def imported(tmp_path: Path, control: str | None = "5400+30", **kwargs: str) -> Path:
    trf = event_file(tmp_path, control)
    venue_path = tmp_path / "hall.toml"
    venue_path.write_text(HALL, encoding="utf-8")
    plan = plan_trf_round(load_trf(trf), 1, load_venue(venue_path), trf_path=trf, **kwargs)
    add_to_venue(venue_path, plan)
    return venue_path


def tags(text: str) -> dict[str, str]:
    return dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.MULTILINE))


def test_round_import_carries_titles_ratings_and_fide_ids_into_the_pgn(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path))
    game = next(m for m in venue.matches if m.pairing == (1, 17))
    assert game.titles == ("GM", "WFM") and game.fide_ids == (34567890, 12345678)
    assert game.ratings == (2386, 2275)
    event = load_trf(venue.tournament.trf) if venue.tournament else None
    headers = tags(game_pgn(new_match(game), venue, event))
    assert headers["White"] == "Mert Aydın" and headers["Black"] == "Hasan Öz"
    assert (headers["WhiteTitle"], headers["WhiteElo"], headers["WhiteFideId"]) == ("GM", "2386", "34567890")
    assert (headers["BlackTitle"], headers["BlackElo"], headers["BlackFideId"]) == ("WFM", "2275", "12345678")
    assert headers["Event"] == "Boardcast Demo Ligi / Demo League" and headers["Site"] == "Ankara TUR"


def test_unknown_player_data_is_left_out_of_the_pgn(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path))
    game = next(
        m for m in venue.matches if m.pairing == (18, 2)
    )  # Black unrated, neither titled nor with an id
    assert game.titles is None and game.fide_ids is None and game.ratings == (2220, 0)
    headers = tags(game_pgn(new_match(game), venue))
    assert headers["WhiteElo"] == "2220"
    assert not {"BlackElo", "WhiteTitle", "BlackTitle", "WhiteFideId", "BlackFideId"} & set(headers)
    assert headers["Event"] == headers["Site"] == "Salon A"  # no report file given: the hall's name


def test_round_export_writes_the_event_and_the_players_data(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path))
    matches = [new_match(m) for m in venue.matches]
    text = export_round_file(venue, matches, 1, ExportFormat.PGN, live=True).data.decode()
    assert text.count('[Event "Boardcast Demo Ligi / Demo League"]') == len(venue.matches)
    assert '[WhiteFideId "34567890"]' in text and '[Site "Ankara TUR"]' in text
    assert round_pgn(matches, venue, 1).count('[Event "Salon A"]') == len(venue.matches)


def test_event_and_site_fall_back_to_the_hall_one_by_one(tmp_path: Path) -> None:
    venue = parse_venue(HALL, tmp_path / "hall.toml")
    text = DEMO_EVENT.read_text(encoding="utf-8")
    no_city = parse_trf("\n".join(x for x in text.splitlines() if not x.startswith(("022", "032"))))
    assert event_tags(venue, no_city) == ("Boardcast Demo Ligi / Demo League", "Salon A")
    no_federation = parse_trf("\n".join(x for x in text.splitlines() if not x.startswith("032")))
    assert event_tags(venue, no_federation)[1] == "Ankara"


def test_the_report_files_time_control_is_the_default(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path, "90'/40+30'+30''"))
    assert {m.clock for m in venue.matches} == {"40/5400+30:1800+30"}
    (tmp_path / "given").mkdir()
    given = load_venue(imported(tmp_path / "given", "90'/40+30'+30''", time_control="300+3"))
    assert {m.clock for m in given.matches} == {"300+3"}


def test_no_122_line_gives_games_without_a_time_control(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path, None))
    assert {m.clock for m in venue.matches} == {None}


def test_a_122_line_the_hub_cannot_read_asks_for_time_control(tmp_path: Path) -> None:
    trf = event_file(tmp_path, "G/90 rapid")
    venue = parse_venue(HALL, tmp_path / "hall.toml")
    with pytest.raises(RoundError) as caught:
        plan_trf_round(load_trf(trf), 1, venue, trf_path=trf)
    message = str(caught.value)
    english, turkish = message.split(" / ", 1)
    assert "'G/90 rapid'" in english and "pass --time-control" in english
    assert "okunamadı" in turkish and "--time-control verin" in turkish
    plan = plan_trf_round(load_trf(trf), 1, venue, trf_path=trf, time_control="5400+30")
    assert {dict(m.extra)["time_control"] for m in plan.matches} == {"5400+30"}


@pytest.mark.parametrize(
    ("line", "control"),
    [
        ("90'/40+30'+30''", "40/5400+30:1800+30"),  # FIDE's classical control
        ("90 min/40 moves + 30 min + 30 sec/move", "40/5400+30:1800+30"),
        ("90'+30''", "5400+30"),
        ("90 dk + 30 sn", "5400+30"),
        ("90 min + 30 sec", "5400+30"),
        ("25' + 10\"", "1500+10"),
        ("5+3", "300+3"),  # bare and under 180: minutes and seconds
        ("90+30", "5400+30"),
        ("5400+30", "5400+30"),  # the hub's own seconds
        ("40/6000+30:1800+30", "40/6000+30:1800+30"),
        ("300d5", "300d5"),
        ("90", "5400"),
        ("G/90", None),
        ("rapid", None),
        ("30 sec/move", None),
        ("90'+30'", None),  # two periods, no move count for the first
        ("", None),
    ],
)
def test_time_controls_of_122_lines(line: str, control: str | None) -> None:
    assert read_time_control(line) == control


@pytest.mark.parametrize(
    ("field", "title"),
    [("GM", "GM"), ("wim", "WIM"), ("g", "GM"), ("wc", "WCM"), ("", ""), ("AGM", ""), ("m", "IM")],
)
def test_report_file_titles_as_pgn_writes_them(field: str, title: str) -> None:
    assert pgn_title(field) == title


@pytest.mark.parametrize(
    ("entry", "field", "says"),
    [
        ('titles = ["GM"]', "titles", "two titles"),
        ('titles = ["Grandmaster", ""]', "titles", "two titles"),
        ('titles = ["gm", ""]', "titles", "two titles"),
        ("fide_ids = [12, -1]", "fide_ids", "two FIDE ids"),
        ('fide_ids = ["12", "0"]', "fide_ids", "two FIDE ids"),
        ('title = ["GM", ""]', "title", "did you mean titles"),
    ],
)
def test_venue_player_data_is_checked(tmp_path: Path, entry: str, field: str, says: str) -> None:
    text = HALL + f'[[matches]]\nid = "G1"\ntable = "T1"\nplayers = ["A", "B"]\n{entry}\n'
    with pytest.raises(VenueError) as caught:
        parse_venue(text, tmp_path / "hall.toml")
    assert caught.value.field == f"matches[1].{field}" and says in str(caught.value)
    assert " / " in str(caught.value)  # English / Türkçe


def test_venue_player_data_is_read(tmp_path: Path) -> None:
    text = HALL + (
        '[[matches]]\nid = "G1"\ntable = "T1"\nplayers = ["A", "B"]\n'
        'titles = ["", "WGM"]\nfide_ids = [0, 4567]\nratings = [1500, 2301]\n'
    )
    game = parse_venue(text, tmp_path / "hall.toml").matches[0]
    assert (game.titles, game.fide_ids, game.ratings) == (("", "WGM"), (0, 4567), (1500, 2301))
    with pytest.raises(VenueError) as caught:
        parse_venue(
            HALL + '[[tables]]\nid = "TT"\nsport = "tabletennis"\n\n'
            '[[matches]]\nid = "G2"\ntable = "TT"\ntitles = ["GM", ""]\n',
            tmp_path / "hall.toml",
        )
    assert "titles is for chess matches" in str(caught.value)


def test_the_team_view_gives_each_boards_titles_ratings_and_live_clock(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path))
    config = venue.team_matches[0]  # R1-M1, Ankara - Bursa: board 1 is Mert Aydın (GM) - Hasan Öz (WFM)
    games = [m for m in venue.matches if m.team_match == config.id]
    board1 = next(m for m in games if m.board == 1)
    state = new_match(board1)
    table = Table(board1.rules.config(board1))
    table.clock(5400, 5395, 1, dt=10.0)  # the right side runs; White's side is learned, not known yet
    live = replace(state, sport_state=table.state, status=MatchStatus.LIVE)
    view = team_match_view(config, [live, *(new_match(m) for m in games if m.board != 1)])
    row = next(b for b in view["boards"] if b["board"] == 1)
    white, black = board1.players
    assert (row["white"], row["white_title"], row["white_rating"]) == (white, "GM", 2386)
    assert (row["black"], row["black_title"], row["black_rating"]) == (black, "WFM", 2275)
    clock = row["clock"]
    assert clock is not None and clock["as_of"] == 10.0
    assert sorted([clock["white_ms"], clock["black_ms"]]) == [5_395_000, 5_400_000]
    other = next(b for b in view["boards"] if b["board"] == 2)
    assert other["clock"] is None and other["white_title"] is None  # no reading yet; no title
    # a game with a result: its clock stands still on the page
    done = replace(live, status=MatchStatus.FINISHED)
    stopped = team_match_view(config, [done])["boards"][0]["clock"]
    assert stopped is not None and stopped["running"] is None


async def test_the_hubs_pgn_routes_name_the_event_and_its_players(tmp_path: Path) -> None:
    venue = load_venue(imported(tmp_path))
    game = next(m for m in venue.matches if m.pairing == (1, 17))
    async with running_hub(tmp_path, venue) as url:
        one = await asyncio.to_thread(get_text, f"{url}pgn/{game.id}.pgn")
        whole = await asyncio.to_thread(get_text, f"{url}pgn/round-1.pgn")
    headers = tags(one)
    assert (headers["Event"], headers["Site"]) == ("Boardcast Demo Ligi / Demo League", "Ankara TUR")
    assert (headers["WhiteTitle"], headers["WhiteElo"], headers["WhiteFideId"]) == ("GM", "2386", "34567890")
    assert whole.count('[Site "Ankara TUR"]') == len(venue.matches)


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode("utf-8")
