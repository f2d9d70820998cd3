"""The chess rules each anomaly code points to: the FIDE Laws of Chess by article and the event's
regulations (article 5.1.1, the time control), whose text names the match's time control."""

from __future__ import annotations

from hub.rules.articles import TIME_CONTROL, Rule, Words, hub_rule, rule

FIDE_LAWS = Words("FIDE Laws of Chess", "FIDE Satranç Kuralları")
EVENT_REGULATIONS = Words(
    "Turkish Chess Clubs Championship Regulations", "Türkiye Kulüpler Satranç Şampiyonası Yönergesi"
)
UNSTATED_TIME_CONTROL = Words("the event's time control", "turnuvanın belirlediği tempo")

# The FIDE Laws and the event's regulations, by article.
_FIDE_PRESS = ("6.2", Words("The chessclock: pressing the clock", "Satranç saati: saate basma"))
_FIDE_CLOCK = ("6.10", Words("The chessclock: its indications", "Satranç saati: gösterdikleri"))
_FIDE_FLAG = ("6.9", Words("The chessclock: the allotted time", "Satranç saati: verilen süre"))
_FIDE_ILLEGAL = ("7.5", Words("Irregularities: illegal moves", "Düzensizlikler: kural dışı hamleler"))
_FIDE_ENDING = ("5.1.2, 5.2.3", Words("The completion of the game", "Oyunun tamamlanması"))
_TIME_CONTROL = ("5.1.1", Words("Playing procedure: the time control", "Yarışma usulü: tempo"))

ARTICLES: dict[str, Rule] = {
    "chess.illegal_move": rule(
        FIDE_LAWS,
        _FIDE_ILLEGAL,
        "After an illegal move the position immediately before it is reinstated and the game goes on from "
        "there.",
        "Kural dışı hamleden sonra, hamleden hemen önceki konum yeniden kurulur ve oyun oradan sürer.",
    ),
    "chess.flag_fall": rule(
        FIDE_LAWS,
        _FIDE_FLAG,
        "A player whose time runs out loses, unless the opponent cannot checkmate by any legal series of "
        "moves: then the game is drawn.",
        "Süresi biten oyuncu kaybeder; rakip hiçbir yasal hamle dizisiyle mat edemiyorsa oyun berabere biter.",
    ),
    "chess.move_without_press": rule(
        FIDE_LAWS,
        _FIDE_PRESS,
        "Having made a move on the board, a player stops his own clock and starts the opponent's: this "
        "completes the move.",
        "Hamlesini tahtada yapan oyuncu kendi saatini durdurur ve rakibinin saatini başlatır: hamle böylece "
        "tamamlanır.",
    ),
    "chess.clock_sides": rule(
        FIDE_LAWS,
        _FIDE_PRESS,
        "Each player presses his own clock after his move: the clock's sides must belong to the right players.",
        "Her oyuncu hamlesinden sonra kendi saatine basar: saatin tarafları doğru oyunculara ait olmalıdır.",
    ),
    "chess.time_increased": rule(
        FIDE_LAWS,
        _FIDE_CLOCK,
        "The clock's indications are conclusive unless it has an obvious defect; times are changed only by "
        "the arbiter.",
        "Saatin gösterdikleri, açık bir arızası yoksa kesindir; süreleri yalnızca hakem değiştirir.",
    ),
    "chess.awaiting_result": rule(
        FIDE_LAWS,
        _FIDE_ENDING,
        "A game also ends by resignation or by agreement between the players: the board cannot show those.",
        "Oyun terk ya da oyuncuların anlaşmasıyla da biter: tahta bunları gösteremez.",
    ),
    "chess.result_conflict": rule(
        FIDE_LAWS,
        ("5", Words("The completion of the game", "Oyunun tamamlanması")),
        "A game ends as the Laws say (checkmate, time, resignation, agreement…); a result shown later does not "
        "change that.",
        "Oyun kuralların söylediği biçimde biter (mat, süre, terk, anlaşma…); sonradan gösterilen bir sonuç "
        "bunu değiştirmez.",
    ),
    # the time-control codes: the text names the match's own control (see `hub.articles.rule_for`)
    "chess.increment_missing": rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The games are played at {TIME_CONTROL}.",
        f"Oyunların temposu: {TIME_CONTROL}.",
    ),
    "chess.increment_wrong": rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The games are played at {TIME_CONTROL}.",
        f"Oyunların temposu: {TIME_CONTROL}.",
    ),
    "chess.clock_setting": rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The clock is set at the start to {TIME_CONTROL}.",
        f"Saat başlangıçta şu tempoya ayarlanır: {TIME_CONTROL}.",
    ),
    "chess.board_mismatch": hub_rule(
        "Board reports",
        "Tahta bildirimleri",
        "The board and the game's moves must agree: a difference that lasts needs the pieces or the game set "
        "right.",
        "Tahta ile oyunun hamleleri uyuşmalıdır: süren bir fark için taşlar ya da oyun düzeltilmelidir.",
    ),
    "chess.referee_input": hub_rule(
        "Referee inputs",
        "Hakem girdileri",
        "A referee's input that the game's state does not allow is kept and changes nothing.",
        "Oyunun durumunun izin vermediği hakem girdisi saklanır ve hiçbir şeyi değiştirmez.",
    ),
    "chess.bad_event": hub_rule(
        "Device reports",
        "Cihaz bildirimleri",
        "A clock report that cannot be right is kept and skipped; check the clock.",
        "Doğru olamayacak bir saat bildirimi saklanır ve atlanır; saati kontrol edin.",
    ),
    "chess.unknown_input": hub_rule(
        "Device reports",
        "Cihaz bildirimleri",
        "An input the chess rules do not know is kept and skipped.",
        "Satranç kurallarının tanımadığı bir girdi saklanır ve atlanır.",
    ),
}
