"""A game that has ended stays ended, and a quiet game waits for its result: the real DGT captures with what
a hall's boards do after the game (pieces set up again, a post-mortem, the clock reset and run) appended."""

from __future__ import annotations

from typing import Any

import chess
import pytest

from devices.observations import ChessBoardState, ChessClockState
from hub.rules import chess as rc
from hub.rules.base import Anomaly, Fact
from hub.rules.chess import pgn
from hub.rules.chess.reducer import quiet_since
from tests.hub.chess_support import Table, capture, fold

GAME_FACTS = ("move", "takeback", "game_over", "press", "period", "clock_sides", "time_control")


def public(state: rc.ChessState) -> dict[str, Any]:
    """What the screens and the PGN are drawn from (the rules' own bookkeeping left out)."""
    return {k: v for k, v in rc.to_dict(state).items() if k != "resume"}


def set_up_again(final: str, t: float, step: float = 0.3) -> list[tuple[float, Any]]:
    """The players put the pieces back on their start squares, one square at a time."""
    placement = chess.BaseBoard(final)
    start = chess.BaseBoard()
    out: list[tuple[float, Any]] = []
    for square in chess.SQUARES:
        if placement.piece_at(square) is not None and placement.piece_at(square) != start.piece_at(square):
            placement.remove_piece_at(square)
            t += step
            out.append((t, ChessBoardState(placement.board_fen())))
    for square in chess.SQUARES:
        piece = start.piece_at(square)
        if piece is not None and placement.piece_at(square) != piece:
            placement.set_piece_at(square, piece)
            t += step
            out.append((t, ChessBoardState(placement.board_fen())))
    return out


def post_mortem(t: float, ucis: tuple[str, ...] = ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5")) -> list[Any]:
    """From the start position the players go over an opening, lifting and placing each piece, and start,
    press and stop the clock (reset for the next game) as they go."""
    board = chess.Board()
    out: list[tuple[float, Any]] = [(t + 1.0, ChessClockState((305000, 305000), None))]
    t += 2.0
    left, right = 305000, 305000
    for i, uci in enumerate(ucis):
        move = board.parse_uci(uci)
        lifted = chess.BaseBoard(board.board_fen())
        lifted.remove_piece_at(move.from_square)
        t += 0.8
        out.append((t, ChessBoardState(lifted.board_fen())))
        board.push(move)
        t += 0.4
        out.append((t, ChessBoardState(board.board_fen())))
        t += 0.5
        if i % 2 == 0:
            left -= 3000
            out.append((t, ChessClockState((left, right), 1)))
        else:
            right -= 3000
            out.append((t, ChessClockState((left, right), 0)))
    out.append((t + 1.0, ChessClockState((left, right), None)))
    return out


def fold_more(
    state: rc.ChessState, items: list[tuple[float, Any]]
) -> tuple[rc.ChessState, list[Fact], list[Anomaly]]:
    facts: list[Fact] = []
    anomalies: list[Anomaly] = []
    for t, item in items:
        outcome = rc.apply(state, item, t)
        state = outcome.state
        facts.extend(outcome.facts)
        anomalies.extend(outcome.anomalies)
    return state, facts, anomalies


def last_at(items: list[tuple[float, Any]]) -> float:
    return items[-1][0]


def test_johan_ended_on_the_flag_stays_ended_whatever_the_board_and_clock_do_after() -> None:
    items = capture("johan")
    end, _, _ = fold(items, rc.ChessConfig.from_text("300+5"))
    assert end.result == "1-0"
    frozen = public(end)
    text = pgn(end, {"White": "Johan", "Black": "Rival"})
    t = last_at(items) + 5.0
    after = set_up_again(end.shown, t)
    after += post_mortem(last_at(after))
    after += [(last_at(after) + 600.0, rc.Tick())]  # ten quiet minutes later: an ended game waits for nothing
    state, facts, anomalies = fold_more(end, after)
    assert public(state) == frozen  # the same final position, moves, clock times and result
    assert public(state)["board_fen"] == end.game.placement and public(state)["pending"] is False
    assert pgn(state, {"White": "Johan", "Black": "Rival"}) == text
    assert [f.kind for f in facts if f.kind in GAME_FACTS] == []
    assert anomalies == []


def test_capture_1_resigned_is_frozen_and_reopening_lets_the_board_move_the_game_again() -> None:
    items = capture("1")
    end, _, _ = fold(items, rc.ChessConfig.from_text("180+2"))
    assert end.result is None and end.clock is not None and end.clock.running is None
    t = last_at(items) + 5.0
    resigned = rc.apply(end, rc.SetResult("0-1", "resignation"), t)
    assert [f.kind for f in resigned.facts] == ["game_over"]
    ended = resigned.state
    frozen = public(ended)
    assert frozen["clock"] == public(end)["clock"]  # the clock times when the result came
    after = set_up_again(ended.shown, t)
    after += post_mortem(last_at(after))
    state, facts, anomalies = fold_more(ended, after)
    assert public(state) == frozen
    assert [f.kind for f in facts if f.kind in GAME_FACTS] == [] and anomalies == []
    assert state.shown != ended.game.placement  # the board's activity is still followed (for its signals)

    # The arbiter reopens the game: what the board shows is out of step again, and the clock is read again.
    reopened = rc.apply(state, rc.SetResult("*"), last_at(after) + 1.0).state
    assert public(reopened)["board_fen"] == state.shown and public(reopened)["pending"] is True
    clocked = rc.apply(reopened, ChessClockState((200000, 201000), None), last_at(after) + 2.0).state
    assert public(clocked)["clock"]["left_ms"] == 200000


def test_checkmate_freezes_the_game_before_the_pieces_are_set_up_again() -> None:
    table = Table(rc.ChessConfig.from_text("180+2"))
    table.clock(182, 182, None)
    table.clock(182, 182, 0, dt=1.0)
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):  # the fool's mate
        table.play(uci, think=0.5)
    assert table.state.result == "0-1" and table.state.result_reason == "checkmate"
    frozen = public(table.state)
    facts_before, anomalies_before = len(table.facts), len(table.anomalies)
    # the mating player presses anyway, the clock then runs on; the pieces go back; a new blitz is set
    table.clock(179, 181, 0, dt=0.5)
    table.clock(170, 181, 0, dt=9.0)
    for _, item in set_up_again(table.state.shown, 0.0):
        table.feed(item, 0.3)
    table.clock(180, 180, None, dt=1.0)
    table.tick(300.0)
    assert public(table.state) == frozen
    assert [f.kind for f in table.facts[facts_before:] if f.kind in GAME_FACTS] == []
    assert table.anomalies[anomalies_before:] == []


def test_a_result_signal_ends_the_game_and_later_board_moves_are_not_moves() -> None:
    table = Table()
    for uci in ("e2e4", "e7e5", "g1f3"):
        table.play(uci)
    # both kings on the centre squares: the players' result, then the kings go back and they analyse on
    board = chess.BaseBoard(table.placement.board_fen())
    board.remove_piece_at(chess.E1)
    board.remove_piece_at(chess.E8)
    board.set_piece_at(chess.D4, chess.Piece.from_symbol("K"))
    board.set_piece_at(
        chess.E5 if board.piece_at(chess.E5) is None else chess.D5, chess.Piece.from_symbol("k")
    )
    table.show(board.board_fen())
    table.tick(2.0)
    assert table.state.result is not None and table.state.result_reason == "result_signal"
    frozen = public(table.state)
    table.show(table.board.board_fen())
    table.tick(2.0)
    after = chess.Board(table.board.fen())
    after.push_uci("b8c6")
    table.show(after.board_fen())
    table.tick(2.0)
    assert public(table.state) == frozen and len(table.state.moves) == 3


# -- a quiet game waits for its result ------------------------------------------------------------------------


def awaiting(anomalies: list[Anomaly]) -> list[Anomaly]:
    return [a for a in anomalies if a.code == "chess.awaiting_result"]


def test_capture_1_left_quiet_with_the_clock_stopped_waits_for_its_result_once() -> None:
    items = capture("1")
    end, _, _ = fold(items, rc.ChessConfig.from_text("180+2"))
    t = last_at(items)
    ticks = [(t + 2.0 + 0.25 * i, rc.Tick()) for i in range(1, 4 * 400)]  # 400 s of the hub's ticks
    state, _, anomalies = fold_more(end, ticks)
    (raised,) = awaiting(anomalies)
    assert raised.data["ply"] == len(end.moves)
    assert raised.message_en and raised.message_tr and "min" in raised.message_en
    assert public(state)["awaiting_result"] is True and public(state)["result"] is None
    # the time: 180 s after the last change of the board or the clock (its stop), never before
    since = quiet_since(state)
    assert since <= t and since == end.clock_changed_at  # the clock's stop, the capture's last change
    waited = [
        tt for (tt, _), out in zip(ticks, _each(end, ticks), strict=True) if awaiting(list(out.anomalies))
    ]
    assert len(waited) == 1 and 180.0 <= waited[0] - since < 180.25
    # a restart reads the same state back, flag included
    assert rc.from_dict(rc.to_dict(state)) == state
    # the result resolves it: once
    done = rc.apply(state, rc.SetResult("1-0", "resignation"), ticks[-1][0] + 1.0)
    assert [f.data for f in done.facts if f.kind == "anomaly_resolved"] == [
        {"code": "chess.awaiting_result", "how": "a result was recorded"}
    ]
    assert public(done.state)["awaiting_result"] is False


def _each(state: rc.ChessState, items: list[tuple[float, Any]]) -> list[Any]:
    outs = []
    for t, item in items:
        outcome = rc.apply(state, item, t)
        state = outcome.state
        outs.append(outcome)
    return outs


def test_the_waiting_time_is_the_venues_and_a_running_clock_is_never_quiet() -> None:
    table = Table(rc.ChessConfig.from_text("300+5", quiet_s=60.0))
    table.clock(305, 305, None)
    table.clock(305, 305, 0, dt=1.0)
    table.play("e2e4", think=0.5)
    table.clock(309, 305, 1, dt=0.5)  # the press, with the increment: Black's clock runs
    for i in range(20):
        table.clock(309, 305 - (i + 1) * 10, 1, dt=10.0)  # Black thinks 200 s, the clock running
    assert table.codes() == []
    table.clock(309, 105, None, dt=1.0)  # the clock is stopped (a resignation, a handshake)
    for _ in range(4 * 59):
        table.tick(0.25)
    assert awaiting(table.anomalies) == []
    table.tick(1.5)
    assert len(awaiting(table.anomalies)) == 1 and public(table.state)["awaiting_result"] is True
    # the players were only waiting for the arbiter: the clock is started and Black plays on
    table.clock(309, 105, 1, dt=5.0)
    assert [f.data["how"] for f in table.kinds("anomaly_resolved")] == ["play resumed"]
    assert public(table.state)["awaiting_result"] is False
    table.play("e7e5", think=0.5)
    assert table.moves == ["e2e4", "e7e5"]


def test_a_board_set_up_again_does_not_resolve_the_wait_but_a_move_does() -> None:
    table = Table(rc.ChessConfig(quiet_s=30.0))  # no clock at all: a Chessnut board on its own
    for uci in ("d2d4", "d7d5"):
        table.play(uci, think=0.5)
    table.tick(31.0)
    assert len(awaiting(table.anomalies)) == 1
    swept = chess.BaseBoard(table.placement.board_fen())  # pieces are put in the box: not a move
    for square in (chess.E1, chess.D1, chess.E8, chess.D8, chess.D4, chess.D5):
        swept.remove_piece_at(square)
    table.show(swept.board_fen())
    table.tick(5.0)
    assert public(table.state)["awaiting_result"] is True
    table.tick(100.0)
    assert len(awaiting(table.anomalies)) == 1  # raised once, not once per quiet stretch
    table.show(table.board.board_fen())  # the game's position again, and the game goes on
    table.play("c2c4", think=2.0)
    resolved = [
        f.data["how"] for f in table.kinds("anomaly_resolved") if f.data["code"] == "chess.awaiting_result"
    ]
    assert resolved == ["play resumed"]
    assert table.codes() == ["chess.awaiting_result", "chess.board_mismatch"]  # the swept board, flagged once


def test_a_game_not_yet_begun_or_already_ended_never_waits() -> None:
    table = Table(rc.ChessConfig(quiet_s=30.0))
    table.tick(100.0)
    assert awaiting(table.anomalies) == []
    table.play("e2e4", think=0.5)
    table.feed(rc.SetResult("1-0", "forfeit"), 1.0)
    table.tick(1000.0)
    assert awaiting(table.anomalies) == []


@pytest.mark.parametrize("bad", [0, 5, -1, True, "180", 10**6])
def test_a_bad_waiting_time_is_refused_naming_the_key(bad: Any) -> None:
    from hub.rules.chess.venue import awaiting_result_s

    def fail(key: str, message: str) -> ValueError:
        return ValueError(f"{key}: {message}")

    with pytest.raises(ValueError, match=r"^awaiting_result_s: must be .* / 10-86400 arası saniye") as err:
        awaiting_result_s(bad, fail)
    assert repr(bad) in str(err.value)


def test_the_waiting_time_is_read_from_the_venue_and_a_match_and_a_bad_one_names_its_line() -> None:
    from pathlib import Path

    from hub.rules.chess.sport import ChessSport
    from hub.venue import VenueError, parse_venue
    from tests.test_chess_hub import VENUE_TOML

    text = VENUE_TOML.replace("broadcast_delay_s = 900", "broadcast_delay_s = 900\nawaiting_result_s = 300")
    text = text.replace('clock_white = "right"', 'clock_white = "right"\nawaiting_result_s = 120')
    venue = parse_venue(text, Path("hall.toml"))
    assert [m.awaiting_result_s for m in venue.matches] == [300.0, 120.0]
    assert [ChessSport().config(m).quiet_s for m in venue.matches] == [300.0, 120.0]
    plain = parse_venue(VENUE_TOML, Path("hall.toml"))
    assert [ChessSport().config(m).quiet_s for m in plain.matches] == [180.0, 180.0]
    for bad, field in (
        (text.replace("awaiting_result_s = 300", "awaiting_result_s = 0"), "venue.awaiting_result_s"),
        (
            text.replace("awaiting_result_s = 120", 'awaiting_result_s = "2 min"'),
            "matches[2].awaiting_result_s",
        ),
    ):
        with pytest.raises(VenueError) as error:
            parse_venue(bad, Path("hall.toml"))
        assert error.value.field == field and error.value.line is not None
        assert "10-86400 arası saniye" in str(error.value) and "must be a number of seconds" in str(
            error.value
        )


def test_boardcast_check_reads_johan_with_the_board_set_up_again_after_it_exactly_as_without(
    tmp_path: Any,
) -> None:
    import base64
    import io
    import json

    from devices.dgt.codec import encode_message
    from devices.dgt.messages import DgtPiece, FieldUpdate
    from hub.rules.chess.check import run, timed_reports
    from tests.hub.chess_support import DGT

    lines = (DGT / "johan.inbytes").read_text().splitlines()
    timed = list(timed_reports(lines))
    end = timed[-1].at
    final, _, _ = fold(capture("johan"), rc.ChessConfig.from_text("300+5"))
    extra = []
    for t, report in set_up_again(final.shown, end + 10.0):
        before = chess.BaseBoard(extra_board(extra, final.shown))
        after = chess.BaseBoard(report.board_fen)
        (square,) = [s for s in chess.SQUARES if before.piece_at(s) != after.piece_at(s)]
        piece = after.piece_at(square)
        code = DgtPiece.from_symbol(piece.symbol() if piece else None)
        data = encode_message(FieldUpdate(square, code))
        extra.append((report.board_fen, json.dumps({"t": t, "b64": base64.b64encode(data).decode()})))
    original, extended = tmp_path / "johan.inbytes", tmp_path / "johan-after.inbytes"
    original.write_text("\n".join(lines) + "\n")
    extended.write_text("\n".join([*lines, *(line for _, line in extra)]) + "\n")
    outputs = []
    for path in (original, extended):
        out, err = io.StringIO(), io.StringIO()
        assert run(str(path), "300+5", out=out, err=err) == 0, err.getvalue()
        outputs.append(out.getvalue())
    assert len(extra) > 20  # every piece lifted and put back
    # the same lines: the one difference is when the players' result signal was read (at the next line, or
    # at the end of the file), so when and on which line are left out
    plain = [[_without_when(json.loads(line)) for line in text.splitlines()] for text in outputs]
    assert plain[1] == plain[0]
    assert [x.get("kind") for x in plain[0]].count("move") == len(final.moves)
    last = json.loads(outputs[0].splitlines()[-1])
    assert last["type"] == "result" and len(last["moves"]) == len(final.moves)


def _without_when(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k not in ("at", "line")}


def extra_board(extra: list[tuple[str, str]], start: str) -> str:
    """The board after the field updates appended so far."""
    return extra[-1][0] if extra else start


def test_capture_1_resigned_and_set_up_again_before_the_result_keeps_every_move() -> None:
    items = capture("1")
    end, _, _ = fold(items, rc.ChessConfig.from_text("180+2"))
    after = set_up_again(end.shown, last_at(items) + 30.0)
    after += [(last_at(after) + 0.25 * i, rc.Tick()) for i in range(1, 4 * 200)]
    state, facts, anomalies = fold_more(end, after)
    # not a takeback of the whole game: the game stands, the board is out of step, the result is awaited
    assert [m.uci for m in state.moves] == [m.uci for m in end.moves] and len(state.moves) == 57
    assert [f.kind for f in facts if f.kind in GAME_FACTS] == []
    assert [a.code for a in anomalies] == ["chess.board_mismatch", "chess.awaiting_result"]
    resigned = rc.apply(state, rc.SetResult("1-0", "resignation"), last_at(after) + 1.0).state
    assert len(resigned.moves) == 57 and pgn(resigned, {}).rstrip().endswith("1-0")
    assert public(resigned)["board_fen"] == end.game.placement
    # a short game set back to the start is still a takeback (colours swapped at the first moves)
    table = Table()
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6"):
        table.play(uci)
    table.show(chess.STARTING_BOARD_FEN)
    table.tick(2.0)
    assert table.moves == [] and [f.data["plies"] for f in table.kinds("takeback")] == [4]


async def test_a_board_set_up_again_before_the_result_starts_the_next_round_once_the_result_is_in(
    tmp_path: Any,
) -> None:
    from devices.observations import DeviceHello, Observation
    from hub.feed.fanout import Fanout
    from hub.hall.live import Hall
    from hub.ingest.sink import Ingest
    from hub.log.eventlog import EventLog
    from hub.matches import EventKind, MatchInfo, MatchStatus
    from hub.venue import TableConfig, Venue

    venue = Venue(
        "Satranç Salonu",
        (TableConfig("C1", "chess"),),
        (
            MatchInfo("R1", "chess", "C1", 1, ("Ayşe", "Elif"), clock="180+2"),
            MatchInfo("R2", "chess", "C1", 2, ("Elif", "Ayşe"), clock="180+2"),
        ),
    )
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(venue, log, Fanout())
    hall.load()
    log.start()
    sink = Ingest(hall).sink_for(venue.tables[0])
    seq = 0

    def send(report: object, at: float) -> None:
        nonlocal seq
        sink.observe(Observation("dgt-1", 1, seq, 1_000_000.0 + at, report))
        seq += 1

    send(DeviceHello("dgt-1", "chess-board", "DGT", "1.7", 1, 1), 0.0)
    items = capture("1")  # the real game: 57 plies, then the clock stopped (a resignation, unrecorded)
    for t, report in items:
        send(report, t)
    await log.flush()
    after = set_up_again(hall.match("R1").sport_state.shown, items[-1][0] + 20.0)
    for t, report in after:  # the players set the pieces up again at once
        send(report, t)
    await log.flush()
    r1 = hall.match("R1")
    assert r1.status is MatchStatus.LIVE and len(r1.sport_state.moves) == 57  # the set-up took nothing back
    assert hall.match("R2").status is MatchStatus.SCHEDULED
    t = last_at(after) + 60.0
    await hall.record(
        "R1",
        EventKind.REFEREE_INPUT,
        {"input": {"type": "set_result", "result": "1-0", "reason": "resignation"}},
        1_000_000.0 + t,
        actor="Hakem",
    )
    # round 2 begins: the clock is set, White plays e4 on the board set up before the result was in
    send(ChessClockState((182000, 182000), None), t + 30.0)
    lifted = chess.BaseBoard()
    lifted.remove_piece_at(chess.E2)
    send(ChessBoardState(lifted.board_fen()), t + 31.0)
    board = chess.Board()
    board.push_uci("e2e4")
    send(ChessBoardState(board.board_fen()), t + 31.4)
    hall.tick(1_000_000.0 + t + 33.0)
    await log.flush()
    r1, r2 = hall.match("R1"), hall.match("R2")
    assert r1.status is not MatchStatus.LIVE and len(r1.sport_state.moves) == 57
    assert r1.sport_state.result == "1-0"
    assert r2.status is MatchStatus.LIVE and [m.uci for m in r2.sport_state.moves] == ["e2e4"]
    await log.close()
