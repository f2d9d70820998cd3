// Texts of the chess screens (chess.js): the board, clocks, moves and result, in Turkish and English.
export const CHESS_TEXTS = {
  tr: {
    white: "Beyaz", black: "Siyah", whiteToMove: "Hamle sırası beyazda", blackToMove: "Hamle sırası siyahta",
    whiteWins: "Beyaz kazandı", blackWins: "Siyah kazandı", draw: "Berabere",
    reasons: { checkmate: "mat", stalemate: "pat", flag_fall: "bayrak düştü", time: "süre bitti",
      timeout: "süre bitti", insufficient_material: "yetersiz taş", threefold_repetition: "üç kez tekrar",
      fivefold_repetition: "beş kez tekrar", fifty_moves: "50 hamle kuralı", seventyfive_moves: "75 hamle kuralı",
      result_signal: "tahtada sonuç işareti", resignation: "terk", agreement: "anlaşma", arbiter: "hakem kararı",
      referee: "hakem kararı", forfeit: "hükmen" },
    evalBy: "Stockfish değerlendirmesi, yayın gecikmesiyle", evalShort: "Değ.", depth: (n) => `derinlik ${n}`,
    boardMoving: "Tahtada hamle yapılıyor", boardMovingHint: "Tahta, oyundaki konumdan farklı: hamle sürüyor",
    awaitingResult: "Sonuç bekleniyor",
    illegal: "Kural dışı hamle — hakem inceliyor", illegalKept: "Kural dışı hamle, hakem geçerli saydı",
    clock: "Saat", clockRunning: "Saat işliyor",
    moves: "Hamleler", noMoves: "Henüz hamle yok", control: "Tempo", teamMatch: "Takım maçı",
    boardNo: (n) => `${n}. masa`, roundPgn: "Tur PGN", pgnHint: "Canlı PGN (yayın için)", flip: "Çevir",
    boardLabel: "Satranç tahtası",
  },
  en: {
    white: "White", black: "Black", whiteToMove: "White to move", blackToMove: "Black to move",
    whiteWins: "White wins", blackWins: "Black wins", draw: "Draw",
    reasons: { checkmate: "checkmate", stalemate: "stalemate", flag_fall: "flag fell", time: "on time",
      timeout: "on time", insufficient_material: "insufficient material", threefold_repetition: "threefold repetition",
      fivefold_repetition: "fivefold repetition", fifty_moves: "fifty-move rule", seventyfive_moves: "75-move rule",
      result_signal: "result set on the board", resignation: "resignation", agreement: "agreement",
      arbiter: "arbiter's decision", referee: "arbiter's decision", forfeit: "forfeit" },
    evalBy: "Stockfish's evaluation, behind the broadcast delay", evalShort: "Eval", depth: (n) => `depth ${n}`,
    boardMoving: "Board moving", boardMovingHint: "The board differs from the game position: a move is being made",
    awaitingResult: "Waiting for result",
    illegal: "Illegal move — under review", illegalKept: "Illegal move, let stand by the arbiter",
    clock: "Clock", clockRunning: "Clock running",
    moves: "Moves", noMoves: "No moves yet", control: "Time control", teamMatch: "Team match",
    boardNo: (n) => `Board ${n}`, roundPgn: "Round PGN", pgnHint: "Live PGN (for relays)", flip: "Flip",
    boardLabel: "Chess board",
  },
};

// The team match screen (team.js) and the wall's team tiles.

// The chess inputs on the referee console and the game's referee view (chess-referee.js), in Turkish and English.
export const CHESS_CONSOLE_TEXTS = {
  tr: {
    actions: { result: "Sonuç (tahtada görünmeyen)", orientation: "Tahtayı çevir" },
    orientations: { rotated: "Ters kurulmuş (a1 Siyahın solunda)", normal: "Normal (a1 Beyazın solunda)",
      auto: "Konumdan anla" },
    result: "Sonuç", how: "Nasıl bitti",
    hows: { resignation: "Terk", agreement: "Anlaşmayla beraberlik", flag: "Süre (bayrak düştü)",
      forfeit: "Hükmen (gelmedi, hükmen yenik)",
      arbiter: "Hakem kararı" },
  },
  en: {
    actions: { result: "Result (not on the board)", orientation: "Flip board" },
    orientations: { rotated: "Turned round (a1 at Black's left)", normal: "Normal (a1 at White's left)",
      auto: "Detect from the position" },
    result: "Result", how: "How it ended",
    hows: { resignation: "Resignation", agreement: "Draw by agreement", flag: "Flag (time)",
      forfeit: "Forfeit (no-show)",
      arbiter: "Arbiter's decision" },
  },
};
