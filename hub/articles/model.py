"""What a venue file may say instead of a rule (`RuleOverride`); the rule itself is `hub.rules.articles.Rule`."""

from __future__ import annotations

from dataclasses import dataclass

from hub.rules.articles import Rule, Words


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
