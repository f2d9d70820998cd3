"""The referee's actions as pure checks: what each one refuses, and the event that records it.

Confirm, acknowledge/resolve/dismiss an anomaly, correct a result, record a penalty, declare a forfeit, open
an appeal and decide it, record a result the board cannot see (where the sport takes one); and the lock a round's results get once
the next round starts. Each action's "may this be done now?" part is a check of its own (`check_*_now`,
`check_inputs_open`, `check_role`), apart from its fields: `hub.referee.offers` asks the same checks, so the
console never offers what an action would refuse.
"""

from __future__ import annotations

from typing import Any

from hub.matches import WAITING as _WAITING
from hub.matches import (
    ActionRefused,
    AnomalyRecord,
    AnomalyState,
    EventKind,
    MatchInfo,
    MatchState,
    MatchStatus,
    check_confirm,
)
from hub.matches.naming import sport_name, sport_names, status_name
from hub.referee.model import (
    APPEAL_WINDOW_S,
    CARDS,
    CHIEF_ONLY,
    HAS_RESULT,
    Action,
    ActionForbidden,
    ActionInvalid,
    Decision,
    Penalty,
    RefereeEvent,
    Role,
)
from hub.rules.registry import SPORTS

ANOMALY_ACTIONS = {
    Action.ACKNOWLEDGE: AnomalyState.ACKNOWLEDGED,
    Action.RESOLVE: AnomalyState.RESOLVED,
    Action.DISMISS: AnomalyState.DISMISSED,
}
# how a closed anomaly's state is said: "already resolved by …" / "zaten çözüldü: …"
_CLOSED_WORDS = {
    AnomalyState.RESOLVED: ("resolved", "çözüldü"),
    AnomalyState.DISMISSED: ("dismissed", "geçersiz sayıldı"),
}
_CLOSED = (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED)  # no more reports folded


def check_role(action: Action, role: str) -> None:
    """Raise ActionForbidden if the referee's role may not take this action (deciding an appeal: the chief)."""
    if action in CHIEF_ONLY and role != Role.CHIEF:
        raise ActionForbidden(
            f"Only the chief referee may {action.value}; you are signed in as {role}. "
            f"/ Bu işlemi yalnızca başhakem yapabilir."
        )


def confirm(match: MatchState) -> RefereeEvent:
    """Make a finished match's result official."""
    check_confirm(match)
    return RefereeEvent(EventKind.REFEREE_CONFIRM, {})


def handle_anomaly(match: MatchState, anomaly_id: str, action: Action, reason: str = "") -> RefereeEvent:
    """Acknowledge, resolve or dismiss one anomaly; resolving or dismissing needs a reason."""
    state = check_anomaly_now(match, anomaly_id, action)
    if state is not AnomalyState.ACKNOWLEDGED and not reason:
        raise ActionInvalid(
            f"A reason is required to {action.value} an anomaly. / Anormalliği kapatmak için gerekçe gerekli."
        )
    return RefereeEvent(
        EventKind.REFEREE_ANOMALY, {"anomaly": anomaly_id, "state": state.value, "reason": reason}
    )


def check_anomaly_now(match: MatchState, anomaly_id: str, action: Action) -> AnomalyState:
    """Raise ActionRefused unless this anomaly may take `action` now; the state it would take."""
    anomaly = next((a for a in match.anomalies if a.id == anomaly_id), None)
    if anomaly is None:
        raise ActionRefused(
            f"Match {match.info.id} has no anomaly {anomaly_id}. / Maçta {anomaly_id} numaralı anormallik yok."
        )
    return check_anomaly_state(anomaly, action)


def check_anomaly_state(anomaly: AnomalyRecord, action: Action) -> AnomalyState:
    """Raise ActionRefused unless the anomaly's state lets it take `action`; the state it would take."""
    state = ANOMALY_ACTIONS[action]
    if anomaly.state not in _WAITING:
        by = ("the rules", "kurallar") if anomaly.handled_by == "rules" else (anomaly.handled_by,) * 2
        done = _CLOSED_WORDS.get(anomaly.state, (anomaly.state.value, anomaly.state.value))
        raise ActionRefused(
            f"Anomaly {anomaly.id} ({anomaly.code}) is already {done[0]} by {by[0]}. "
            f"/ {anomaly.id} numaralı anormallik ({anomaly.code}) zaten {done[1]}: {by[1]}."
        )
    if anomaly.state is state:
        raise ActionRefused(
            f"Anomaly {anomaly.id} is already acknowledged. / Bu anormallik zaten görüldü olarak işaretli."
        )
    return state


def handle_anomalies(match: MatchState, code: str | None, action: Action, reason: str = "") -> RefereeEvent:
    """Acknowledge every open item of `code` (every code when None) on the match, or resolve or dismiss every
    waiting one, for one reason; resolving or dismissing needs the reason."""
    state = ANOMALY_ACTIONS[action]
    ids = [a.id for a in match.anomalies if (code is None or a.code == code) and _takes(a, action)]
    if not ids:
        what = f"{code} " if code else ""
        raise ActionRefused(
            f"Match {match.info.id} has no {what}anomaly left to {action.value}. "
            f"/ Maçta bu işlemi bekleyen {what}anormallik yok."
        )
    if state is not AnomalyState.ACKNOWLEDGED and not reason:
        raise ActionInvalid(
            f'"reason" is required to {action.value} anomalies / anormallikleri kapatmak için gerekçe ("reason") '
            f"gerekli"
        )
    return RefereeEvent(EventKind.REFEREE_ANOMALY, {"anomalies": ids, "state": state.value, "reason": reason})


def _takes(anomaly: AnomalyRecord, action: Action) -> bool:
    """Whether the item may take `action` now, as `check_anomaly_state` judges it."""
    try:
        check_anomaly_state(anomaly, action)
    except ActionRefused:
        return False
    return True


def correct(match: MatchState, score: tuple[float, float], reason: str, winner: Any = None) -> RefereeEvent:
    """Write a corrected result that supersedes the live one; the winner follows from the score."""
    check_correct_now(match)
    return RefereeEvent(
        EventKind.REFEREE_RESULT,
        {"score": list(score), "winner": _winner(score, winner), "reason": reason},
    )


def check_correct_now(match: MatchState) -> None:
    """Raise ActionRefused unless the match's result may be corrected now."""
    check_unlocked(match)
    if match.status is MatchStatus.PROTESTED:
        raise ActionRefused(
            f"Match {match.info.id} is under appeal: its result changes only by the decision on the appeal. "
            f"/ Maç itirazda: sonucu ancak itiraz kararıyla değişir."
        )


def penalty(match: MatchState, side: int, kind: Any, reason: str) -> RefereeEvent:
    """Record a warning, a game or match loss, or a card against one side."""
    try:
        chosen = Penalty(kind)
    except ValueError:
        raise ActionInvalid(
            f'"penalty" must be one of {", ".join(p.value for p in Penalty)}, got {kind!r} / geçersiz ceza'
        ) from None
    check_penalty_now(match, chosen)
    rules = match.info.rules
    body: dict[str, Any] = {"side": side, "penalty": chosen.value, "reason": reason}
    if _counted(match, chosen):
        body["input"] = {"type": "card", "side": side, "card": chosen.value}
        try:
            rules.report_from_dict(body["input"])
        except ValueError as exc:
            raise ActionInvalid(f"{exc} / geçersiz kart") from None
    if chosen is Penalty.MATCH_LOSS:
        body["score"] = _oriented(rules.forfeit_score(match.info), winner=1 - side)
    return RefereeEvent(EventKind.REFEREE_PENALTY, body)


def check_penalty_now(match: MatchState, kind: Penalty) -> None:
    """Raise ActionRefused unless a penalty of this kind may be recorded now: one that changes the result
    (a game or match loss, a card the rules count) not once the result is locked."""
    if kind in (Penalty.GAME_LOSS, Penalty.MATCH_LOSS) or _counted(match, kind):
        check_unlocked(match)
    if kind is Penalty.MATCH_LOSS and match.status in (MatchStatus.FORFEIT, MatchStatus.PROTESTED):
        raise ActionRefused(
            f"Match {match.info.id} is {status_name(match.status)[0]}; a match loss cannot be given now. "
            f"/ Maç {status_name(match.status)[1]}; maç kaybı cezası şimdi verilemez."
        )


def _counted(match: MatchState, kind: Penalty) -> bool:
    """The rules count a card (points to the opponent) where the sport takes cards as inputs, while the match
    still takes reports."""
    return kind in CARDS and "card" in match.info.rules.referee_inputs and match.status not in _CLOSED


def forfeit(match: MatchState, loser: int, reason: str) -> RefereeEvent:
    """Declare a forfeit: the loser's opponent wins by the sport's forfeit score (`SportRules.forfeit_score`)."""
    check_forfeit_now(match)
    score = _oriented(match.info.rules.forfeit_score(match.info), winner=1 - loser)
    return RefereeEvent(EventKind.REFEREE_FORFEIT, {"loser": loser, "score": score, "reason": reason})


def check_forfeit_now(match: MatchState) -> None:
    """Raise ActionRefused unless a forfeit may be declared on the match now."""
    check_unlocked(match)
    if match.status in (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.PROTESTED):
        raise ActionRefused(
            f"Match {match.info.id} is already {status_name(match.status)[0]}; a forfeit cannot be declared now. "
            f"/ Maç zaten {status_name(match.status)[1]}; hükmen karar şimdi verilemez."
        )


def appeal(match: MatchState, appellant: str, reason: str, at: float) -> RefereeEvent:
    """Open an appeal within 15 minutes of the end: the match is protested until the decision."""
    check_appeal_now(match, at)
    return RefereeEvent(EventKind.REFEREE_APPEAL, {"appellant": appellant, "reason": reason})


def check_appeal_now(match: MatchState, at: float) -> None:
    """Raise ActionRefused unless an appeal may be opened at `at`: after the end and within 15 minutes of it.

    Not refused once the round is locked: the lock stops every other change (`check_unlocked`), but an
    appeal lodged in time is heard and decided, whichever match the table plays next."""
    if match.status is MatchStatus.PROTESTED:
        raise ActionRefused(
            f"Match {match.info.id} already has an open appeal. / Maçta zaten açık bir itiraz var."
        )
    if match.status not in HAS_RESULT or match.finished_at is None:
        raise ActionRefused(
            f"Match {match.info.id} is {status_name(match.status)[0]}; an appeal is made after the match ends. "
            f"/ Maç {status_name(match.status)[1]}; itiraz maç bittikten sonra yapılır."
        )
    deadline = appeal_deadline(match)
    if deadline is not None and at > deadline:
        minutes = int((at - match.finished_at) // 60)
        rule_en, rule_tr = match.info.rules.appeal_rule or ("", "")
        raise ActionRefused(
            f"The appeal window of match {match.info.id} has closed: the match ended {minutes} minutes ago and "
            f"an appeal must be made within 15 minutes of the end{f' ({rule_en})' if rule_en else ''}. "
            f"/ İtiraz süresi doldu: maç {minutes} dakika önce bitti; itiraz maç bitiminden sonra 15 dakika "
            f"içinde yapılır{f' ({rule_tr})' if rule_tr else ''}."
        )


def appeal_deadline(match: MatchState) -> float | None:
    """When the match's appeal window closes: 15 minutes after its end, whenever the next round starts (the
    lock does not shorten it); None while the match has no result to appeal."""
    if match.status not in HAS_RESULT or match.finished_at is None:
        return None
    return match.finished_at + APPEAL_WINDOW_S


def decide(
    match: MatchState,
    decision: Any,
    reasoning: str,
    score: tuple[float, float] | None = None,
    winner: Any = None,
) -> RefereeEvent:
    """Record the decision on the open appeal with its reasoning; an upheld appeal may set a new result."""
    try:
        chosen = Decision(decision)
    except ValueError:
        raise ActionInvalid(
            f'"decision" must be upheld or rejected, got {decision!r} / karar "upheld" ya da "rejected" olmalı'
        ) from None
    check_decide_now(match)
    body: dict[str, Any] = {"decision": chosen.value, "reasoning": reasoning}
    if score is not None:
        if chosen is Decision.REJECTED:
            raise ActionInvalid(
                "A rejected appeal leaves the result as it was: send no score. / Reddedilen itirazda skor gönderilmez."
            )
        body["score"], body["winner"] = list(score), _winner(score, winner)
    return RefereeEvent(EventKind.REFEREE_DECISION, body)


def check_decide_now(match: MatchState) -> None:
    """Raise ActionRefused unless the match has an appeal waiting for its decision."""
    if match.open_appeal is None:
        raise ActionRefused(
            f"Match {match.info.id} has no open appeal to decide. / Maçta karar bekleyen itiraz yok."
        )


_RESULT_INPUT = "set_result"  # the rules input a `result` action records: the sport's rules apply it
_NO_RESULT_NOW = (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED, MatchStatus.PROTESTED)


def game_result(match: MatchState, result: Any, how: Any, reason: str) -> RefereeEvent:
    """A result the board cannot see (resignation, agreement, forfeit, an arbiter's decision), recorded as the
    rules' `set_result` input: the rules end the game with it, as they do one the board shows."""
    check_takes_results(match)
    try:  # the sport reads the input: what it accepts, and nothing else, is logged
        checked = match.info.rules.referee_result(result, how, reason)
    except ValueError as exc:
        raise ActionInvalid(str(exc)) from None
    check_inputs_open(match)
    return RefereeEvent(EventKind.REFEREE_INPUT, {"input": checked})


def check_takes_results(match: MatchState) -> None:
    """Raise ActionInvalid unless the match's sport takes a result the board cannot see."""
    if _RESULT_INPUT not in match.info.rules.referee_inputs:
        sport = sport_name(match.info.sport)
        en, tr = sport_names(
            (n for n, s in SPORTS.items() if _RESULT_INPUT in s.referee_inputs), ("and", "ve")
        )
        raise ActionInvalid(
            f'"action" result is for {en} games; match {match.info.id} is {sport[0]}: use correct or '
            f"forfeit. / Bu işlem {tr} oyunları içindir; {sport[1]} maçında düzeltme ya da hükmen "
            f"karar kullanın."
        )


def check_inputs_open(match: MatchState) -> None:
    """Raise ActionRefused unless the match still takes referee inputs (a result, a board's orientation, a
    point): not once locked, nor once official, forfeited, abandoned or under appeal."""
    check_unlocked(match)
    if match.status is MatchStatus.PROTESTED:
        raise ActionRefused(
            f"Match {match.info.id} is under appeal: its result changes only by the decision on the appeal. "
            f"/ Maç itirazda: sonucu ancak itiraz kararıyla değişir."
        )
    if match.status in _NO_RESULT_NOW:
        en, tr = status_name(match.status)
        raise ActionRefused(
            f"Match {match.info.id} is {en}: its result changes only by a correction or an appeal. "
            f"/ Maç {tr}: sonucu ancak düzeltme ya da itirazla değişir."
        )


def check_unlocked(match: MatchState) -> None:
    """Raise ActionRefused if the match's round is locked: its result can no longer change."""
    if match.locked:
        raise ActionRefused(
            f"The result of match {match.info.id} (round {match.info.round}) is locked: a match of the next "
            f"round has started, so it can no longer change. "
            f"/ Sonuç kilitli: sonraki turun maçı başladı, {match.info.round}. tur sonucu artık değiştirilemez."
        )


UNDECIDED = (MatchStatus.SCHEDULED, MatchStatus.LIVE)  # statuses with no result to lock


def lock_event(match: MatchState, started: MatchInfo) -> RefereeEvent | None:
    """The lock a match gets when `started`, of the next round, begins; None if it has no result yet or is
    already locked (a match still playing is locked when a later next-round match starts)."""
    # the status first: each start of a round asks this of the round before's matches
    if match.status in UNDECIDED or match.locked:
        return None
    return RefereeEvent(EventKind.LOCK, {"round": match.info.round, "because": started.id})


# -- results written per side --------------------------------------------------------------------------------


def _winner(score: tuple[float, float], given: Any) -> int | None:
    """The side with more; a winner sent along must agree with the score."""
    derived = 0 if score[0] > score[1] else 1 if score[1] > score[0] else None
    if given is not None and given != derived:
        raise ActionInvalid(
            f"winner {given!r} does not agree with the score {list(score)} / kazanan skorla uyuşmuyor"
        )
    return derived


def _oriented(forfeit: tuple[float, float], *, winner: int) -> list[float]:
    """A (winner's, loser's) score written per side."""
    won, lost = forfeit
    return [won, lost] if winner == 0 else [lost, won]
