"""The table-tennis rules each anomaly code points to, by the ITTF Handbook's rule number (Laws of Table
Tennis, chapter 2; Regulations for International Competitions, chapter 3)."""

from __future__ import annotations

from hub.rules.articles import Rule, Words, rule

ITTF_LAWS = Words(
    "ITTF Handbook: Laws of Table Tennis (chapter 2)", "ITTF El Kitabı: Masa Tenisi Kuralları (2. bölüm)"
)
ITTF_REGULATIONS = Words(
    "ITTF Handbook: Regulations for International Competitions (chapter 3)",
    "ITTF El Kitabı: Uluslararası Yarışma Yönetmelikleri (3. bölüm)",
)

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

ARTICLES: dict[str, Rule] = {
    "tt.toss_after_play": rule(
        ITTF_LAWS,
        ("2.13.1", Words("The toss", "Kura")),
        "The choice of serving, receiving and ends is decided by lot before the match; once play has begun, an "
        "order found wrong is corrected as 2.14 says, not by a new toss.",
        "Servis, karşılama ve saha seçimi maçtan önce kurayla belirlenir; oyun başladıktan sonra yanlış bulunan "
        "sıra yeni bir kurayla değil, 2.14'e göre düzeltilir.",
    ),
    "tt.score_jump": rule(
        ITTF_LAWS,
        _TT_GAME,
        "A rally gives one point to one player or pair; a game is won at 11, or by 2 clear from 10-10.",
        "Her ralli bir oyuncuya ya da çifte bir sayı verir; set 11'de, 10-10'dan sonra 2 farkla kazanılır.",
    ),
    "tt.score_decrease": rule(
        ITTF_LAWS,
        _TT_ERRORS,
        "All points scored stand; a score goes down only by the umpire's correction.",
        "Kazanılan bütün sayılar geçerlidir; skor yalnızca hakemin düzeltmesiyle azalır.",
    ),
    "tt.wrong_server": rule(
        ITTF_LAWS,
        _TT_ORDER,
        "Service changes after every 2 points; from 10-10 and under the expedite system after every point.",
        "Servis her 2 sayıda bir değişir; 10-10'dan sonra ve çabuklaştırılmış sistemde her sayıda değişir.",
    ),
    "tt.ends_not_changed": rule(
        ITTF_LAWS,
        _TT_ENDS,
        "Players change ends after each game, and in the last possible game when one side first scores 5.",
        "Her setten sonra, maçın mümkün olan son setinde de bir taraf 5 sayıya ulaşınca saha değiştirilir.",
    ),
    "tt.expedite_due": rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "The expedite system comes into operation after 10 minutes' play in a game, unless 18 points have "
        "been scored.",
        "Bir sette 10 dakikalık oyundan sonra, 18 sayıya ulaşılmamışsa çabuklaştırılmış sisteme geçilir.",
    ),
    "tt.expedite_dropped": rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "Once introduced, the expedite system stays until the end of the match.",
        "Çabuklaştırılmış sisteme geçildiğinde maçın sonuna kadar bütün setler bu sistemle oynanır.",
    ),
    "tt.expedite_not_allowed": rule(
        ITTF_LAWS,
        _TT_EXPEDITE,
        "The expedite system is not introduced in a game once 18 points have been scored.",
        "Bir sette en az 18 sayıya ulaşılmışsa çabuklaştırılmış sisteme geçilmez.",
    ),
    "tt.second_timeout": rule(
        ITTF_REGULATIONS,
        _TT_TIMEOUT,
        "A player or pair may claim one time-out of up to 1 minute during an individual match.",
        "Bir oyuncu veya çift, bireysel maç süresince bir kez, bir dakikaya kadar mola isteyebilir.",
    ),
    "tt.card_player": rule(
        ITTF_REGULATIONS,
        _TT_MISBEHAVIOUR,
        "A card is shown to the player who misbehaved (in doubles, to one player of the pair).",
        "Kart, kötü davranan oyuncuya gösterilir (çiftlerde çiftin bir oyuncusuna).",
    ),
    "tt.penalty_without_warning": rule(
        ITTF_REGULATIONS,
        _TT_MISBEHAVIOUR,
        "A first offence is warned with a yellow card; a penalty point (yellow and red) follows a warning.",
        "İlk kabahatte sarı kartla uyarı verilir; ceza sayısı (sarı ve kırmızı kart) uyarıdan sonra gelir.",
    ),
    "tt.illegal_game_end": rule(ITTF_LAWS, _TT_GAME, *_TT_GAME_WON),
    "tt.games_mismatch": rule(
        ITTF_LAWS,
        _TT_MATCH,
        "A match is the best of an odd number of games; the games won add up to the games played.",
        "Maç tek sayıdaki setin çoğunluğunu kazanmakla biter; kazanılan setler oynanan setlerle tutar.",
    ),
    "tt.impossible_score": rule(ITTF_LAWS, _TT_GAME, *_TT_GAME_WON),
    "tt.match_overrun": rule(
        ITTF_LAWS,
        _TT_MATCH,
        "A match ends when one player or pair has won the majority of its games.",
        "Maç, bir oyuncu ya da çift setlerin çoğunluğunu kazanınca sona erer.",
    ),
}
