// Backgammon on the spectator screens: the board in SVG (checkers, bar, borne-off trays, dice, cube), the match
// score with the Crawford marker, both clocks and the live move list; and a compact tile for the wall.
// State is the hub's `backgammon.to_dict`: points[0] is point 1 seen from A, A positive (moving 24 -> 1).
import { PAD } from "./backgammon-pad.js";
import { renderAnalysis } from "./backgammon-analysis.js";
import { performanceBox, performanceLine } from "./backgammon-performance.js";
import { el } from "./page.js";

export const BG_TEXTS = {
  tr: {
    matchTo: (n) => `${n} puanlık maç`, gameNo: (n) => `${n}. oyun`, crawford: "Crawford", postCrawford: "Crawford sonrası",
    opening: "Açılış zarı bekleniyor", toRoll: (p) => `${p} zar atacak`, toMove: (p, d) => `${p} oynuyor: ${d}`,
    doubled: (p, q, v) => `${p} ${v}'ye katladı; ${q} alacak mı?`, matchWon: (p) => `${p} maçı kazandı`,
    pips: "Pip", cube: "Küp", moves: "Hamleler", noMoves: "Henüz hamle yok", doubles: (v) => `Katlar → ${v}`,
    takes: "Alır", drops: "Bırakır", noPlay: "oynayamaz", illegal: "Kural dışı hamle — hakem inceliyor",
    illegalMark: "kural dışı", wins: (p, n, k) => `${p} ${n} puan kazandı (${k})`,
    kinds: { single: "tek", gammon: "mars", backgammon: "katmerli mars", drop: "bıraktı" },
    clock: "Saat", games: "Oyunlar", score: "Skor",
    resigns: (k) => `Pes eder (${k})`, accepts: "Kabul eder", rejects: "Reddeder", resigned: "pes etti",
    resignOffer: (p, k, n, q) => `${p} pes ediyor (${k}, ${n} puan); ${q} kabul edecek mi?`,
    chances: "Kazanma şansı", matchChances: "Maç", gameChances: "Oyun", gammonChances: "Mars",
    chancesAsOf: (t) => `${t} itibarıyla`, chancesBy: "GNU Backgammon değerlendirmesi, yayın gecikmesiyle",
  },
  en: {
    matchTo: (n) => `Match to ${n}`, gameNo: (n) => `Game ${n}`, crawford: "Crawford", postCrawford: "Post-Crawford",
    opening: "Waiting for the opening roll", toRoll: (p) => `${p} to roll`, toMove: (p, d) => `${p} to play ${d}`,
    doubled: (p, q, v) => `${p} doubles to ${v}; ${q} to take or drop`, matchWon: (p) => `${p} wins the match`,
    pips: "Pips", cube: "Cube", moves: "Moves", noMoves: "No moves yet", doubles: (v) => `Doubles → ${v}`,
    takes: "Takes", drops: "Drops", noPlay: "no play", illegal: "Illegal move — under review",
    illegalMark: "illegal", wins: (p, n, k) => `${p} wins ${n} point${n === 1 ? "" : "s"} (${k})`,
    kinds: { single: "single", gammon: "gammon", backgammon: "backgammon", drop: "drop" },
    clock: "Clock", games: "Games", score: "Score",
    resigns: (k) => `Resigns (${k})`, accepts: "Accepts", rejects: "Rejects", resigned: "resigned",
    resignOffer: (p, k, n, q) => `${p} offers to resign (${k}, ${n} point${n === 1 ? "" : "s"}); ${q} to accept or reject`,
    chances: "Winning chances", matchChances: "Match", gameChances: "Game", gammonChances: "Gammon",
    chancesAsOf: (t) => `as of ${t}`, chancesBy: "GNU Backgammon's evaluation, behind the broadcast delay",
  },
};

export const SIDES = ["A", "B"];  // the hub's names of the two sides, in side order
const RESIGN_KINDS = { 1: "single", 2: "gammon", 3: "backgammon" };  // what a resignation of each value gives up
const W = 1040, H = 800, TOP = 30, BOTTOM = 770, MID = 400, PW = 64, R = 29;
const LEFT_X = 80, BAR_X = 464, BAR_W = 64, RIGHT_X = BAR_X + BAR_W, TRAY_X = 930, TRAY_W = 90;

/** Pip count of each side: A counts its point numbers, B counts 25 minus them; the bar is 25. */
export function pipCounts(s) {
  const pips = [0, 0];
  (s.points || []).forEach((n, i) => {
    if (n > 0) pips[0] += n * (i + 1);
    else if (n < 0) pips[1] += -n * (24 - i);
  });
  pips[0] += 25 * ((s.bar || [0, 0])[0]);
  pips[1] += 25 * ((s.bar || [0, 0])[1]);
  return pips;
}

/** Seconds left on each clock at `now` (epoch seconds), following the hub's simple / Bronstein rules. */
export function clockLeft(clock, now) {
  if (!clock) return null;
  return [0, 1].map((side) => {
    let left = clock.remaining_s[side];
    if (clock.running === side && clock.since != null) {
      const elapsed = Math.max(0, now - clock.since);
      left -= clock.mode === "simple" ? Math.max(0, elapsed - clock.delay_s) : elapsed;
    }
    return Math.max(0, left);
  });
}

function fmtClock(seconds) {
  const s = Math.ceil(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function columnX(index) {  // index 0..23 = point 1..24, A's home board bottom right
  const col = index < 12 ? 11 - index : index - 12;
  return col < 6 ? LEFT_X + col * PW + PW / 2 : RIGHT_X + (col - 6) * PW + PW / 2;
}

function checker(x, y, side, r = R, label = "") {
  const cls = side === 0 ? "ck ck-a" : "ck ck-b";
  let out = `<circle class="${cls}" cx="${x}" cy="${y}" r="${r}" data-side="${SIDES[side]}"/>`;
  out += `<circle class="${cls}-ring" cx="${x}" cy="${y}" r="${r * 0.62}"/>`;
  if (label) out += `<text class="ck-label ck-label-${side}" x="${x}" y="${y}" dy="0.35em">${label}</text>`;
  return out;
}

function stack(x, count, side, top, maxShown = 5) {
  let out = "";
  const shown = Math.min(count, maxShown);
  for (let k = 0; k < shown; k++) {
    const y = top ? TOP + R + k * 2 * R : BOTTOM - R - k * 2 * R;
    out += checker(x, y, side, R, k === shown - 1 && count > maxShown ? String(count) : "");
  }
  return out;
}

function die(x, y, value, size, used) {
  const pips = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
    5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]] }[value] || [];
  let out = `<g class="die${used ? " used" : ""}" data-value="${value}">`;
  out += `<rect x="${x}" y="${y}" width="${size}" height="${size}" rx="${size * 0.16}"/>`;
  for (const [cx, cy] of pips) {
    out += `<circle cx="${x + (cx * size) / 4}" cy="${y + (cy * size) / 4}" r="${size * 0.09}"/>`;
  }
  return out + "</g>";
}

/** The board as SVG markup (numbers only, no names: safe to assign as innerHTML). */
export function boardSvg(s) {
  const points = s.points || new Array(24).fill(0);
  const bar = s.bar || [0, 0];
  const off = s.off || [0, 0];
  let out = `<svg class="bg-svg" viewBox="0 0 ${W} ${H}" role="img" xmlns="http://www.w3.org/2000/svg">`;
  out += `<rect class="frame" x="0" y="0" width="${W}" height="${H}" rx="18"/>`;
  out += `<rect class="felt" x="${LEFT_X}" y="${TOP}" width="${6 * PW}" height="${BOTTOM - TOP}"/>`;
  out += `<rect class="felt" x="${RIGHT_X}" y="${TOP}" width="${6 * PW}" height="${BOTTOM - TOP}"/>`;
  out += `<rect class="bar-strip" x="${BAR_X}" y="${TOP}" width="${BAR_W}" height="${BOTTOM - TOP}"/>`;
  out += `<rect class="tray" x="${TRAY_X}" y="${TOP}" width="${TRAY_W}" height="${MID - TOP - 10}" rx="6"/>`;
  out += `<rect class="tray" x="${TRAY_X}" y="${MID + 10}" width="${TRAY_W}" height="${BOTTOM - MID - 10}" rx="6"/>`;
  for (let i = 0; i < 24; i++) {
    const x = columnX(i);
    const top = i >= 12;
    const tip = top ? TOP + 310 : BOTTOM - 310;
    const base = top ? TOP : BOTTOM;
    const shade = i % 2 === 0 ? "pt-dark" : "pt-light";
    out += `<polygon class="pt ${shade}" points="${x - PW / 2 + 2},${base} ${x + PW / 2 - 2},${base} ${x},${tip}"/>`;
    out += `<text class="pt-no" x="${x}" y="${top ? TOP - 9 : BOTTOM + 24}">${i + 1}</text>`;
    const n = points[i];
    if (n) out += `<g class="point" data-point="${i + 1}" data-count="${n}">${stack(x, Math.abs(n), n > 0 ? 0 : 1, top)}</g>`;
  }
  // The bar: A's checkers wait above the middle (they enter in B's home board, top right), B's below.
  const bx = BAR_X + BAR_W / 2;
  for (const side of [0, 1]) {
    const count = bar[side];
    let g = "";
    for (let k = 0; k < Math.min(count, 4); k++) {
      const y = side === 0 ? MID - 40 - k * 2 * R : MID + 40 + k * 2 * R;
      g += checker(bx, y, side, R, k === Math.min(count, 4) - 1 && count > 4 ? String(count) : "");
    }
    out += `<g class="bg-bar" data-side="${SIDES[side]}" data-count="${count}">${g}</g>`;
  }
  // Borne off: B's tray on top, A's below, a slab per checker.
  for (const side of [0, 1]) {
    let g = "";
    for (let k = 0; k < off[side]; k++) {
      const y = side === 1 ? TOP + 8 + k * 22 : BOTTOM - 8 - 18 - k * 22;
      g += `<rect class="slab slab-${side === 0 ? "a" : "b"}" x="${TRAY_X + 8}" y="${y}" width="${TRAY_W - 16}" height="18" rx="4"/>`;
    }
    out += `<g class="off" data-side="${SIDES[side]}" data-count="${off[side]}">${g}</g>`;
  }
  // The cube: centred, or on the owner's side (B at the top, A at the bottom).
  const cube = s.cube || { value: 1, owner: null };
  const cy = cube.owner === "B" ? TOP + 4 : cube.owner === "A" ? BOTTOM - 62 : MID - 29;
  out += `<g class="cube" data-value="${cube.value}" data-owner="${cube.owner ?? ""}">`;
  out += `<rect x="10" y="${cy}" width="58" height="58" rx="8"/>`;
  out += `<text x="39" y="${cy + 29}" dy="0.36em">${cube.owner == null && cube.value === 1 ? 64 : cube.value}</text></g>`;
  // Dice in the half of the side to play: A's on the right, B's on the left.
  if (s.dice && s.phase === "moving") {
    const size = 62;
    const cx = s.turn === "A" ? RIGHT_X + 3 * PW : LEFT_X + 3 * PW;
    const [d1, d2] = s.dice;
    out += `<g class="dice" data-dice="${d1}-${d2}" data-side="${s.turn}">`;
    out += die(cx - size - 8, MID - size / 2, d1, size, false) + die(cx + 8, MID - size / 2, d2, size, false);
    out += "</g>";
  }
  return out + "</svg>";
}

function actionText(a, bt) {
  if (a.kind === "double") return null;
  if (a.kind === "take") return bt.takes;
  if (a.kind === "drop") return bt.drops;
  if (a.kind === "resign") return bt.resigns(bt.kinds[RESIGN_KINDS[a.value]]);
  if (a.kind === "accept") return bt.accepts;
  if (a.kind === "reject") return bt.rejects;
  const dice = a.dice ? `${a.dice[0]}${a.dice[1]}: ` : "";
  return dice + (a.text === "no play" ? bt.noPlay : a.text);
}

/** Moves of the game as rows of [A's entry, B's entry], in the order played, doubles with their value. */
export function moveRows(actions, bt) {
  const rows = [];
  let cube = 1;
  let row = null;
  for (const a of actions || []) {
    let text = actionText(a, bt);
    if (a.kind === "double") { cube *= 2; text = bt.doubles(cube); }
    const entry = { text, legal: a.legal !== false, kind: a.kind };
    const col = a.side === "A" ? 0 : 1;
    if (!row || row[col] || (col === 0 && row[1])) { row = [null, null]; rows.push(row); }
    row[col] = entry;
  }
  return rows;
}

function phaseText(match, s, bt, names) {
  const who = (side) => names[SIDES.indexOf(side)] || side;
  if (s.winner) return bt.matchWon(who(s.winner));
  if (s.resign) {
    const points = s.resign.value * (s.cube ? s.cube.value : 1);
    return bt.resignOffer(who(s.resign.side), bt.kinds[RESIGN_KINDS[s.resign.value]], points,
      who(s.resign.side === "A" ? "B" : "A"));
  }
  if (s.phase === "opening") return bt.opening;
  if (s.phase === "await_roll") return bt.toRoll(who(s.turn));
  if (s.phase === "moving") return bt.toMove(who(s.turn), s.dice ? `${s.dice[0]}-${s.dice[1]}` : "");
  if (s.phase === "doubled") {
    return bt.doubled(who(s.turn), who(s.turn === "A" ? "B" : "A"), (s.cube ? s.cube.value : 1) * 2);
  }
  return "";
}

/** Draw the whole backgammon match screen into `root` (a container the page owns). */
export function renderBackgammon(root, match, lang, now = Date.now() / 1000) {
  const bt = BG_TEXTS[lang] || BG_TEXTS.en;
  const s = match.state || {};
  const names = [(match.players || [])[0] || "A", (match.players || [])[1] || "B"];
  if (!root.querySelector(".bg-layout")) {
    root.innerHTML = `
      <div class="bg-layout">
        <div class="bg-board-wrap"><div class="bg-board"></div><div class="bg-phase" role="status"></div></div>
        <aside class="bg-side">
          <div class="bg-meta"><span class="bg-length"></span><span class="bg-crawford" hidden></span></div>
          <div class="bg-player" data-side="B"></div>
          <div class="bg-player" data-side="A"></div>
          <div class="bg-chances-slot"></div>
          <div class="bg-performance-slot"></div>
          <div class="bg-illegal" hidden></div>
          <section class="bg-moves"><h2></h2><ol class="bg-move-list"></ol></section>
          <section class="bg-games"><h2></h2><ul class="bg-game-list"></ul></section>
        </aside>
      </div>`;
  }
  root.dataset.phase = s.phase || "";
  root.dataset.turn = s.turn || "";
  root.querySelector(".bg-board").innerHTML = boardSvg(s);
  root.querySelector(".bg-phase").textContent = phaseText(match, s, bt, names);
  root.querySelector(".bg-length").textContent = s.length ? bt.matchTo(s.length) : "";
  const crawford = root.querySelector(".bg-crawford");
  crawford.hidden = !(s.crawford || s.post_crawford);
  crawford.textContent = s.crawford ? bt.crawford : bt.postCrawford;
  crawford.classList.toggle("post", !s.crawford && Boolean(s.post_crawford));

  const pips = pipCounts(s);
  const clocks = clockLeft(s.clock, now);
  for (const side of [0, 1]) {
    const code = SIDES[side];
    const box = root.querySelector(`.bg-player[data-side="${code}"]`);
    const onTurn = match.status === "live" && s.turn === code && !s.winner && s.phase !== "opening";
    box.classList.toggle("on-turn", onTurn);
    box.classList.toggle("winner", s.winner === code);
    const running = s.clock && s.clock.running === side;
    box.replaceChildren(
      el("span", `bg-swatch bg-swatch-${code.toLowerCase()}`),
      el("span", "bg-name", names[side]),
      el("span", "bg-score", String(s.score ? s.score[code] : 0)),
      el("span", "bg-pips", `${bt.pips} ${pips[side]}`),
      el("span", `bg-clock${running ? " running" : ""}${clocks && clocks[side] < 60 ? " low" : ""}`,
        clocks ? fmtClock(clocks[side]) : ""),
    );
    box.querySelector(".bg-clock").hidden = !clocks;
  }
  const slot = root.querySelector(".bg-chances-slot");
  slot.replaceChildren(...[chancesBar(match.chances, names, lang)].filter(Boolean));
  const over = match.status !== "live" && match.status !== "scheduled";
  root.querySelector(".bg-performance-slot").replaceChildren(
    ...[performanceBox(match.performance, names, lang, over ? match.id : null)].filter(Boolean));
  const illegal = root.querySelector(".bg-illegal");
  illegal.hidden = !s.illegal_pending;
  illegal.textContent = bt.illegal;

  root.querySelector(".bg-moves h2").textContent = s.game ? `${bt.moves} · ${bt.gameNo(s.game)}` : bt.moves;
  const list = root.querySelector(".bg-move-list");
  const rows = moveRows(s.moves, bt);
  if (!rows.length) list.replaceChildren(el("li", "bg-empty", bt.noMoves));
  else {
    list.replaceChildren(...rows.map((row, i) => {
      const li = el("li", "bg-move");
      li.append(el("span", "bg-no", `${i + 1})`));
      for (const entry of row) {
        const cell = el("span", "bg-cell", entry ? entry.text : "");
        if (entry && !entry.legal) { cell.classList.add("illegal"); cell.title = bt.illegalMark; }
        if (entry && entry.kind !== "move") cell.classList.add("cube-action");
        li.append(cell);
      }
      return li;
    }));
  }
  list.scrollTop = list.scrollHeight;
  root.querySelector(".bg-games h2").textContent = bt.games;
  const games = s.games || [];
  root.querySelector(".bg-games").hidden = !games.length;
  root.querySelector(".bg-game-list").replaceChildren(...games.map((g) => {
    const winner = names[SIDES.indexOf(g.winner)] || g.winner;
    const last = g.actions && g.actions[g.actions.length - 1];
    const kind = last && last.kind === "drop" ? "drop" : g.resigned ? RESIGN_KINDS[g.resigned] : kindOf(g);
    const how = g.resigned ? `${bt.kinds[kind]}, ${bt.resigned}` : bt.kinds[kind];
    return el("li", null, `${bt.gameNo(g.number)}: ${bt.wins(winner, g.points, how)}`);
  }));
}

/** The winning chances bar (GNU Backgammon's net, as the hub shows it behind the broadcast delay): A's share
 *  of the match (or, for a money game, the game) from the left, with each side's percentage, and the game and
 *  gammon chances below; null when the hub has none to show. */
export function chancesBar(chances, names, lang) {
  if (!chances) return null;
  const bt = BG_TEXTS[lang] || BG_TEXTS.en;
  const main = chances.match || chances.win;
  const pct = (x) => `${x.toFixed(1)}%`;
  const box = el("div", "bg-chances");
  box.title = bt.chancesBy;
  box.dataset.a = String(main[0]);
  const head = el("div", "bg-chances-head", `${bt.chances} · ${chances.match ? bt.matchChances : bt.gameChances}`);
  if (chances.at) {
    const at = new Date(chances.at * 1000).toLocaleTimeString(lang === "tr" ? "tr-TR" : "en-GB");
    head.append(el("span", "bg-chances-at", ` · ${bt.chancesAsOf(at)}`));
  }
  // Each side's share and name above the bar, not in it: a segment is as narrow as the share (none at 0 %),
  // and a long name needs the whole half to wrap at its spaces.
  const legend = el("div", "bg-chances-names");
  for (const side of [0, 1]) {
    const who = el("span", `bg-chances-side bg-chances-side-${"ab"[side]}`);
    who.append(el("span", "bg-chances-pct", pct(main[side])), " ", el("span", "bg-chances-name", names[side]));
    legend.append(who);
  }
  const bar = el("div", "bg-chances-bar");
  bar.setAttribute("role", "img");
  bar.setAttribute("aria-label", `${pct(main[0])} ${names[0]} – ${pct(main[1])} ${names[1]}`);
  const a = el("span", "bg-chances-a");
  a.style.width = `${Math.max(0, Math.min(100, main[0]))}%`;
  bar.append(a, el("span", "bg-chances-b"));
  const detail = el("div", "bg-chances-detail",
    `${bt.gameChances} ${pct(chances.win[0])} – ${pct(chances.win[1])} · `
    + `${bt.gammonChances} ${pct(chances.gammon[0])} – ${pct(chances.gammon[1])}`);
  box.append(head, legend, bar, detail);
  return box;
}

function kindOf(game) {
  const actions = game.actions || [];
  const entered = actions.find((a) => a.kind === "cube");  // a game scored by hand: the cube it reached
  const cube = entered ? entered.value : 2 ** actions.filter((a) => a.kind === "take").length;
  const per = game.points / cube;
  return per === 3 ? "backgammon" : per === 2 ? "gammon" : "single";
}

/** The compact wall tile of a backgammon match: names, score, cube, pips, and a small board. */
export function renderBackgammonTile(tile, match, lang) {
  const bt = BG_TEXTS[lang] || BG_TEXTS.en;
  const s = match.state || {};
  const pips = pipCounts(s);
  tile.classList.add("bg-tile");
  for (const side of [0, 1]) {
    const code = SIDES[side];
    const row = tile.querySelector(`.side-${side}`);
    row.querySelector(".name").textContent = match.players[side] || "—";
    row.querySelector(".name").classList.remove("pair");
    const marks = [];
    if (s.cube && s.cube.owner === code) {
      const cube = el("span", "mark bg-cube-mark", String(s.cube.value));
      cube.title = bt.cube;
      marks.push(cube);
    }
    row.querySelector(".marks").replaceChildren(...marks);
    row.querySelector(".games").textContent = String(pips[side]);
    row.querySelector(".games").title = bt.pips;
    row.querySelector(".points").textContent = String(s.score ? s.score[code] : 0);
    const serve = row.querySelector(".serve");  // the side's checker colour, ringed while it is on roll
    serve.classList.add("bg-dot", `bg-dot-${code.toLowerCase()}`);
    serve.classList.toggle("on", match.status === "live" && s.turn === code && s.phase !== "opening" && !s.winner);
    serve.title = "";
    row.classList.toggle("winner", s.winner === code);
  }
  let mini = tile.querySelector(".bg-mini");
  if (!mini) {
    mini = el("div", "bg-mini");
    tile.querySelector(".rows").after(mini);
  }
  mini.innerHTML = boardSvg(s);
  let slot = tile.querySelector(".bg-chances-slot");
  if (!slot) {
    slot = el("div", "bg-chances-slot");
    mini.after(slot);
  }
  slot.replaceChildren(...[
    chancesBar(match.chances, [match.players[0] || "A", match.players[1] || "B"], lang),
    performanceLine(match.performance, lang),
  ].filter(Boolean));
  const bits = [s.length ? bt.matchTo(s.length) : ""];
  if (s.game) bits.push(bt.gameNo(s.game));
  if (s.crawford) bits.push(bt.crawford);
  else if (s.post_crawford) bits.push(bt.postCrawford);
  if (s.dice && s.phase === "moving") bits.push(`${s.dice[0]}-${s.dice[1]}`);
  tile.querySelector(".history").textContent = bits.filter(Boolean).join(" · ");
}

// The backgammon inputs on the referee console: a resignation a board cannot report, and its answer.
const CONSOLE_TEXTS = {
  tr: {
    actions: { resign: "Pes etme", accept: "Pes etmeyi kabul et", reject: "Pes etmeyi reddet (oyun sürer)" },
    resignValue: "Ne olarak", resignValues: { 1: "Tek oyun (küp × 1)", 2: "Mars (küp × 2)", 3: "Katmerli mars (küp × 3)" },
  },
  en: {
    actions: { resign: "Resignation", accept: "Accept the resignation", reject: "Reject the resignation (play on)" },
    resignValue: "Resigns", resignValues: { 1: "A single game (cube × 1)", 2: "A gammon (cube × 2)", 3: "A backgammon (cube × 3)" },
  },
};

/** What the pages ask of backgammon (sports.js): its match screen, its wall tile, a decided match's points. */
export const PAGES = {
  names: { tr: "Tavla", en: "Backgammon" },
  pad: PAD,  // the umpire pad's entry of a game (web-display/pad.js)
  screen: {
    id: "bg",
    className: "bg-screen",
    live: true,
    gameNo: (match, lang) => {
      const s = match.state || {};
      return s.game && s.winner == null ? BG_TEXTS[lang].gameNo(s.game) : "";
    },
    render: (root, match, lang) => renderBackgammon(root, match, lang),
    ticking: (match) => Boolean(match.state && match.state.clock),  // drawn again each second: its clocks run
  },
  tile: renderBackgammonTile,
  analysis: renderAnalysis,  // a match's analysis report page (analysis.js)
  /** A decided match's points for the wall's big column, or null while it is played. */
  result(match) {
    const s = match.state || {};
    const winner = SIDES.indexOf(s.winner);
    return winner < 0 ? null : { score: SIDES.map((code) => String((s.score || {})[code] ?? 0)), winner };
  },
  consoleTexts: CONSOLE_TEXTS,  // its inputs on the referee console
  /** The live score as the console lists it. */
  consoleScore: (s) => (s.score && s.score.A != null ? `${s.score.A}–${s.score.B}` : ""),
};
