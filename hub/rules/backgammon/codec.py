"""The match state as versioned snapshot data (`to_dict`, `from_dict`) and as GNU Backgammon / XG identifiers."""

from __future__ import annotations

from typing import Any

from hub.rules import clock as clk
from hub.rules.backgammon import ids
from hub.rules.backgammon.model import SIDE_NAMES, Position, notation, pair, side_name
from hub.rules.backgammon.score import crawford_next
from hub.rules.backgammon.state import Action, BackgammonState, GameRecord, Phase, PlayedTurn
from hub.rules.snapshot import StateCodec


def to_xgid(state: BackgammonState) -> ids.Xgid:
    """The state's XGID content (A is XG's bottom player)."""
    pos = state.position
    return ids.Xgid(
        points=pos.points,
        bar=pos.bar,
        cube_value=state.cube_value,
        cube_owner=state.cube_owner,
        turn=state.turn,
        dice=state.dice if state.phase is Phase.MOVING and state.dice else (0, 0),
        double_offered=state.phase is Phase.DOUBLED,
        score=state.score,
        crawford=state.crawford,
        length=state.length,
    )


def gnubg_id(state: BackgammonState) -> str:
    """`posid:matchid` of the current board and match state, as GNU Backgammon shows it for the XGID (and a
    resignation offered, which the XGID cannot hold)."""
    return ids.xgid_to_gnubg_id(to_xgid(state), state.resign_offer)


def xgid(state: BackgammonState) -> str:
    """XGID text of the current board and match state."""
    return ids.encode_xgid(to_xgid(state))


def _action_to_dict(a: Action) -> dict[str, Any]:
    return {
        "side": side_name(a.side),
        "kind": a.kind,
        "dice": None if a.dice is None else list(a.dice),
        "moves": [[f, t, h] for f, t, h in a.moves],
        "legal": a.legal,
        "text": (notation(a.moves) if a.moves else "no play" if a.legal else "?")
        if a.kind == "move"
        else a.kind,
        **({"value": a.value} if a.value else {}),
    }


def _action_from_dict(d: dict[str, Any]) -> Action:
    dice = d["dice"]
    return Action(
        SIDE_NAMES.index(d["side"]),
        d["kind"],
        None if dice is None else (dice[0], dice[1]),
        tuple((f, t, bool(h)) for f, t, h in d["moves"]),
        d["legal"],
        d.get("value", 0),  # written only for a resignation's value (`_action_to_dict`)
    )


def _position_to_dict(p: Position | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"points": list(p.points), "bar": list(p.bar), "off": list(p.off), "turn": p.turn}


def _position_from_dict(d: dict[str, Any]) -> Position:
    return Position(tuple(d["points"]), pair(d["bar"]), pair(d["off"]), d["turn"])


def _maybe_position_from_dict(d: dict[str, Any] | None) -> Position | None:
    return None if d is None else _position_from_dict(d)


def _clock_to_dict(c: clk.ClockState | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "control": clk.control_to_dict(c.control),
        "remaining_s": list(c.remaining_s),
        "moves": list(c.moves),
        "period": list(c.period),
        "running": c.running,
        "since": c.since,
        "flagged": c.flagged,
        "flag_at": c.flag_at,
        # for screens: the running side's allowance per turn
        "mode": c.control.periods[0].delay_mode.value,
        "delay_s": c.control.periods[0].delay_s,
    }


def _clock_from_dict(d: dict[str, Any] | None) -> clk.ClockState | None:
    if d is None:
        return None
    control = clk.control_from_dict(d["control"])
    return clk.ClockState(
        control,
        pair(d["remaining_s"]),
        pair(d["moves"]),
        pair(d["period"]),
        d["running"],
        d["since"],
        d["flagged"],
        d["flag_at"],
    )


def _encode(state: BackgammonState) -> dict[str, Any]:
    """The state as plain data, for snapshots and spectators; `_decode` reads it back exactly."""
    pos = state.position
    last = state.last_turn
    return {
        "length": state.length,
        "score": {"A": state.score[0], "B": state.score[1]},
        "phase": state.phase.value,
        "game": state.game,
        "turn": side_name(state.turn),
        "dice": list(state.dice) if state.dice else None,
        "points": list(pos.points),
        "bar": list(pos.bar),
        "off": list(pos.off),
        "cube": {
            "value": state.cube_value,
            "owner": None if state.cube_owner is None else side_name(state.cube_owner),
        },
        "crawford": state.crawford,
        "post_crawford": state.post_crawford,
        "winner": None if state.winner is None else side_name(state.winner),
        "resign": None  # a resignation offered and not yet answered
        if state.resign_offer is None
        else {"side": side_name(state.resign_offer[0]), "value": state.resign_offer[1]},
        "gnubg_id": gnubg_id(state),
        "xgid": xgid(state),
        "illegal_pending": state.illegal_pending,
        "clock": _clock_to_dict(state.clock),
        "moves": [_action_to_dict(a) for a in state.actions],  # this game's record, for the move list
        "games": [
            {
                "number": g.number,
                "score_before": list(g.score_before),
                "actions": [_action_to_dict(a) for a in g.actions],
                "winner": None if g.winner is None else side_name(g.winner),
                "points": g.points,
                "crawford": g.crawford,
                "resigned": g.resigned,
            }
            for g in state.games
        ],
        # what only a resumed reducer needs
        "position_turn": pos.turn,
        "turn_start": _position_to_dict(state.turn_start),
        "last_turn": None
        if last is None
        else {"side": last.side, "start": _position_to_dict(last.start), "dice": list(last.dice)},
        "crawford_done": state.crawford_done,
        "opening_tie": state.opening_tie,
        "shown_dice": None if state.shown_dice is None else list(state.shown_dice),
        "joined_turn": state.joined_turn,
        "awaiting_board": state.awaiting_board,
    }


def _decode(d: dict[str, Any]) -> BackgammonState:
    """A state from the current snapshot form (`_encode`); every key is there."""
    last = d["last_turn"]
    owner = d["cube"]["owner"]
    winner = d["winner"]
    shown = d["shown_dice"]
    offer = d["resign"]
    return BackgammonState(
        length=d["length"],
        score=(d["score"]["A"], d["score"]["B"]),
        phase=Phase(d["phase"]),
        game=d["game"],
        position=Position(tuple(d["points"]), pair(d["bar"]), pair(d["off"]), d["position_turn"]),
        turn=SIDE_NAMES.index(d["turn"]),
        dice=None if d["dice"] is None else pair(d["dice"]),
        turn_start=_maybe_position_from_dict(d["turn_start"]),
        cube_value=d["cube"]["value"],
        cube_owner=None if owner is None else SIDE_NAMES.index(owner),
        crawford=d["crawford"],
        crawford_done=d["crawford_done"],
        illegal_pending=d["illegal_pending"],
        last_turn=None
        if last is None
        else PlayedTurn(last["side"], _position_from_dict(last["start"]), pair(last["dice"])),
        opening_tie=d["opening_tie"],
        winner=None if winner is None else SIDE_NAMES.index(winner),
        clock=_clock_from_dict(d["clock"]),
        actions=tuple(_action_from_dict(a) for a in d["moves"]),
        games=tuple(
            GameRecord(
                g["number"],
                pair(g["score_before"]),
                tuple(_action_from_dict(a) for a in g["actions"]),
                None if g["winner"] is None else SIDE_NAMES.index(g["winner"]),
                g["points"],
                g["crawford"],
                g["resigned"],
            )
            for g in d["games"]
        ),
        shown_dice=None if shown is None else pair(shown),
        resign_offer=None if offer is None else (SIDE_NAMES.index(offer["side"]), offer["value"]),
        joined_turn=d["joined_turn"],
        awaiting_board=d["awaiting_board"],
    )


def _from_version_1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1: every snapshot before versions. What later rules added is what a match that never had it
    holds: no turn played or started, no clock, no record, nothing offered, resigned, pending or awaited."""
    defaults: dict[str, Any] = {
        "last_turn": None,
        "winner": None,
        "shown_dice": None,
        "resign": None,
        "position_turn": 0,
        "turn_start": None,
        "crawford_done": False,
        "illegal_pending": False,
        "opening_tie": None,
        "clock": None,
        "moves": [],
        "games": [],
        "joined_turn": False,
        "awaiting_board": False,
    }
    d = {**defaults, **d}
    actions = [{"dice": None, "moves": [], "legal": True, **a} for a in d["moves"]]
    games = [
        {
            "resigned": 0,
            **g,
            "actions": [{"dice": None, "moves": [], "legal": True, **a} for a in g["actions"]],
        }
        for g in d["games"]
    ]
    return {**d, "moves": actions, "games": games}


SNAPSHOT: StateCodec[BackgammonState] = StateCodec(2, _encode, _decode, {1: _from_version_1})


def to_dict(state: BackgammonState) -> dict[str, Any]:
    """The state as a snapshot: its version, then what spectators and a resumed reducer read."""
    return SNAPSHOT.to_dict(state)


def from_dict(data: dict[str, Any]) -> BackgammonState:
    """A state from a snapshot of any version (`to_dict`'s inverse)."""
    return SNAPSHOT.from_dict(data)


def public_dict(state: BackgammonState) -> dict[str, Any]:
    """What spectators see of the state: the snapshot's current form without its version, and whether the next
    game to start is the Crawford game (for a game scored by hand, where no board starts it)."""
    return {**_encode(state), "crawford_next": state.phase is Phase.OPENING and crawford_next(state)}
