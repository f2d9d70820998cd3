"""`boardcast serve`, `edge` and `demo` started wrong, as an organiser would: each mistake is one line naming it.

A data directory that is a file, under a file, unwritable or with an unwritable log; a port number out of range;
a `--host` that is not this machine's; a web port or a device gateway's port another program holds. Each run is
the real command line in a subprocess: exit 2 for bad input, 1 for could not run, one line on stderr in English
and Turkish, never a traceback. When the tests run as root (who may write anywhere) the permission cases run
the command as `nobody`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.server.limits import machine_names
from tests.conftest import ROOT, free_port
from tests.reliability.conftest import Tried

NOBODY = 65534
VENUE = """\
[venue]
name = "Start-up Hall"

[[tables]]
id = "T1"
sport = "tabletennis"
{device}

[[matches]]
id = "M1"
table = "T1"
"""
GATEWAY = 'device = "tcp://{address}"\ndevice_id = "tt-1"\ndevice_token_sha256 = "' + "0" * 64 + '"'


def run_cli(*args: str, as_other_user: bool = False) -> subprocess.CompletedProcess[str]:
    """`python -m hub ARGS` from the repository, as `nobody` when asked and the tests run as root."""
    drop = (
        {"user": NOBODY, "group": NOBODY, "extra_groups": []} if as_other_user and os.geteuid() == 0 else {}
    )
    return subprocess.run(
        [sys.executable, "-m", "hub", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        **drop,  # type: ignore[arg-type]
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single line the command printed on stderr (asserting there is one, and no traceback)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("boardcast: ") and " / " in lines[0], lines[0]  # English / Turkish
    return lines[0]


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory every user can read (tmp_path's parents are private to the test's user)."""
    path = Path(tempfile.mkdtemp(prefix="boardcast-startup-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for sub in path.rglob("*"):
            if sub.is_dir() and not sub.is_symlink():
                sub.chmod(0o755)
        shutil.rmtree(path, ignore_errors=True)


def venue_file(where: Path, device: str = "") -> Path:
    """A one-table venue file readable by anyone."""
    path = where / "hall.toml"
    path.write_text(VENUE.format(device=device), encoding="utf-8")
    path.chmod(0o644)
    return path


def _can_drop_privileges() -> bool:
    if os.geteuid() != 0:
        return True
    try:
        done = subprocess.run(
            [sys.executable, "-c", "import hub.cli"], cwd=ROOT, user=NOBODY, group=NOBODY, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _data_cases(base: Path) -> dict[str, tuple[Path, str, bool]]:
    """Bad data directories by name: (the --data path, what the line must say, run as another user)."""
    afile = base / "afile"
    afile.write_text("not a directory\n")
    locked = base / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    old = base / "old-log"  # a directory anyone may write in, holding a log no one may write
    old.mkdir()
    (old / "events.sqlite3").write_bytes(b"")
    (old / "events.sqlite3").chmod(0o444)
    old.chmod(0o777)
    return {
        "a file": (afile, "is a file, not a directory", False),
        "under a file": (afile / "data", f"{afile} is a file, not a directory", False),
        "unwritable directory": (locked, "cannot be written: no permission", True),
        "under an unwritable parent": (locked / "a" / "data", f"cannot be made in {locked}", True),
        "unwritable log file": (old, "events.sqlite3, which cannot be opened for writing", True),
    }


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_a_bad_data_directory_is_named_with_exit_2(shared: Path, command: str, tried: Tried) -> None:
    if not _can_drop_privileges():
        pytest.skip("running as root and `nobody` cannot run this checkout's Python")
    venue = venue_file(shared)
    seen = []
    for case, (data, says, other_user) in _data_cases(shared).items():
        port = str(free_port())
        args = ["--venue", str(venue)] if command == "serve" else ["--tables", "1", "--chess-boards", "0"]
        result = run_cli(command, *args, "--data", str(data), "--port", port, as_other_user=other_user)
        line = one_line(result)
        assert result.returncode == 2, (case, result.stderr)
        assert f"the data directory {data} (--data)" in line and says in line, (case, line)
        assert "veri dizini" in line and "--port" not in line, (case, line)
        seen.append(f"{case}: exit {result.returncode}, '{line.split(' / ')[0][len('boardcast: ') :]}'")
    tried(
        f"boardcast {command} --data unusable (file, under a file, unwritable dir, unwritable parent, log)",
        area="bad input",
        count=len(seen),
        observed="; ".join(seen),
    )


def _options(command: str, venue: Path, shared: Path) -> list[str]:
    """What each command needs besides --port and --host."""
    return {
        "serve": ["--venue", str(venue), "--data", str(shared / "d")],
        "edge": ["--venue", str(venue), "--bus", "redis://127.0.0.1:1/0"],
        "demo": ["--data", str(shared / "d"), "--tables", "1", "--chess-boards", "0"],
    }[command]


@pytest.mark.parametrize("command", ["serve", "edge", "demo"])
def test_a_port_number_out_of_range_is_one_line_and_exit_2(shared: Path, command: str, tried: Tried) -> None:
    venue = venue_file(shared)
    given = _options(command, venue, shared)
    seen = []
    for port in ("70000", "-1", "65536", "eighty"):
        result = run_cli(command, *given, "--port", port)
        line = one_line(result)
        assert result.returncode == 2, (port, result.stderr)
        assert "--port must be a whole number from 0 to 65535" in line and repr(port) in line, line
        seen.append(f"--port {port}: exit {result.returncode}")
    assert not (shared / "d").exists()  # refused before anything was made
    tried(
        f"boardcast {command} --port out of range (70000, -1, 65536, a word)",
        area="bad input",
        count=len(seen),
        observed="; ".join(seen) + f"; '{line.split(' / ')[0][len('boardcast: ') :]}'",
    )


@pytest.mark.parametrize("command", ["serve", "edge"])
def test_a_host_that_is_not_this_machine_is_one_line_and_exit_2(
    shared: Path, command: str, tried: Tried
) -> None:
    foreign = "203.0.113.77"  # TEST-NET-3: documentation only
    if foreign in machine_names():
        pytest.skip(f"{foreign} is an address of this machine")
    venue = venue_file(shared)
    given = ["--data", str(shared / "d")] if command == "serve" else ["--bus", "redis://127.0.0.1:1/0"]
    seen = []
    for host, says in ((foreign, "is not an address of this machine"), ("no-such-host.invalid", "resolve")):
        result = run_cli(command, "--venue", str(venue), *given, "--host", host, "--port", str(free_port()))
        line = one_line(result)
        assert result.returncode == 2, (host, result.stderr)
        assert f"--host {host!r}" in line and says in line and "choose another --port" not in line, line
        seen.append(f"--host {host}: exit {result.returncode}, '{line.split(';')[0][len('boardcast: ') :]}'")
    tried(
        f"boardcast {command} --host not of this machine (a foreign address, an unresolvable name)",
        area="bad input",
        count=len(seen),
        observed="; ".join(seen),
    )


@pytest.mark.parametrize("command", ["serve", "edge", "demo"])
def test_a_web_port_in_use_is_exit_1_and_names_the_port(shared: Path, command: str, tried: Tried) -> None:
    venue = venue_file(shared)
    given = _options(command, venue, shared)
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = run_cli(command, *given, "--port", str(port))
    line = one_line(result)
    assert result.returncode == 1, result.stderr
    assert f"cannot listen on 127.0.0.1:{port}: the port is already in use" in line, line
    assert "choose another --port" in line and "kullanımda" in line, line
    tried(
        f"boardcast {command} on a web port another program holds",
        area="bad input",
        count=1,
        observed=f"exit {result.returncode}, '{line.split(';')[0][len('boardcast: ') :]}'",
    )


def test_a_device_gateway_port_in_use_names_the_gateway_not_the_web_port(shared: Path, tried: Tried) -> None:
    seen = []
    with socket.create_server(("127.0.0.1", 0)) as busy:
        taken = f"127.0.0.1:{busy.getsockname()[1]}"
        venue = venue_file(shared, GATEWAY.format(address=taken))
        web = free_port()
        result = run_cli("serve", "--venue", str(venue), "--data", str(shared / "d"), "--port", str(web))
    line = one_line(result)
    assert result.returncode == 1, result.stderr
    assert f"the device gateway cannot listen on tcp://{taken} (the tcp:// device of table T1)" in line, line
    assert "already in use" in line and "--port" not in line and str(web) not in line, line
    seen.append(f"port taken: exit {result.returncode}, '{line.split(';')[0][len('boardcast: ') :]}'")

    foreign = "203.0.113.77:7000"
    venue = venue_file(shared, GATEWAY.format(address=foreign))
    result = run_cli("serve", "--venue", str(venue), "--data", str(shared / "d"), "--port", str(free_port()))
    line = one_line(result)
    assert result.returncode == 2, result.stderr
    assert f"the device gateway address tcp://{foreign}" in line and "not an address of this machine" in line
    seen.append(f"address not of this machine: exit {result.returncode}")
    tried(
        "boardcast serve with a tcp:// device gateway that cannot listen (port taken, foreign address)",
        area="bad input",
        count=len(seen),
        observed="; ".join(seen),
    )


def test_port_0_serves_on_a_free_port_and_the_banner_names_it(shared: Path, tried: Tried) -> None:
    venue = venue_file(shared)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub",
            "serve",
            "--venue",
            str(venue),
            "--data",
            str(shared / "d"),
            "--port",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        spectators = next(line for line in proc.stdout if "Spectators" in line)
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=30)[0]
    port = int(spectators.rsplit(":", 1)[1].strip().rstrip("/"))
    assert port > 0 and proc.returncode == 0, spectators + rest
    tried(
        "boardcast serve --port 0",
        area="bad input",
        count=1,
        observed=f"served on free port {port} named in the banner, exit {proc.returncode} on Ctrl-C",
    )


def test_the_web_port_and_a_gateway_or_two_names_of_one_gateway_are_refused_as_input(
    shared: Path, tried: Tried
) -> None:
    """Both ports are the hub's own: "another program holds it" would send the organiser looking elsewhere."""
    port = free_port()
    on_web_port = venue_file(shared, GATEWAY.format(address=f"127.0.0.1:{port}"))
    result = run_cli("serve", "--venue", str(on_web_port), "--data", str(shared / "d"), "--port", str(port))
    web_line = one_line(result)
    assert result.returncode == 2 and f"--port {port} is the port of table T1's device gateway" in web_line
    two_names = shared / "two.toml"
    second = f'[[tables]]\nid = "T2"\nsport = "tabletennis"\ndevice = "tcp://localhost:{port}"\n'
    second += 'device_id = "tt-2"\ndevice_token_sha256 = "' + "0" * 64 + '"\n'
    two_names.write_text(on_web_port.read_text() + "\n" + second, encoding="utf-8")
    result = run_cli(
        "serve", "--venue", str(two_names), "--data", str(shared / "d"), "--port", str(free_port())
    )
    venue_line = "\n".join(line for line in result.stderr.splitlines() if "two.toml" in line)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"names the gateway on port {port} as tcp://127.0.0.1:{port}" in venue_line, result.stderr
    tried(
        "a device gateway on the web port; one gateway port written as two addresses",
        area="bad input",
        count=2,
        observed=f"exit 2 each: '{web_line.split(' / ')[0][len('boardcast: ') :]}'; "
        f"'{venue_line.strip().split(' / ')[0]}'",
    )
