// A backgammon match's analysis report (/match/ID/analysis): each player's PR, band and figures, and the
// largest errors as boards with the play made and the best play. For spectators once the match is over; a
// referee signed in on this browser's console sees it live. A hall screen (`?hall=1`) shows none of it.
import { boardSvg } from "./backgammon.js";
import { bandName, fixed } from "./backgammon-performance.js";
import { pickLanguage } from "./i18n.js";
import { $, el, hallScreen, pathId, showLanguage } from "./page.js";

const TEXTS = {
  tr: {
    title: "Maç çözümlemesi", backToMatch: "Maça dön", download: "JSON indir", largest: "En büyük hatalar",
    headers: ["Oyuncu", "PR", "Düzey", "Pul PR", "Küp PR", "Karar", "Hata", "Büyük hata", "Şans"],
    engine: (ply, complete) => `GNU Backgammon ${ply}-ply çözümlemesi${complete ? "" : " (maç sürüyor: şimdiye kadarki)"}. PR: karar başına ortalama hata × 500; hata ≥ 0,040, büyük hata ≥ 0,080 (normalleştirilmiş eşitlik).`,
    notYet: "Çözümleme maç bitince gösterilir.", none: "Bu maçın çözümlemesi yok.", hall: "Oyun salonundaki ekranlarda çözümleme gösterilmez.",
    game: (n) => `${n}. oyun`, played: "Oynanan", best: "En iyisi", error: "Hata", noMatch: "Maç bulunamadı",
    actions: { "no double": "katlamadı", double: "katladı", take: "aldı", drop: "bıraktı", move: "hamle" },
    right: { "no double": "katlamamak", "double, take": "katlamak (alınır)", "double, pass": "katlamak (bırakılır)", take: "almak", drop: "bırakmak" },
    table: (t) => `Masa ${t}`,
  },
  en: {
    title: "Match analysis", backToMatch: "Back to the match", download: "Download JSON", largest: "Largest errors",
    headers: ["Player", "PR", "Band", "Checker PR", "Cube PR", "Decisions", "Errors", "Blunders", "Luck"],
    engine: (ply, complete) => `GNU Backgammon's ${ply}-ply analysis${complete ? "" : " (the match goes on: so far)"}. PR: mean error per decision × 500; an error is ≥ 0.040, a blunder ≥ 0.080 (normalised equity).`,
    notYet: "The analysis is shown once the match is over.", none: "This match has no analysis.", hall: "Screens in the playing hall show no analysis.",
    game: (n) => `Game ${n}`, played: "Played", best: "Best", error: "Error", noMatch: "Match not found",
    actions: { "no double": "no double", double: "doubled", take: "took", drop: "passed", move: "move" },
    right: { "no double": "no double", "double, take": "double, take", "double, pass": "double, pass", take: "take", drop: "pass" },
    table: (t) => `Table ${t}`,
  },
};

const MATCH = pathId("match");
let lang = pickLanguage(localStorage.getItem("boardcast.lang"), navigator.languages);
let data = null;  // { match, report } once loaded
let problem = null;  // the message key when there is nothing to show

function t() { return TEXTS[lang]; }

function message(key) {
  problem = key;
  $("message").textContent = t()[key];
  $("message").hidden = false;
  $("analysis").hidden = true;
}

/** One large error: the position before it (the deciding player's dice on the board), what was played, what
 *  was best, and the equity given up. */
function errorCard(d, names) {
  const item = el("li", "an-error");
  const who = names["AB".indexOf(d.side)];
  const board = el("div", "an-board");
  if (d.position) {
    const cube = { value: 1, owner: null };
    board.innerHTML = boardSvg({ ...d.position, cube, dice: d.dice, phase: d.dice ? "moving" : "", turn: d.side });
  }
  const what = d.kind === "checker"
    ? [[t().played, d.played || "—"], [t().best, d.best || "—"]]
    : [[t().played, t().actions[d.action] || d.action], [t().best, t().right[d.best_action] || d.best_action]];
  const facts = el("dl", "an-facts");
  for (const [term, value] of [...what, [t().error, fixed(d.error, 3)]]) facts.append(el("dt", null, term), el("dd", null, value));
  const dice = d.dice ? ` · ${d.dice[0]}-${d.dice[1]}` : "";
  item.append(el("h3", null, `${t().game(d.game)} · ${who}${dice}`), board, facts);
  return item;
}

function draw() {
  showLanguage(lang, t());
  if (problem) { message(problem); return; }
  if (!data) return;
  const { match, report } = data;
  const names = [match.players[0] || "A", match.players[1] || "B"];
  $("table").textContent = t().table(match.table);
  $("engine").textContent = t().engine(report.ply, report.complete);
  $("players").querySelector("thead tr").replaceChildren(...t().headers.map((h) => el("th", null, h)));
  $("players").querySelector("tbody").replaceChildren(...report.players.map((p, side) => {
    const row = el("tr");
    row.dataset.side = p.side;
    const cells = [names[side], fixed(p.pr), bandName(p, lang), fixed(p.checker_pr), fixed(p.cube_pr), p.decisions,
      p.errors, p.blunders, `${p.luck >= 0 ? "+" : ""}${fixed(p.luck, 2)}`];
    row.append(el("th", null, cells[0]), ...cells.slice(1).map((c) => el("td", null, String(c))));
    return row;
  }));
  $("largest").replaceChildren(...report.largest.map((d) => errorCard(d, names)));
  $("largest-title").hidden = !report.largest.length;
  $("analysis").hidden = false;
  $("message").hidden = true;
}

async function load() {
  $("back").href = `/match/${encodeURIComponent(MATCH)}`;
  if (hallScreen()) { message("hall"); return; }
  const matchAnswer = await fetch(`/api/matches/${encodeURIComponent(MATCH)}`);
  if (!matchAnswer.ok) { message("noMatch"); return; }
  const match = await matchAnswer.json();
  const token = sessionStorage.getItem("boardcast.referee");  // a referee signed in on the console sees it live
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const answer = await fetch(`/api/matches/${encodeURIComponent(MATCH)}/analysis`, { headers });
  if (answer.status === 403 || answer.status === 401) { message("notYet"); return; }
  if (!answer.ok) { message("none"); return; }
  const body = await answer.json();
  const report = body.performance;
  if (!report) { message("none"); return; }
  const download = $("download");
  download.href = `/api/matches/${encodeURIComponent(MATCH)}/analysis?download=1`;
  download.hidden = Boolean(token) && !report.complete;  // a link carries no token: it works once the match is over
  data = { match, report };
  draw();
}

$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  localStorage.setItem("boardcast.lang", lang);
  draw();
});
showLanguage(lang, t());
load();
