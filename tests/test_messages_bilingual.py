"""Every refusal and message of the appeal window, the closed or locked match, the sport a referee action is
for, and a card's player, read in English AND Turkish: the Turkish never carries an internal name
("tabletennis", "protested") and says what the English says (the same numbers and rule, the same idea:
an appeal is "itiraz", a forfeit "hükmen", a locked result "kilitli"…)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hub.matches import ActionRefused, EventKind, MatchStatus, check_confirm, public_view
from hub.referee import APPEAL_WINDOW_S, ActionInvalid, prepare, prepare_input
from tests.test_referee_workflow import BG_R1, TT_R1, Folder, finished_tt

# words a Turkish message must never hold: the hub's own names for sports and statuses
INTERNAL = re.compile(
    r"\b(tabletennis|table tennis|backgammon|chess|protested|scheduled|live|finished|official|forfeit|"
    r"abandoned|resolved|dismissed|under appeal)\b",
    re.IGNORECASE,
)
# an idea the English says -> how the Turkish says it
SAME_IDEA = {
    "appeal": "itiraz",
    "under appeal": "itirazda",
    "forfeit": "hükmen",
    "locked": "kilitli",
    "official": "resmî",
    "confirm": "onay",
    "correction": "düzeltme",
    "match loss": "maç kaybı",
    "table tennis": "masa tenisi",
    "backgammon": "tavla",
    "chess": "satranç",
    "not started": "başlamadı",
    "still being played": "sürüyor",
    "abandoned": "yarıda",
    "resolved": "çözüldü",
    "15 minutes": "15 dakika",
    "yellow and red": "sarı-kırmızı",
}
MATCH_ID = re.compile(r"\b[A-Z]{2}-R\d+\b")


def refusal(do: Callable[[], Any]) -> str:
    """The message of the refusal `do` raises."""
    with pytest.raises((ActionRefused, ActionInvalid)) as refused:
        do()
    return str(refused.value)


def halves(message: str) -> tuple[str, str]:
    """A refusal's English and Turkish ("English. / Türkçe.")."""
    english, sep, turkish = message.partition(" / ")
    assert sep and turkish.strip(), message
    return english, turkish


def numbers(text: str) -> set[str]:
    """The numbers a message states (minutes, a round, a rule's article), match ids left out."""
    return set(re.findall(r"\d+(?:\.\d+)*", MATCH_ID.sub("", text)))


def turkish_lower(text: str) -> str:
    """Lower case as Turkish has it (İ -> i, I -> ı; Python's lower() gives İ a combining dot)."""
    return text.replace("İ", "i").replace("I", "ı").lower()


def check_pair(english: str, turkish: str) -> None:
    """Turkish with no internal name, the same numbers and the same ideas as the English."""
    assert not INTERNAL.search(turkish), turkish
    assert numbers(english) == numbers(turkish), (english, turkish)
    for en, tr in SAME_IDEA.items():
        if re.search(rf"\b{en}", english, re.IGNORECASE):
            assert tr in turkish_lower(turkish), (en, tr, english, turkish)


def tt_at(status: MatchStatus) -> Folder:
    """TT-R1 brought to `status` through real events."""
    folder = Folder(TT_R1)
    if status is MatchStatus.SCHEDULED:
        return folder
    if status is MatchStatus.LIVE:
        folder.fold(
            EventKind.DEVICE_REPORT, {"report": {"type": "display", "points": [1, 0], "games": [0, 0]}}, 1.0
        )
        return folder
    if status is MatchStatus.FORFEIT:
        folder.act({"action": "forfeit", "loser": 1, "reason": "no-show"}, 1.0)
        return folder
    folder = finished_tt()
    ended = folder.state.finished_at
    assert ended is not None
    if status is MatchStatus.OFFICIAL:
        folder.act({"action": "confirm"}, ended + 1)
    if status is MatchStatus.PROTESTED:
        folder.act({"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}, ended + 1)
    return folder


TIMEOUT = {"type": "timeout", "side": 0}
APPEAL = {"action": "appeal", "appellant": "Elif Kaya", "reason": "r"}


def messages() -> Iterator[tuple[str, str]]:
    """(what, message) for every message of the points this test covers."""
    late = finished_tt()
    ended = late.state.finished_at or 0.0
    yield (
        "late appeal, table tennis",
        refusal(lambda: prepare(late.state, APPEAL, role="chief", at=ended + 901)),
    )
    bg = Folder(BG_R1)
    bg.act({"action": "forfeit", "loser": 0, "reason": "no-show"}, 10.0)
    at = 10.0 + APPEAL_WINDOW_S + 125
    yield "late appeal, backgammon", refusal(lambda: prepare(bg.state, APPEAL, role="chief", at=at))
    for status in (MatchStatus.SCHEDULED, MatchStatus.LIVE):
        state = tt_at(status).state
        yield f"appeal while {status}", refusal(lambda s=state: prepare(s, APPEAL, role="chief", at=2.0))
        yield f"confirm while {status}", refusal(lambda s=state: check_confirm(s))
    protested = tt_at(MatchStatus.PROTESTED).state
    yield "second appeal", refusal(lambda: prepare(protested, APPEAL, role="chief", at=2000.0))
    correct = {"action": "correct", "score": [1, 2], "reason": "r"}
    yield "correct under appeal", refusal(lambda: prepare(protested, correct, role="chief", at=2000.0))
    yield "confirm under appeal", refusal(lambda: check_confirm(protested))
    loss = {"action": "penalty", "side": 0, "penalty": "match_loss", "reason": "r"}
    forfeit = {"action": "forfeit", "loser": 0, "reason": "r"}
    for status in (MatchStatus.PROTESTED, MatchStatus.OFFICIAL, MatchStatus.FORFEIT):
        state = tt_at(status).state
        yield f"input while {status}", refusal(lambda s=state: prepare_input(s, TIMEOUT, 2000.0))
        if status is not MatchStatus.OFFICIAL:
            yield (
                f"match loss while {status}",
                refusal(lambda s=state: prepare(s, loss, role="chief", at=2000.0)),
            )
        yield f"forfeit while {status}", refusal(lambda s=state: prepare(s, forfeit, role="chief", at=2000.0))
    result = {"action": "result", "result": "1-0", "how": "arbiter"}
    for folder in (tt_at(MatchStatus.LIVE), bg):
        sport = folder.state.info.sport
        yield (
            f"chess result on {sport}",
            refusal(lambda s=folder.state: prepare(s, result, role="chief", at=2.0)),
        )
    locked = finished_tt()
    locked.fold(EventKind.LOCK, {"round": 1, "because": "TT-R2"}, 1500.0, "boardcast")
    yield "locked", refusal(lambda: prepare(locked.state, correct, role="chief", at=1501.0))


def test_every_refusal_says_the_same_in_turkish_with_no_internal_name() -> None:
    seen = dict(messages())
    assert len(seen) == 20, sorted(seen)
    for what, message in seen.items():
        english, turkish = halves(message)
        check_pair(english, turkish)
        if "appeal" in what and "late" in what:
            assert "within 15 minutes of the end" in english and "15 dakika içinde" in turkish
    assert "3.3.4" in seen["late appeal, table tennis"] and "§10" in seen["late appeal, backgammon"]
    assert (
        "17 minutes ago" in seen["late appeal, backgammon"]
        and "17 dakika önce" in seen["late appeal, backgammon"]
    )
    assert "masa tenisi maçında" in seen["chess result on tabletennis"]
    assert "tavla maçında" in seen["chess result on backgammon"]
    assert "under appeal" in seen["input while protested"] and "Maç itirazda" in seen["input while protested"]
    assert "Maç kapandı" not in seen["input while protested"]


def test_the_anomalies_of_these_points_read_alike_and_name_the_player() -> None:
    folder = tt_at(MatchStatus.LIVE)
    unwarned = prepare_input(folder.state, {"type": "card", "side": 1, "card": "yellow_red"}, 2.0)
    folder.fold(unwarned.kind, unwarned.body, 2.0, "Hakem Ali")
    item = folder.state.anomalies[-1]
    folder.act({"action": "resolve", "anomaly": item.id, "reason": "seen"}, 3.0)
    again = refusal(
        lambda: prepare(
            folder.state, {"action": "dismiss", "anomaly": item.id, "reason": "r"}, role="chief", at=4.0
        )
    )
    check_pair(*halves(again))
    official = tt_at(MatchStatus.OFFICIAL)
    later = {"report": {"type": "display", "points": [5, 0], "games": [1, 0]}}
    official.fold(EventKind.DEVICE_REPORT, later, 5000.0)
    shown = public_view(folder.state)["anomalies"] + public_view(official.state)["anomalies"]
    by_code = {a["code"]: a for a in shown}
    assert {"tt.penalty_without_warning", "match.report_after_close"} <= set(by_code)
    for anomaly in by_code.values():
        check_pair(anomaly["message_en"], anomaly["message_tr"])
    card = by_code["tt.penalty_without_warning"]
    assert (
        "Elif Kaya" in card["message_en"]
        and "Elif Kaya" in card["message_tr"]
        and "{B}" not in card["message_tr"]
    )
    closed = by_code["match.report_after_close"]
    assert "official" in closed["message_en"] and "resmî" in closed["message_tr"]
