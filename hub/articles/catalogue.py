"""The rule each anomaly code points to, as the referees know it: the document, the article and its text.

Each sport's own rules come from its folder (`SportRules.articles`, in the registry's order); the codes the hub
raises itself (devices, the log, closed results) cite Boardcast with a plain explanation.
"""

from __future__ import annotations

from hub.rules.articles import Rule, hub_rule
from hub.rules.registry import SPORTS

_DEVICES = hub_rule(
    "Device reports",
    "Cihaz bildirimleri",
    "Nothing a device reports is hidden or dropped: a gap, a refusal or a clash is kept for a referee to look at.",
    "Cihazın bildirdiği hiçbir şey gizlenmez ya da atılmaz: boşluk, ret ya da çakışma hakemin bakması için "
    "saklanır.",
)
_DEVICE_OFFLINE = hub_rule(
    "The table's device during a match",
    "Maç sırasında masanın cihazı",
    "A live match is scored from its table's device. While the device is away (unplugged, out of power or "
    "silent past its timeout) nothing is scored from it: check the cable and power, and keep the score by hand "
    "(referee inputs) if play goes on. The item closes itself when the device reports again; its reports are "
    "then taken as the state the match stands at.",
    "Canlı maçın skoru masanın cihazından alınır. Cihaz yokken (kablosu çıkmış, gücü kesilmiş ya da süresinden "
    "uzun sessiz) ondan skor alınmaz: kabloyu ve gücü kontrol edin, oyun sürerse skoru elle (hakem girdileri) "
    "tutun. Cihaz yeniden bildirdiğinde kayıt kendiliğinden kapanır; bildirdiği durum maçın durumu olarak alınır.",
)
_LOG = hub_rule(
    "The event log",
    "Olay kaydı",
    "The log keeps everything: an event the hub cannot apply is kept and shown, never dropped.",
    "Kayıt her şeyi saklar: hub'ın uygulayamadığı olay saklanır ve gösterilir, asla atılmaz.",
)
DEVICE_CODES = (
    *("device.bad_data", "device.gap", "device.heartbeat", "device.hello", "device.id_conflict"),
    *("device.late", "device.refused", "device.refused_report", "device.unbound", "device.wrong_family"),
)
LOG_CODES = ("log.decision_without_appeal", "log.unknown_anomaly", "log.unknown_event")

CATALOGUE: dict[str, Rule] = {
    **{code: rule for sport in SPORTS.values() for code, rule in sport.articles.items()},
    "match.report_after_close": hub_rule(
        "Closed results",
        "Kapanmış sonuçlar",
        "A closed result does not change with a device's later report; the report is kept.",
        "Kapanmış sonuç cihazın sonraki bildirimiyle değişmez; bildirim saklanır.",
    ),
    "match.disputed": hub_rule(
        "The players' sign-off",
        "Oyuncuların onayı",
        "At the end of a match each player confirms the final score at the table, or disputes it. A dispute is "
        "for a referee to hear before the result is confirmed; the players' word never makes a result official.",
        "Maç sonunda her oyuncu masada son skoru onaylar ya da itiraz eder. İtirazı hakem, sonucu onaylamadan önce "
        "dinler; oyuncuların onayı sonucu resmîleştirmez.",
    ),
    **dict.fromkeys(DEVICE_CODES, _DEVICES),
    "device.offline": _DEVICE_OFFLINE,
    **dict.fromkeys(LOG_CODES, _LOG),
}
# the sport whose rules a code is (a clock rule's words for an unstated time control are its)
OWNER = {code: sport.name for sport in SPORTS.values() for code in sport.articles}
# a code the hub may raise later in these families still points somewhere
FAMILIES = {"device.": _DEVICES, "log.": _LOG}
