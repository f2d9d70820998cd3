"""What a hub command to a device of any family comes to: the device's acknowledgement, or why it failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from devices.wire.messages import Command


@dataclass(frozen=True, slots=True)
class Ack:
    """A device's answer to a command; `ok` is None when the device cannot acknowledge at all."""

    seq: int
    ok: bool | None
    error: str = ""
    attempts: int = 1


class CommandFailed(RuntimeError):
    """A command that could not be delivered or was never acknowledged; the message says which."""


class NotConnected(CommandFailed):
    """A command not sent: no device is connected to the table (or it has not said HELLO yet)."""


class CommandTarget(Protocol):
    """What takes a table's commands: every device family's session."""

    url: str

    async def command(self, command: Command) -> Ack:
        """Deliver `command`; raise CommandFailed (NotConnected when no device is there) if it cannot."""
        ...


def not_connected(url: str, what: str) -> NotConnected:
    """The error of a command given while no device is connected (`what` names the command)."""
    return NotConnected(f"{url}: no device connected; {what} not sent / cihaz bağlı değil")
