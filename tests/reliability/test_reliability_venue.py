"""An outside tester's typos in a venue file (issue 19): each is refused when the file is read, never at start.

A misspelt key (`broadcast_delay`, `best_off`, `[venu]`) used to vanish silently; a bad device URL (`serail://`,
`?baud=abc`, `alt://…?class=X`) used to pass the check and end the hub with a traceback once it started. Each
must now be a `VenueError` naming the file, the line of the mistake and the field, with the nearest known name
when there is one, and `boardcast serve` must exit 2 with that one line before it listens on its port.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from boardcast_sim.demo.run import build_demo_venue
from hub.venue import VenueError, load_venue
from tests.conftest import ROOT, free_port
from tests.reliability.conftest import Tried

DIGEST = "a" * 64
BAND = "AA:BB:CC:DD:EE:0{}"

GOOD = f"""\
[venue]
name = "Güvenilirlik Salonu"
broadcast_delay_s = 900

[[tables]]
id = "T1"
sport = "tabletennis"
device = "serial:///dev/ttyUSB0?baud=115200"
wristbands = ["ble://{BAND.format(1)}?protocol=dscore&side=0", "ble://{BAND.format(2)}?protocol=dscore&side=1"]

[[tables]]
id = "B1"
sport = "chess"
device = "serial:///dev/ttyACM0?protocol=dgt"
clock = "serial:///dev/ttyUSB1"

[[tables]]
id = "G1"
sport = "backgammon"
device = "/dev/ttyACM1"

[[tables]]
id = "W1"
sport = "tabletennis"
device = "tcp://0.0.0.0:7000"
device_id = "tt-wifi-1"
device_token_sha256 = "{DIGEST}"

[[team_matches]]
id = "R1-M1"
round = 1
teams = ["Ankara", "İzmir"]

[[matches]]
id = "M1"
table = "T1"
players = ["Ayşe", "Elif"]
best_of = 5
ruleset = "ittf"
first_server = "A"

[[matches]]
id = "G-1"
table = "G1"
players = ["Hakan", "Levent"]
length = 7
clock = {{mode = "simple", reserve_s = 600, delay_s = 12}}

[[matches]]
id = "C-1"
table = "B1"
players = ["Can", "Mehmet"]
time_control = "5400+30"
team_match = "R1-M1"
board = 1

[[referees]]
name = "Hakem Bey"
role = "chief"
token_sha256 = "{DIGEST}"

[[players]]
name = "Ayşe"
club = "Ankara SK"
email = "ayse@example.org"
"""

# (what the tester wrote, the text it replaces in GOOD, the replacement, the field, words the message must hold;
#  the line expected is the line where the replacement's marked part (after '^', else all of it) begins)
BAD_URLS = [
    (
        "misspelt scheme serail://",
        "serial:///dev/ttyUSB0?baud=115200",
        "serail:///dev/ttyUSB0",
        "tables[1].device",
        ("unknown scheme 'serail://'", "did you mean serial?"),
    ),
    (
        "unknown scheme foo://",
        "serial:///dev/ttyUSB0?baud=115200",
        "foo://board",
        "tables[1].device",
        ("unknown scheme 'foo://'", "known: serial://"),
    ),
    (
        "baud=abc",
        "?baud=115200",
        "?baud=abc",
        "tables[1].device",
        ("baud must be a positive integer, got 'abc'",),
    ),
    (
        "baud=-5",
        "?baud=115200",
        "?baud=-5",
        "tables[1].device",
        ("baud must be a positive integer, got '-5'",),
    ),
    (
        "baud=11520 (not a standard rate)",
        "?baud=115200",
        "?baud=11520",
        "tables[1].device",
        ("baud 11520 is not a standard rate",),
    ),
    (
        "alt:// with class=X",
        "serial:///dev/ttyUSB0?baud=115200",
        "alt:///dev/ttyUSB0?class=X",
        "tables[1].device",
        ("class must be one of", "got 'X'"),
    ),
    (
        "option misspelt (bauds=)",
        "?baud=115200",
        "?bauds=115200",
        "tables[1].device",
        ("unknown option 'bauds'", "did you mean baud?"),
    ),
    (
        "plain device path with ?baud",
        "serial:///dev/ttyUSB0?baud=115200",
        "/dev/ttyUSB0?baud=9600",
        "tables[1].device",
        ("a device path takes no options",),
    ),
    (
        "socket:// with protocol=wire (pyserial refuses it at open)",
        "serial:///dev/ttyUSB0?baud=115200",
        "socket://10.0.0.7:7000?protocol=wire",
        "tables[1].device",
        ("unknown option 'protocol'",),
    ),
    (
        "rfc2217:// with timeout=soon",
        "serial:///dev/ttyUSB0?baud=115200",
        "rfc2217://10.0.0.7:2217?timeout=soon",
        "tables[1].device",
        ("timeout must be a positive number",),
    ),
    (
        "loop:// with logging=loud (a KeyError in pyserial)",
        "serial:///dev/ttyUSB0?baud=115200",
        "loop://?logging=loud",
        "tables[1].device",
        ("logging must be one of debug, info, warning, error",),
    ),
    (
        "serial protocol misspelt (dgtt)",
        "?protocol=dgt",
        "?protocol=dgtt",
        "tables[2].device",
        ("unknown protocol 'dgtt'", "did you mean dgt?"),
    ),
    (
        "DGT board with bt=maybe",
        "?protocol=dgt",
        "?protocol=dgt&bt=maybe",
        "tables[2].device",
        ("bt must be",),
    ),
    (
        "clock URL with bauds=9600",
        'clock = "serial:///dev/ttyUSB1"',
        'clock = "serial:///dev/ttyUSB1?bauds=9600"',
        "tables[2].clock",
        ("unknown option 'bauds'", "geçersiz saat adresi"),
    ),
    (
        "wristband with sied=1",
        "protocol=dscore&side=1",
        "protocol=dscore&sied=1",
        "tables[1].wristbands",
        ("unknown option 'sied'", "did you mean side?"),
    ),
    (
        "tcp:// with ?protocol=wire",
        "tcp://0.0.0.0:7000",
        "tcp://0.0.0.0:7000?protocol=wire",
        "tables[4].device",
        ("takes nothing but HOST:PORT",),
    ),
]
MISSPELT_KEYS = [
    (
        "broadcast_delay",
        "broadcast_delay_s = 900",
        "broadcast_delay = 900",
        "venue.broadcast_delay",
        "broadcast_delay_s",
    ),
    ("best_off", "best_of = 5", "best_off = 7", "matches[1].best_off", "best_of"),
    ("[venu]", "[venue]", "[venu]", "venu", "venue"),
    ("rulset", 'ruleset = "ittf"', 'rulset = "ittf"', "matches[1].rulset", "ruleset"),
    ("frist_server", 'first_server = "A"', 'frist_server = "A"', "matches[1].frist_server", "first_server"),
    ("[[tabels]]", '[[tables]]\nid = "G1"', '[[tabels]]\nid = "G1"', "tabels", "tables"),
    ("devise", 'device = "/dev/ttyACM1"', 'devise = "/dev/ttyACM1"', "tables[3].devise", "device"),
    ("team match rund", "round = 1\nteams", "rund = 1\nteams", "team_matches[1].rund", "round"),
    (
        "time_contol",
        'time_control = "5400+30"',
        'time_contol = "5400+30"',
        "matches[3].time_contol",
        "time_control",
    ),
    ("referee rol", 'role = "chief"', 'rol = "chief"', "referees[1].rol", "role"),
    ("player emial", 'email = "ayse', 'emial = "ayse', "players[1].emial", "email"),
    ("backgammon clock delai_s (inline)", "delay_s = 12}", "delai_s = 12}", "matches[2].clock", "delay_s"),
    (
        "backgammon clock delai_s ([matches.clock])",
        'clock = {mode = "simple", reserve_s = 600, delay_s = 12}',
        '[matches.clock]\nmode = "simple"\n^delai_s = 12',
        "matches[2].clock",
        "delay_s",
    ),
]


def _line_of(text: str, replacement: str) -> int:
    """The line of the marked part of `replacement` (after '^', else its start) in `text`."""
    before, _, marked = replacement.rpartition("^")
    at = text.index(before + marked) + len(before)
    return text.count("\n", 0, at) + 1


def _broken(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    assert GOOD.count(old) >= 1, old
    text = GOOD.replace(old, new.replace("^", ""), 1)
    path = tmp_path / "hall.toml"
    path.write_text(text, encoding="utf-8")
    return path, _line_of(text, new)


def _refused(path: Path) -> VenueError:
    with pytest.raises(VenueError) as caught:
        load_venue(path)
    return caught.value


def test_the_good_venue_loads_every_table_and_match(tmp_path: Path) -> None:
    path = tmp_path / "hall.toml"
    path.write_text(GOOD, encoding="utf-8")
    venue = load_venue(path)
    assert [t.id for t in venue.tables] == ["T1", "B1", "G1", "W1"] and len(venue.matches) == 3
    assert venue.broadcast_delay_s == 900 and venue.matches[0].best_of == 5


@pytest.mark.parametrize(("fault", "old", "new", "field", "words"), BAD_URLS, ids=[c[0] for c in BAD_URLS])
def test_a_bad_device_url_is_refused_with_its_line_and_field(
    tmp_path: Path, tried: Tried, fault: str, old: str, new: str, field: str, words: tuple[str, ...]
) -> None:
    path, line = _broken(tmp_path, old, new)
    error = _refused(path)
    assert (error.line, error.field) == (line, field)
    assert str(error).startswith(f"{path}:{line}: {field}: ")
    assert all(w in str(error) for w in words), str(error)
    assert " / " in str(error) and "\n" not in str(error)  # one line, English / Türkçe
    tried(
        f"venue device URL: {fault}",
        area="bad input",
        count=1,
        observed=f"VenueError at line {error.line}, {error.field}: {str(error).split(': ', 2)[2]}",
    )


@pytest.mark.parametrize(
    ("fault", "old", "new", "field", "nearest"), MISSPELT_KEYS, ids=[c[0] for c in MISSPELT_KEYS]
)
def test_a_misspelt_key_is_refused_with_the_nearest_known_name(
    tmp_path: Path, tried: Tried, fault: str, old: str, new: str, field: str, nearest: str
) -> None:
    path, line = _broken(tmp_path, old, new)
    error = _refused(path)
    assert (error.line, error.field) == (line, field)
    assert str(error).startswith(f"{path}:{line}: {field}: ")
    assert f"did you mean {nearest}?" in str(error) and f"{nearest} mı demek istediniz?" in str(error)
    tried(
        f"venue key misspelt: {fault}",
        area="bad input",
        count=1,
        observed=f"VenueError at line {error.line}, {error.field}: {str(error).split(': ', 2)[2]}",
    )


def test_a_key_of_another_sport_is_refused_not_ignored(tmp_path: Path, tried: Tried) -> None:
    # `clock` is a backgammon match's clock; on a chess game it would leave the game without a time control
    path, line = _broken(tmp_path, 'time_control = "5400+30"', 'clock = "5400+30"')
    error = _refused(path)
    assert (error.line, error.field) == (line, "matches[3].clock")
    assert "clock is for backgammon matches, not chess" in str(error)
    tried(
        "venue key of another sport (clock on a chess game)",
        area="bad input",
        count=1,
        observed=f"VenueError at line {error.line}, {error.field}: {str(error).split(': ', 2)[2]}",
    )


def test_the_demo_venue_written_as_a_file_still_loads(tmp_path: Path) -> None:
    demo = build_demo_venue(2, 1, 2)
    try:
        path = tmp_path / "demo.toml"
        path.write_text(_as_toml(demo.venue), encoding="utf-8")
        loaded = load_venue(path)
    finally:
        for pty in demo.ptys:
            pty.close()
    assert loaded.tables == demo.venue.tables
    assert loaded.team_matches == demo.venue.team_matches
    assert loaded.matches == demo.venue.matches
    assert loaded.tournament == demo.venue.tournament


def _as_toml(venue) -> str:
    """A venue as the file an organiser would write for it (the fields the demo uses)."""
    q = '"{}"'.format
    out = [f"[venue]\nname = {q(venue.name)}\n"]
    if venue.tournament is not None:
        t = venue.tournament
        out.append(f"[tournament]\ntrf = {q(t.trf)}\nboard_prize_min_games = {t.board_prize_min_games}\n")
    for t in venue.tables:
        out.append(f"[[tables]]\nid = {q(t.id)}\nsport = {q(t.sport)}\ndevice = {q(t.device)}\n")
        out[-1] += f"device_id = {q(t.device_id)}\n" if t.device_id else ""
    for tm in venue.team_matches:
        out.append(
            f'[[team_matches]]\nid = {q(tm.id)}\nround = {tm.round}\nteams = ["{tm.teams[0]}", "{tm.teams[1]}"]\n'
            + (f"pairing = [{tm.pairing[0]}, {tm.pairing[1]}]\n" if tm.pairing else "")
            + "forfeits = ["
            + ", ".join(
                f'{{board = {f.board}, players = ["{f.players[0]}", "{f.players[1]}"], result = {q(f.result)}}}'
                for f in tm.forfeits
            )
            + "]\n"
        )
    for m in venue.matches:
        entry = f"[[matches]]\nid = {q(m.id)}\ntable = {q(m.table)}\nround = {m.round}\n"
        entry += "players = [" + ", ".join(q(p) for p in m.players) + "]\n"
        if m.sport == "tabletennis":
            entry += f"best_of = {m.best_of}\ndoubles = {str(m.doubles).lower()}\n"
        if m.sport == "backgammon":
            mode, reserve, delay = m.clock.split(":")
            entry += f"length = {m.length}\nclock = {{mode = {q(mode)}, reserve_s = {reserve}, delay_s = {delay}}}\n"
        if m.sport == "chess":
            entry += f"time_control = {q(m.clock)}\nclock_white = {q(m.clock_white)}\n"
            entry += f"team_match = {q(m.team_match)}\nboard = {m.board}\n"
            entry += f"pairing = [{m.pairing[0]}, {m.pairing[1]}]\n" if m.pairing else ""
            entry += f"ratings = [{m.ratings[0]}, {m.ratings[1]}]\n" if m.ratings else ""
        out.append(entry)
    for r in venue.referees:
        out.append(
            f"[[referees]]\nname = {q(r.name)}\nrole = {q(r.role)}\ntoken_sha256 = {q(r.token_sha256)}\n"
        )
    return "\n".join(out)


class _PortWatch:
    """Tries to connect to a port every 20 ms until stopped; counts the attempts and the connections made."""

    def __init__(self, port: int) -> None:
        self.port, self.attempts, self.connected = port, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.attempts += 1
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                self.connected += 1
            except OSError:
                pass
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


CLI_CASES = [
    ("serail://", "serial:///dev/ttyUSB0?baud=115200", "serail:///dev/ttyUSB0", "tables[1].device"),
    ("baud=abc", "?baud=115200", "?baud=abc", "tables[1].device"),
    ("broadcast_delay", "broadcast_delay_s = 900", "broadcast_delay = 900", "venue.broadcast_delay"),
]


@pytest.mark.parametrize(("fault", "old", "new", "field"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_serve_refuses_the_file_with_exit_2_and_never_listens(
    tmp_path: Path, tried: Tried, fault: str, old: str, new: str, field: str
) -> None:
    path, line = _broken(tmp_path, old, new)
    port, data = free_port(), tmp_path / "data"
    watch = _PortWatch(port)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub",
            "serve",
            "--venue",
            str(path),
            "--port",
            str(port),
            "--data",
            str(data),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=30)  # the unfixed hub starts, and serves until killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        watch.stop()
    took = time.monotonic() - started
    assert proc.returncode == 2, err
    assert f"{path}:{line}: {field}: " in err
    assert "Traceback" not in err and "Traceback" not in out
    assert watch.connected == 0 and watch.attempts > 0
    assert not (data / "events.sqlite3").exists()
    message = next(x.strip() for x in err.splitlines() if f"{path}:{line}" in x)
    tried(
        f"boardcast serve on a venue file with {fault}",
        area="bad input",
        count=1,
        observed=f"exit {proc.returncode} in {took:.1f} s; stderr: {message.replace(str(path), path.name)}; "
        f"port {port}: {watch.connected} connections in {watch.attempts} tries; no Traceback, no event log",
    )
