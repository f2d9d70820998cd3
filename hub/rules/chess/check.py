"""`boardcast check chess --dgt FILE`: audit a recorded DGT e-board stream offline with the hub's chess rules.

Input: one serial read per line, base64 (as `tests/fixtures/dgt/*.inbytes`), or a JSON line
`{"t": seconds, "b64": "..."}` that also says when the read arrived. Blank lines are skipped.

Time, when the file does not give it, is synthesised from the stream itself: every read moves time on by
`READ_STEP_S`, and a DGT clock reports its display at least once a second, so each second the running side's
display loses is one real second: time never falls behind the seconds the clock has counted down. Moves made
between two clock readings therefore settle when the next reading arrives, as they would live. Once a line
gives its time, the given times rule: later lines without one only add `READ_STEP_S`. After the last line one
`Tick` at `END_TICK_S` later settles what the board showed last.

Output, JSON lines: facts (each move with its UCI, SAN and both clock times), anomalies, device errors (bytes
the DGT codec could not read), an error line for each line that cannot be read, and a last
`{"type": "result", "moves": [...], "pgn": "...", ...}` line. Exit 0 when every line was read; 2 when a line
or the file could not be read (what was printed stays, and the run goes on past bad lines).
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from devices.dgt.codec import DgtError
from devices.dgt.reader import DgtReader, DgtReport
from devices.observations import ChessClockState
from hub.check.common import EXIT_BAD_INPUT, EXIT_OK, emit_line, emit_outcome, quiet_broken_pipe
from hub.rules import chess as rc
from hub.rules.chess import pgn

READ_STEP_S = 0.01
END_TICK_S = 2.0


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that is neither base64 nor a `{"t", "b64"}` object."""

    line: int
    message: str


@dataclass(frozen=True, slots=True)
class Timed:
    """One item of the stream: a report for the rules, a device error or a bad line, with its line and time."""

    line: int
    at: float
    item: DgtReport | DgtError | BadLine | object


def _decode(text: str, number: int) -> tuple[float | None, bytes] | BadLine:
    text = text.strip()
    given: float | None = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return BadLine(number, f"line {number}: not JSON ({exc.msg} at column {exc.colno})")
        t, b64 = (
            data.get("t") if isinstance(data, dict) else None,
            data.get("b64") if isinstance(data, dict) else None,
        )
        if isinstance(t, bool) or not isinstance(t, int | float) or t < 0:
            return BadLine(number, f'line {number}: "t" must be seconds (a number from 0), got {t!r}')
        if not isinstance(b64, str):
            return BadLine(number, f'line {number}: "b64" must be the read in base64, got {b64!r}')
        given, text = float(t), b64
    try:
        return given, base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        return BadLine(number, f"line {number}: not base64 ({exc}) / base64 değil")


def timed_reports(lines: Iterable[str]) -> Iterator[Timed]:
    """The DGT stream of `lines` decoded and timed (see the module text for how time is made up)."""
    reader = DgtReader()
    t = 0.0
    counted = 0.0  # seconds the running display has counted down
    timed = False  # a line gave its time: the clock no longer sets it
    last: ChessClockState | None = None
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        decoded = _decode(text, number)
        if isinstance(decoded, BadLine):
            yield Timed(number, t, decoded)
            continue
        given, data = decoded
        timed = timed or given is not None
        t = max(t, given) if given is not None else t + READ_STEP_S
        for item in reader.feed(data):
            if isinstance(item, DgtReport) and isinstance(item.report, ChessClockState):
                clock = item.report
                if last is not None and clock.running is not None and clock.running == last.running:
                    lost = last.remaining_ms[clock.running] - clock.remaining_ms[clock.running]
                    if lost > 0:
                        counted += lost / 1000
                last = clock
                if not timed:
                    t = max(t, counted)
            yield Timed(number, t, item)
    for item in reader.flush():
        yield Timed(number, t, item)


def run(
    path: str,
    time_control: str | None = None,
    clock_white: str | None = None,
    orientation: str = "auto",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Check a DGT capture ('-' for standard input); print JSON lines; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        config = rc.ChessConfig.from_text(time_control, clock_white, orientation=orientation)
    except ValueError as exc:
        print(f"boardcast check chess: {exc}", file=err)
        return EXIT_BAD_INPUT
    try:
        if path == "-":
            return check(sys.stdin, config, out, err)
        with open(path, encoding="ascii", errors="replace") as f:
            return check(f, config, out, err)
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say, and not an error
        return quiet_broken_pipe()
    except OSError as exc:
        print(f"boardcast check chess: cannot read {path}: {exc.strerror or exc} / dosya okunamadı", file=err)
        return EXIT_BAD_INPUT


def check(lines: Iterable[str], config: rc.ChessConfig, out: TextIO, err: TextIO) -> int:
    """Fold a DGT stream through the chess rules and print what they find as JSON lines."""
    state = rc.initial(config)
    bad = 0
    at = 0.0
    for timed in timed_reports(lines):
        at = timed.at
        item = timed.item
        if isinstance(item, BadLine):
            bad += 1
            emit_line(out, {"type": "error", "line": item.line, "message": item.message})
            print(f"boardcast check chess: {item.message}", file=err)
            continue
        if isinstance(item, DgtError):
            emit_line(
                out,
                {
                    "type": "device_error",
                    "line": timed.line,
                    "at": at,
                    "kind": item.kind.value,
                    "detail": item.detail,
                    "raw": item.raw.hex(),
                },
            )
            continue
        if not isinstance(item, DgtReport):
            continue  # serial numbers, versions, clock acknowledgements: nothing for the rules
        outcome = rc.apply(state, item.report, at)
        state = outcome.state
        emit_outcome(out, outcome, at, timed.line)
    outcome = rc.apply(state, rc.Tick(), at + END_TICK_S)
    state = outcome.state
    emit_outcome(out, outcome, at + END_TICK_S, None)
    emit_line(out, result_line(state))
    return EXIT_BAD_INPUT if bad else EXIT_OK


def result_line(state: rc.ChessState) -> dict[str, Any]:
    """The last output line: the moves, the result and the PGN."""
    return {
        "type": "result",
        "moves": [m.uci for m in state.moves],
        "result": state.result,
        "result_reason": state.result_reason,
        "time_control": rc.to_dict(state)["time_control"],
        "pgn": pgn(state, {"Event": "boardcast check chess"}),
    }
