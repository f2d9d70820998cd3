"""A rule as a referee reads it (`Rule`): the document, the article, its title and text in English and Turkish.

Each sport's folder lists its own rules (`hub/rules/<sport>/articles.py`, `SportRules.articles`); the hub's
catalogue (`hub.articles`) joins them with the rules it raises itself (devices, the log).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Words:
    """A short text in English and Turkish: a document's or an article's title."""

    en: str
    tr: str

    def to_dict(self) -> dict[str, str]:
        """As plain data: {"en": …, "tr": …}."""
        return {"en": self.en, "tr": self.tr}


@dataclass(frozen=True, slots=True)
class Rule:
    """The rule an anomaly code points to: the document, the article (None for the hub's own rules), the
    article's title, and the rule's text in English and Turkish."""

    document: Words
    article: str | None
    title: Words | None
    en: str
    tr: str

    def to_dict(self) -> dict[str, Any]:
        """As the referee console reads it."""
        return {
            "document": self.document.to_dict(),
            "article": self.article,
            "title": None if self.title is None else self.title.to_dict(),
            "en": self.en,
            "tr": self.tr,
        }


BOARDCAST = Words("Boardcast", "Boardcast")

# Where a rule's text names the match's time control; written by `hub.articles.rule_for`, from the venue's
# control or, when the venue gives none, from the sport's words for "the event's own".
TIME_CONTROL = "{time_control}"


def rule(document: Words, where: tuple[str, Words] | None, en: str, tr: str) -> Rule:
    """A rule of `document` at `where` (its article and title), with its text."""
    article, title = where if where is not None else (None, None)
    return Rule(document, article, title, en, tr)


def hub_rule(title_en: str, title_tr: str, en: str, tr: str) -> Rule:
    """A rule of the hub's own (no document's article): what it does with what it was told, and why."""
    return Rule(BOARDCAST, None, Words(title_en, title_tr), en, tr)
