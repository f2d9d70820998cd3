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
