"""The rule each anomaly code points to, as the referees know it, resolved for one match.

`catalogue` holds the rules (the document, the article, its title and text, in English and Turkish);
`model` the values (`Rule`, `RuleOverride`). `rule_for(code, info, overrides)` is the rule a referee reads
for an anomaly of that match: a rule about the clock (chess time control, backgammon time forfeit) states
the match's own time control, and a venue file's `[rules."code"]` table replaces what it names.
"""

from __future__ import annotations

from collections.abc import Mapping

from hub.articles.catalogue import CATALOGUE, FAMILIES, TIME_CONTROL, UNSTATED_TIME_CONTROL
from hub.articles.model import Rule, RuleOverride, Words
from hub.matches import MatchInfo
from hub.rules.backgammon import BackgammonConfig
from hub.rules.chess.timecontrol import parse_time_control, time_control_words


def known_codes() -> tuple[str, ...]:
    """Every code the catalogue has a rule for (a venue file may override these)."""
    return tuple(CATALOGUE)


def _control_words(info: MatchInfo | None) -> Words | None:
    """The match's time control as a referee says it, or None when the venue gives none."""
    if info is None or not info.clock:
        return None
    try:
        if info.sport == "backgammon":
            control = BackgammonConfig.from_text(info.length, info.clock).control()
        else:
            control = parse_time_control(info.clock)
    except ValueError:  # the venue parser checked it; a hand-made MatchInfo may not be
        return None
    return None if control is None else Words(*time_control_words(control))


def _with_time_control(rule: Rule, code: str, info: MatchInfo | None) -> Rule:
    """A rule whose text names the time control, naming the match's (or the event's own, unstated)."""
    if TIME_CONTROL not in rule.en + rule.tr:
        return rule
    words = _control_words(info) or UNSTATED_TIME_CONTROL["backgammon" if code.startswith("bg.") else "chess"]
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
