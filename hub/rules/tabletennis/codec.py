"""Table-tennis inputs and state as plain JSON data, and device reports as engine inputs."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from devices.observations import DeviceEvent, ScoreboardState
from devices.strict import Complaint, by_tag, complaint
from hub.rules.snapshot import StateCodec
from hub.rules.tabletennis.model import (
    CARDS,
    DOUBLES_PLAYERS,
    ENDS,
    Card,
    Correction,
    Display,
    ExpediteStart,
    Input,
    OtherEvent,
    PointRecord,
    TableTennisConfig,
    TableTennisState,
    Tick,
    TimeOut,
    Toss,
    UmpirePoint,
    UmpireUndo,
)
from hub.rules.tabletennis.views import view


def _side_of(data: dict[str, Any]) -> int:
    side = data.get("side")
    if side in ("A", "B"):
        return 0 if side == "A" else 1
    if side not in (0, 1) or isinstance(side, bool):
        raise ValueError(f"side must be 0 or 1, got {side!r}")
    return int(side)


def to_input(report: ScoreboardState | DeviceEvent | Input) -> Input:
    """An engine input from a device report; events the rules cannot read become `OtherEvent`."""
    if isinstance(report, ScoreboardState):
        return Display.of(report)
    if isinstance(report, DeviceEvent):
        data = dict(report.data)
        try:
            if report.kind == "timeout":
                return TimeOut(_side_of(data))
            if report.kind == "card" and data.get("card") in CARDS:
                return Card(_side_of(data), data["card"], data.get("player"))
            if report.kind == "expedite":
                ball = data.get("ball_in_play")
                return ExpediteStart(ball if isinstance(ball, bool) else None)
            if report.kind == "point":
                return UmpirePoint(_side_of(data))
            if report.kind == "undo":
                return UmpireUndo(None if data.get("side") is None else _side_of(data))
            if report.kind == "toss":
                return msgspec.convert({"type": "toss", **data}, _Toss, strict=True).input()
        except (ValueError, msgspec.ValidationError):
            pass
        return OtherEvent(report.kind, data)
    return report


def _pair(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def input_to_dict(item: Any) -> dict[str, Any]:
    """An input (or a device report) as plain data with a "type" key; `input_from_dict` reverses it."""
    if type(item) is ScoreboardState:  # every scoreboard report: `Display.of` and the dict below, in one
        points, games, history = item.points, item.games, item.game_scores
        return {
            "type": "display",
            "points": [int(points[0]), int(points[1])],
            "games": [int(games[0]), int(games[1])],
            "server": item.server,
            "game_scores": [[int(a), int(b)] for a, b in history] if history else [],
            "ends": None if item.ends is None else str(item.ends),
            "expedite": item.expedite,
            "server_player": None if item.server_player is None else str(item.server_player),
        }
    item = to_input(item)
    if isinstance(item, Display):
        return {
            "type": "display",
            "points": list(item.points),
            "games": list(item.games),
            "server": item.server,
            "game_scores": [list(g) for g in item.game_scores],
            "ends": item.ends,
            "expedite": item.expedite,
            "server_player": item.server_player,
        }
    if isinstance(item, TimeOut):
        return {"type": "timeout", "side": item.side}
    if isinstance(item, Card):
        return {"type": "card", "side": item.side, "card": item.card, "player": item.player}
    if isinstance(item, ExpediteStart):
        return {"type": "expedite", "ball_in_play": item.ball_in_play}
    if isinstance(item, UmpirePoint):
        return {"type": "point", "side": item.side}
    if isinstance(item, UmpireUndo):
        return {"type": "undo", "side": item.side}
    if isinstance(item, Correction):
        return {
            "type": "correction",
            "points": list(item.points),
            "games": list(item.games),
            "reason": item.reason,
            "server": item.server,
            "ends": item.ends,
        }
    if isinstance(item, Toss):
        return {"type": "toss", "server": item.server, "receiver": item.receiver}
    if isinstance(item, Tick):
        return {"type": "tick"}
    if isinstance(item, OtherEvent):
        return {"type": "event", "kind": item.kind, "data": dict(item.data)}
    raise TypeError(f"no table-tennis input encoding for {type(item).__name__}")


_Count = Annotated[int, msgspec.Meta(ge=0)]
_Side = Literal[0, 1]
_End = Literal["normal", "swapped"]
_Player = Literal["A1", "A2", "B1", "B2"]
_CardName = Literal["yellow", "yellow_red", "red"]
if get_args(_End) != ENDS or get_args(_Player) != DOUBLES_PLAYERS or get_args(_CardName) != CARDS:
    raise ImportError("the table-tennis input types disagree with the model's ENDS, DOUBLES_PLAYERS or CARDS")


class _Input(msgspec.Struct, tag_field="type", frozen=True):
    """An input as plain data, read strictly (True is not side 1, nor 1.0); `input` builds the rules' value."""

    def input(self) -> Input:
        raise NotImplementedError


class _Display(_Input, tag="display", frozen=True):
    points: tuple[_Count, _Count]
    games: tuple[_Count, _Count]
    server: _Side | None = None
    game_scores: tuple[tuple[_Count, _Count], ...] | None = ()
    ends: _End | None = None
    expedite: bool | None = None
    server_player: _Player | None = None

    def input(self) -> Input:
        history = self.game_scores or ()
        return Display(
            self.points, self.games, self.server, history, self.ends, self.expedite, self.server_player
        )


class _TimeOut(_Input, tag="timeout", frozen=True):
    side: _Side

    def input(self) -> Input:
        return TimeOut(self.side)


class _Card(_Input, tag="card", frozen=True):
    side: _Side
    card: _CardName
    player: _Player | None = None

    def input(self) -> Input:
        return Card(self.side, self.card, self.player)


class _ExpediteStart(_Input, tag="expedite", frozen=True):
    ball_in_play: bool | None = None

    def input(self) -> Input:
        return ExpediteStart(self.ball_in_play)


class _Point(_Input, tag="point", frozen=True):
    side: _Side

    def input(self) -> Input:
        return UmpirePoint(self.side)


class _Undo(_Input, tag="undo", frozen=True):
    side: _Side | None = None  # the last point of the game in play, whoever won it

    def input(self) -> Input:
        return UmpireUndo(self.side)


class _Correction(_Input, tag="correction", frozen=True):
    points: tuple[_Count, _Count]
    games: tuple[_Count, _Count]
    reason: str = ""
    server: _Side | _Player | None = None  # a side, or in doubles the player
    ends: _End | None = None

    def input(self) -> Input:
        return Correction(self.points, self.games, self.reason, self.server, self.ends)


class _Toss(_Input, tag="toss", frozen=True):
    server: Literal["A", "B"] | _Player
    receiver: _Player | None = None  # doubles: the first receiver

    def input(self) -> Input:
        return Toss(self.server, self.receiver)


class _Tick(_Input, tag="tick", frozen=True):
    def input(self) -> Input:
        return Tick()


# each input's Struct by its "type"
_BY_TYPE: dict[str, type[_Input]] = by_tag(
    _Display, _TimeOut, _Card, _ExpediteStart, _Point, _Undo, _Correction, _Toss, _Tick
)

# what each field must be, as the errors say it
_MUST = {
    "points": "two non-negative integers",
    "games": "two non-negative integers",
    "game": "two non-negative integers",  # one of game_scores
    "game_scores": "a list of [a, b] pairs or null",
    "server": "one of 0, 1 or null",
    "ends": f"one of {', '.join(ENDS)} or null",
    "expedite": "one of True, False or null",
    "server_player": f"one of {', '.join(DOUBLES_PLAYERS)} or null",
    "player": f"one of {', '.join(DOUBLES_PLAYERS)} or null",
    "side": "0 or 1",  # or null for an undo
    "card": f"one of {', '.join(CARDS)}",
    "ball_in_play": "one of True, False or null",
    "reason": "text",
}
_SERVER_OR_PLAYER = f"one of 0, 1, {', '.join(DOUBLES_PLAYERS)} or null"
_TOSS_MUST = {  # a toss names sides and players by letter: A or B, or in doubles A1..B2
    "server": f"one of A, B, {', '.join(DOUBLES_PLAYERS)}",
    "receiver": f"one of {', '.join(DOUBLES_PLAYERS)} or null",
}


def input_from_dict(data: dict[str, Any]) -> Input:
    """The inverse of `input_to_dict`; a dict without "type" is a display (the skeleton's log bodies).

    Read strictly by msgspec. Raises ValueError naming the field when the data is not a valid input (for
    referee input checked at the API before it is logged; what `input_to_dict` wrote always reads back).
    Keys an input does not have are ignored (the referee API names them itself); a type the rules do not
    know is an `OtherEvent`."""
    kind = data.get("type", "display")
    into = _BY_TYPE.get(kind) if type(kind) is str else None
    if into is None:
        return OtherEvent(str(data.get("kind", kind)), dict(data.get("data") or {}))
    try:
        return msgspec.convert(data, into, strict=True).input()
    except msgspec.ValidationError as exc:
        said = complaint(exc)
        if said.path == ("game_scores",) and not data["game_scores"]:  # false, 0, {}: no history, as ever
            return input_from_dict({**data, "game_scores": None})
        raise _error(kind, data, said) from None


def _error(kind: str, data: dict[str, Any], said: Complaint) -> ValueError:
    """msgspec's complaint in our words: the field, what it must be and what it was."""
    key = said.field or "type"
    if key == "game_scores" and len(said.path) > 1:
        key, value = "game", said.value(data, 2)
    else:
        value = said.value(data)
    what = _TOSS_MUST.get(key) if kind == "toss" else None
    if what is None:
        what = (
            _SERVER_OR_PLAYER if (kind, key) == ("correction", "server") else _MUST.get(key, "something else")
        )
    return ValueError(f"{key} must be {what}, got {value!r}")


def _config_to_dict(c: TableTennisConfig) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(c)  # its fields by name; `_decode` converts them back
    return data


def _anchor(value: Any) -> tuple[int, int, str, str] | None:
    return None if value is None else (int(value[0]), int(value[1]), str(value[2]), str(value[3]))


def _encode(state: TableTennisState) -> dict[str, Any]:
    """The state as plain JSON data: the keys the hub and screens read (`view`, less the game to come, which
    screens are told and the state does not hold), then what resuming needs."""
    shown = view(state)
    del shown["next_game"]
    return {**shown, **_bookkeeping(state)}


def _bookkeeping(state: TableTennisState) -> dict[str, Any]:
    return {
        "config": _config_to_dict(state.config),
        "toss": None if state.toss is None else list(state.toss),
        "game_order": None if state.game_order is None else list(state.game_order),
        "final_scores": None if state.final_scores is None else [list(g) for g in state.final_scores],
        "swap_at": state.swap_at,
        "ends_anchor": list(state.ends_anchor),
        "expedite_anchor": None if state.expedite_anchor is None else list(state.expedite_anchor),
        "order_anchor": None if state.order_anchor is None else list(state.order_anchor),
        "timeout_at": state.timeout_at,
        "unshown": list(state.unshown),
        "carry": list(state.carry),
        "game_clock": state.game_clock,
        "paused": state.paused,
        "expedite_due_game": state.expedite_due_game,
        "expedite_dropped_game": state.expedite_dropped_game,
        "ends_flagged": state.ends_flagged,
        "last_display": None if state.last_display is None else input_to_dict(state.last_display),
    }


def _last_display_from_dict(data: dict[str, Any]) -> Display:
    """The last display as `_bookkeeping` wrote it (`input_to_dict` of a Display)."""
    display = input_from_dict(data)
    if not isinstance(display, Display):
        raise ValueError(f"last_display must be a display, got {data!r}")
    return display


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1: every snapshot before versions. The skeleton states of the first hubs had no `config`
    (only `best_of`) and lacked what later rules added; their values are those of a match that never had
    them: no toss or order yet, no expedite, no time-out, card or penalty point, nothing carried or unshown."""
    config = data.get("config") or {"best_of": data["best_of"]}
    defaults: dict[str, Any] = {
        "toss": None,
        "game_order": None,
        "final_scores": None,
        "cards": [[], []],
        "swap_at": None,
        "ends_anchor": [0, "normal"],
        "expedite": False,
        "expedite_since": None,
        "expedite_anchor": None,
        "order_anchor": None,
        "timeouts": [False, False],
        "timeout_active": None,
        "timeout_at": None,
        "penalty_points": [0, 0],
        "unshown": [0, 0],
        "carry": [0, 0],
        "game_clock": None,
        "paused": 0.0,
        "expedite_due_game": None,
        "expedite_dropped_game": None,
        "ends_flagged": None,
        "last_display": None,
        "points_log": [],
    }
    return {**defaults, **data, "config": {**_config_to_dict(TableTennisConfig()), **config}}


def _decode(data: dict[str, Any]) -> TableTennisState:
    """A state from the current snapshot form (`_encode`); every key is there."""
    since, last, toss = data["expedite_since"], data["last_display"], data["toss"]
    order, final, cards = data["game_order"], data["final_scores"], data["cards"]
    anchor = data["ends_anchor"]
    return TableTennisState(
        config=msgspec.convert(data["config"], TableTennisConfig),
        toss=None if toss is None else (toss[0], toss[1]),
        game_order=None if order is None else (order[0], order[1]),
        points=_pair(data["points"]),
        games=_pair(data["games"]),
        game_scores=tuple(_pair(g) for g in data["game_scores"]),
        winner=data["winner"],
        final_scores=None if final is None else tuple(_pair(g) for g in final),
        rallies=data["rallies"],
        swap_at=data["swap_at"],
        ends_anchor=(int(anchor[0]), str(anchor[1])),
        expedite=data["expedite"],
        expedite_since=None if since is None else (since["game"], _pair(since["points"])),
        expedite_anchor=_anchor(data["expedite_anchor"]),
        order_anchor=_anchor(data["order_anchor"]),
        timeouts=(bool(data["timeouts"][0]), bool(data["timeouts"][1])),
        timeout_active=data["timeout_active"],
        timeout_at=data["timeout_at"],
        cards=(tuple(cards[0]), tuple(cards[1])),
        penalty_points=_pair(data["penalty_points"]),
        unshown=_pair(data["unshown"]),
        carry=_pair(data["carry"]),
        game_clock=data["game_clock"],
        paused=data["paused"],
        expedite_due_game=data["expedite_due_game"],
        expedite_dropped_game=data["expedite_dropped_game"],
        ends_flagged=data["ends_flagged"],
        last_display=None if last is None else _last_display_from_dict(last),
        points_log=msgspec.convert(data["points_log"], tuple[PointRecord, ...]),
    )


SNAPSHOT: StateCodec[TableTennisState] = StateCodec(2, _encode, _decode, {1: _from_version_1})


def to_dict(state: TableTennisState) -> dict[str, Any]:
    """The state as a snapshot: its version, then the keys the hub and screens read, then resuming's."""
    return SNAPSHOT.to_dict(state)


def from_dict(data: dict[str, Any]) -> TableTennisState:
    """A state from a snapshot of any version (`to_dict`'s inverse)."""
    return SNAPSHOT.from_dict(data)
