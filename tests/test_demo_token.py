"""The demo referee's token stays the same for one data directory: kept there (0600), printed again on restart,
and checked by its hash."""

from __future__ import annotations

import stat
from pathlib import Path

from boardcast_sim.demo.run import TOKEN_FILE, build_demo_venue, demo_token
from hub.referee.tokens import hash_token
from tests.conftest import start_demo
from tests.hubsupport import get_json_as


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_token_is_kept_in_the_data_directory_for_the_hubs_user_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = demo_token(data)
    kept = data / TOKEN_FILE
    assert mode(kept) == 0o600 and len(first) >= 32
    assert demo_token(data) == first  # the same data directory: the same token
    kept.chmod(0o644)
    assert demo_token(data) == first and mode(kept) == 0o600  # made private again
    assert demo_token(tmp_path / "other") != first  # another hall's demo gets its own
    venue = build_demo_venue(1, token=first)
    try:
        assert venue.token == first
        assert [r.token_sha256 for r in venue.venue.referees] == [hash_token(first)]  # checked by its hash
    finally:
        for pty in venue.ptys:
            pty.close()


def test_a_restarted_demo_prints_and_accepts_the_same_token(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_demo(data, tables=1)
    try:
        assert get_json_as(first.url + "api/referee/me", first.token)[0] == 200
    finally:
        assert first.stop() == 0
    again = start_demo(data, tables=1)
    try:
        assert again.token == first.token
        status, me = get_json_as(again.url + "api/referee/me", again.token)
        assert status == 200 and me["role"] == "chief", me
    finally:
        again.stop()
