// A backgammon match's analysis report, drawn on the analysis page (analysis.js): each player's PR, band and
// figures, and the largest errors as boards with the play made and the best play (GNU Backgammon's analysis).
import { boardSvg } from "./backgammon.js";
import { bandName, fixed } from "./backgammon-performance.js";
import { el } from "./page.js";

const TEXTS = {
  tr: {
    largest: "En büyük hatalar",
    headers: ["Oyuncu", "PR", "Düzey", "Pul PR", "Küp PR", "Karar", "Hata", "Büyük hata", "Şans"],
    engine: (ply, complete) => `GNU Backgammon ${ply}-ply çözümlemesi${complete ? "" : " (maç sürüyor: şimdiye kadarki)"}. PR: karar başına ortalama hata × 500; hata ≥ 0,040, büyük hata ≥ 0,080 (normalleştirilmiş eşitlik).`,
    game: (n) => `${n}. oyun`, played: "Oynanan", best: "En iyisi", error: "Hata",
    actions: { "no double": "katlamadı", double: "katladı", take: "aldı", drop: "bıraktı", move: "hamle" },
    right: { "no double": "katlamamak", "double, take": "katlamak (alınır)", "double, pass": "katlamak (bırakılır)", take: "almak", drop: "bırakmak" },
  },
  en: {
    largest: "Largest errors",
    headers: ["Player", "PR", "Band", "Checker PR", "Cube PR", "Decisions", "Errors", "Blunders", "Luck"],
    engine: (ply, complete) => `GNU Backgammon's ${ply}-ply analysis${complete ? "" : " (the match goes on: so far)"}. PR: mean error per decision × 500; an error is ≥ 0.040, a blunder ≥ 0.080 (normalised equity).`,
    game: (n) => `Game ${n}`, played: "Played", best: "Best", error: "Error",
    actions: { "no double": "no double", double: "doubled", take: "took", drop: "passed", move: "move" },
    right: { "no double": "no double", "double, take": "double, take", "double, pass": "double, pass", take: "take", drop: "pass" },
  },
};

/** One large error: the position before it (the deciding player's dice on the board), what was played, what
 *  was best, and the equity given up. */
function errorCard(d, names, x) {
  const item = el("li", "an-error");
  const board = el("div", "an-board");
  if (d.position) {
    board.innerHTML = boardSvg({ ...d.position, cube: { value: 1, owner: null }, dice: d.dice, phase: d.dice ? "moving" : "", turn: d.side });
  }
  const what = d.kind === "checker"
    ? [[x.played, d.played || "—"], [x.best, d.best || "—"]]
    : [[x.played, x.actions[d.action] || d.action], [x.best, x.right[d.best_action] || d.best_action]];
  const facts = el("dl", "an-facts");
  for (const [term, value] of [...what, [x.error, fixed(d.error, 3)]]) facts.append(el("dt", null, term), el("dd", null, value));
  const dice = d.dice ? ` · ${d.dice[0]}-${d.dice[1]}` : "";
  item.append(el("h3", null, `${x.game(d.game)} · ${names["AB".indexOf(d.side)]}${dice}`), board, facts);
  return item;
}

/** Draw the report (`/api/matches/ID/analysis`'s `performance`) into `root`; false when there is none. */
export function renderAnalysis(root, body, match, lang) {
  const report = body.performance;
  if (!report) return false;
  const x = TEXTS[lang] || TEXTS.en;
  const names = [match.players[0] || "A", match.players[1] || "B"];
  const table = el("table", "an-players");
  const head = el("tr");
  head.append(...x.headers.map((h) => el("th", null, h)));
  const rows = report.players.map((p, side) => {
    const row = el("tr");
    row.dataset.side = p.side;
    const cells = [fixed(p.pr), bandName(p, lang), fixed(p.checker_pr), fixed(p.cube_pr), p.decisions, p.errors,
      p.blunders, `${p.luck >= 0 ? "+" : ""}${fixed(p.luck, 2)}`];
    row.append(el("th", null, names[side]), ...cells.map((c, i) => el("td", { "data-label": x.headers[i + 1], text: String(c) })));
    return row;
  });
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  table.tBodies[0].append(...rows);
  const wrap = el("div", "an-table-wrap");
  wrap.append(table);
  const parts = [el("p", "an-engine", x.engine(report.ply, report.complete)), wrap];
  if (report.largest.length) {
    const list = el("ol", "an-largest");
    list.append(...report.largest.map((d) => errorCard(d, names, x)));
    parts.push(el("h2", "an-largest-title", x.largest), list);
  }
  root.replaceChildren(...parts);
  return true;
}
