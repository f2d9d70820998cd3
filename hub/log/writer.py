"""The event log's writer process: SQLite commits run beside the hub, not in it.

Binding a row's values and packing its body hold the interpreter lock; as a thread of the hub they took the
lock from the event loop for every row the hall logged (measured: the ingest benchmark at 16,750–17,132
observations/s with the writer thread, 20,154–20,423 with a writer that stored nothing). In a process of its
own the writer uses the second core, and the hub's thread that feeds it only hands each batch over.

`WriterProcess` is the hub's end, used from the log's feeding thread: `commit(rows, snapshots)` sends a batch
and waits for its commit. `main` is the process: it opens the file (`hub.log.store.connect`) and commits each
batch it reads in one transaction (`hub.log.store.commit`). Messages both ways are a 4-byte little-endian
length and a `marshal`led value, over the process's stdin and stdout:

- the process says `("ready", pid)` once the file is open, or `("error", message)` and exits;
- the hub sends `(packed, rows, snapshots)`: event rows, their bodies as given (the process packs them) or,
  when `packed`, already packed (`marshal` carries plain data of exact types only, so a body holding anything
  else, an enum member, say, is packed by the hub); and snapshot rows, their states always packed by the hub
  (`hub.log.store.pack_snapshot`: one C call, cheaper than `marshal` carrying a match's whole state);
- the process answers `("ok", inserted)` (`hub.log.store.commit`'s answer) or `("error", message)`, having
  rolled the batch back.

The process holds an exclusive lock on the log's `.writer-lock` file beside it for as long as it lives, taken
before it says ready. A hub opening the log first waits for that lock (`wait_for_writers`): a hub killed with a
batch in its writer's hands leaves the writer to commit it, and the hub started next replays the log only once
that commit is in, so it serves what the log holds.

The end of its stdin ends the process after the batch in hand: when the hub closes the log, and when the hub
dies however it dies. It ignores SIGINT and SIGTERM, which a terminal or a service manager sends the hub's
whole process group, so the hub's last commits still reach it while the hub shuts down. If the process dies
(killed, out of memory), the hub starts another and sends the batch again; a row it had committed already
is found by its id (`hub.log.store.commit`), so nothing is stored twice or reported lost.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import marshal
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from hub.log.store import EventLogError, commit, connect, pack

log = logging.getLogger(__name__)

# starts in a row that may die before a batch commits: a process that cannot get one batch through
MAX_STARTS_PER_BATCH = 3
STOP_WAIT_S = 30.0  # for the last batch to commit when the log closes, before the process is killed

_LENGTH = struct.Struct("<I")


def lock_path(path: Path) -> Path:
    """The lock file a writer process of the log at `path` holds while it lives."""
    return path.with_name(path.name + ".writer-lock")


def _open_lock(path: Path) -> int:
    return os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)


def wait_for_writers(path: Path, within: float = STOP_WAIT_S) -> None:
    """Return once no writer process is left committing to the log at `path`: an earlier hub's, killed with a
    batch in its writer's hands, commits it and exits. Raise EventLogError after `within` seconds, when a
    writer is still at it (another hub serving from this data directory)."""
    try:
        fd = _open_lock(path)
    except OSError as exc:
        raise EventLogError(
            f"{lock_path(path)}: the event log's lock file cannot be opened ({exc.strerror or exc}) "
            f"/ olay kaydının kilit dosyası açılamıyor"
        ) from None
    try:
        deadline = time.monotonic() + within
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise EventLogError(
                        f"{path}: another process is still writing this event log after {within:g} s (another "
                        f"hub serving from this data directory?) / Olay kaydına başka bir süreç yazıyor (bu veri "
                        f"dizininde çalışan başka bir hub?)"
                    ) from None
                time.sleep(0.01)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _send(stream: IO[bytes], data: bytes) -> None:
    """One message, already marshalled."""
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream (the other end closed or died)."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return marshal.loads(data)


def encode_batch(rows: list[tuple[Any, ...]], snapshots: list[tuple[Any, ...]]) -> bytes:
    """A batch as the process reads it: bodies as they are where `marshal` carries them exactly, else packed
    (snapshot states come packed)."""
    try:
        return marshal.dumps((False, rows, snapshots))
    except ValueError:  # a value of a type marshal refuses (a subclass, an object) or nested too deep
        return marshal.dumps((True, _packed(rows), snapshots))


def _packed(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Event rows with their bodies packed for storage."""
    return [(*row[:9], pack(row[9]), row[10]) for row in rows]


class WriterProcess:
    """The hub's end of one writer process: started on first use, started again if it dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.starts = 0
        self.exits: list[int] = []  # the exit status of each process that died under a batch
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The running process's id, if one runs."""
        return self._proc.pid if self._proc is not None else None

    def commit(self, rows: list[tuple[Any, ...]], snapshots: list[tuple[Any, ...]]) -> list[bool] | None:
        """Commit a batch (rows in `hub.log.store`'s column order, bodies unpacked; snapshot rows with their
        states packed); `hub.log.store.commit`'s answer. Raises EventLogError if the batch cannot be
        committed."""
        message = encode_batch(rows, snapshots)
        for _ in range(MAX_STARTS_PER_BATCH + 1):
            proc = self._proc or self._start()
            try:
                assert proc.stdin is not None and proc.stdout is not None
                _send(proc.stdin, message)
                reply = _receive(proc.stdout)
            except (OSError, ValueError):  # a closed pipe: the process is gone
                reply = None
            if reply is not None:
                status, value = reply
                if status == "ok":
                    answer: list[bool] | None = value  # the process's `hub.log.store.commit` answer
                    return answer
                raise EventLogError(f"{self.path}: could not commit: {value} / Olay kaydı yazılamadı.")
            self._reap(proc)
        raise EventLogError(
            f"{self.path}: the event log writer process stopped {MAX_STARTS_PER_BATCH + 1} times before a batch "
            f"committed (exit statuses {self.exits[-MAX_STARTS_PER_BATCH - 1 :]}). / Olay kaydı yazıcı süreci "
            f"tekrar tekrar durdu."
        )

    def close(self) -> None:
        """Let the process finish and exit (killed if it does not within `STOP_WAIT_S`)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None and proc.stdout is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        try:
            proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._close_pipes(proc)

    def _start(self) -> subprocess.Popen[bytes]:
        root = str(Path(__file__).resolve().parent.parent)  # where `hub` is, installed or not
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
        }
        proc = subprocess.Popen(
            # -P: the working directory is not searched first, so a `hub` folder there (another checkout)
            # never stands in for this hub's own writer
            [sys.executable, "-P", "-m", "hub.log.writer", str(self.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.starts += 1
        assert proc.stdout is not None
        ready = _receive(proc.stdout)
        if ready is None or ready[0] != "ready":
            proc.wait()
            self._close_pipes(proc)
            reason = ready[1] if ready is not None else f"it exited with status {proc.returncode}"
            raise EventLogError(
                f"{self.path}: the event log writer process could not start: {reason} "
                f"/ Olay kaydı yazıcı süreci başlatılamadı."
            )
        if self.starts > 1:
            log.warning("event log writer process started again (pid %s)", proc.pid)
        self._proc = proc
        return proc

    @staticmethod
    def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _reap(self, proc: subprocess.Popen[bytes]) -> None:
        """Forget a process that stopped answering, with its exit status."""
        self._proc = None
        proc.kill()  # already gone, as a rule; if not, it must not write after its successor
        status = proc.wait()
        self.exits.append(status)
        self._close_pipes(proc)
        log.error("event log writer process %s stopped (status %s) under a batch", proc.pid, status)


def main(argv: list[str] | None = None) -> int:
    """The writer process: open the log named on the command line, commit each batch from stdin."""
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # the protocol has stdin and stdout to itself; anything else printed goes to stderr
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _bind_as_is()
    try:
        conn = connect(Path(args[0]))
        lock = _open_lock(Path(args[0]))
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until the process ends, however it ends (`wait_for_writers`)
    except Exception as exc:  # whatever it is, the hub hears it
        _send(answers, marshal.dumps(("error", f"{type(exc).__name__}: {exc}")))
        return 1
    try:
        _send(answers, marshal.dumps(("ready", os.getpid())))
        while (batch := _receive(requests)) is not None:
            _send(answers, marshal.dumps(_commit_batch(conn, batch)))
    except BrokenPipeError:  # the hub is gone: the batch in hand is committed, no one is left to hear it
        pass
    finally:
        conn.close()
    return 0


def _bind_as_is() -> None:
    """Bind bytes and None without sqlite3's adapter lookups, in this process only (its own `main`, never
    at import). With nothing registered, sqlite3 looks up `__adapt__` and `__conform__` for every bytes and
    None parameter (two failed attribute lookups each) before binding the value unchanged; a row has two to
    five of them. Identity adapters are found at the first lookup and store exactly the same values."""
    sqlite3.register_adapter(bytes, bytes)
    sqlite3.register_adapter(type(None), _none)


def _none(value: None) -> None:
    return value


def _commit_batch(conn: sqlite3.Connection, batch: tuple[bool, list[Any], list[Any]]) -> tuple[str, Any]:
    """The answer to one batch: ("ok", inserted) once committed, ("error", message) if it is rolled back."""
    packed, rows, snapshots = batch
    try:
        if not packed:
            rows = _packed(rows)
        return ("ok", commit(conn, rows, snapshots))
    except Exception as exc:  # disk full, I/O error, a body it cannot store: the hub stops taking events
        return ("error", f"{type(exc).__name__}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
