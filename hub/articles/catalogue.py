"""The rule each anomaly code points to, as the referees know it: the document, the article and its text.

Table tennis cites the ITTF Handbook (Laws of Table Tennis, chapter 2; Regulations for International
Competitions, chapter 3) by rule number; backgammon the venue's tournament rules by section; chess the FIDE
Laws of Chess by article and the event's regulations (article 5.1.1, the time control). Codes the hub raises
itself (devices, the log, closed results) cite Boardcast with a plain explanation. A chess time-control
rule's text is completed per match with the venue's time control (`hub.articles.rule_for`).
"""

from __future__ import annotations

from hub.articles.model import Rule, Words

ITTF_LAWS = Words(
    "ITTF Handbook: Laws of Table Tennis (chapter 2)", "ITTF El Kitabı: Masa Tenisi Kuralları (2. bölüm)"
)
ITTF_REGULATIONS = Words(
    "ITTF Handbook: Regulations for International Competitions (chapter 3)",
    "ITTF El Kitabı: Uluslararası Yarışma Yönetmelikleri (3. bölüm)",
)
BACKGAMMON_RULES = Words("Backgammon Tournament Rules", "Tavla Turnuva Kuralları")
FIDE_LAWS = Words("FIDE Laws of Chess", "FIDE Satranç Kuralları")
EVENT_REGULATIONS = Words(
    "Turkish Chess Clubs Championship Regulations", "Türkiye Kulüpler Satranç Şampiyonası Yönergesi"
)
BOARDCAST = Words("Boardcast", "Boardcast")

# Where a rule's text names the match's time control; written by `hub.articles.rule_for`, from the venue's
# control or, when the venue gives none, from the sport's words for "the event's own".
TIME_CONTROL = "{time_control}"
UNSTATED_TIME_CONTROL = {
    "chess": Words("the event's time control", "turnuvanın belirlediği tempo"),
    "backgammon": Words(
        "the total time and the delay a move the tournament page gives",
        "turnuva sayfasında yazan toplam süre ve hamle başına gecikme",
    ),
}

# The backgammon rules' sections, by number.
_BG_BOARD = ("5", Words("Board, checkers and dice", "Tahta, pullar ve zar"))
_BG_MOVES = ("6", Words("Starting the game and moves", "Oyunun başlaması ve hamleler"))
_BG_CUBE = ("7", Words("The doubling cube", "Katlama küpü (vido)"))
_BG_CLOCK = ("8", Words("Match length, clock and score", "Maç uzunluğu, saat ve skor"))
# The ITTF rules, by number.
_TT_GAME = ("2.11", Words("A game", "Bir oyun (set)"))
_TT_GAME_WON = (
    "A game is won by the first to 11 points, unless both reach 10: then by the first to lead by 2.",
    "Set, 10-10 olmadıkça 11 sayıya ilk ulaşanın; 10-10'dan sonra iki sayı farkı ilk yakalayanındır.",
)
_TT_MATCH = ("2.12", Words("A match", "Bir maç"))
_TT_ORDER = ("2.13", Words("The order of serving, receiving and ends", "Servis, karşılama sırası ve saha"))
_TT_ENDS = ("2.13.7", Words("Ends", "Saha değişimi"))
_TT_ERRORS = (
    "2.14",
    Words(
        "Out of order of serving, receiving or ends", "Sıra dışı servis atma, karşılama veya saha değişimi"
    ),
)
_TT_EXPEDITE = ("2.15", Words("The expedite system", "Çabuklaştırılmış sistem"))
_TT_TIMEOUT = ("3.4.4", Words("Intervals: the time-out", "Aralar: mola"))
_TT_MISBEHAVIOUR = ("3.5.2", Words("Misbehaviour", "Kötü davranış"))
# The FIDE Laws and the event's regulations, by article.
_FIDE_PRESS = ("6.2", Words("The chessclock: pressing the clock", "Satranç saati: saate basma"))
_FIDE_CLOCK = ("6.10", Words("The chessclock: its indications", "Satranç saati: gösterdikleri"))
_FIDE_FLAG = ("6.9", Words("The chessclock: the allotted time", "Satranç saati: verilen süre"))
_FIDE_ILLEGAL = ("7.5", Words("Irregularities: illegal moves", "Düzensizlikler: kural dışı hamleler"))
_FIDE_ENDING = ("5.1.2, 5.2.3", Words("The completion of the game", "Oyunun tamamlanması"))
_TIME_CONTROL = ("5.1.1", Words("Playing procedure: the time control", "Yarışma usulü: tempo"))


def _rule(document: Words, where: tuple[str, Words] | None, en: str, tr: str) -> Rule:
    article, title = where if where is not None else (None, None)
    return Rule(document, article, title, en, tr)


def _hub(title_en: str, title_tr: str, en: str, tr: str) -> Rule:
    return Rule(BOARDCAST, None, Words(title_en, title_tr), en, tr)


_BACKGAMMON = {
    "bg.illegal_move": _rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "A die that can be played must be played; if only one of the two can be, the larger. A wrong move "
        "noticed before the opponent rolls is corrected.",
        "Oynanabilecek zar mutlaka oynanmalıdır; iki zardan yalnızca biri oynanabiliyorsa büyük olan oynanır. "
        "Hatalı hamle, rakip zarını atmadan önce fark edilirse düzeltilir.",
    ),
    "bg.illegal_move_stood": _rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "Once the opponent has rolled, a wrong move stands.",
        "Rakip zar attıktan sonra hatalı hamle geçerli sayılır.",
    ),
    "bg.cube_after_roll": _rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "A player may offer a double only before rolling the dice.",
        "Oyuncu katlamayı ancak zarını atmadan önce teklif edebilir.",
    ),
    "bg.cube_not_owner": _rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "A taken cube passes to the player who took it: only that player may double next (either player while "
        "the cube is in the middle).",
        "Kabul edilen küp kabul edene geçer: sonraki katlamayı yalnızca o yapabilir (küp ortadayken iki oyuncu "
        "da katlayabilir).",
    ),
    "bg.crawford_double": _rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "Crawford rule: when a player is one point away from winning the match, the next single game is played "
        "without doubling.",
        "Crawford kuralı: oyunculardan biri maçı kazanmaya bir sayı uzaklıktaysa, izleyen tek oyunda katlama "
        "yapılamaz.",
    ),
    "bg.roll_out_of_turn": _rule(
        BACKGAMMON_RULES,
        _BG_BOARD,
        "A roll made before the opponent has finished the move and picked up the dice is invalid.",
        "Rakip hamlesini tamamlayıp zarlarını kaldırmadan atılan zar geçersizdir.",
    ),
    "bg.opening_tie": _rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "Each player rolls one die to start; the higher starts with both dice; equal dice are rolled again.",
        "Oyuna başlamak için her oyuncu bir zar atar; büyük atan iki zarın toplamıyla başlar; eşit gelirse "
        "yeniden atılır.",
    ),
    "bg.time_forfeit": _rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        f"A player whose time runs out loses the match (the clock: {TIME_CONTROL}).",
        f"Süresi biten oyuncu maçı kaybeder (saat: {TIME_CONTROL}).",
    ),
    "bg.resign_value": _rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "A player may resign a single game, a gammon or a backgammon: 1, 2 or 3 times the cube.",
        "Oyuncu tek oyun, mars ya da katmerli mars olarak pes edebilir: küpün 1, 2 ya da 3 katı.",
    ),
    "bg.resign_no_game": _rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "A resignation gives up the game being played; between games or after the match there is nothing to "
        "resign.",
        "Pes etmek oynanan oyunu bırakmaktır; iki oyun arasında ya da maçtan sonra bırakılacak oyun yoktur.",
    ),
    "bg.resign_no_offer": _rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "Only the opponent of a player who offers to resign accepts or rejects the offer; a rejected offer "
        "means play on.",
        "Pes etme teklifini yalnızca teklif edenin rakibi kabul ya da reddeder; reddedilen teklifte oyun sürer.",
    ),
    "bg.board_inconsistent": _rule(
        BACKGAMMON_RULES,
        _BG_BOARD,
        "A standard board, 15 checkers a side and two dice: the board shows a position that cannot be.",
        "Standart tavla tahtası, 15'er pul ve iki zar: tahta olanaksız bir konum gösteriyor.",
    ),
}

_TABLE_TENNIS = {
    "tt.score_jump": _rule(
        ITTF_LAWS,
        _TT_GAME,
        "A rally gives one point to one player or pair; a game is won at 11, or by 2 clear from 10-10.",
        "Her ralli bir oyuncuya ya da çifte bir sayı verir; set 11'de, 10-10'dan sonra 2 farkla kazanılır.",
    ),
    "tt.score_decrease": _rule(
        ITTF_LAWS,
        _TT_ERRORS,
        "All points scored stand; a score goes down only by the umpire's correction.",
        "Kazanılan bütün sayılar geçerlidir; skor yalnızca hakemin düzeltmesiyle azalır.",
    ),
    "tt.wrong_server": _rule(
        ITTF_LAWS,
        _TT_ORDER,
        "Service changes after every 2 points; from 10-10 and under the expedite system after every point.",
        "Servis her 2 sayıda bir değişir; 10-10'dan sonra ve çabuklaştırılmış sistemde her sayıda değişir.",
    ),
    "tt.ends_not_changed": _rule(
        ITTF_LAWS,
        _TT_ENDS,
        "Players change ends after each game, and in the last possible game when one side first scores 5.",
        "Her setten sonra, maçın mümkün olan son setinde de bir taraf 5 sayıya ulaşınca saha değiştirilir.",
    ),
    "tt.expedite_due": _rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "The expedite system comes into operation after 10 minutes' play in a game, unless 18 points have "
        "been scored.",
        "Bir sette 10 dakikalık oyundan sonra, 18 sayıya ulaşılmamışsa çabuklaştırılmış sisteme geçilir.",
    ),
    "tt.expedite_dropped": _rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "Once introduced, the expedite system stays until the end of the match.",
        "Çabuklaştırılmış sisteme geçildiğinde maçın sonuna kadar bütün setler bu sistemle oynanır.",
    ),
    "tt.expedite_not_allowed": _rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "The expedite system is not introduced in a game once 18 points have been scored.",
        "Bir sette en az 18 sayıya ulaşılmışsa çabuklaştırılmış sisteme geçilmez.",
    ),
    "tt.second_timeout": _rule(
        ITTF_REGULATIONS,
        _TT_TIMEOUT,
        "A player or pair may claim one time-out of up to 1 minute during an individual match.",
        "Bir oyuncu veya çift, bireysel maç süresince bir kez, bir dakikaya kadar mola isteyebilir.",
    ),
    "tt.card_player": _rule(
        ITTF_REGULATIONS,
        _TT_MISBEHAVIOUR,
        "A card is shown to the player who misbehaved (in doubles, to one player of the pair).",
        "Kart, kötü davranan oyuncuya gösterilir (çiftlerde çiftin bir oyuncusuna).",
    ),
    "tt.penalty_without_warning": _rule(
        ITTF_REGULATIONS,
        _TT_MISBEHAVIOUR,
        "A first offence is warned with a yellow card; a penalty point (yellow and red) follows a warning.",
        "İlk kabahatte sarı kartla uyarı verilir; ceza sayısı (sarı ve kırmızı kart) uyarıdan sonra gelir.",
    ),
    "tt.illegal_game_end": _rule(ITTF_LAWS, _TT_GAME, *_TT_GAME_WON),
    "tt.games_mismatch": _rule(
        ITTF_LAWS,
        _TT_MATCH,
        "A match is the best of an odd number of games; the games won add up to the games played.",
        "Maç tek sayıdaki setin çoğunluğunu kazanmakla biter; kazanılan setler oynanan setlerle tutar.",
    ),
    "tt.impossible_score": _rule(ITTF_LAWS, _TT_GAME, *_TT_GAME_WON),
    "tt.match_overrun": _rule(
        ITTF_LAWS,
        _TT_MATCH,
        "A match ends when one player or pair has won the majority of its games.",
        "Maç, bir oyuncu ya da çift setlerin çoğunluğunu kazanınca sona erer.",
    ),
}

_CHESS = {
    "chess.illegal_move": _rule(
        FIDE_LAWS,
        _FIDE_ILLEGAL,
        "After an illegal move the position immediately before it is reinstated and the game goes on from "
        "there.",
        "Kural dışı hamleden sonra, hamleden hemen önceki konum yeniden kurulur ve oyun oradan sürer.",
    ),
    "chess.flag_fall": _rule(
        FIDE_LAWS,
        _FIDE_FLAG,
        "A player whose time runs out loses, unless the opponent cannot checkmate by any legal series of "
        "moves: then the game is drawn.",
        "Süresi biten oyuncu kaybeder; rakip hiçbir yasal hamle dizisiyle mat edemiyorsa oyun berabere biter.",
    ),
    "chess.move_without_press": _rule(
        FIDE_LAWS,
        _FIDE_PRESS,
        "Having made a move on the board, a player stops his own clock and starts the opponent's: this "
        "completes the move.",
        "Hamlesini tahtada yapan oyuncu kendi saatini durdurur ve rakibinin saatini başlatır: hamle böylece "
        "tamamlanır.",
    ),
    "chess.clock_sides": _rule(
        FIDE_LAWS,
        _FIDE_PRESS,
        "Each player presses his own clock after his move: the clock's sides must belong to the right players.",
        "Her oyuncu hamlesinden sonra kendi saatine basar: saatin tarafları doğru oyunculara ait olmalıdır.",
    ),
    "chess.time_increased": _rule(
        FIDE_LAWS,
        _FIDE_CLOCK,
        "The clock's indications are conclusive unless it has an obvious defect; times are changed only by "
        "the arbiter.",
        "Saatin gösterdikleri, açık bir arızası yoksa kesindir; süreleri yalnızca hakem değiştirir.",
    ),
    "chess.awaiting_result": _rule(
        FIDE_LAWS,
        _FIDE_ENDING,
        "A game also ends by resignation or by agreement between the players: the board cannot show those.",
        "Oyun terk ya da oyuncuların anlaşmasıyla da biter: tahta bunları gösteremez.",
    ),
    "chess.result_conflict": _rule(
        FIDE_LAWS,
        ("5", Words("The completion of the game", "Oyunun tamamlanması")),
        "A game ends as the Laws say (checkmate, time, resignation, agreement…); a result shown later does not "
        "change that.",
        "Oyun kuralların söylediği biçimde biter (mat, süre, terk, anlaşma…); sonradan gösterilen bir sonuç "
        "bunu değiştirmez.",
    ),
    # the time-control codes: the text names the match's own control (see `hub.articles.rule_for`)
    "chess.increment_missing": _rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The games are played at {TIME_CONTROL}.",
        f"Oyunların temposu: {TIME_CONTROL}.",
    ),
    "chess.increment_wrong": _rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The games are played at {TIME_CONTROL}.",
        f"Oyunların temposu: {TIME_CONTROL}.",
    ),
    "chess.clock_setting": _rule(
        EVENT_REGULATIONS,
        _TIME_CONTROL,
        f"The clock is set at the start to {TIME_CONTROL}.",
        f"Saat başlangıçta şu tempoya ayarlanır: {TIME_CONTROL}.",
    ),
    "chess.board_mismatch": _hub(
        "Board reports",
        "Tahta bildirimleri",
        "The board and the game's moves must agree: a difference that lasts needs the pieces or the game set "
        "right.",
        "Tahta ile oyunun hamleleri uyuşmalıdır: süren bir fark için taşlar ya da oyun düzeltilmelidir.",
    ),
    "chess.referee_input": _hub(
        "Referee inputs",
        "Hakem girdileri",
        "A referee's input that the game's state does not allow is kept and changes nothing.",
        "Oyunun durumunun izin vermediği hakem girdisi saklanır ve hiçbir şeyi değiştirmez.",
    ),
    "chess.bad_event": _hub(
        "Device reports",
        "Cihaz bildirimleri",
        "A clock report that cannot be right is kept and skipped; check the clock.",
        "Doğru olamayacak bir saat bildirimi saklanır ve atlanır; saati kontrol edin.",
    ),
    "chess.unknown_input": _hub(
        "Device reports",
        "Cihaz bildirimleri",
        "An input the chess rules do not know is kept and skipped.",
        "Satranç kurallarının tanımadığı bir girdi saklanır ve atlanır.",
    ),
}

_DEVICES = _hub(
    "Device reports",
    "Cihaz bildirimleri",
    "Nothing a device reports is hidden or dropped: a gap, a refusal or a clash is kept for a referee to look at.",
    "Cihazın bildirdiği hiçbir şey gizlenmez ya da atılmaz: boşluk, ret ya da çakışma hakemin bakması için "
    "saklanır.",
)
_DEVICE_OFFLINE = _hub(
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
_LOG = _hub(
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
    **_BACKGAMMON,
    **_TABLE_TENNIS,
    **_CHESS,
    "match.report_after_close": _hub(
        "Closed results",
        "Kapanmış sonuçlar",
        "A closed result does not change with a device's later report; the report is kept.",
        "Kapanmış sonuç cihazın sonraki bildirimiyle değişmez; bildirim saklanır.",
    ),
    **dict.fromkeys(DEVICE_CODES, _DEVICES),
    "device.offline": _DEVICE_OFFLINE,
    **dict.fromkeys(LOG_CODES, _LOG),
}
# a code the hub may raise later in these families still points somewhere
FAMILIES = {"device.": _DEVICES, "log.": _LOG}
