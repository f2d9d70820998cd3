"""The rule each anomaly code points to, as the referees know it, resolved for one match.

`catalogue` joins the sports' rules (`SportRules.articles`) with the hub's own; `model` holds what a venue may
say instead (`RuleOverride`). `rule_for(code, info, overrides)` is the rule a referee reads for an anomaly of
that match: a rule about the clock states the match's own time control (`SportRules.time_control_words`), and a
venue file's `[rules."code"]` table replaces what it names.
"""

from __future__ import annotations

from collections.abc import Mapping

from hub.articles.catalogue import CATALOGUE, FAMILIES, OWNER
from hub.articles.model import RuleOverride
from hub.matches import MatchInfo
from hub.rules.articles import TIME_CONTROL, Rule, Words
from hub.rules.registry import SPORTS


def known_codes() -> tuple[str, ...]:
    """Every code the catalogue has a rule for (a venue file may override these)."""
    return tuple(CATALOGUE)


def _with_time_control(rule: Rule, code: str, info: MatchInfo | None) -> Rule:
    """A rule whose text names the time control, naming the match's (or the event's own, unstated)."""
    if TIME_CONTROL not in rule.en + rule.tr:
        return rule
    sport = SPORTS.get(OWNER.get(code, ""))  # the sport whose rule it is
    if sport is None:
        return rule
    words = (sport.time_control_words(info) if info is not None else None) or sport.unstated_time_control
    if words is None:
        return rule
    en, tr = rule.en.replace(TIME_CONTROL, words.en), rule.tr.replace(TIME_CONTROL, words.tr)
    return Rule(rule.document, rule.article, rule.title, en, tr)


def rule_for(
    code: str, info: MatchInfo | None = None, overrides: Mapping[str, RuleOverride] | None = None
) -> Rule | None:
    """The rule an anomaly code of this match points to: the code's own (or its family's), naming the match's
    time control where it speaks of the clock, with the venue's override in place of what it names."""
    rule = CATALOGUE.get(code)
    if rule is None:
        rule = next((r for prefix, r in FAMILIES.items() if code.startswith(prefix)), None)
    if rule is None:
        return None
    rule = _with_time_control(rule, code, info)
    override = (overrides or {}).get(code)
    return rule if override is None else override.apply(rule)


__all__ = ["CATALOGUE", "Rule", "RuleOverride", "Words", "known_codes", "rule_for"]
