"""Digital boards: their reports as plain data, and as the match events they stand for."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from devices.observations import RESIGN_VALUES, DeviceEvent
from hub.rules import clock as clk
from hub.rules.backgammon.model import Position, pair
from hub.rules.backgammon.reducer import apply
from hub.rules.backgammon.resign import CUBE_VALUES
from hub.rules.backgammon.state import (
    BackgammonState,
    BoardSnapshot,
    ClockPress,
    Cube,
    CubeAction,
    Event,
    HandGame,
    InvalidDice,
    Opening,
    Phase,
    Resign,
    ResignAnswer,
    ResignReply,
    Roll,
    Tick,
    initial,
)
from hub.rules.backgammon.terms import CLOCK_MODES
from hub.rules.base import Anomaly, Fact, Outcome


@dataclass(frozen=True, slots=True)
class BackgammonConfig:
    """A match's configuration from the venue: its length, an optional delay clock, the score it starts at."""

    length: int
    clock_mode: str | None = None  # "simple" | "bronstein" | None: no clock
    reserve_s: float = 600.0
    delay_s: float = 12.0
    start_score: tuple[int, int] = (0, 0)  # a match resumed at a score

    def control(self) -> clk.TimeControl | None:
        """The clock's time control, or None."""
        if self.clock_mode is None:
            return None
        return clk.TimeControl.delay(self.reserve_s, self.delay_s, self.clock_mode)

    def clock_text(self) -> str:
        """The clock as one short text (`simple:600:12`), or "" without a clock."""
        if self.clock_mode is None:
            return ""
        return f"{self.clock_mode}:{self.reserve_s:g}:{self.delay_s:g}"

    @classmethod
    def from_text(cls, length: int, text: str | None) -> BackgammonConfig:
        """The inverse of `clock_text`; any text that is not a clock means no clock."""
        parts = (text or "").split(":")
        if len(parts) == 3 and parts[0] in CLOCK_MODES:
            return cls(length, parts[0], float(parts[1]), float(parts[2]))
        return cls(length)


def initial_from_config(config: BackgammonConfig) -> BackgammonState:
    """`initial` for the hub's match model."""
    return initial(config.length, config.control(), config.start_score)


def input_to_dict(item: Any) -> dict[str, Any]:
    """A backgammon board's report as plain data with a "type" key; `input_from_dict` reverses it."""
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(item, BackgammonBoardState):
        return {
            "type": "board",
            "points": list(item.points),
            "bar": list(item.bar),
            "off": list(item.off),
            "dice": None if item.dice is None else list(item.dice),
            "dice_source": item.dice_source,
            "cube": {"value": item.cube_value, "owner": item.cube_owner},
            "turn": item.turn,
        }
    if isinstance(item, BackgammonBoardEvent):
        return {"type": item.kind, **item.data}
    if isinstance(
        item, DeviceEvent
    ):  # an umpire's browser device: its taps, checked here (a board's when decoded)
        try:
            return {"type": item.kind, **_checked(item.kind, dict(item.data))}
        except (KeyError, ValueError):
            return {
                "type": "event",
                "kind": item.kind,
                "data": dict(item.data),
            }  # kept; the rules read nothing
    raise TypeError(f"not a backgammon input: {item!r}")


def input_from_dict(data: dict[str, Any]) -> Any:
    """The inverse of `input_to_dict`; raises ValueError naming what is wrong."""
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    kind = data.get("type")
    if kind == "board":
        dice = data.get("dice")
        cube = data.get("cube") or {}
        return BackgammonBoardState(
            tuple(data["points"]),
            pair(data["bar"]),
            pair(data["off"]),
            None if dice is None else pair(dice),
            data.get("dice_source"),
            cube.get("value", 1),
            cube.get("owner"),
            data.get("turn"),
        )
    if kind in ("press", "cube", "roll", "invalid_dice", "opening"):
        return BackgammonBoardEvent(kind, {k: v for k, v in data.items() if k != "type"})
    if kind in RESIGN_INPUTS or kind in HAND_INPUTS:
        return BackgammonBoardEvent(kind, _checked(kind, data))
    if kind == "event":  # a tap the rules do not read, kept in the log
        return BackgammonBoardEvent("event", {"kind": data.get("kind"), "data": data.get("data")})
    raise ValueError(f"unknown backgammon input type {kind!r}")


RESIGN_INPUTS = ("resign", "accept", "reject")  # a board's or a referee's: the offer and the answer
HAND_INPUTS = ("game",)  # a game scored by hand: its winner, how, the cube, resigned or not


def _checked(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A resignation's, an answer's or a hand-scored game's fields, read strictly; ValueError naming the field."""
    if kind in RESIGN_INPUTS:
        return _resign_data(kind, data)
    if kind != "game":
        raise ValueError(f"unknown backgammon input type {kind!r}")
    winner, value, cube = data["winner"], data["value"], data.get("cube", 1)
    resigned = data.get("resigned", False)
    if winner not in (0, 1) or isinstance(winner, bool):
        raise ValueError(f'game "winner" must be 0 or 1, got {winner!r}')
    if value not in RESIGN_VALUES or isinstance(value, bool):
        raise ValueError(f'game "value" must be 1 (single), 2 (gammon) or 3 (backgammon), got {value!r}')
    if cube not in CUBE_VALUES or isinstance(cube, bool):
        raise ValueError(f'game "cube" must be one of {", ".join(map(str, CUBE_VALUES))}, got {cube!r}')
    if not isinstance(resigned, bool):
        raise ValueError(f'game "resigned" must be true or false, got {resigned!r}')
    return {"winner": winner, "value": value, "cube": cube, "resigned": resigned}


def _resign_data(kind: str, data: dict[str, Any]) -> dict[str, int]:
    """A resignation's or an answer's fields, read strictly (a referee's input is refused naming the field)."""
    side = data["side"]
    if side not in (0, 1) or isinstance(side, bool):
        raise ValueError(f'{kind} "side" must be 0 or 1, got {side!r}')
    if kind != "resign":
        return {"side": side}
    value = data["value"]
    if value not in RESIGN_VALUES or isinstance(value, bool):
        raise ValueError(f'resign "value" must be 1 (single), 2 (gammon) or 3 (backgammon), got {value!r}')
    return {"side": side, "value": value}


def events_of(state: BackgammonState, report: Any) -> list[Event]:
    """The match events a board's report stands for, given what the match knows now.

    A STATE whose dice differ from the dice the board last showed is a roll (the opening roll while the
    match waits for one: dice[0] is A's die); a STATE whose checkers differ from the position is a board
    snapshot, folded after the roll. EVENTs map one to one.
    """
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(
        report, Tick | Opening | Roll | InvalidDice | BoardSnapshot | ClockPress | Cube | Resign | ResignReply
    ):
        return [report]
    events: list[Event] = []
    if isinstance(report, BackgammonBoardState):
        dice = report.dice
        if dice is not None and dice != state.shown_dice:
            if state.phase is Phase.OPENING:
                events.append(Opening(dice))
            else:
                side = report.turn if report.turn in (0, 1) else state.turn
                events.append(Roll(side, dice, report.dice_source or ""))
        position = Position(report.points, report.bar, report.off)
        if not position.same_board(state.position):
            events.append(BoardSnapshot(report.points, report.bar, report.off))
        return events
    if isinstance(report, BackgammonBoardEvent):
        d = report.data
        if report.kind == "press":
            return [ClockPress(d["side"])]
        if report.kind == "cube":
            return [Cube(CubeAction(d["action"]), d["side"])]
        if report.kind == "roll":
            return [Roll(d["side"], pair(d["dice"]), d.get("source") or "")]
        if report.kind == "invalid_dice":
            return [InvalidDice(d["side"])]
        if report.kind == "opening":
            return [Opening(pair(d["dice"]))]
        if report.kind == "resign":
            return [Resign(d["side"], d["value"])]
        if report.kind in ("accept", "reject"):
            return [ResignReply(ResignAnswer(report.kind), d["side"])]
        if report.kind == "game":
            return [HandGame(d["winner"], d["value"], d["cube"], d["resigned"])]
    return events


def _shown_after(state: BackgammonState, report: Any) -> tuple[int, int] | None:
    from devices.observations import BackgammonBoardEvent, BackgammonBoardState

    if isinstance(report, BackgammonBoardState):
        return report.dice
    if isinstance(report, BackgammonBoardEvent):
        if report.kind in ("roll", "opening"):
            return pair(report.data["dice"])
        if report.kind == "invalid_dice":
            return None
    return state.shown_dice


def apply_report(state: BackgammonState, report: Any, at: float) -> Outcome[BackgammonState]:
    """Fold a board's report (or a match event) into the match: the hub's `apply` for backgammon."""
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    events = events_of(state, report)
    if not events and state.phase is Phase.MATCH_OVER:  # a board repeating its final display is no news
        return Outcome(replace(state, shown_dice=_shown_after(state, report)))
    for event in events or [Tick()]:
        outcome = apply(state, event, at)
        state = outcome.state
        facts.extend(outcome.facts)
        anomalies.extend(outcome.anomalies)
    state = replace(state, shown_dice=_shown_after(state, report))
    return Outcome(state, tuple(facts), tuple(anomalies))
