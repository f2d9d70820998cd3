"""Hostile request bodies and queries against a real hub: bounded, checked field by field, never a 500.

Every route that takes a body reads it no further than `hub.web.MAX_BODY` (413 naming the limit, the rest
never read), refuses fields it does not know (400 naming them), logs only what it checked, and hands a
device only a command whose every argument is in range; every query number is range-checked.
"""

from __future__ import annotations

import json
import resource
import select
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from devices.wire.codec import MAX_FRAME
from hub.web import MAX_BODY
from tests.reliability.conftest import Tried
from tests.reliability.support import TOKEN, HubThread, request

MB = 1024 * 1024
AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
# every route that takes a body, each with a match (or table) of its own
ROUTES = {
    "inputs": "/api/matches/R2-T2/inputs",
    "actions": "/api/matches/R2-T3/actions",
    "confirm": "/api/matches/R2-T4/confirm",
    "command": "/api/tables/T1/command",
}


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory):
    with HubThread(tmp_path_factory.mktemp("inputs") / "data", board=True) as running:
        deadline = time.monotonic() + 20
        while not _board_connected(running):
            assert time.monotonic() < deadline, "the simulated board on T1 did not connect"
            time.sleep(0.05)
        yield running


def _board_connected(hub: HubThread) -> bool:
    devices = json.loads(request(hub.url + "api/devices")[2])
    return any(t["table"] == "T1" and t["link"] == "connected" for t in devices["tables"])


def _post(hub: HubThread, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    status, _, answer = request(hub.url + path.lstrip("/"), "POST", raw, AUTH)
    return status, json.loads(answer)


def _rss_mb() -> float:
    """This process's resident memory now (the hub serves from a thread of it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stream(hub: HubThread, path: str, total: int, *, chunked: bool) -> tuple[int, dict, int, float, bool]:
    """POST `total` bytes of body in 64 KiB pieces, stopping as soon as the hub answers; the status, the JSON
    answer, how many body bytes went out, the milliseconds to the answer and whether the hub reset the
    connection (it closes rather than drains: data still in flight makes that a reset)."""
    piece = b'{"reason": "' + b"x" * (64 * 1024)
    head = f"POST {path} HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer {TOKEN}\r\n"
    head += "Content-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {total}\r\n\r\n"
    sent, answer, pending, resets = 0, b"", b"", 0
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", hub.runtime.port), timeout=10) as sock:
        sock.sendall(head.encode())
        sock.setblocking(False)
        while not _complete(answer):
            assert time.monotonic() - started < 30, "no answer"
            more = pending or sent < total
            readable, writable, _ = select.select([sock], [sock] if more else [], [], 5)
            if readable:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
            elif writable:
                if not pending:
                    part = piece[: total - sent]
                    pending = b"%x\r\n%s\r\n" % (len(part), part) if chunked else part
                    sent += len(part)
                try:
                    pending = pending[sock.send(pending) :]
                except ConnectionResetError:
                    resets += 1
                    sock.setblocking(True)
                    answer += sock.recv(65536)
                    break
        elapsed_ms = (time.monotonic() - started) * 1000
    head_bytes, _, body = answer.partition(b"\r\n\r\n")
    return int(head_bytes.split()[1]), json.loads(body), sent, elapsed_ms, resets > 0


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return False


def _logged(hub: HubThread) -> int:
    """Events in the hall's working state, over every match: what a refused request must not add to."""
    return hub.call(lambda: sum(m.version for m in hub.runtime.hall.working.values()))


def test_oversized_bodies_get_413_before_they_are_read(hub, tried: Tried) -> None:
    before_rss, before_logged = _rss_mb(), _logged(hub)
    commands = len(hub.board.commands)
    seen: list[str] = []
    for name, path in ROUTES.items():
        for chunked in (False, True):
            status, answer, sent, ms, reset = _stream(hub, path, 50 * MB, chunked=chunked)
            assert status == 413, (name, chunked, answer)
            assert answer["limit"] == "body_bytes" and answer["max"] == MAX_BODY
            assert str(MAX_BODY) in answer["error"], answer
            assert sent < 50 * MB  # answered while the client was still sending
            how = "chunked" if chunked else "Content-Length"
            seen.append(f"{name} {how}: {ms:.0f} ms, {sent / MB:.1f} MB sent{', reset' if reset else ''}")
    after_rss = _rss_mb()
    assert after_rss - before_rss < 30, (before_rss, after_rss)  # 8 × 50 MB were sent; none was kept
    assert _logged(hub) == before_logged and len(hub.board.commands) == commands
    # just under the limit is a request like any other
    reason = "ç" * 1000
    status, _ = _post(
        hub, ROUTES["actions"], {"action": "penalty", "side": 0, "penalty": "warning", "reason": reason}
    )
    assert status == 200
    tried(
        "50 MB body to every POST route (inputs, actions, confirm, command), by Content-Length and chunked",
        area="bad requests",
        count=len(seen),
        observed=f"413 naming the {MAX_BODY}-byte limit, answered while the client still sent ("
        + "; ".join(seen)
        + f"); RSS of the process serving the hub {before_rss:.0f} MB before, {after_rss:.0f} MB after; "
        "nothing logged, no command sent",
    )


def test_unknown_fields_are_refused_and_only_checked_values_are_logged(hub, tried: Tried) -> None:
    before = _logged(hub)
    commands = len(hub.board.commands)
    cases = [
        (ROUTES["inputs"], {"type": "timeout", "side": 0, "note": "x" * 1000}, "note"),
        (
            ROUTES["actions"],
            {"action": "penalty", "side": 0, "penalty": "warning", "reason": "r", "evidence": [1]},
            "evidence",
        ),
        (ROUTES["confirm"], {"force": True}, "force"),
        (ROUTES["command"], {"cmd": "resync", "delay": 5}, "delay"),
        (ROUTES["command"], {"cmd": "show_text", "text": "x", "colour": "red"}, "colour"),
    ]
    for path, body, field in cases:
        status, answer = _post(hub, path, body)
        assert status == 400 and answer["field"] == field and field in answer["error"], (path, answer)
    assert _logged(hub) == before and len(hub.board.commands) == commands
    # what is logged is what the rules read back, not the request: the checked fields and nothing else
    sent = {"type": "correction", "points": [3, 1], "games": [0, 0], "reason": "scoreboard missed one"}
    status, _ = _post(hub, ROUTES["inputs"], sent)
    assert status == 200
    events = hub.call(lambda: list(hub.runtime.hall.log.match_events("R2-T2")))
    logged = [e.body for e in events if e.kind == "referee.input"]
    assert logged == [{"input": {**sent, "server": None, "ends": None}}], logged
    tried(
        "unknown fields in the bodies of inputs, actions, confirm and command",
        area="bad requests",
        count=len(cases),
        observed="400 naming the field ("
        + ", ".join(f for _, _, f in cases)
        + "); nothing logged, no command sent; a valid input is logged as the rules read it back",
    )


def test_command_arguments_are_checked_where_the_command_is_built(hub, tried: Tried) -> None:
    commands = len(hub.board.commands)
    show = {"cmd": "show_text", "text": "Masa 1"}
    cases = [
        ({**show, "text": "x" * 5000}, "text"),
        ({**show, "text": "ç" * 2100}, "text"),  # 4,200 bytes in UTF-8: within the body limit, not a frame
        ({**show, "text": 12}, "text"),
        ({**show, "seconds": -1e300}, "seconds"),
        ({**show, "seconds": 1e300}, "seconds"),
        ({**show, "seconds": -1}, "seconds"),
        ({**show, "seconds": 0.5}, "seconds"),
        ({**show, "seconds": "5"}, "seconds"),
        ({**show, "seconds": True}, "seconds"),
        ({"cmd": "set_clock", "remaining_ms": [2**64 - 1, 0], "running": 0}, "remaining_ms"),
        ({"cmd": "set_clock", "remaining_ms": [-5, 0], "running": 0}, "remaining_ms"),
        ({"cmd": "set_clock", "remaining_ms": [1000, 1000], "running": 2}, "running"),
        ({"cmd": "self_destruct"}, "cmd"),
    ]
    answers = []
    for body, field in cases:
        status, answer = _post(hub, ROUTES["command"], body)
        assert status == 400 and answer["field"] == field and field in answer["error"], (body, answer)
        answers.append(answer)
    too_long = answers[0]
    # the frame's header and CRC (6 bytes) and the rest of the msgpack body (32) leave 4,058 for the text
    assert too_long["max"] == MAX_FRAME - 38 and str(too_long["max"]) in too_long["error"], too_long
    assert len(hub.board.commands) == commands  # nothing reached the device
    status, ack = _post(hub, ROUTES["command"], {**show, "text": "Masa 1 / Table 1", "seconds": 10})
    assert status == 200 and ack["ok"] is True
    assert hub.board.shown_text == "Masa 1 / Table 1"
    assert hub.board.commands[-1].args == {"text": "Masa 1 / Table 1", "seconds": 10}
    tried(
        "device command arguments out of range (show_text over the frame, seconds -1e300/1e300, clock u64)",
        area="bad requests",
        count=len(cases),
        observed=f"400 naming the field, the text limit ({too_long['max']} bytes, a {MAX_FRAME}-byte frame) "
        "given; the device received none of them; a valid show_text acknowledged and shown",
    )


def test_query_numbers_are_range_checked(hub, tried: Tried) -> None:
    assert _post(hub, "/api/matches/R3-T2/inputs", {"type": "timeout", "side": 1})[0] == 200
    events = hub.url + "api/referee/matches/R3-T2/events"
    cases = [
        ("to=100000000000000000000000000", "to"),
        (f"to={2**63}", "to"),
        ("to=" + "9" * 5000, "to"),
        ("from=-1&to=1", "from"),
        ("from=0&to=1", "from"),
        ("from=1e3&to=1", "from"),
        (f"from={2**64}&to=1", "from"),
        ("from=nan", "from"),
    ]
    for query, field in cases:
        status, _, raw = request(f"{events}?{query}", headers=AUTH)
        answer = json.loads(raw)
        assert status == 400 and answer["field"] == field and field in answer["error"], (query, answer)
    status, _, raw = request(f"{events}?from=1&to=1", headers=AUTH)
    assert status == 200 and [e["kind"] for e in json.loads(raw)["events"]] == ["referee.input"]
    tried(
        "evidence query numbers: 10^26, 2^63, 5,000 digits, negative, 0, 1e3, nan",
        area="bad requests",
        count=len(cases),
        observed="400 naming from or to with its range (SQLite's OverflowError was a 500); a valid range 200",
    )


NESTED = b"[" * 900 + b"]" * 900


def test_hostile_json_gets_a_400_naming_what_is_wrong(hub, tried: Tried) -> None:
    bodies = [
        b"[]",
        b'"confirm"',
        b"12",
        b"null",
        b"1e400",
        b'{"side": NaN}',
        b'{"side": Infinity}',
        b"[" * 2000 + b"]" * 2000,
        b'{"reason": ' + NESTED + b"}",
        b'{"action": "penalty", "side": 0, "penalty": "warning", "reason": ' + NESTED + b"}",
        b'{"type": "correction", "points": ' + NESTED + b', "games": [0, 0]}',
        b'{"cmd": "show_text", "text": ' + NESTED + b"}",
        b'{"side": 100000000000000000000000000}',
        b'{"side": 18446744073709551615, "type": "timeout", "action": "penalty", "cmd": "show_text"}',
        b'{"action": "correct", "score": [1e300, 0], "reason": "r"}',
        b'{"type": "correction", "points": [18446744073709551615, 0], "games": [0, 0]}',
        b'{"type": "take_back", "plies": -1e300}',
        b'{"type": "timeout", "side": 0, "": 1}',
        b"\xff\xfe",
    ]
    before = _logged(hub)
    statuses: dict[int, int] = {}
    for path in ROUTES.values():
        for body in bodies:
            status, answer = _post(hub, path, body)
            statuses[status] = statuses.get(status, 0) + 1
            assert status == 400, (path, body[:80], answer)
            assert isinstance(answer.get("error"), str) and answer["error"]
            assert answer["field"] == "body" or answer["field"] in answer["error"], answer
    assert _logged(hub) == before
    tried(
        "hostile JSON to every POST route: non-objects, NaN/Infinity, 1e400, nesting 900 and 2,000 deep, "
        "integers past 64 bits, 1e300 scores, invalid UTF-8",
        area="bad requests",
        count=len(bodies) * len(ROUTES),
        observed=f"every one a 400 naming the field or the body (statuses {statuses}); nothing logged",
    )
