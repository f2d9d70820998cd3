"""A rule as a referee reads it (`Rule`), and what a venue file may say instead (`RuleOverride`)."""

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


@dataclass(frozen=True, slots=True)
class RuleOverride:
    """A venue's own wording of a rule (its `[rules."code"]` table): each field given replaces the
    catalogue's, the others stay."""

    document_en: str | None = None
    document_tr: str | None = None
    article: str | None = None
    title_en: str | None = None
    title_tr: str | None = None
    en: str | None = None
    tr: str | None = None

    def apply(self, rule: Rule) -> Rule:
        """`rule` with this override's fields in place of its own."""
        title = rule.title or Words("", "")
        new_title = Words(self.title_en or title.en, self.title_tr or title.tr)
        return Rule(
            Words(self.document_en or rule.document.en, self.document_tr or rule.document.tr),
            self.article or rule.article,
            new_title if (new_title.en or new_title.tr) else None,
            self.en or rule.en,
            self.tr or rule.tr,
        )
