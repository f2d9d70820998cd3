"""The rule each anomaly code points to, as the referees know it, resolved for one match.

`catalogue` holds the rules (the document, the article, its title and text, in English and Turkish);
`model` the values (`Rule`, `RuleOverride`). `rule_for(code, info, overrides)` is the rule a referee reads
for an anomaly of that match: a chess time-control rule states the match's own time control, and a venue
file's `[rules."code"]` table replaces what it names.
"""

from __future__ import annotations

from collections.abc import Mapping

from hub.matches import MatchInfo
from hub.rulebook.catalogue import CATALOGUE, FAMILIES
from hub.rulebook.model import Rule, RuleOverride, Words
from hub.rules.chess.timecontrol import parse_time_control, time_control_words

TIME_CONTROL_CODES = ("chess.increment_missing", "chess.increment_wrong", "chess.clock_setting")


def known_codes() -> tuple[str, ...]:
    """Every code the catalogue has a rule for (a venue file may override these)."""
    return tuple(CATALOGUE)


def _time_control(rule: Rule, info: MatchInfo | None) -> Rule:
    """A time-control rule stating the match's control; as catalogued when the venue gives none."""
    if info is None or not info.clock:
        return rule
    try:
        en, tr = time_control_words(parse_time_control(info.clock))
    except ValueError:  # the venue parser checked it; a hand-made MatchInfo may not be
        return rule
    # the catalogued sentence ("… at the event's time control.") completed with the control itself
    return Rule(rule.document, rule.article, rule.title, f"{rule.en[:-1]}: {en}.", f"{rule.tr[:-1]}: {tr}.")


def rule_for(
    code: str, info: MatchInfo | None = None, overrides: Mapping[str, RuleOverride] | None = None
) -> Rule | None:
    """The rule an anomaly code of this match points to: the code's own (or its family's), with the match's
    time control for a chess time-control code, and the venue's override in place of what it names."""
    rule = CATALOGUE.get(code)
    if rule is None:
        rule = next((r for prefix, r in FAMILIES.items() if code.startswith(prefix)), None)
    if rule is None:
        return None
    if code in TIME_CONTROL_CODES:
        rule = _time_control(rule, info)
    override = (overrides or {}).get(code)
    return rule if override is None else override.apply(rule)


__all__ = ["CATALOGUE", "TIME_CONTROL_CODES", "Rule", "RuleOverride", "Words", "known_codes", "rule_for"]
