"""GNU Backgammon as the analysis worker: one `gnubg -t` process at the lowest priority, running
`gnubg_worker.py` in gnubg's own Python, fed a match as `.mat` text and answering with gnubg's analysis of
its games (one JSON line a job; see that script).

`GnubgProcess` is the long-lived process the hub keeps (asyncio, one job at a time, started again if it dies);
`analyse_once` runs one job in a process of its own, for the offline check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hub.rules.sport import lower_priority

GNUBG_PATHS = ("gnubg", "/usr/games/gnubg")
SCRIPT = Path(__file__).with_name("gnubg_worker.py")
PREFIX = "BOARDCAST "
JOB_TIMEOUT_S = 120.0  # a whole match at 2 plies on a slow machine; 0 ply takes a fraction of a second
STDOUT_LIMIT = 64 * 1024 * 1024  # an answer is one line: a long match's records at 2 plies run to megabytes


class AnalysisError(RuntimeError):
    """gnubg could not analyse a match (not installed, stopped, or refused it); the message says which."""


def find_gnubg() -> str | None:
    """The GNU Backgammon command-line program, or None when it is not installed."""
    for name in GNUBG_PATHS:
        found = shutil.which(name)
        if found:
            return found
    return None


def command(path: str) -> list[str]:
    """How the worker is started: gnubg without its GUI, rc files or splash, running the script."""
    return [path, "-t", "-q", "-r", "-p", str(SCRIPT)]


def job(mat: str, first: int, ply: int) -> bytes:
    """One job's line: analyse the games of `mat` from `first` (0-based) at `ply`."""
    return (json.dumps({"mat": mat, "first": first, "ply": ply}) + "\n").encode()


def answer_of(line: str) -> list[dict[str, Any]]:
    """The analysed games of the worker's answer line; AnalysisError if it refused the match."""
    answer = json.loads(line[len(PREFIX) :])
    if "error" in answer:
        raise AnalysisError(
            f"gnubg could not analyse the match: {answer['error']} / gnubg maçı çözümleyemedi"
        )
    games: list[dict[str, Any]] = answer["games"]
    return games


def analyse_once(path: str, mat: str, first: int = 0, ply: int = 0) -> list[dict[str, Any]]:
    """Analyse one match in a gnubg process of its own (the offline check)."""
    try:
        proc = subprocess.run(
            command(path), input=job(mat, first, ply), capture_output=True, timeout=JOB_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise AnalysisError(f"gnubg did not run: {error} / gnubg çalışmadı") from error
    for line in proc.stdout.decode(errors="replace").splitlines():
        if line.startswith(PREFIX):
            return answer_of(line)
    tail = proc.stderr.decode(errors="replace")[-500:]
    raise AnalysisError(f"gnubg gave no analysis (exit {proc.returncode}): {tail} / gnubg çözümleme vermedi")


class GnubgProcess:
    """The hub's gnubg: started on the first job, one job at a time, started again after it dies."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    async def analyse(self, mat: str, first: int, ply: int) -> list[dict[str, Any]]:
        """gnubg's analysis of the games of `mat` from `first`, at `ply`."""
        async with self._lock:
            proc = await self._running()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                async with asyncio.timeout(JOB_TIMEOUT_S):
                    proc.stdin.write(job(mat, first, ply))
                    await proc.stdin.drain()
                    line = await _answer_line(proc.stdout)
            except (TimeoutError, OSError) as error:
                await self._stop()
                raise AnalysisError(f"gnubg did not answer: {error!r} / gnubg yanıt vermedi") from error
            if line is None:
                await self._stop()
                raise AnalysisError("gnubg stopped / gnubg durdu")
            return answer_of(line)

    async def _running(self) -> asyncio.subprocess.Process:
        if self._proc is None or self._proc.returncode is not None:
            try:
                self._proc = await asyncio.create_subprocess_exec(
                    *command(self.path),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    preexec_fn=lower_priority,
                    limit=STDOUT_LIMIT,
                )
            except OSError as error:
                raise AnalysisError(f"gnubg could not start: {error} / gnubg başlatılamadı") from error
        return self._proc

    async def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()  # its pipe closed with it: nothing left for the transport to close later
        if proc.returncode is None:
            proc.kill()
        with contextlib.suppress(Exception):
            await proc.wait()

    async def close(self) -> None:
        """Stop the process."""
        await self._stop()


async def _answer_line(stdout: asyncio.StreamReader) -> str | None:
    """The worker's next answer line (gnubg's own output between is skipped); None if it ended."""
    while raw := await stdout.readline():
        line = raw.decode(errors="replace")
        if line.startswith(PREFIX):
            return line
    return None
