"""Who a real hub believes: the Host and Origin a request names, the client X-Forwarded-For claims, and who may
read the files it writes.

A page on a name that resolves to the hub (DNS rebinding) sends an Origin equal to its Host: the Origin is
compared with the hub's own names, and a state-changing request to a name the hub does not answer to is refused.
Redirects never echo the request's Host. Only a venue's trusted proxies may name the client that the rate limits
count. The event log and its -wal and -shm are 0600, in a data directory made 0700.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import stat
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hub.server.limits import WebLimits
from hub.venue import VenueError, parse_venue
from tests.reliability.conftest import Tried
from tests.reliability.support import TOKEN, HubThread, hall_venue

ACTION = {"action": "penalty", "side": 0, "penalty": "warning", "reason": "access probe"}


def raw(
    port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request with exactly these headers (Host too), redirects not followed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in {**headers, "Content-Length": str(len(body or b""))}.items():
            conn.putheader(name, value)
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def act(hub: HubThread, headers: dict[str, str]) -> tuple[int, Any]:
    """A referee action on R1-T1 with the token and these headers; the status and JSON body."""
    all_headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}", **headers}
    status, _, body = raw(
        hub.runtime.port, "POST", "/api/matches/R1-T1/actions", all_headers, json.dumps(ACTION).encode()
    )
    return status, json.loads(body)


def actions(hub: HubThread) -> int:
    """How many referee actions R1-T1 holds."""
    return hub.call(lambda: len(hub.runtime.hall.working["R1-T1"].actions))


def test_the_origin_is_checked_against_the_hubs_names_not_the_requests_host(
    tmp_path: Path, tried: Tried
) -> None:
    with HubThread(tmp_path / "data") as hub:
        port = hub.runtime.port
        before = actions(hub)
        attacks = {  # what a rebound name or a lying header makes a browser send
            "rebound name": {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"},
            "X-Forwarded-Host": {
                "Host": f"127.0.0.1:{port}",
                "X-Forwarded-Host": "evil.example",
                "Origin": "http://evil.example",
            },
            "Origin on another port": {"Host": f"127.0.0.1:{port}", "Origin": f"http://127.0.0.1:{port + 1}"},
        }
        answers = {name: act(hub, headers) for name, headers in attacks.items()}
        assert actions(hub) == before, answers  # nothing recorded
        status, body = answers["rebound name"]
        assert status == 421 and body["limit"] == "allowed_hosts" and "evil.example" in body["error"], body
        for name in ("X-Forwarded-Host", "Origin on another port"):
            status, body = answers[name]
            assert status == 403 and body["limit"] == "same_origin", (name, body)
        # the console itself, by its address or by localhost, and a script with no Origin
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert act(hub, {"Host": host, "Origin": f"http://{host}"})[0] == 200, host
        assert act(hub, {"Host": f"127.0.0.1:{port}"})[0] == 200
        # pages still answer whatever name a spectator used (no allowed_hosts in this venue)
        page = raw(port, "GET", "/api/matches/R1-T1", {"Host": "hall-screen.lan"})
        assert page[0] == 200
    tried(
        "console action from a rebound name (Host = Origin = evil), X-Forwarded-Host, Origin on another port",
        area="access",
        count=len(attacks) + 3,
        observed="; ".join(f"{name}: {s} {b.get('limit')}" for name, (s, b) in answers.items())
        + f"; nothing logged; own address and localhost 200; GET by another name {page[0]}",
    )


def _ws_handshake(port: int, host: str) -> int:
    """The status a WebSocket handshake to /ws with this Host gets (101 when accepted)."""
    key = base64.b64encode(os.urandom(16)).decode()
    headers = {
        "Host": host,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", "/ws", skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def test_allowed_hosts_are_served_and_other_names_refused(tmp_path: Path, tried: Tried) -> None:
    venue = replace(hall_venue(), allowed_hosts=("hall.example.org",))
    with HubThread(tmp_path / "data", venue=venue) as hub:
        port = hub.runtime.port
        before = actions(hub)
        served = {
            "page by its name": raw(port, "GET", "/", {"Host": "hall.example.org"})[0],
            "page by its address": raw(port, "GET", "/", {"Host": f"127.0.0.1:{port}"})[0],
            "console by its name": act(
                hub, {"Host": "hall.example.org", "Origin": "https://hall.example.org"}
            )[0],
            "feed by its address": _ws_handshake(port, f"127.0.0.1:{port}"),
        }
        refused = {
            "page": raw(port, "GET", "/", {"Host": "evil.example"}),
            "API read": raw(port, "GET", "/api/matches", {"Host": "evil.example"}),
            "console": raw(
                port,
                "POST",
                "/api/matches/R1-T1/actions",
                {"Host": "evil.example", "Origin": "http://evil.example", "Authorization": f"Bearer {TOKEN}"},
                json.dumps(ACTION).encode(),
            ),
        }
        feed = _ws_handshake(port, "evil.example")
        after = actions(hub)
    assert served == {
        "page by its name": 200,
        "page by its address": 200,
        "console by its name": 200,
        "feed by its address": 101,
    }, served
    assert after == before + 1  # the one allowed action
    for name, (status, headers, body) in refused.items():
        error = json.loads(body)
        assert status == 421 and headers["content-type"] == "application/json", (name, status, body)
        assert error["limit"] == "allowed_hosts" and "allowed_hosts" in error["error"], error
    assert feed == 421
    tried(
        "requests by a name not in [venue] allowed_hosts (page, API read, console action, feed)",
        area="access",
        count=len(served) + len(refused) + 1,
        observed=f"refused {', '.join(f'{n} {s}' for n, (s, _, _) in refused.items())}, feed {feed}, "
        f"JSON limit allowed_hosts; allowed name and the bound address served "
        f"({', '.join(map(str, served.values()))})",
    )


def test_redirects_are_relative_whatever_host_the_request_names(tmp_path: Path, tried: Tried) -> None:
    with HubThread(tmp_path / "data") as hub:
        answers = {
            path: raw(hub.runtime.port, "GET", path, {"Host": "evil.example"})
            for path in ("/static", "/console/", "/api/matches/?x=1")
        }
    locations = {path: headers.get("location") for path, (_, headers, _) in answers.items()}
    assert all(status in (301, 302, 307, 308) for status, _, _ in answers.values()), answers
    assert locations == {
        "/static": "/static/",
        "/console/": "/console",
        "/api/matches/?x=1": "/api/matches?x=1",
    }
    tried(
        "redirect with a forged Host (/static, trailing slashes)",
        area="access",
        count=len(answers),
        observed="Location "
        + ", ".join(f"{p} -> {loc}" for p, loc in locations.items())
        + "; no Host echoed",
    )


def _modes(data: Path) -> dict[str, str]:
    return {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in sorted(data.iterdir())}


def test_the_data_directory_and_every_file_in_it_are_private(tmp_path: Path, tried: Tried) -> None:
    data = tmp_path / "data"
    old_umask = os.umask(0o022)  # the usual umask: files 0644 unless the hub says otherwise
    try:
        with HubThread(data, frames_per_s=20) as hub:
            deadline = time.monotonic() + 10
            while hub.call(lambda: hub.runtime.hall.log.commits) < 2:  # the feed's reports are on disk
                assert time.monotonic() < deadline, "nothing was committed"
                time.sleep(0.05)
            assert Path(f"{data}/events.sqlite3-wal").exists() and Path(f"{data}/events.sqlite3-shm").exists()
            first = _modes(data)
            directory = oct(stat.S_IMODE(data.stat().st_mode))
        for path in data.iterdir():  # a data directory from before: the hub makes its files private again
            path.chmod(0o644)
        with HubThread(data, frames_per_s=20) as hub:
            again = _modes(data)
    finally:
        os.umask(old_umask)
    assert directory == "0o700", directory
    assert set(first) >= {"events.sqlite3", "events.sqlite3-wal", "events.sqlite3-shm"}, first
    assert set(first.values()) == {"0o600"} and set(again.values()) == {"0o600"}, (first, again)
    tried(
        "data files readable by other users (umask 022)",
        area="access",
        count=len(first) + len(again) + 1,
        observed=f"directory {directory}; "
        + ", ".join(f"{n} {m}" for n, m in first.items())
        + "; files left 0644 by an older hub made 0600 again at start",
    )


def test_x_forwarded_for_names_the_client_only_for_trusted_proxies(tmp_path: Path, tried: Tried) -> None:
    limits = WebLimits(requests_per_s=0.01, request_burst=5, exempt=frozenset())

    def burst(hub: HubThread, forwarded: list[str]) -> list[tuple[int, str]]:
        out = []
        for address in forwarded:
            status, _, body = raw(
                hub.runtime.port, "GET", "/api/health", {"Host": "127.0.0.1", "X-Forwarded-For": address}
            )
            out.append((status, json.loads(body).get("error", "") if status == 429 else ""))
        return out

    spoofed = [f"198.51.100.{n}" for n in range(1, 9)]  # a new client address per request
    with HubThread(tmp_path / "plain", limits=limits) as hub:
        plain = burst(hub, spoofed)
    assert [s for s, _ in plain] == [200] * 5 + [429] * 3, plain
    assert "from 127.0.0.1" in plain[-1][1], plain  # the peer, not what the header says

    venue = replace(hall_venue(), trusted_proxies=("127.0.0.1",))
    with HubThread(tmp_path / "proxied", limits=limits, venue=venue) as hub:
        behind = burst(hub, ["203.0.113.9"] * 6 + ["203.0.113.10", "6.6.6.6, 203.0.113.9"])
    assert [s for s, _ in behind] == [200] * 5 + [429, 200, 429], behind
    assert "from 203.0.113.9" in behind[5][1] and "from 203.0.113.9" in behind[7][1], behind
    tried(
        "X-Forwarded-For from a peer that is not a trusted proxy (a new address per request)",
        area="access",
        count=len(plain) + len(behind),
        observed=f"ignored: {[s for s, _ in plain].count(429)} of {len(plain)} refused as 127.0.0.1 past the "
        f"burst; behind trusted_proxies = [127.0.0.1] the forwarded client is counted "
        f"({', '.join(str(s) for s, _ in behind)}), a spoofed first hop ignored",
    )


BASE = '[venue]\nname = "Hall"\n{line}\n\n[[tables]]\nid = "T1"\nsport = "tabletennis"\n'


def test_the_venue_file_checks_allowed_hosts_and_trusted_proxies(tried: Tried) -> None:
    good = parse_venue(
        BASE.format(
            line='allowed_hosts = ["Hall.example.org", "10.0.0.5:8443"]\ntrusted_proxies = ["10.0.0.0/8"]'
        ),
        Path("hall.toml"),
    )
    assert good.allowed_hosts == ("Hall.example.org", "10.0.0.5:8443") and good.trusted_proxies == (
        "10.0.0.0/8",
    )
    bad = {
        'allowed_hosts = ["http://hall.example.org/"]': "venue.allowed_hosts: 'http://hall.example.org/' is not",
        'allowed_hosts = "hall.example.org"': "venue.allowed_hosts: must be a list of strings",
        'trusted_proxies = ["proxy.lan"]': "venue.trusted_proxies: 'proxy.lan' is not an IP address or network",
        "trusted_proxies = [127]": "venue.trusted_proxies: must be a list of strings",
        'allowed_host = ["x"]': "did you mean allowed_hosts?",
    }
    seen = []
    for line, says in bad.items():
        with pytest.raises(VenueError) as error:
            parse_venue(BASE.format(line=line), Path("hall.toml"))
        assert str(error.value).startswith("hall.toml:3: ") and says in str(error.value), str(error.value)
        assert " / " in str(error.value)
        seen.append(str(error.value).split(" / ")[0])
    tried(
        "venue file: malformed allowed_hosts / trusted_proxies",
        area="bad input",
        count=len(bad),
        observed="; ".join(seen),
    )
