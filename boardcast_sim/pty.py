"""Pseudo-terminal pairs: a simulated device writes to the master end, the hub opens the slave path."""

from __future__ import annotations

import os
import tty


class PtyPair:
    """One pseudo-terminal, both ends raw; holding the slave fd keeps the pty alive while the hub reopens."""

    def __init__(self, master_fd: int, slave_fd: int, slave_path: str) -> None:
        self.master_fd = master_fd
        self.slave_fd = slave_fd
        self.slave_path = slave_path
        self._master_open = True
        self._slave_open = True

    def close_master(self) -> None:
        """Close the device end, as if the cable were pulled; the slave path then stops working."""
        if self._master_open:
            self._master_open = False
            os.close(self.master_fd)

    def close(self) -> None:
        """Close both ends; safe to call twice."""
        self.close_master()
        if self._slave_open:
            self._slave_open = False
            os.close(self.slave_fd)

    def __enter__(self) -> PtyPair:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_pty_pair() -> PtyPair:
    """Open a pseudo-terminal with both ends raw (no echo, no line editing, no CR/LF translation)."""
    master_fd, slave_fd = os.openpty()
    try:
        tty.setraw(master_fd)
        tty.setraw(slave_fd)
        return PtyPair(master_fd, slave_fd, os.ttyname(slave_fd))
    except BaseException:
        os.close(master_fd)
        os.close(slave_fd)
        raise
