"""The referee's workflow as pure checks: what a referee may do to a match now, and the event that records it.

Every action (confirm, acknowledge/resolve/dismiss an anomaly, correct a result, record a penalty, declare a
forfeit, open an appeal, decide it) is checked here against the match's state, the referee's role and the
time, and becomes one event body for the log; `hub.matches.apply_event` folds it. A refusal raises with a
message in English and Turkish and nothing is logged. No I/O and no clock: time is an argument.

Rules (RULES.md §0, seed 000 §8-§10, seed 002 §6.2): a result is corrected by a new event that supersedes
it, never by rewriting; a forfeit writes the sport's forfeit score (backgammon: match length-0); an appeal is
accepted within 15 minutes of the end and leaves the match `protested` until the decision, which the chief
referee makes and which is recorded with its reasoning; once a match of the next round has started, the
previous round's results are locked.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hub.matches import (
    ActionRefused,
    AnomalyState,
    EventKind,
    MatchInfo,
    MatchState,
    MatchStatus,
    check_confirm,
    referee_view,
)
from hub.venue import PlayerConfig

APPEAL_WINDOW_S = 15 * 60  # seed 000 §10; chess: 15 minutes after the round (seed 002 §6.2)
SYSTEM_ACTOR = "boardcast"  # who locks a round: the hub itself, when it sees the next round start
MAX_TEXT = 1000


class Role(enum.StrEnum):
    """What a referee may do: the chief referee also decides appeals."""

    REFEREE = "referee"
    CHIEF = "chief"


class Action(enum.StrEnum):
    """The referee actions the console and `POST /api/matches/{id}/actions` offer."""

    CONFIRM = "confirm"
    ACKNOWLEDGE = "acknowledge"
    RESOLVE = "resolve"
    DISMISS = "dismiss"
    CORRECT = "correct"
    PENALTY = "penalty"
    FORFEIT = "forfeit"
    APPEAL = "appeal"
    DECIDE = "decide"


class Penalty(enum.StrEnum):
    """Penalties a referee records (seed 000 §9; table-tennis cards, ITTF 3.5.2)."""

    WARNING = "warning"
    GAME_LOSS = "game_loss"
    MATCH_LOSS = "match_loss"
    YELLOW = "yellow"
    YELLOW_RED = "yellow_red"
    RED = "red"


class Decision(enum.StrEnum):
    """The decision on an appeal."""

    UPHELD = "upheld"
    REJECTED = "rejected"


CHIEF_ONLY = frozenset({Action.DECIDE})  # the appeal goes to the chief referee (seed 002 §6.2)
CARDS = frozenset({Penalty.YELLOW, Penalty.YELLOW_RED, Penalty.RED})
_ANOMALY_ACTIONS = {
    Action.ACKNOWLEDGE: AnomalyState.ACKNOWLEDGED,
    Action.RESOLVE: AnomalyState.RESOLVED,
    Action.DISMISS: AnomalyState.DISMISSED,
}
_ANOMALY_FIELDS = frozenset({"action", "anomaly", "reason"})
ACTION_FIELDS: dict[Action, frozenset[str]] = {  # the fields each action reads: any other is refused
    Action.CONFIRM: frozenset({"action"}),
    Action.ACKNOWLEDGE: _ANOMALY_FIELDS,
    Action.RESOLVE: _ANOMALY_FIELDS,
    Action.DISMISS: _ANOMALY_FIELDS,
    Action.CORRECT: frozenset({"action", "score", "reason", "winner"}),
    Action.PENALTY: frozenset({"action", "side", "penalty", "reason"}),
    Action.FORFEIT: frozenset({"action", "loser", "reason"}),
    Action.APPEAL: frozenset({"action", "appellant", "reason"}),
    Action.DECIDE: frozenset({"action", "decision", "reasoning", "score", "winner"}),
}
MAX_INPUT_NUMBER = 9999  # a referee input's counts (points, games, plies): far past any real match
_WAITING = (AnomalyState.OPEN, AnomalyState.ACKNOWLEDGED)
_HAS_RESULT = (MatchStatus.FINISHED, MatchStatus.OFFICIAL, MatchStatus.FORFEIT)
_CLOSED = (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED)  # no more reports folded


class ActionInvalid(ValueError):
    """A request that is not a well-formed referee action (HTTP 400); the message names the field."""


class ActionForbidden(PermissionError):
    """The referee's role does not allow the action (HTTP 403)."""


@dataclass(frozen=True, slots=True)
class RefereeEvent:
    """A checked action: the event kind and body to log, with the referee as its actor."""

    kind: EventKind
    body: dict[str, Any]


# -- one entry point ----------------------------------------------------------------------------------------


def prepare(match: MatchState, request: Mapping[str, Any], *, role: str, at: float) -> RefereeEvent:
    """Check a referee's request (`{"action": …, …}`) against the match, the role and the time."""
    if not isinstance(request, Mapping):
        raise ActionInvalid('expected an object such as {"action": "confirm"} / nesne bekleniyordu')
    try:
        action = Action(str(request.get("action")))
    except ValueError:
        raise ActionInvalid(
            f'"action" must be one of {", ".join(a.value for a in Action)}, got {request.get("action")!r} '
            f"/ geçersiz işlem"
        ) from None
    unknown = unknown_fields(request, ACTION_FIELDS[action])
    if unknown:
        raise ActionInvalid(
            f"{action.value} takes no {', '.join(map(repr, unknown))}; its fields: "
            f"{', '.join(sorted(ACTION_FIELDS[action]))} / bilinmeyen alan"
        )
    if action in CHIEF_ONLY and role != Role.CHIEF:
        raise ActionForbidden(
            f"Only the chief referee may {action.value}; you are signed in as {role}. "
            f"/ Bu işlemi yalnızca başhakem yapabilir."
        )
    if action is Action.CONFIRM:
        return confirm(match)
    if action in _ANOMALY_ACTIONS:
        return handle_anomaly(
            match, _text(request, "anomaly", required=True), action, _text(request, "reason")
        )
    if action is Action.CORRECT:
        return correct(match, _score(request), _text(request, "reason", required=True), request.get("winner"))
    if action is Action.PENALTY:
        return penalty(
            match, _side(request, "side"), request.get("penalty"), _text(request, "reason", required=True)
        )
    if action is Action.FORFEIT:
        return forfeit(match, _side(request, "loser"), _text(request, "reason", required=True))
    if action is Action.APPEAL:
        return appeal(
            match, _text(request, "appellant", required=True), _text(request, "reason", required=True), at
        )
    score = _score(request) if request.get("score") is not None else None
    return decide(
        match,
        request.get("decision"),
        _text(request, "reasoning", required=True),
        score,
        request.get("winner"),
    )


def action_fields(request: Any) -> frozenset[str] | None:
    """The fields a request for its `action` may have; None when the action itself is not one."""
    try:
        return ACTION_FIELDS[Action(request.get("action"))]
    except (ValueError, TypeError, AttributeError):
        return None


def unknown_fields(request: Mapping[str, Any], allowed: Iterable[str]) -> list[str]:
    """The keys of a request that are not among `allowed`, in the request's order."""
    known = frozenset(allowed)
    return [key for key in request if key not in known]


# -- referee inputs -----------------------------------------------------------------------------------------


def input_fields(match: MatchState, request: Any) -> frozenset[str] | None:
    """The fields a referee input of its `type` may have (what the rules write back for it); None when the
    input is not one the rules read, which `check_input` then says."""
    try:
        return frozenset(check_input(match, request, unknown_ok=True).body["input"])
    except (ActionInvalid, ActionRefused):
        return None


def check_input(match: MatchState, request: Any, *, unknown_ok: bool = False) -> RefereeEvent:
    """A referee input (time-out, card, correction…) checked by the sport's rules and rebuilt from what they
    read: the event logs that, never the request as sent. Texts are at most MAX_TEXT characters and counts
    at most MAX_INPUT_NUMBER; raise ActionInvalid naming the field."""
    rules = match.info.rules
    allowed = rules.referee_inputs
    if not isinstance(request, Mapping) or request.get("type") not in allowed:
        raise ActionInvalid(
            f'"type" must be one of {", ".join(allowed) or "nothing yet for this sport"} / geçersiz girdi türü'
        )
    try:
        checked = rules.input_to_dict(rules.report_from_dict(dict(request)))
    except KeyError as exc:
        raise ActionInvalid(f'"{exc.args[0]}" is missing / eksik alan: {exc.args[0]}') from None
    except (ValueError, TypeError) as exc:
        raise ActionInvalid(f"{exc} / geçersiz hakem girdisi") from None
    unknown = [] if unknown_ok else unknown_fields(request, checked)
    if unknown:
        raise ActionInvalid(
            f"{request['type']} takes no {', '.join(map(repr, unknown))}; its fields: "
            f"{', '.join(checked)} / bilinmeyen alan"
        )
    for key, value in checked.items():
        _check_bounds(key, value)
    return RefereeEvent(EventKind.REFEREE_INPUT, {"input": checked})


def _check_bounds(key: str, value: Any) -> None:
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise ActionInvalid(f'"{key}" is limited to {MAX_TEXT} characters / "{key}" çok uzun')
    numbers = value if isinstance(value, list | tuple) else (value,)
    for n in numbers:
        if isinstance(n, int | float) and not isinstance(n, bool) and not 0 <= n <= MAX_INPUT_NUMBER:
            raise ActionInvalid(
                f'"{key}" must be from 0 to {MAX_INPUT_NUMBER}, got {n!r} / "{key}" 0 ile {MAX_INPUT_NUMBER} arası olmalı'
            )


# -- the actions ------------------------------------------------------------------------------------------


def confirm(match: MatchState) -> RefereeEvent:
    """Make a finished match's result official."""
    check_confirm(match)
    return RefereeEvent(EventKind.REFEREE_CONFIRM, {})


def handle_anomaly(match: MatchState, anomaly_id: str, action: Action, reason: str = "") -> RefereeEvent:
    """Acknowledge, resolve or dismiss one anomaly; resolving or dismissing needs a reason."""
    state = _ANOMALY_ACTIONS[action]
    anomaly = next((a for a in match.anomalies if a.id == anomaly_id), None)
    if anomaly is None:
        raise ActionRefused(
            f"Match {match.info.id} has no anomaly {anomaly_id}. / Maçta {anomaly_id} numaralı anormallik yok."
        )
    if anomaly.state not in _WAITING:
        by = "the rules" if anomaly.handled_by == "rules" else anomaly.handled_by
        raise ActionRefused(
            f"Anomaly {anomaly_id} ({anomaly.code}) is already {anomaly.state.value} by {by}. "
            f"/ Bu anormallik zaten kapatıldı."
        )
    if anomaly.state is state:
        raise ActionRefused(
            f"Anomaly {anomaly_id} is already acknowledged. / Bu anormallik zaten görüldü olarak işaretli."
        )
    if state is not AnomalyState.ACKNOWLEDGED and not reason:
        raise ActionInvalid(
            f"A reason is required to {action.value} an anomaly. / Anormalliği kapatmak için gerekçe gerekli."
        )
    return RefereeEvent(
        EventKind.REFEREE_ANOMALY, {"anomaly": anomaly_id, "state": state.value, "reason": reason}
    )


def correct(match: MatchState, score: tuple[float, float], reason: str, winner: Any = None) -> RefereeEvent:
    """Write a corrected result that supersedes the live one; the winner follows from the score."""
    check_unlocked(match)
    if match.status is MatchStatus.PROTESTED:
        raise ActionRefused(
            f"Match {match.info.id} is protested: its result changes only by the decision on the appeal. "
            f"/ Maç itirazda: sonuç ancak itiraz kararıyla değişir."
        )
    return RefereeEvent(
        EventKind.REFEREE_RESULT,
        {"score": list(score), "winner": _winner(score, winner), "reason": reason},
    )


def penalty(match: MatchState, side: int, kind: Any, reason: str) -> RefereeEvent:
    """Record a warning, a game or match loss, or a card against one side."""
    try:
        chosen = Penalty(kind)
    except ValueError:
        raise ActionInvalid(
            f'"penalty" must be one of {", ".join(p.value for p in Penalty)}, got {kind!r} / geçersiz ceza'
        ) from None
    rules = match.info.rules
    # table tennis: the rules count a card (points to the opponent), while the match still takes reports
    counted = chosen in CARDS and "card" in rules.referee_inputs and match.status not in _CLOSED
    changes_result = chosen in (Penalty.GAME_LOSS, Penalty.MATCH_LOSS) or counted
    if changes_result:
        check_unlocked(match)
    body: dict[str, Any] = {"side": side, "penalty": chosen.value, "reason": reason}
    if counted:
        body["input"] = {"type": "card", "side": side, "card": chosen.value}
        try:
            rules.report_from_dict(body["input"])
        except ValueError as exc:
            raise ActionInvalid(f"{exc} / geçersiz kart") from None
    if chosen is Penalty.MATCH_LOSS:
        if match.status in (MatchStatus.FORFEIT, MatchStatus.PROTESTED):
            raise ActionRefused(
                f"Match {match.info.id} is {match.status.value}; a match loss cannot be given now. "
                f"/ Maç kaybı cezası şimdi verilemez."
            )
        body["score"] = _oriented(rules.forfeit_score(match.info), winner=1 - side)
    return RefereeEvent(EventKind.REFEREE_PENALTY, body)


def forfeit(match: MatchState, loser: int, reason: str) -> RefereeEvent:
    """Declare a forfeit: the loser's opponent wins by the sport's forfeit score (backgammon: length-0)."""
    check_unlocked(match)
    if match.status in (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.PROTESTED):
        raise ActionRefused(
            f"Match {match.info.id} is already {match.status.value}; a forfeit cannot be declared now. "
            f"/ Maç zaten kapandı; hükmen karar şimdi verilemez."
        )
    score = _oriented(match.info.rules.forfeit_score(match.info), winner=1 - loser)
    return RefereeEvent(EventKind.REFEREE_FORFEIT, {"loser": loser, "score": score, "reason": reason})


def appeal(match: MatchState, appellant: str, reason: str, at: float) -> RefereeEvent:
    """Open an appeal within 15 minutes of the end: the match is protested until the decision."""
    if match.status is MatchStatus.PROTESTED:
        raise ActionRefused(
            f"Match {match.info.id} already has an open appeal. / Maçta zaten açık bir itiraz var."
        )
    if match.status not in _HAS_RESULT or match.finished_at is None:
        raise ActionRefused(
            f"Match {match.info.id} is {match.status.value}; an appeal is made after the match ends. "
            f"/ İtiraz maç bittikten sonra yapılır."
        )
    check_unlocked(match)
    late = at - match.finished_at - APPEAL_WINDOW_S
    if late > 0:
        minutes = int((at - match.finished_at) // 60)
        raise ActionRefused(
            f"The appeal window of match {match.info.id} has closed: the match ended {minutes} minutes ago and "
            f"an appeal must be made within 15 minutes of the end. "
            f"/ İtiraz süresi doldu: maç {minutes} dakika önce bitti; itiraz maç bitiminden sonra 15 dakika "
            f"içinde yapılır."
        )
    return RefereeEvent(EventKind.REFEREE_APPEAL, {"appellant": appellant, "reason": reason})


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
    if match.open_appeal is None:
        raise ActionRefused(
            f"Match {match.info.id} has no open appeal to decide. / Maçta karar bekleyen itiraz yok."
        )
    body: dict[str, Any] = {"decision": chosen.value, "reasoning": reasoning}
    if score is not None:
        if chosen is Decision.REJECTED:
            raise ActionInvalid(
                "A rejected appeal leaves the result as it was: send no score. / Reddedilen itirazda skor gönderilmez."
            )
        body["score"], body["winner"] = list(score), _winner(score, winner)
    return RefereeEvent(EventKind.REFEREE_DECISION, body)


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


# -- the console's view -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    """The rule an anomaly code points to, with its source."""

    source: str
    en: str
    tr: str


RULES: dict[str, Rule] = {
    "bg.illegal_move": Rule(
        "seed 000 §6",
        "Every playable die must be played (the larger if only one); a wrong move noticed before the "
        "opponent rolls is corrected.",
        "Oynanabilen her zar oynanmalıdır (yalnız biri oynanabiliyorsa büyüğü); rakip zar atmadan fark "
        "edilen hatalı hamle düzeltilir.",
    ),
    "bg.illegal_move_stood": Rule(
        "seed 000 §6",
        "Once the opponent has rolled, a wrong move stands.",
        "Rakip zar attıktan sonra hatalı hamle geçerli kalır.",
    ),
    "bg.cube_after_roll": Rule(
        "seed 000 §7",
        "The cube is offered only before rolling.",
        "Katlama küpü yalnızca zar atmadan önce önerilir.",
    ),
    "bg.cube_not_owner": Rule(
        "seed 000 §7",
        "Only the cube's owner (either player while it is centred) may double.",
        "Yalnızca küpün sahibi (küp ortadayken iki oyuncu da) katlayabilir.",
    ),
    "bg.crawford_double": Rule(
        "seed 000 §7", "No doubling in the Crawford game.", "Crawford oyununda katlama yapılmaz."
    ),
    "bg.roll_out_of_turn": Rule(
        "seed 000 §5",
        "A roll before the opponent has finished the move and picked up the dice is invalid.",
        "Rakip hamlesini bitirip zarları almadan atılan zar geçersizdir.",
    ),
    "bg.opening_tie": Rule(
        "seed 000 §6", "Equal opening dice are rerolled.", "Açılışta eşit zarlar yeniden atılır."
    ),
    "bg.time_forfeit": Rule(
        "seed 000 §8", "A player whose time runs out loses the match.", "Süresi biten oyuncu maçı kaybeder."
    ),
    "bg.board_inconsistent": Rule(
        "seed 000 §5-§6",
        "15 checkers a side on 24 points, bar and trays: the board shows an impossible position.",
        "Her tarafta 15 pul: tahta olanaksız bir konum gösteriyor.",
    ),
    "tt.score_jump": Rule(
        "ITTF 2.11", "One rally gives one point to one side.", "Her ralli bir tarafa bir sayı verir."
    ),
    "tt.score_decrease": Rule(
        "ITTF 2.14",
        "Points scored stand; a score changes down only by a referee's correction.",
        "Kazanılan sayılar geçerlidir; skor yalnızca hakem düzeltmesiyle azalır.",
    ),
    "tt.wrong_server": Rule(
        "ITTF 2.13",
        "Service changes every 2 points, every point from 10-10 and under the expedite system.",
        "Servis her 2 sayıda, 10-10'dan sonra ve hızlandırmada her sayıda değişir.",
    ),
    "tt.ends_not_changed": Rule(
        "ITTF 2.13.7",
        "Ends change after each game and at 5 in the last possible game.",
        "Her setten sonra ve son olası sette 5'te taraf değiştirilir.",
    ),
    "tt.expedite_due": Rule(
        "ITTF 2.15",
        "The expedite system starts after 10 minutes of play in a game unless 18 points were scored.",
        "18 sayı olmadıkça bir sette 10 dakikalık oyundan sonra hızlandırma başlar.",
    ),
    "tt.expedite_dropped": Rule(
        "ITTF 2.15",
        "Once introduced, expedite stays for the rest of the match.",
        "Hızlandırma maç sonuna dek sürer.",
    ),
    "tt.expedite_not_allowed": Rule(
        "ITTF 2.15",
        "Expedite is not introduced once 18 points have been scored in the game.",
        "Sette 18 sayı olduktan sonra hızlandırma başlatılmaz.",
    ),
    "tt.second_timeout": Rule(
        "ITTF 3.4.4", "One time-out per player or pair per match.", "Maç başına oyuncu/çift başına bir mola."
    ),
    "tt.penalty_without_warning": Rule(
        "ITTF 3.5.2", "A penalty point follows a yellow card.", "Ceza sayısı sarı karttan sonra gelir."
    ),
    "tt.illegal_game_end": Rule(
        "ITTF 2.11",
        "A game is won at 11, or by 2 clear from 10-10.",
        "Set 11'de, 10-10'dan sonra 2 farkla kazanılır.",
    ),
    "tt.games_mismatch": Rule(
        "ITTF 2.11-2.12",
        "Games won must add up to the games played.",
        "Kazanılan setler oynanan setlerle tutmalıdır.",
    ),
    "tt.match_overrun": Rule(
        "ITTF 2.12",
        "A match ends when a side has won most of its games.",
        "Maç bir taraf setlerin çoğunu alınca biter.",
    ),
    "chess.illegal_move": Rule(
        "FIDE 7.5",
        "An illegal move: the position before it is restored.",
        "Kural dışı hamle: önceki konum kurulur.",
    ),
    "chess.flag_fall": Rule(
        "FIDE 6.9",
        "A flag fall loses, unless the opponent cannot checkmate: then it is a draw.",
        "Süre bitimi kaybettirir; rakip mat edemiyorsa beraberliktir.",
    ),
    "chess.increment_missing": Rule(
        "seed 002 §5.1.1", "90 minutes + 30 seconds a move (Fischer).", "90 dakika + hamle başına 30 saniye."
    ),
    "chess.increment_wrong": Rule(
        "seed 002 §5.1.1", "90 minutes + 30 seconds a move (Fischer).", "90 dakika + hamle başına 30 saniye."
    ),
    "chess.clock_setting": Rule(
        "seed 002 §5.1.1",
        "The clock starts at the event's time control.",
        "Saat turnuvanın süre ayarıyla başlar.",
    ),
    "chess.move_without_press": Rule(
        "FIDE 6.2", "A move is completed by pressing the clock.", "Hamle saate basılarak tamamlanır."
    ),
    "match.report_after_close": Rule(
        "RULES §0",
        "A closed result does not change with a device's later report; the report is kept.",
        "Kapanmış sonuç cihazın sonraki bildirimiyle değişmez; bildirim saklanır.",
    ),
}
_FAMILY_RULES = {
    "device.": Rule(
        "ARCHITECTURE: devices",
        "Nothing a device reports is hidden or dropped; a gap, a refusal or a conflict needs a look.",
        "Cihazın bildirdiği hiçbir şey gizlenmez; boşluk, ret ya da çakışma incelenmeli.",
    ),
    "log.": Rule(
        "ARCHITECTURE: the event log",
        "The log is the truth: an event it cannot apply is kept and shown.",
        "Kayıt esastır: uygulanamayan olay saklanır ve gösterilir.",
    ),
}


def rule_for(code: str) -> Rule | None:
    """The rule an anomaly code points to: the code's own, or its family's."""
    found = RULES.get(code)
    if found is not None:
        return found
    return next((r for prefix, r in _FAMILY_RULES.items() if code.startswith(prefix)), None)


def console_view(match: MatchState, players: Mapping[str, PlayerConfig] | None = None) -> dict[str, Any]:
    """What the referee console shows of a match: the referee view, each anomaly's rule, the appeal
    deadline, and the players' contacts (private: only referees get this view)."""
    view = referee_view(match)
    for anomaly in view["anomalies"]:
        rule = rule_for(anomaly["code"])
        anomaly["rule"] = None if rule is None else {"source": rule.source, "en": rule.en, "tr": rule.tr}
    view["appeal_until"] = (
        match.finished_at + APPEAL_WINDOW_S
        if match.finished_at is not None and match.status in _HAS_RESULT
        else None
    )
    known = players or {}
    view["contacts"] = [
        {"name": p.name, "club": p.club, "city": p.city, "phone": p.phone, "email": p.email}
        for p in (known.get(name) for name in match.info.players)
        if p is not None
    ]
    return view


def audit(matches: Iterable[MatchState]) -> list[dict[str, Any]]:
    """Every referee and hub action on every match, newest first, with who and when."""
    entries = [
        {
            "match": m.info.id,
            "table": m.info.table,
            "round": m.info.round,
            "offset": a.offset,
            "at": a.at,
            "actor": a.actor,
            "kind": a.kind,
            "body": a.body,
        }
        for m in matches
        for a in m.actions
    ]
    entries.sort(key=lambda e: (e["at"], e["match"], e["offset"]), reverse=True)
    return entries


# -- reading a request --------------------------------------------------------------------------------------


def _text(request: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = request.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ActionInvalid(f'"{key}" must be text, got {value!r} / "{key}" metin olmalı')
    value = value.strip()
    if required and not value:
        raise ActionInvalid(f'"{key}" is required / "{key}" gerekli')
    if len(value) > MAX_TEXT:
        raise ActionInvalid(f'"{key}" is limited to {MAX_TEXT} characters / "{key}" çok uzun')
    return value


def _side(request: Mapping[str, Any], key: str) -> int:
    value = request.get(key)
    if value not in (0, 1) or isinstance(value, bool):
        raise ActionInvalid(f'"{key}" must be side 0 or 1, got {value!r} / "{key}" 0 ya da 1 olmalı')
    return value


def _score(request: Mapping[str, Any]) -> tuple[float, float]:
    value = request.get("score")
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x < 1000 for x in value)
    ):
        return value[0], value[1]
    raise ActionInvalid(
        f'"score" must be two numbers from 0, one per side, such as [3, 1], got {value!r} '
        f"/ skor iki sayı olmalı, ör. [3, 1]"
    )


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
