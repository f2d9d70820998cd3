"""`boardcast devices` and `boardcast device-token`, run as an organiser runs them."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from tests.conftest import ROOT


def boardcast(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hub", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_devices_lists_serial_ports_and_says_in_one_line_when_bluetooth_is_missing() -> None:
    result = boardcast("devices", "--scan", "0.5")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Serial ports / Seri portlar: ")
    count = int(lines[0].rsplit(" ", 1)[1])
    assert all(line.startswith("  serial://") for line in lines[1 : 1 + count])
    bluetooth = lines[1 + count :]
    # Either the scan ran, or one line says why it could not.
    assert bluetooth[0].startswith(("Bluetooth LE devices / BLE cihazları:", "Bluetooth is not available"))
    if bluetooth[0].startswith("Bluetooth is not available"):
        assert len(bluetooth) == 1 and "Bu makinede Bluetooth yok" in bluetooth[0]
    assert "Traceback" not in result.stderr


def test_device_token_prints_a_token_once_and_only_its_hash_for_the_venue() -> None:
    result = boardcast("device-token", "tt-0042")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    token = lines[1].strip()
    digest = lines[-1].split('"')[1]
    assert hashlib.sha256(token.encode()).hexdigest() == digest
    assert 'device_id = "tt-0042"' in result.stdout
    assert token not in lines[-1]


def test_device_token_refuses_a_bad_id() -> None:
    result = boardcast("device-token", "no spaces please")
    assert result.returncode == 2
    assert "is not a device id" in result.stderr
