"""The backgammon rules each anomaly code points to, by the tournament rules' section, and the words for a
time control the venue does not state."""

from __future__ import annotations

from hub.rules.articles import TIME_CONTROL, Rule, Words, rule

BACKGAMMON_RULES = Words("Backgammon Tournament Rules", "Tavla Turnuva Kuralları")
UNSTATED_TIME_CONTROL = Words(
    "the total time and the delay a move the tournament page gives",
    "turnuva sayfasında yazan toplam süre ve hamle başına gecikme",
)

# The tournament rules' sections, by number.
_BG_BOARD = ("5", Words("Board, checkers and dice", "Tahta, pullar ve zar"))
_BG_MOVES = ("6", Words("Starting the game and moves", "Oyunun başlaması ve hamleler"))
_BG_CUBE = ("7", Words("The doubling cube", "Katlama küpü (vido)"))
_BG_CLOCK = ("8", Words("Match length, clock and score", "Maç uzunluğu, saat ve skor"))

ARTICLES: dict[str, Rule] = {
    "bg.illegal_move": rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "A die that can be played must be played; if only one of the two can be, the larger. A wrong move "
        "noticed before the opponent rolls is corrected.",
        "Oynanabilecek zar mutlaka oynanmalıdır; iki zardan yalnızca biri oynanabiliyorsa büyük olan oynanır. "
        "Hatalı hamle, rakip zarını atmadan önce fark edilirse düzeltilir.",
    ),
    "bg.illegal_move_stood": rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "Once the opponent has rolled, a wrong move stands.",
        "Rakip zar attıktan sonra hatalı hamle geçerli sayılır.",
    ),
    "bg.cube_after_roll": rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "A player may offer a double only before rolling the dice.",
        "Oyuncu katlamayı ancak zarını atmadan önce teklif edebilir.",
    ),
    "bg.cube_not_owner": rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "A taken cube passes to the player who took it: only that player may double next (either player while "
        "the cube is in the middle).",
        "Kabul edilen küp kabul edene geçer: sonraki katlamayı yalnızca o yapabilir (küp ortadayken iki oyuncu "
        "da katlayabilir).",
    ),
    "bg.crawford_double": rule(
        BACKGAMMON_RULES,
        _BG_CUBE,
        "Crawford rule: when a player is one point away from winning the match, the next single game is played "
        "without doubling.",
        "Crawford kuralı: oyunculardan biri maçı kazanmaya bir sayı uzaklıktaysa, izleyen tek oyunda katlama "
        "yapılamaz.",
    ),
    "bg.roll_out_of_turn": rule(
        BACKGAMMON_RULES,
        _BG_BOARD,
        "A roll made before the opponent has finished the move and picked up the dice is invalid.",
        "Rakip hamlesini tamamlayıp zarlarını kaldırmadan atılan zar geçersizdir.",
    ),
    "bg.opening_tie": rule(
        BACKGAMMON_RULES,
        _BG_MOVES,
        "Each player rolls one die to start; the higher starts with both dice; equal dice are rolled again.",
        "Oyuna başlamak için her oyuncu bir zar atar; büyük atan iki zarın toplamıyla başlar; eşit gelirse "
        "yeniden atılır.",
    ),
    "bg.time_forfeit": rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        f"A player whose time runs out loses the match (the clock: {TIME_CONTROL}).",
        f"Süresi biten oyuncu maçı kaybeder (saat: {TIME_CONTROL}).",
    ),
    "bg.resign_value": rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "A player may resign a single game, a gammon or a backgammon: 1, 2 or 3 times the cube.",
        "Oyuncu tek oyun, mars ya da katmerli mars olarak pes edebilir: küpün 1, 2 ya da 3 katı.",
    ),
    "bg.resign_no_game": rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "A resignation gives up the game being played; between games or after the match there is nothing to "
        "resign.",
        "Pes etmek oynanan oyunu bırakmaktır; iki oyun arasında ya da maçtan sonra bırakılacak oyun yoktur.",
    ),
    "bg.game_after_match": rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "The match ends when a player reaches the match length; no game is played after it.",
        "Maç, bir oyuncu maç uzunluğuna ulaşınca biter; ondan sonra oyun oynanmaz.",
    ),
    "bg.resign_no_offer": rule(
        BACKGAMMON_RULES,
        _BG_CLOCK,
        "Only the opponent of a player who offers to resign accepts or rejects the offer; a rejected offer "
        "means play on.",
        "Pes etme teklifini yalnızca teklif edenin rakibi kabul ya da reddeder; reddedilen teklifte oyun sürer.",
    ),
    "bg.board_inconsistent": rule(
        BACKGAMMON_RULES,
        _BG_BOARD,
        "A standard board, 15 checkers a side and two dice: the board shows a position that cannot be.",
        "Standart tavla tahtası, 15'er pul ve iki zar: tahta olanaksız bir konum gösteriyor.",
    ),
}
