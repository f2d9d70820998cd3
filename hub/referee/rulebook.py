"""The rule each anomaly code points to, with its source, in English and Turkish."""

from __future__ import annotations

from dataclasses import dataclass


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
