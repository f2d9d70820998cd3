"""The Boardcast Wire `backgammon-board` STATE and EVENT bodies, read strictly into backgammon reports."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from devices.observations import BackgammonBoardEvent, BackgammonBoardState, ResignValue
from devices.wire.bodies import PAIR, BodyError, Pair, Side, read_body, require_lists
from devices.wire.reports import read_event

BACKGAMMON_EVENT_KINDS = ("press", "cube", "roll", "invalid_dice", "opening", "resign", "accept", "reject")
CUBE_ACTIONS = ("double", "take", "drop")

Die = Annotated[int, Meta(ge=1, le=6)]
Dice = tuple[Die, Die]
DiceSource = Literal["keypad", "app", "camera"]  # devices.observations.DICE_SOURCES
CubeValue = Literal[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]


class _Cube(msgspec.Struct, frozen=True):
    value: CubeValue
    owner: Side | None = None


class _BackgammonBody(msgspec.Struct):
    points: Annotated[tuple[int, ...], Meta(min_length=24, max_length=24)]
    bar: Pair
    off: Pair
    dice: Dice | None = None
    dice_source: DiceSource | None = None
    cube: _Cube = _Cube(1)
    turn: Side | None = None


_STATE_MUSTS = {
    "points": "a list of 24 integers",
    "bar": PAIR,
    "off": PAIR,
    "dice": "two dice 1..6",
    "dice_source": "'keypad', 'app', 'camera' or null",
    "cube": "a map {'value': 1|2|4.., 'owner': 0|1|null}",
    "cube.value": "a power of two from 1 to 4096",
    "cube.owner": "0, 1 or null",
    "turn": "0, 1 or null",
}


def decode_backgammon_state(body: Any) -> BackgammonBoardState:
    """Read a backgammon-board STATE body; `dice`, `dice_source`, `cube.owner` and `turn` may be null."""
    state = read_body(body, _BackgammonBody, "state", _STATE_MUSTS)
    require_lists(body, "state", _STATE_MUSTS, "points")
    points, bar, off = state.points, state.bar, state.off
    if any(abs(n) > 15 for n in points):
        raise BodyError(f"state.points must count at most 15 checkers on a point, got {list(points)!r}")
    if max(*bar, *off) > 15:
        raise BodyError(f"state.bar and state.off must be 0..15, got bar {list(bar)!r}, off {list(off)!r}")
    return BackgammonBoardState(
        points=points,
        bar=bar,
        off=off,
        dice=state.dice,
        dice_source=state.dice_source,
        cube_value=state.cube.value,
        cube_owner=state.cube.owner,
        turn=state.turn,
    )


class _Press(msgspec.Struct):
    side: Side
    remaining_ms: Pair | None = None


class _CubeAction(msgspec.Struct):
    side: Side
    action: Literal["double", "take", "drop"]


class _Roll(msgspec.Struct):
    side: Side
    dice: Dice
    source: DiceSource | None = None


class _InvalidDice(msgspec.Struct):
    side: Side


class _Opening(msgspec.Struct):
    dice: Dice


class _Resign(msgspec.Struct):
    side: Side
    value: ResignValue  # single, gammon, backgammon


class _Answer(msgspec.Struct):  # accept or reject, by the opponent of the side resigning
    side: Side


_EVENT_DATA: dict[str, type[msgspec.Struct]] = {  # each event kind's data, in BACKGAMMON_EVENT_KINDS' order
    "press": _Press,
    "cube": _CubeAction,
    "roll": _Roll,
    "invalid_dice": _InvalidDice,
    "opening": _Opening,
    "resign": _Resign,
    "accept": _Answer,
    "reject": _Answer,
}
_EVENT_MUSTS = {
    "side": "0 or 1",
    "remaining_ms": PAIR,
    "action": "'double', 'take' or 'drop'",
    "dice": "two dice 1..6",
    "source": "'keypad', 'app', 'camera' or null",
    "value": "1 (single), 2 (gammon) or 3 (backgammon)",
}


def decode_backgammon_event(body: Any) -> BackgammonBoardEvent:
    """Read a backgammon-board EVENT body (press, cube, roll, invalid_dice, opening, resign, accept or reject),
    field by field."""
    event = read_event(body)
    kind = event.kind
    data_type = _EVENT_DATA.get(kind)
    if data_type is None:
        raise BodyError(
            f"event.kind of a backgammon-board must be one of {', '.join(BACKGAMMON_EVENT_KINDS)}, got {kind!r}"
        )
    data = read_body(event.data, data_type, f"event.data ({kind})", _EVENT_MUSTS)
    fields = msgspec.structs.asdict(data)  # in their order on the wire, pairs as lists
    return BackgammonBoardEvent(
        kind, {name: list(v) if type(v) is tuple else v for name, v in fields.items()}
    )
