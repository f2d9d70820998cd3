"""Writing the venue file: values as TOML writes them, and entries appended only once the whole still reads.

`boardcast round import` and `boardcast token add` add to a file a running hub may be watching: the new file
is written beside it and put in its place in one step, so the hub never reads half of it, and the file's own
bytes are kept as they were.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hub.venue.parse import parse_venue

TomlValue = str | int | bool | tuple[str, ...] | tuple[int, ...]


def toml_value(value: TomlValue) -> str:
    """A value as TOML writes it: basic strings with TOML's escapes, numbers, booleans, one-line arrays."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return (
        '"'
        + "".join(escapes.get(c, f"\\u{ord(c):04x}" if ord(c) < 32 or ord(c) == 127 else c) for c in value)
        + '"'
    )


def append_to_venue(path: Path, text: str) -> None:
    """Append TOML text to the venue file once the whole still reads as a venue (else raise its VenueError and
    change nothing); the new file replaces the old in one step."""
    before = path.read_bytes()
    old = before.decode("utf-8")
    separator = "" if old.endswith("\n\n") or not old else "\n" if old.endswith("\n") else "\n\n"
    added = separator + text
    parse_venue(old + added, path)
    mode = stat.S_IMODE(path.stat().st_mode)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(before + added.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
