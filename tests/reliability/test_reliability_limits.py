"""The pure parts of `hub.server.limits`: token buckets with time as an argument, and the cross-site test."""

from __future__ import annotations

import pytest

from hub.server.limits import Access, RateLimiter, access_for, cross_site, relative_location, split_host


def test_a_bucket_gives_its_burst_then_one_token_per_interval() -> None:
    bucket = RateLimiter(rate=2.0, burst=3)
    assert [bucket.take("a", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take("a", 0.0) == pytest.approx(0.5)  # says how long until the next token
    assert bucket.take("a", 0.5) == 0.0
    assert bucket.take("a", 0.5) > 0
    assert bucket.take("b", 0.5) == 0.0  # another address has its own bucket


def test_idle_buckets_are_forgotten_when_there_are_too_many() -> None:
    bucket = RateLimiter(rate=1.0, burst=2, max_keys=10)
    for n in range(10):
        bucket.take(str(n), 0.0)
    bucket.take("new", 100.0)  # everyone else is full again by now: forgotten, memory stays bounded
    assert len(bucket._buckets) == 1


def scope(**headers: str) -> dict:
    return {"headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]}


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"host": "hub:8000"}, False),  # curl, scripts: no Origin
        ({"host": "hub:8000", "origin": "http://hub:8000"}, False),
        ({"host": "HUB:8000", "origin": "http://hub:8000"}, False),
        (  # X-Forwarded-Host is the request's own word: no longer a name the Origin may match
            {"host": "10.0.0.2:8000", "x_forwarded_host": "salon.example", "origin": "https://salon.example"},
            True,
        ),
        ({"host": "hub:8000", "origin": "http://evil.example"}, True),
        ({"host": "hub:8000", "origin": "http://hub:8001"}, True),
        ({"host": "hub:8000", "origin": "null"}, True),
        ({"host": "hub:8000", "sec_fetch_site": "cross-site"}, True),
        ({"origin": "http://hub:8000"}, True),  # no Host to compare with
    ],
)
def test_cross_site(headers: dict, refused: bool) -> None:
    assert (cross_site(scope(**headers)) is not None) is refused


HALL = access_for("127.0.0.1", 8000, ("hall.example.org", "10.0.0.5:8443"), ("10.0.0.0/8",))


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"host": "evil:8000", "origin": "http://127.0.0.1:8000"}, False),  # the Origin is what counts
        ({"host": "localhost:8000", "origin": "http://localhost:8000"}, False),
        ({"host": "x", "origin": "https://hall.example.org"}, False),  # a name without a port: any port
        ({"host": "x", "origin": "https://10.0.0.5:8443"}, False),
        ({"host": "x", "origin": "https://10.0.0.5"}, True),  # a name with a port: that port only
        ({"host": "evil:8000", "origin": "http://evil:8000"}, True),  # DNS rebinding: Origin equals Host
        ({"host": "127.0.0.1:8000", "x_forwarded_host": "evil", "origin": "http://evil"}, True),
        ({"host": "127.0.0.1:8000", "origin": "ftp://127.0.0.1:8000"}, True),
    ],
)
def test_cross_site_against_the_hubs_names(headers: dict, refused: bool) -> None:
    assert (cross_site(scope(**headers), HALL) is not None) is refused


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Hall.Example.org.", ("hall.example.org", None)),
        ("hall:8000", ("hall", 8000)),
        ("[::1]:8000", ("::1", 8000)),
        ("fd00::2", ("fd00::2", None)),
        ("http://hall", None),
        ("hall/x", None),
        ("hall:0", None),
        ("hall:70000", None),
        ("a b", None),
        ("[::1", None),
    ],
)
def test_split_host(text: str, key: tuple | None) -> None:
    assert split_host(text) == key


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("203.0.113.1", "198.51.100.7", "203.0.113.1"),  # not a proxy: the header is ignored
        ("10.1.1.1", "198.51.100.7", "198.51.100.7"),
        ("10.1.1.1", "6.6.6.6, 198.51.100.7, 10.2.2.2", "198.51.100.7"),  # the last hop no proxy holds
        ("10.1.1.1", "[2001:db8::7]:5555", "2001:db8::7"),
        ("10.1.1.1", "not-an-address", "10.1.1.1"),
        ("10.1.1.1", "", "10.1.1.1"),
    ],
)
def test_the_client_behind_trusted_proxies(peer: str, forwarded: str, client: str) -> None:
    request = {"client": (peer, 1234), "headers": [(b"x-forwarded-for", forwarded.encode())]}
    assert HALL.client(request) == client
    assert Access().client(request) == peer


def test_an_absolute_location_becomes_a_path() -> None:
    headers = [(b"location", b"http://evil.example//x/y?q=1"), (b"content-type", b"text/plain")]
    assert relative_location(headers) == [(b"location", b"/x/y?q=1"), (b"content-type", b"text/plain")]
    assert relative_location([(b"location", b"/static/")]) == [(b"location", b"/static/")]


def test_a_name_without_a_port_is_on_its_schemes_default_port() -> None:
    """Browsers leave out :80 and :443 in Host and Origin: a hub on port 80 must still know itself."""
    on_80, on_443 = access_for("127.0.0.1", 80), access_for("127.0.0.1", 443)
    assert on_80.allows_host("127.0.0.1") and on_80.allows_host("127.0.0.1:80")
    assert not on_80.allows_host("127.0.0.1", "https") and not on_80.allows_host("127.0.0.1:8000")
    assert on_443.allows_host("localhost", "https") and not on_443.allows_host("localhost")
    origin = scope(origin="http://127.0.0.1", host="127.0.0.1")
    origin["method"] = "POST"
    assert cross_site(origin, on_80) is None
