"""The pure parts of `hub.limits`: token buckets with time as an argument, and the cross-site test."""

from __future__ import annotations

import pytest

from hub.limits import RateLimiter, cross_site


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
        (
            {"host": "10.0.0.2:8000", "x_forwarded_host": "salon.example", "origin": "https://salon.example"},
            False,
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
