"""A schema-driven fuzz of every REST route: whatever the path, query, headers and body, never a 500.

`SCHEMA` lists each route of the app with what its inputs look like; a route the app serves and the schema
lacks fails the test, so a new endpoint cannot skip the fuzz. Hypothesis mixes well-formed requests (real
match ids, real action names, the referee's token) with mutated and random ones, against a real hub over
real HTTP. Every answer must be below 500, and every /api error must be JSON with an "error" text.
"""

from __future__ import annotations

import json
import urllib.parse
from collections import Counter

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route, WebSocketRoute

from hub.referee import Action, Penalty
from hub.web import WebContext, create_app
from tests.reliability.conftest import Tried
from tests.reliability.support import TOKEN, HubThread

MATCH_IDS = ["R1-T1", "R1-T2", "R2-T1", "R20-T4"]
# numbers past what anything downstream holds: SQLite's and msgpack's 64 bits, a double's range
HUGE = st.sampled_from([10**26, 2**64 - 1, 2**64, 2**63, -(2**63) - 1, 1e300, -1e300, 1.7e308, 5e-324])
LONG_TEXT = st.sampled_from(["x" * 5000, "ç" * 2100, "\u0000" * 300])  # past a device frame, within a body
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    HUGE,
    st.floats(allow_nan=False),
    st.text(max_size=30),
    LONG_TEXT,
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
FIELDS = [
    "action",
    "type",
    "side",
    "reason",
    "score",
    "winner",
    "penalty",
    "loser",
    "anomaly",
    "appellant",
    "decision",
    "reasoning",
    "card",
    "cmd",
    "args",
    "text",
    "seconds",
    "remaining_ms",
    "running",
    "plies",
    "result",
    "points",
    "games",
    "player",
]
VALUES = {
    "action": st.sampled_from([a.value for a in Action]) | st.text(max_size=8),
    "penalty": st.sampled_from([p.value for p in Penalty]),
    "type": st.sampled_from(["timeout", "card", "expedite", "correction", "point", "undo"]),
    "side": st.sampled_from([0, 1, 2, -1, "0", None, 1.5, True]),
    "loser": st.sampled_from([0, 1, 2, None]),
    "score": st.one_of(
        st.lists(st.one_of(st.integers(-3, 12), st.floats(allow_nan=False), HUGE), max_size=3), JSON
    ),
    "points": st.lists(st.one_of(st.integers(-3, 12), HUGE), max_size=3) | JSON,
    "cmd": st.sampled_from(["show_text", "resync", "set_clock", "ping", "reboot"]) | st.text(max_size=8),
    "text": st.one_of(st.text(max_size=20), LONG_TEXT),
    "seconds": st.one_of(st.sampled_from([0, 5, -1, 0.5, "5", None]), HUGE),
    "remaining_ms": st.lists(st.one_of(st.integers(-5, 10**6), HUGE), max_size=3) | JSON,
    "reason": st.one_of(st.text(max_size=30), LONG_TEXT),
    "match": st.sampled_from(["R1-T1", "R1-T2", "R9-T9", "", None, 7]) | st.text(max_size=8),
    "code": st.sampled_from(["tt.score_jump", "tt.second_timeout", "tt.nothing", "", None])
    | st.text(max_size=8),
}
SHAPED = st.fixed_dictionaries(
    {},
    optional={f: VALUES.get(f, JSON) for f in FIELDS},
)


def _deep(shaped: dict, field: str, depth: int) -> bytes:
    """A shaped body with one field's value lists nested `depth` deep (orjson reads up to 1,024), written as
    text: recursion in the hub (a repr in an error message) must survive what the parser lets through."""
    return json.dumps({**shaped, field: "@deep@"}).replace('"@deep@"', "[" * depth + "]" * depth).encode()


DEEP_BODY = st.builds(_deep, SHAPED, st.sampled_from(FIELDS), st.integers(1, 1000))
BODY = st.one_of(
    SHAPED.map(lambda d: json.dumps(d).encode()),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=60),
    st.just(b""),
    st.just(b"{"),
    st.just(b'{"action": "penalty", "side": 0, "penalty": "warning", "reason": "' + b"\xff" * 3 + b'"}'),
    DEEP_BODY,
    st.just(b'{"reason": "' + b"x" * 9000 + b'"}'),  # past the body limit: 413
    st.integers(1, 1100).map(lambda n: b"[" * n + b"]" * n),
)
SEGMENT = st.one_of(
    st.sampled_from([*MATCH_IDS, "T1", "nope", "ttscore", "pgn", "..", "%00", "1"]),
    st.text(min_size=1, max_size=20),
).map(lambda s: urllib.parse.quote(s, safe=""))
QUERY = st.dictionaries(
    st.sampled_from(["from", "to", "x", "token"]),
    st.one_of(
        st.integers(-5, 80).map(str),
        st.text(max_size=8),
        HUGE.map(str),
        st.sampled_from(["9" * 30, "9" * 5000, "1e3", "nan", "-0", " 7"]),
    ),
    max_size=3,
)
AUTH = st.sampled_from(
    [f"Bearer {TOKEN}", f"Bearer {TOKEN}x", "Bearer", "Bearer  \t x", "Basic abc", TOKEN, None]
)

# every route the app serves, with the methods to try on it
SCHEMA: dict[str, tuple[str, ...]] = {
    "/": ("GET",),
    "/match/{match_id}": ("GET",),
    "/match/{match_id}/analysis": ("GET",),
    "/api/health": ("GET",),
    "/api/matches": ("GET", "POST"),
    "/api/matches/{match_id}": ("GET", "DELETE"),
    "/api/matches/{match_id}/confirm": ("POST", "GET"),
    "/api/matches/{match_id}/inputs": ("POST",),
    "/api/matches/{match_id}/actions": ("POST",),
    "/console": ("GET",),
    "/api/referee/me": ("GET",),
    "/api/referee/matches": ("GET",),
    "/api/referee/audit": ("GET",),
    "/api/referee/anomalies": ("POST",),
    "/api/referee/matches/{match_id}/events": ("GET",),
    "/api/matches/{match_id}/export/{name}": ("GET",),
    "/api/matches/{match_id}/analysis": ("GET",),
    "/api/devices": ("GET",),
    "/api/team-matches": ("GET",),
    "/api/team-matches/{team_id}": ("GET",),
    "/team/{team_id}": ("GET",),
    "/pgn/round-{round:int}.pgn": ("GET",),
    "/api/rounds": ("POST", "GET"),
    "/standings": ("GET",),
    "/api/standings": ("GET",),
    "/api/rounds/{round:int}/export.trf": ("GET",),
    "/api/rounds/{round:int}/export.csv": ("GET",),
    "/pgn/{match_id}.pgn": ("GET",),
    "/api/tables/{table_id}/command": ("POST",),
    "/api/tables/{table_id}/scored-by": ("POST",),
    "/api/tables/cards": ("GET",),
    "/pad/{table_id}": ("GET",),
    "/api/pad/{table_id}": ("GET", "POST"),
    "/api/pad/{table_id}/signoff": ("POST",),
    "/static": ("GET",),
}


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory):
    with (
        # T1 has a simulated board, so commands reach the device's checks and, when valid, the device
        HubThread(tmp_path_factory.mktemp("fuzz") / "data", frames_per_s=10, board=True) as running,
        httpx.Client(base_url=running.url.rstrip("/"), timeout=15) as running.http,
    ):
        yield running


def test_the_schema_covers_every_route(hub) -> None:
    runtime = hub.runtime
    assert runtime.ingest is not None
    app = create_app(
        WebContext(runtime.hall, runtime.fanout, runtime.ingest, runtime.auth, browsers=runtime.browsers)
    )
    served = {
        r.path for r in app.routes if isinstance(r, Route | Mount) and not isinstance(r, WebSocketRoute)
    }
    assert served == set(SCHEMA), f"routes without a fuzz schema: {served - set(SCHEMA)}"


counts: Counter[int] = Counter()


def _fill(template: str, segments: list[str]) -> str:
    path, parts = template, iter(segments)
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        name = path[start + 1 : end]
        value = str(abs(hash(next(parts))) % 30) if name.endswith(":int") else next(parts)
        path = path[:start] + value + path[end + 1 :]
    return path + ("/" + next(parts) if template == "/static" else "")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    route=st.sampled_from(sorted(SCHEMA)),
    method_pick=st.integers(0, 3),
    segments=st.lists(SEGMENT, min_size=3, max_size=3),
    query=QUERY,
    body=BODY,
    auth=AUTH,
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", None]
    ),
)
def test_no_request_gets_a_500(hub, route, method_pick, segments, query, body, auth, content_type) -> None:
    methods = SCHEMA[route]
    method = methods[method_pick % len(methods)]
    path = _fill(route, segments)
    headers = {}
    if auth is not None:
        headers["Authorization"] = auth
    if content_type is not None:
        headers["Content-Type"] = content_type
    response = hub.http.request(
        method, path, params=query, headers=headers, content=body if method == "POST" else None
    )
    counts[response.status_code] += 1
    assert response.status_code < 500, (method, path, body, response.text[:300])
    if path.startswith("/api/") and response.status_code >= 400:
        answer = response.json()
        assert isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"], answer


VALIDATED = {  # the routes that read a body or a query (always with the referee's token and a real match),
    # with the fields their bodies are made of, the one that picks the rest first
    "POST /api/matches/{match_id}/actions": (
        "action",
        *("anomaly", "reason", "score", "winner", "side", "penalty", "loser"),
        *("appellant", "decision", "reasoning"),
    ),
    "POST /api/matches/{match_id}/inputs": (
        "type",
        *("side", "card", "player", "points", "games", "reason", "server", "ends"),
    ),
    "POST /api/tables/{table_id}/command": ("cmd", "text", "seconds", "remaining_ms", "running"),
    "GET /api/referee/matches/{match_id}/events": (),
    "POST /api/referee/anomalies": ("action", "match", "code", "reason"),
}
refusals: Counter[str] = Counter()


def _route_body(route: str) -> st.SearchStrategy[bytes]:
    """Bodies of any shape, and bodies made of the route's own fields (so its checks, not the unknown-field
    refusal, decide): some with values past every range, some nested as deep as the parser allows."""
    fields = VALIDATED[route]
    if not fields:
        return BODY
    own = st.fixed_dictionaries(
        {fields[0]: VALUES.get(fields[0], JSON)}, optional={f: VALUES.get(f, JSON) for f in fields[1:]}
    )
    return st.one_of(
        BODY,
        own.map(lambda d: json.dumps(d).encode()),
        st.builds(_deep, own, st.sampled_from(fields), st.integers(1, 1000)),
    )


ROUTE_AND_BODY = st.sampled_from(sorted(VALIDATED)).flatmap(
    lambda route: st.tuples(st.just(route), _route_body(route))
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route_and_body=ROUTE_AND_BODY, match=st.sampled_from(MATCH_IDS), query=QUERY)
def test_validated_routes_name_the_field_they_refuse(hub, route_and_body, match, query) -> None:
    route, body = route_and_body
    method, template = route.split(" ")
    path = template.replace("{match_id}", match).replace("{table_id}", "T1")
    response = hub.http.request(
        method,
        path,
        params=query if method == "GET" else None,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        content=body if method == "POST" else None,
    )
    counts[response.status_code] += 1
    assert response.status_code < 500, (method, path, body, response.text[:300])
    if response.status_code == 400:
        answer = response.json()
        refusals[answer["field"]] += 1
        assert answer["field"] == "body" or answer["field"] in answer["error"], answer


def test_zz_fuzz_ledger(tried: Tried) -> None:
    """Runs after the fuzz (file order): puts its figures in the reliability report."""
    if not counts:
        pytest.skip("records the fuzz tests above; run with them")
    total = sum(counts.values())
    assert total >= 700 and not any(status >= 500 for status in counts)
    tried(
        "schema-driven HTTP fuzz of every REST route (paths, queries, tokens, bodies)",
        area="bad requests",
        count=total,
        observed="no 500; every /api error a JSON body with its reason, every 400 naming the field; statuses "
        + ", ".join(f"{s}×{n}" for s, n in sorted(counts.items())),
        test="test_no_request_gets_a_500, test_validated_routes_name_the_field_they_refuse",
    )
    tried(
        "bad bodies and queries for the validating routes (referee token, real matches)",
        area="bad requests",
        count=sum(refusals.values()),
        observed="every one a 400 whose JSON names the field; by field: "
        + ", ".join(f"{f}×{n}" for f, n in refusals.most_common()),
        test="test_validated_routes_name_the_field_they_refuse",
    )
