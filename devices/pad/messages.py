"""What a pad sends the hub: its identity and the taps it has not yet seen stored, read strictly.

A pad (a browser page scoring one table) numbers its taps from 1 within its `epoch` (a number it draws when
its storage is new) and sends each until the hub says it is stored; `pad` is the id it keeps in its storage.
Nothing here is scored: a tap is what the umpire pressed, as a device event of the table's sport.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated

import msgspec

from devices.strict import complaint

MAX_REPORTS = 500  # taps in one message: more than a match's points, so a long outage sends in a few
MAX_SEQ = 2**53 - 1  # what a browser counts exactly

PadId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{8,64}$")]
Kind = Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z_]{0,31}$")]
Value = Annotated[str, msgspec.Meta(max_length=200)] | int | float | bool | None


class Tap(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One thing the umpire tapped: its number in the pad's epoch, the device event, and when it was tapped."""

    seq: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEQ)]
    kind: Kind
    data: Annotated[dict[Annotated[str, msgspec.Meta(max_length=32)], Value], msgspec.Meta(max_length=8)] = {}
    tapped_at: float | None = None  # the pad's clock when tapped (kept for the record; the hub's time rules)


class PadMessage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A pad's message: who it is and its taps not yet acknowledged, oldest first (none: it asks the state)."""

    pad: PadId
    epoch: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEQ)]
    reports: Annotated[list[Tap], msgspec.Meta(max_length=MAX_REPORTS)] = []


class MessageInvalid(ValueError):
    """A pad message that is not one; str() names the field, in English and Turkish."""


_DECODER = msgspec.json.Decoder(PadMessage)


def read_message(body: bytes) -> PadMessage:
    """A pad's message from its JSON body; raise MessageInvalid naming the field at fault."""
    try:
        message = _DECODER.decode(body)
    except msgspec.ValidationError as exc:
        said = complaint(exc)
        where = ".".join(str(p) for p in said.path) or "body"
        raise MessageInvalid(f"{where}: {said.reason} / geçersiz alan: {where}") from None
    except msgspec.DecodeError:
        raise MessageInvalid("the body is not JSON / gövde JSON değil") from None
    seqs = [tap.seq for tap in message.reports]
    if any(b <= a for a, b in pairwise(seqs)):
        raise MessageInvalid("reports: seq must grow, oldest first / numaralar artan sırada olmalı")
    return message


def encode_tap(tap: Tap) -> bytes:
    """A tap as the log keeps it raw: its JSON, exactly as read back."""
    return msgspec.json.encode(tap)
