// Texts the spectator screens show, in Turkish and English. The browser's language picks; a button switches.
export const TEXTS = {
  tr: {
    connecting: "Bağlanıyor…", open: "Canlı", closed: "Bağlantı koptu, yeniden deneniyor…",
    notice: "Canlı skorlar bilgilendirme amaçlıdır; resmî sonuç hakem onaylı sonuçtur.",
    informational: "Bilgilendirme amaçlıdır", official: "Resmî sonuç",
    table: "Masa", round: "Tur",
    status: { scheduled: "Planlandı", live: "Canlı", finished: "Bitti", official: "Resmî",
      protested: "İtirazda", forfeit: "Hükmen", abandoned: "Yarıda kaldı" },
    ago: (s) => s < 5 ? "şimdi" : s < 60 ? `${s} sn önce` : `${Math.floor(s / 60)} dk önce`,
    never: "veri yok", stale: "sessiz",
    // The match screen and the wall's markers.
    game: "Set", games: "Set", gameNo: (n) => `${n}. set`, serve: "Servis", receive: "Karşılar",
    expedite: "Hızlandırma", expediteShort: "HIZL", expediteSince: (g, a, b) => `${g}. sette ${a}-${b} skorundan beri`,
    timeout: "Mola", timeoutUsed: "Mola kullanıldı", timeoutActive: "Molada",
    cards: { yellow: "Sarı kart", yellow_red: "Sarı-kırmızı kart", red: "Kırmızı kart" },
    penalty: (n) => `Ceza: ${n} sayı`, history: "Setler", compact: "Özet",
    endsSwapped: "Taraflar değişti", winner: "Kazandı", updated: "Güncelleme", allTables: "Tüm masalar",
    notFound: "Maç bulunamadı", openMatch: "Maç ekranı", connected: "Bağlı",
    // Wall grouping and filters; what a referee's result and appeal decision look like to spectators.
    sports: { tabletennis: "Masa tenisi", backgammon: "Tavla", chess: "Satranç" },
    allSports: "Tüm branşlar", sportFilter: "Branş", tableFilter: "Masa", deviceSilent: "cihaz sessiz",
    resultBy: { correction: "hakem düzeltmesi", forfeit: "hükmen", penalty: "ceza", appeal: "itiraz kararı" },
    refereeResult: "Hakem sonucu", appealOpen: "İtiraz inceleniyor",
    appealDecision: { upheld: "İtiraz kabul edildi", rejected: "İtiraz reddedildi" },
    page: (n, of) => `Sayfa ${n}/${of}`,
  },
  en: {
    connecting: "Connecting…", open: "Live", closed: "Disconnected, retrying…",
    notice: "Live scores are informational; the official result is the one a referee confirms.",
    informational: "Informational", official: "Official result",
    table: "Table", round: "Round",
    status: { scheduled: "Scheduled", live: "Live", finished: "Finished", official: "Official",
      protested: "Protested", forfeit: "Forfeit", abandoned: "Abandoned" },
    ago: (s) => s < 5 ? "now" : s < 60 ? `${s} s ago` : `${Math.floor(s / 60)} min ago`,
    never: "no data", stale: "silent",
    // The match screen and the wall's markers.
    game: "Game", games: "Games", gameNo: (n) => `Game ${n}`, serve: "Serve", receive: "Receives",
    expedite: "Expedite", expediteShort: "EXP", expediteSince: (g, a, b) => `since ${a}-${b} in game ${g}`,
    timeout: "Time-out", timeoutUsed: "Time-out used", timeoutActive: "Time-out",
    cards: { yellow: "Yellow card", yellow_red: "Yellow + red card", red: "Red card" },
    penalty: (n) => `Penalty ${n} pt`, history: "Games", compact: "Summary",
    endsSwapped: "Ends changed", winner: "Winner", updated: "Updated", allTables: "All tables",
    notFound: "Match not found", openMatch: "Match screen", connected: "Connected",
    // Wall grouping and filters; what a referee's result and appeal decision look like to spectators.
    sports: { tabletennis: "Table tennis", backgammon: "Backgammon", chess: "Chess" },
    allSports: "All sports", sportFilter: "Sport", tableFilter: "Table", deviceSilent: "device silent",
    resultBy: { correction: "referee's correction", forfeit: "forfeit", penalty: "penalty", appeal: "appeal decision" },
    refereeResult: "Referee's result", appealOpen: "Appeal under review",
    appealDecision: { upheld: "Appeal upheld", rejected: "Appeal rejected" },
    page: (n, of) => `Page ${n}/${of}`,
  },
};

// Chess screens (chess.js): the board, clocks, moves and result.
export const CHESS_TEXTS = {
  tr: {
    white: "Beyaz", black: "Siyah", whiteToMove: "Hamle sırası beyazda", blackToMove: "Hamle sırası siyahta",
    whiteWins: "Beyaz kazandı", blackWins: "Siyah kazandı", draw: "Berabere",
    reasons: { checkmate: "mat", stalemate: "pat", flag_fall: "bayrak düştü", time: "süre bitti",
      timeout: "süre bitti", insufficient_material: "yetersiz taş", threefold_repetition: "üç kez tekrar",
      fivefold_repetition: "beş kez tekrar", fifty_moves: "50 hamle kuralı", seventyfive_moves: "75 hamle kuralı",
      result_signal: "tahtada sonuç işareti", resignation: "terk", agreement: "anlaşma", arbiter: "hakem kararı",
      referee: "hakem kararı", forfeit: "hükmen" },
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
export const TEAM_TEXTS = {
  tr: {
    teamMatch: "Takım maçı", board: "Masa", category: "Kategori", white: "Beyaz", black: "Siyah",
    result: "Sonuç", status: "Durum", matchPoints: "Maç puanı", decided: (n, of) => `${n}/${of} masa bitti`,
    notFound: "Takım maçı bulunamadı", allTables: "Tüm masalar", openGame: "Oyunu aç", score: "Skor",
    home: "Ev sahibi", away: "Konuk", noBoards: "Henüz masa yok", won: (team) => `${team} kazandı`, drawn: "Berabere",
  },
  en: {
    teamMatch: "Team match", board: "Board", category: "Category", white: "White", black: "Black",
    result: "Result", status: "Status", matchPoints: "Match points", decided: (n, of) => `${n} of ${of} boards done`,
    notFound: "Team match not found", allTables: "All tables", openGame: "Open the game", score: "Score",
    home: "Home", away: "Away", noBoards: "No boards yet", won: (team) => `${team} wins`, drawn: "Drawn",
  },
};

// The referee console (console.js). Statuses, "ago" and table/round words come from TEXTS.
export const CONSOLE_TEXTS = {
  tr: {
    title: "Hakem masası", tokenLabel: "Hakem anahtarı", signIn: "Giriş yap", signOut: "Çıkış",
    badToken: "Bu anahtar geçerli değil.", roles: { referee: "hakem", chief: "başhakem" },
    queue: "Anormallik kuyruğu", queueEmpty: "Bekleyen anormallik yok.", showHandled: "Kapananları da göster",
    severity: { error: "HATA", warning: "UYARI", info: "BİLGİ" },
    states: { open: "Açık", acknowledged: "Görüldü", resolved: "Çözüldü", dismissed: "Geçersiz sayıldı" },
    resolvedByRules: "Kurallarca çözüldü", evidence: "Kanıt", hideEvidence: "Kanıtı gizle", rule: "Kural",
    actions: { acknowledge: "Gördüm", resolve: "Çöz", dismiss: "Geçersiz say", confirm: "Onayla",
      correct: "Skoru düzelt", penalty: "Ceza / kart", forfeit: "Hükmen", appeal: "İtiraz aç",
      decide: "İtirazı karara bağla", result: "Sonuç (tahtada görünmeyen)", orientation: "Tahtayı çevir" },
    orientations: { rotated: "Ters kurulmuş (a1 Siyahın solunda)", normal: "Normal (a1 Beyazın solunda)",
      auto: "Konumdan anla" },
    result: "Sonuç", how: "Nasıl bitti",
    hows: { resignation: "Terk", agreement: "Anlaşmayla beraberlik", forfeit: "Hükmen (gelmedi, hükmen yenik)",
      arbiter: "Hakem kararı" },
    toConfirm: "Onay bekleyen maçlar", noneToConfirm: "Onay bekleyen maç yok.", matches: "Tüm maçlar",
    audit: "Denetim kaydı", auditEmpty: "Henüz işlem yok.", act: "İşlem…",
    cols: { time: "Saat", who: "Kim", match: "Maç", action: "İşlem", detail: "Ayrıntı", table: "Masa",
      round: "Tur", players: "Oyuncular", status: "Durum", score: "Skor", offset: "Sıra", kind: "Tür",
      source: "Kaynak", body: "İçerik" },
    reason: "Gerekçe", reasoning: "Karar gerekçesi", appellant: "İtiraz eden", side: "Taraf",
    loser: "Hükmen yenilen", score: "Skor", newScore: "Yeni skor (kabulde, isteğe bağlı)", decision: "Karar",
    penalties: { warning: "Uyarı", game_loss: "Oyun kaybı", match_loss: "Maç kaybı", yellow: "Sarı kart",
      yellow_red: "Sarı-kırmızı kart", red: "Kırmızı kart" },
    decisions: { upheld: "Kabul", rejected: "Ret" },
    submit: "Kaydet", cancel: "Vazgeç", locked: "Kilitli", waiting: (n) => `${n} bekleyen anormallik`,
    appealUntil: (time) => `İtiraz: ${time}'e kadar`, appealClosed: "İtiraz süresi doldu",
    contacts: "İletişim (yalnızca hakemler)", chiefOnly: "yalnızca başhakem", system: "Boardcast (otomatik)",
    kinds: { "referee.confirm": "Onay", "referee.input": "Hakem girdisi", "referee.anomaly": "Anormallik",
      "referee.result": "Skor düzeltme", "referee.penalty": "Ceza", "referee.forfeit": "Hükmen",
      "referee.appeal": "İtiraz", "referee.decision": "İtiraz kararı", "match.lock": "Tur kilidi" },
    lockedBecause: (id) => `${id} başladı`, finished: "Bitti", noEvents: "Kayıt yok.",
  },
  en: {
    title: "Referee console", tokenLabel: "Referee token", signIn: "Sign in", signOut: "Sign out",
    badToken: "That token is not valid.", roles: { referee: "referee", chief: "chief referee" },
    queue: "Anomaly queue", queueEmpty: "No anomaly waiting.", showHandled: "Show handled ones too",
    severity: { error: "ERROR", warning: "WARNING", info: "INFO" },
    states: { open: "Open", acknowledged: "Acknowledged", resolved: "Resolved", dismissed: "Dismissed" },
    resolvedByRules: "Resolved by the rules", evidence: "Evidence", hideEvidence: "Hide evidence", rule: "Rule",
    actions: { acknowledge: "Acknowledge", resolve: "Resolve", dismiss: "Dismiss", confirm: "Confirm",
      correct: "Correct score", penalty: "Penalty / card", forfeit: "Forfeit", appeal: "Open appeal",
      decide: "Decide appeal", result: "Result (not on the board)", orientation: "Flip board" },
    orientations: { rotated: "Turned round (a1 at Black's left)", normal: "Normal (a1 at White's left)",
      auto: "Detect from the position" },
    result: "Result", how: "How it ended",
    hows: { resignation: "Resignation", agreement: "Draw by agreement", forfeit: "Forfeit (no-show)",
      arbiter: "Arbiter's decision" },
    toConfirm: "Matches needing confirmation", noneToConfirm: "No match waiting for confirmation.",
    matches: "All matches", audit: "Audit", auditEmpty: "No action yet.", act: "Act…",
    cols: { time: "Time", who: "Who", match: "Match", action: "Action", detail: "Detail", table: "Table",
      round: "Round", players: "Players", status: "Status", score: "Score", offset: "Offset", kind: "Kind",
      source: "Source", body: "Content" },
    reason: "Reason", reasoning: "Reasoning", appellant: "Appellant", side: "Side",
    loser: "Forfeiting side", score: "Score", newScore: "New score (if upheld, optional)", decision: "Decision",
    penalties: { warning: "Warning", game_loss: "Game loss", match_loss: "Match loss", yellow: "Yellow card",
      yellow_red: "Yellow + red card", red: "Red card" },
    decisions: { upheld: "Upheld", rejected: "Rejected" },
    submit: "Record", cancel: "Cancel", locked: "Locked", waiting: (n) => `${n} anomal${n === 1 ? "y" : "ies"} waiting`,
    appealUntil: (time) => `Appeals until ${time}`, appealClosed: "Appeal window closed",
    contacts: "Contacts (referees only)", chiefOnly: "chief referee only", system: "Boardcast (automatic)",
    kinds: { "referee.confirm": "Confirmed", "referee.input": "Referee input", "referee.anomaly": "Anomaly",
      "referee.result": "Score corrected", "referee.penalty": "Penalty", "referee.forfeit": "Forfeit",
      "referee.appeal": "Appeal", "referee.decision": "Appeal decision", "match.lock": "Round locked" },
    lockedBecause: (id) => `${id} started`, finished: "Finished", noEvents: "No events.",
  },
};

export function pickLanguage(saved, browserLanguages) {
  if (saved === "tr" || saved === "en") return saved;
  for (const lang of browserLanguages || []) {
    const short = String(lang).slice(0, 2).toLowerCase();
    if (short === "tr" || short === "en") return short;
  }
  return "tr";
}
