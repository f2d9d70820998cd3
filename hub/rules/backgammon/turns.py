"""A turn's play judged: rolls, board snapshots against the legal plays, the clock press that ends a turn."""

from __future__ import annotations

import re
from dataclasses import replace

from hub.rules import clock as clk
from hub.rules.backgammon.model import CHECKERS, START, Play, Position, board_problem, side_name
from hub.rules.backgammon.moves import walk
from hub.rules.backgammon.score import WIN_KIND, end_game, multiplier
from hub.rules.backgammon.state import (
    Action,
    BackgammonState,
    BoardSnapshot,
    ClockPress,
    InvalidDice,
    Phase,
    PlayedTurn,
    Roll,
    anomaly,
)
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.names import side_mark


def stood(state: BackgammonState, anomalies: list[Anomaly], by: str) -> BackgammonState:
    """The opponent rolled or doubled: an illegal play not corrected now stands."""
    if state.illegal_pending and state.last_turn is not None:
        side = state.last_turn.side
        anomalies.append(
            anomaly(
                "bg.illegal_move_stood",
                Severity.ERROR,
                f"{side_mark(side)}'s illegal move stands: {side_mark(1 - side)} {by} before it was corrected.",
                f"{side_mark(side)} oyuncusunun kural dışı hamlesi geçerli kaldı: {side_mark(1 - side)} düzeltilmeden önce {'zar attı' if by == 'rolled' else 'katladı'}.",
                side=side_name(side),
                position_id=state.position.with_turn(side).position_id(),
            )
        )
    return replace(state, illegal_pending=False, last_turn=None)


def on_roll(
    state: BackgammonState, ev: Roll, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    d1, d2 = ev.dice
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        facts.append(Fact("dice_invalid", {"side": side_name(ev.side), "dice": [d1, d2]}))
        return state
    if state.phase is Phase.AWAIT_ROLL and ev.side == state.turn:
        state = stood(state, anomalies, "rolled")
        start = state.position.with_turn(ev.side)
        facts.append(Fact("roll", {"side": side_name(ev.side), "dice": [d1, d2], "source": ev.source}))
        return replace(state, phase=Phase.MOVING, dice=(d1, d2), turn_start=start, position=start)
    why = {
        Phase.OPENING: "before the opening roll",
        Phase.MOVING: "while a move is in progress" if ev.side != state.turn else "twice in one turn",
        Phase.DOUBLED: "while a double is offered",
        Phase.AWAIT_ROLL: f"but it is {side_mark(state.turn)}'s turn",
    }[state.phase]
    why_tr = {
        Phase.OPENING: "açılış zarından önce",
        Phase.MOVING: "hamle sürerken" if ev.side != state.turn else "aynı sırada ikinci kez",
        Phase.DOUBLED: "katlama teklifi beklerken",
        Phase.AWAIT_ROLL: f"oysa sıra {side_mark(state.turn)} oyuncusunda",
    }[state.phase]
    anomalies.append(
        anomaly(
            "bg.roll_out_of_turn",
            Severity.WARNING,
            f"{side_mark(ev.side)} rolled {d1}-{d2} {why}; the roll is invalid and must be rerolled in turn.",
            f"{side_mark(ev.side)} {why_tr} {d1}-{d2} attı; bu atış geçersizdir, sırası gelince yeniden atılır.",
            side=side_name(ev.side),
            dice=[d1, d2],
        )
    )
    return state


def on_invalid_dice(
    state: BackgammonState, ev: InvalidDice, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    facts.append(Fact("dice_rerolled", {"side": side_name(ev.side)}))
    if state.phase is Phase.MOVING and ev.side == state.turn and state.turn_start is not None:
        if state.game and state.turn_start == START.with_turn(ev.side) and not state.actions:
            return replace(state, phase=Phase.OPENING, game=state.game - 1, dice=None, turn_start=None)
        return replace(
            state,
            phase=Phase.AWAIT_ROLL,
            dice=None,
            position=state.turn_start,
            turn_start=None,
            joined_turn=False,
        )
    return state


def _illegal(
    side: int, start: Position, now: Position, dice: tuple[int, int], why: str, why_tr: str
) -> Anomaly:
    return anomaly(
        "bg.illegal_move",
        Severity.ERROR,
        f"{side_mark(side)}'s move with {dice[0]}-{dice[1]} is not legal: {why}.",
        f"{side_mark(side)} oyuncusunun {dice[0]}-{dice[1]} ile yaptığı hamle kurallara aykırı: {why_tr}.",
        side=side_name(side),
        dice=list(dice),
        before=start.position_id(),
        after=now.with_turn(side).position_id()
        if board_problem(now.points, now.bar, now.off) is None
        else None,
    )


def _judge(start: Position, dice: tuple[int, int], now: Position) -> tuple[str, Play | None]:
    """'legal' (with the play), 'partial', 'start' or 'illegal'."""
    if now.same_board(start):
        return "start", None
    found = walk(start, dice[0], dice[1])
    key = found.key_of(now)
    if key in found.best:
        return "legal", found.play(key)
    if key in found.partial:
        return "partial", None
    return "illegal", None


def _resolved(facts: list[Fact], side: int) -> None:
    facts.append(
        Fact("anomaly_resolved", {"code": "bg.illegal_move", "side": side_name(side), "how": "corrected"})
    )


def on_board(
    state: BackgammonState, ev: BoardSnapshot, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    problem = board_problem(ev.points, ev.bar, ev.off)
    if problem is not None:
        anomalies.append(
            anomaly(
                "bg.board_inconsistent",
                Severity.ERROR,
                f"The board snapshot cannot be a position: {problem}.",
                f"Tahta görüntüsü geçerli bir pozisyon olamaz: {_problem_tr(problem)}.",
                points=list(ev.points),
                bar=list(ev.bar),
                off=list(ev.off),
            )
        )
        return state
    now = Position.from_lists(ev.points, ev.bar, ev.off, state.turn)
    if state.phase is Phase.OPENING:
        return replace(state, position=now)
    if state.phase is Phase.MOVING and state.joined_turn:
        # a turn under way when the hub joined: where its checkers started is not known, so only its end is
        # looked at (`commit`)
        state = replace(state, position=now.with_turn(state.position.turn))
        return commit(state, state.turn, at, facts, anomalies) if now.off[state.turn] == CHECKERS else state
    if state.phase is Phase.MOVING and state.turn_start is not None and state.dice is not None:
        side, start, dice = state.turn, state.turn_start, state.dice
    elif state.last_turn is not None:
        side, start, dice = state.last_turn.side, state.last_turn.start, state.last_turn.dice
    else:
        if not now.same_board(state.position):
            anomalies.append(
                anomaly(
                    "bg.illegal_move",
                    Severity.ERROR,
                    "Checkers moved while no roll was in play.",
                    "Zar atılmamışken pullar oynatıldı.",
                    before=state.position.position_id(),
                )
            )
            state = replace(state, illegal_pending=True)
        return replace(state, position=now.with_turn(state.position.turn))
    if now.same_board(state.position):
        return state
    verdict, play = _judge(start, dice, now)
    now = now.with_turn(state.position.turn)
    moving = state.phase is Phase.MOVING
    if verdict == "illegal" or (not moving and play is None):
        if not state.illegal_pending:
            anomalies.append(
                _illegal(
                    side,
                    start,
                    now,
                    dice,
                    "no legal play with these dice gives this position",
                    "bu zarlarla hiçbir kurallı hamle bu pozisyonu vermez",
                )
            )
        return replace(state, position=now, illegal_pending=True)
    if state.illegal_pending:
        _resolved(facts, side)
    state = replace(state, position=now, illegal_pending=False)
    if state.phase is not Phase.MOVING and play is not None:
        # A correction after the press: the recorded move becomes the corrected one.
        actions = list(state.actions)
        for i in range(len(actions) - 1, -1, -1):
            if actions[i].kind == "move" and actions[i].side == side:
                actions[i] = replace(actions[i], moves=play.moves, legal=True)
                break
        facts.append(Fact("move_corrected", {"side": side_name(side), "move": play.notation}))
        return replace(state, actions=tuple(actions))
    if verdict == "legal" and play is not None and now.off[side] == CHECKERS:
        return commit(state, side, at, facts, anomalies)
    return state


def _problem_tr(problem: str) -> str:
    counts = re.match(r"\{A\} has (\d+) checkers and \{B\} has (\d+)", problem)
    if counts is not None:
        a, b = counts.groups()
        return f"her tarafın 15 pulu olmalı; {{A}} oyuncusunda {a}, {{B}} oyuncusunda {b} pul var"
    return {
        "a board has 24 points, 2 bars and 2 trays": "tahtada 24 hane, 2 bar ve 2 toplama alanı vardır",
        "checker counts must be integers": "pul sayıları tam sayı olmalı",
        "a bar or tray holds a negative number of checkers": "bar ya da toplama alanında eksi sayıda pul var",
    }.get(problem, problem)


def commit(
    state: BackgammonState, side: int, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    """The mover's turn is complete (clock press, or the last checker borne off)."""
    start, dice = state.turn_start, state.dice
    assert start is not None and dice is not None
    now = state.position
    verdict, play = _judge(start, dice, now)
    moves: tuple[tuple[int, int, bool], ...] = ()
    legal = True
    if verdict == "legal" and play is not None:
        moves = play.moves
        text = play.notation
    elif verdict == "start" and not walk(start, dice[0], dice[1]).best:
        text = "no play"
    elif state.joined_turn:  # begun before the hub joined: a play it did not see, not an illegal one
        legal = False
        text = "?"
    else:
        legal = False
        text = "?"
        if not state.illegal_pending:
            why, why_tr = (
                ("the dice were not fully played", "zarların hepsi oynanmadı")
                if verdict in ("partial", "start")
                else ("no legal play gives this position", "hiçbir kurallı hamle bu pozisyonu vermez")
            )
            anomalies.append(_illegal(side, start, now, dice, why, why_tr))
        state = replace(state, illegal_pending=True)
    seen = {"joined": True} if state.joined_turn else {}
    facts.append(
        Fact("move", {"side": side_name(side), "dice": list(dice), "move": text, "legal": legal, **seen})
    )
    action = Action(side, "move", dice, moves, legal)
    clock = clk.press(state.clock, side, at) if state.clock else None
    state = replace(
        state,
        phase=Phase.AWAIT_ROLL,
        turn=1 - side,
        dice=None,
        turn_start=None,
        position=now.with_turn(1 - side),
        last_turn=PlayedTurn(side, start, dice),
        clock=clock,
        actions=(*state.actions, action),
        joined_turn=False,
    )
    if now.off[side] == CHECKERS:
        state = end_game(
            state, side, multiplier(now, side) * state.cube_value, WIN_KIND[multiplier(now, side)], at, facts
        )
    return state


def on_clock(
    state: BackgammonState, ev: ClockPress, at: float, facts: list[Fact], anomalies: list[Anomaly]
) -> BackgammonState:
    if state.phase is Phase.MOVING and ev.side == state.turn:
        return commit(state, ev.side, at, facts, anomalies)
    facts.append(Fact("clock_press", {"side": side_name(ev.side), "counted": False}))
    return state
