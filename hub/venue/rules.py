"""The venue file's `[rules."code"]` tables: the venue's own wording of the rule an anomaly code points to.

```toml
[rules."<sport>.<code>"]
document = "Kulüpler Şampiyonası Yönergesi 2026"   # or document_en / document_tr
article = "5.1.1"
en = "..."
tr = "..."
```

Each key given replaces the catalogue's (`hub.articles`); `document` and `title` set both languages, and
`document_en` / `document_tr` (`title_en` / `title_tr`) one of them. An unknown code or key is refused with
its line and the nearest known one, like every other mistake in the file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hub.articles import RuleOverride, known_codes
from hub.venue.keys import Locator, unknown_key
from hub.venue.model import VenueError

RULE_KEYS = ("document", "document_en", "document_tr", "article", "title", "title_en", "title_tr", "en", "tr")
MAX_RULE_TEXT = 2000


def _code_line(loc: Locator, code: str, key: str | None) -> int | None:
    """The line of `[rules."code"]` (or of `"code"` inside `[rules]`), or of `key` within that table."""
    quoted = rf"""(?:"{re.escape(code)}"|'{re.escape(code)}'|{re.escape(code)})"""
    header = re.compile(rf"^\s*\[\s*rules\s*\.\s*{quoted}\s*\]")
    inline = re.compile(rf"^\s*{quoted}\s*[=.]")
    start = next((i for i, line in enumerate(loc.lines) if header.match(line)), None)
    if start is None:
        return next((i + 1 for i, line in enumerate(loc.lines) if inline.match(line)), None)
    if key is not None:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        end = next(
            (i for i in range(start + 1, len(loc.lines)) if loc.lines[i].lstrip().startswith("[")), None
        )
        found = next(
            (i for i in range(start + 1, end or len(loc.lines)) if pattern.match(loc.lines[i])), None
        )
        if found is not None:
            return found + 1
    return start + 1


def _unknown_code(code: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(code, known, n=1, cutoff=0.6)
    if close:
        return (
            f"unknown anomaly code {code}; did you mean {close[0]}? "
            f"/ bilinmeyen anormallik kodu {code}; {close[0]} mı demek istediniz?"
        )
    families = sorted({c.split(".")[0] + ".*" for c in known})
    return f"unknown anomaly code {code}; codes are {', '.join(families)} / bilinmeyen anormallik kodu {code}"


def _text(table: dict[str, Any], key: str, fail: Callable[[str | None, str], VenueError]) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_RULE_TEXT:
        raise fail(
            key,
            f"must be a non-empty text of up to {MAX_RULE_TEXT} characters / boş olmayan bir metin olmalı",
        )
    return value.strip()


def parse_rules(data: dict[str, Any], loc: Locator, path: Path) -> dict[str, RuleOverride]:
    """The `[rules."code"]` tables as overrides by code; raise VenueError naming the line and the field."""
    tables = data.get("rules", {})
    if not isinstance(tables, dict):
        raise VenueError(
            path, loc.line("rules", None), "rules", 'must be tables: [rules."code"] / tablo olmalı'
        )
    known = known_codes()
    overrides: dict[str, RuleOverride] = {}
    for code, table in tables.items():
        field = f'rules."{code}"'

        def fail(key: str | None, message: str, code: str = code, field: str = field) -> VenueError:
            return VenueError(path, _code_line(loc, code, key), f"{field}.{key}" if key else field, message)

        dotted = [f"{code}.{name}" for name in table] if isinstance(table, dict) else []
        if code not in known and any(c in known for c in dotted):  # [rules.<sport>.<code>]: TOML split it
            written = next(c for c in dotted if c in known)
            raise fail(
                None,
                f'write the code in quotes: [rules."{written}"] / kodu tırnak içinde yazın: [rules."{written}"]',
                written,
                f'rules."{written}"',
            )
        if code not in known:
            raise fail(None, _unknown_code(code, known))
        if not isinstance(table, dict):
            raise fail(None, f'must be a table: [rules."{code}"] with en = "…", tr = "…" / tablo olmalı')
        for key in table:
            if key not in RULE_KEYS:
                raise fail(key, unknown_key(key, RULE_KEYS))
        if not table:
            raise fail(None, f"says nothing: give any of {', '.join(RULE_KEYS)} / boş tablo")
        text = {key: _text(table, key, fail) for key in RULE_KEYS}
        overrides[code] = RuleOverride(
            document_en=text["document_en"] or text["document"],
            document_tr=text["document_tr"] or text["document"],
            article=text["article"],
            title_en=text["title_en"] or text["title"],
            title_tr=text["title_tr"] or text["title"],
            en=text["en"],
            tr=text["tr"],
        )
    return overrides
