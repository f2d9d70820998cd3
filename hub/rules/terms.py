"""Checks of a venue file's terms that more than one reader shares (a sport's `[[matches]]`, `[[team_matches]]`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.rules.sport import FieldFail


def number_pair(
    m: Mapping[str, Any], key: str, fail: FieldFail, *, least: int, what: str
) -> tuple[int, int] | None:
    """Two whole numbers from `least` (White's first, or the first-named team's), or None when absent."""
    value = m.get(key)
    if value is None:
        return None
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= least for v in value)
    ):
        raise fail(
            key, f"must be two {what} from {least}, such as [12, 7] / {least} veya büyük iki sayı olmalı"
        )
    return value[0], value[1]
