// Chess on the spectator screens: the board in SVG (pieces drawn here, no font or download), both clocks
// counting down locally, the move list in SAN with clock times, the result; and a compact tile for the wall.
// State is the hub's chess `to_dict`: "fen" is the game, "board_fen" what the physical board shows right now.
import { CHESS_CONSOLE_TEXTS, CHESS_TEXTS } from "./chess-texts.js";
import { PAD } from "./chess-pad.js";
import { renderRefereeResult } from "./chess-referee.js";
import { el } from "./page.js";

export { CHESS_TEXTS };

const SQ = 100;  // one square in SVG units
const MARGIN = 34;  // room for the rank and file letters left of and below the board
const FILES = "abcdefgh";
const LOW_MS = 60_000;
const POINTS = { "1-0": ["1", "0"], "0-1": ["0", "1"], "1/2-1/2": ["½", "½"] };

// Pieces in a 100×100 cell, drawn as outlines so both colours read on light and dark squares.
// Each entry: filled shapes, then detail lines (drawn in the outline colour).
const PIECE_SHAPES = {
  p: {
    fill: [
      "M24 88 C24 78 32 74 40 72 C34 66 36 56 42 50 C34 46 36 34 42 30 C44 20 56 20 58 30 C64 34 66 46 58 50"
        + " C64 56 66 66 60 72 C68 74 76 78 76 88 Z",
    ],
    line: [],
  },
  r: {
    fill: [
      "M22 88 L78 88 L78 78 L69 78 L66 46 L73 40 L73 18 L62 18 L62 26 L55 26 L55 18 L45 18 L45 26 L38 26"
        + " L38 18 L27 18 L27 40 L34 46 L31 78 L22 78 Z",
    ],
    line: ["M31 78 L69 78", "M34 46 L66 46", "M27 40 L73 40"],
  },
  n: {
    fill: [
      "M28 88 L78 88 L76 78 C80 58 76 36 62 24 L62 10 L53 20 L46 14 L45 23 C34 28 26 38 20 50"
        + " C17 56 20 62 26 62 C32 62 38 58 48 53 C46 62 38 70 33 78 Z",
    ],
    line: ["M33 78 L76 78", "M22 56 L27 56"],
    dot: [[41, 36, 3.6]],
  },
  b: {
    fill: [
      "M22 88 L78 88 L73 78 L27 78 Z",
      "M38 78 L41 66 L59 66 L62 78 Z",
      "M36 66 C22 52 32 36 50 24 C68 36 78 52 64 66 Z",
      "M50 13 m-7 0 a7 7 0 1 0 14 0 a7 7 0 1 0 -14 0",
    ],
    line: ["M56 38 L45 51", "M36 66 L64 66"],
  },
  q: {
    fill: [
      "M22 88 L78 88 L73 77 L27 77 Z",
      "M27 77 L17 34 L34 56 L35 24 L45 52 L50 18 L55 52 L65 24 L66 56 L83 34 L73 77 Z",
      "M17 30 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0",
      "M35 20 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0",
      "M50 14 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0",
      "M65 20 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0",
      "M83 30 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0",
    ],
    line: ["M29 68 Q50 62 71 68"],
  },
  k: {
    fill: [
      "M22 88 L78 88 L73 77 L27 77 Z",
      "M27 77 C12 60 20 36 42 46 L45 34 L55 34 L58 46 C80 36 88 60 73 77 Z",
      "M46 6 L54 6 L54 13 L61 13 L61 21 L54 21 L54 34 L46 34 L46 21 L39 21 L39 13 L46 13 Z",
    ],
    line: ["M29 68 Q50 61 71 68", "M50 46 L50 66"],
  },
};

/** The 64 squares of a FEN placement (index 0 = a1, 63 = h8): a piece letter ("P", "k"…) or "". */
export function placement(fen) {
  const squares = new Array(64).fill("");
  const rows = String(fen || "").split(" ")[0].split("/");
  rows.slice(0, 8).forEach((row, i) => {
    const rank = 7 - i;
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else if (file < 8) squares[rank * 8 + file++] = ch;
    }
  });
  return squares;
}

export function squareName(index) { return FILES[index % 8] + String(Math.floor(index / 8) + 1); }

function squareIndex(name) {
  const file = FILES.indexOf(name[0]);
  const rank = Number(name[1]) - 1;
  return file < 0 || !(rank >= 0 && rank < 8) ? -1 : rank * 8 + file;
}

/** Where a square is drawn: column and row from the top-left, White at the bottom unless flipped. */
function cellOf(index, flipped) {
  const file = index % 8, rank = Math.floor(index / 8);
  return flipped ? [7 - file, rank] : [file, 7 - rank];
}

function pieceSvg(letter, x, y, square) {
  const shape = PIECE_SHAPES[letter.toLowerCase()];
  if (!shape) return "";
  const white = letter === letter.toUpperCase();
  let out = `<g class="pc ${white ? "pc-w" : "pc-b"}" data-piece="${letter}" data-square="${square}"`
    + ` transform="translate(${x} ${y})">`;
  for (const d of shape.fill) out += `<path class="pc-body" d="${d}"/>`;
  for (const d of shape.line) out += `<path class="pc-line" d="${d}"/>`;
  for (const [cx, cy, r] of shape.dot || []) out += `<circle class="pc-eye" cx="${cx}" cy="${cy}" r="${r}"/>`;
  return out + "</g>";
}

/** The squares of a UCI move ("e2e4", "e7e8q"), or [] for anything else. */
export function moveSquares(uci) {
  if (!uci || uci.length < 4) return [];
  return [squareIndex(uci.slice(0, 2)), squareIndex(uci.slice(2, 4))].filter((i) => i >= 0);
}

/** Whether the board shows something other than the game position (a move being made, or out of step). */
export function boardMoving(s) {
  if (s.result) return false;  // a finished game shows its final position, whatever the board does after
  const game = String(s.fen || "").split(" ")[0];
  const board = String(s.board_fen || "").split(" ")[0];
  return Boolean(s.pending) || Boolean(board && game && board !== game);
}

/**
 * The board as SVG markup (letters and numbers only, no names: safe to assign as innerHTML).
 * Draws what the physical board shows (a finished game: its final position); squares where it differs from the
 * game are marked.
 */
export function boardSvg(s, { flipped = false, coords = true } = {}) {
  const game = placement(s.fen);
  // a finished game is drawn as it ended: the board set up again or analysed on is not the game
  const shown = s.board_fen && !s.result ? placement(s.board_fen) : game;
  const moving = boardMoving(s);
  const moves = s.moves || [];
  const last = moves.length ? moves[moves.length - 1] : null;
  const lastSquares = last ? moveSquares(last.uci) : [];
  const off = coords ? MARGIN : 0;
  const size = 8 * SQ + off;
  const pos = (index) => {
    const [col, row] = cellOf(index, flipped);
    return [off + col * SQ, row * SQ];
  };
  let out = `<svg class="chess-svg" viewBox="0 0 ${size} ${size}" role="img" xmlns="http://www.w3.org/2000/svg"`
    + ` data-flipped="${flipped}" data-moving="${moving}">`;
  if (coords) out += `<rect class="rim" x="0" y="0" width="${size}" height="${size}"/>`;
  for (let i = 0; i < 64; i++) {
    const [x, y] = pos(i);
    const dark = (Math.floor(i / 8) + (i % 8)) % 2 === 0;  // a1 is dark
    out += `<rect class="sq ${dark ? "dark" : "light"}" x="${x}" y="${y}" width="${SQ}" height="${SQ}"`
      + ` data-square="${squareName(i)}"/>`;
  }
  lastSquares.forEach((i, k) => {
    const [x, y] = pos(i);
    out += `<rect class="hl ${k === 0 ? "hl-from" : "hl-to"}" x="${x}" y="${y}" width="${SQ}" height="${SQ}"`
      + ` data-square="${squareName(i)}"/>`;
  });
  // The king of the side to move stands in check when the last move says so (SAN ends in + or #).
  if (last && /[+#]$/.test(last.san || "") && !moving) {
    const king = game.indexOf(s.turn === "black" ? "k" : "K");
    if (king >= 0) {
      const [x, y] = pos(king);
      out += `<rect class="check" x="${x}" y="${y}" width="${SQ}" height="${SQ}" data-square="${squareName(king)}"/>`;
    }
  }
  if (moving) {
    for (let i = 0; i < 64; i++) {
      if (game[i] === shown[i]) continue;
      const [x, y] = pos(i);
      out += `<rect class="diff" x="${x + 4}" y="${y + 4}" width="${SQ - 8}" height="${SQ - 8}"`
        + ` data-square="${squareName(i)}"/>`;
    }
  }
  if (coords) {
    for (let k = 0; k < 8; k++) {
      const file = flipped ? 7 - k : k;
      const rank = flipped ? k + 1 : 8 - k;
      out += `<text class="coord" x="${off + k * SQ + SQ / 2}" y="${8 * SQ + MARGIN * 0.72}">${FILES[file]}</text>`;
      out += `<text class="coord" x="${MARGIN / 2}" y="${k * SQ + SQ / 2}" dy="0.35em">${rank}</text>`;
    }
  }
  for (let i = 0; i < 64; i++) {
    if (!shown[i]) continue;
    const [x, y] = pos(i);
    out += pieceSvg(shown[i], x, y, squareName(i));
  }
  return out + "</svg>";
}

/** Milliseconds left on each clock at `now` (epoch seconds): the running one counts down from `as_of`. */
export function clockLeft(clock, now, delayS = 0) {
  if (!clock) return null;
  const left = { white: clock.white_ms, black: clock.black_ms };
  if ((clock.running === "white" || clock.running === "black") && clock.as_of != null) {
    // A delayed broadcast shows a reading `delayS` late, so its clock has run that much less.
    left[clock.running] -= Math.max(0, now - delayS - clock.as_of) * 1000;
  }
  for (const side of ["white", "black"]) left[side] = left[side] == null ? null : Math.max(0, left[side]);
  return left;
}

/** A clock reading as a chess clock shows it: h:mm:ss from an hour, m:ss, tenths under ten seconds. */
export function fmtClock(ms, tenths = true) {
  if (ms == null || Number.isNaN(ms)) return "–:––";
  const clamped = Math.max(0, ms);
  if (tenths && clamped < 10_000) return `0:0${Math.floor(clamped / 1000)}.${Math.floor((clamped % 1000) / 100)}`;
  const total = Math.floor(clamped / 1000);
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), sec = total % 60;
  const ss = String(sec).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** A time control as people say it: "5400+30" → "90′ + 30″"; anything else as given. */
export function fmtControl(text) {
  if (!text) return "";
  return String(text).split(":").map((period) => {
    const m = /^(?:(\d+)\/)?(\d+)(?:([+db])(\d+))?$/.exec(period);
    if (!m) return period;
    const [, moves, base, kind, inc] = m;
    const mins = Number(base) % 60 === 0 ? `${Number(base) / 60}′` : `${base}″`;
    const extra = inc ? ` ${kind === "+" ? "+" : kind === "d" ? "d" : "b"} ${inc}″` : "";
    return `${moves ? `${moves}/` : ""}${mins}${extra}`;
  }).join(" · ");
}

/** The game's moves as numbered rows: {no, white, black}, each a move record or null. */
export function moveRows(moves) {
  const rows = [];
  (moves || []).forEach((move, i) => {
    const ply = move.ply ?? i + 1;  // ply 1 is White's first move
    const no = Math.ceil(ply / 2);
    const white = ply % 2 === 1;
    let row = rows[rows.length - 1];
    if (!row || row.no !== no || (white && row.white) || (!white && row.black)) {
      row = { no, white: null, black: null };
      rows.push(row);
    }
    row[white ? "white" : "black"] = move;
  });
  return rows;
}

/** Each colour's points of a result: ["1", "0"], ["½", "½"], or null while the game is played. */
export function resultPoints(result) { return POINTS[result] || null; }

/** A result as printed: "1–0", "0–1", "½–½". */
export function fmtResult(result) {
  const points = resultPoints(result);
  return points ? `${points[0]}–${points[1]}` : "";
}

function reasonText(reason, ct) {
  if (!reason) return "";
  return ct.reasons[reason] || String(reason).replaceAll("_", " ");
}

/** One line saying how the game stands: the result and why, or who is to move. */
export function statusLine(match, s, ct) {
  if (s.result && POINTS[s.result]) {
    const who = s.result === "1-0" ? ct.whiteWins : s.result === "0-1" ? ct.blackWins : ct.draw;
    const reason = reasonText(s.result_reason, ct);
    return `${fmtResult(s.result)} · ${who}${reason ? ` (${reason})` : ""}`;
  }
  if (awaitingResult(match, s)) return ct.awaitingResult;
  if (match.status === "live") return s.turn === "black" ? ct.blackToMove : ct.whiteToMove;
  return "";
}

/** Whether a live game has gone quiet with its clock stopped: a result the board cannot show is due. */
export function awaitingResult(match, s) {
  return match.status === "live" && !s.result && Boolean(s.awaiting_result);
}

function openAnomaly(match, code) {
  return (match.anomalies || []).some((a) => a.code === code && (a.state === "open" || a.state === "acknowledged"));
}

/** A clock element that counts down on the page's one ticker while it runs (the team page uses it too). */
export function clockEl(cls, ms, running, asOf, delayS) {
  const c = el("span", cls);
  c.dataset.chessClock = "";
  c.dataset.ms = ms == null ? "" : String(ms);
  c.dataset.asOf = asOf == null ? "" : String(asOf);
  c.dataset.delay = String(delayS || 0);
  c.dataset.running = String(running);
  c.classList.toggle("running", running);
  paintClock(c, Date.now() / 1000);
  ensureTicker();
  return c;
}

function paintClock(c, now) {
  if (c.dataset.ms === "") { c.textContent = "–:––"; return; }
  let ms = Number(c.dataset.ms);
  if (c.dataset.running === "true" && c.dataset.asOf !== "") {
    ms -= Math.max(0, now - Number(c.dataset.delay) - Number(c.dataset.asOf)) * 1000;
  }
  ms = Math.max(0, ms);
  c.textContent = fmtClock(ms);
  c.classList.toggle("low", ms < LOW_MS);
  c.classList.toggle("flag", ms <= 0);
}

let ticker = null;

/** One timer for every chess clock on the page: the running ones count down between hub readings. */
function ensureTicker() {
  if (ticker) return;
  ticker = setInterval(() => {
    const now = Date.now() / 1000;
    for (const c of document.querySelectorAll("[data-chess-clock][data-running='true']")) paintClock(c, now);
  }, 200);
}

/** Who plays which colour, the clock of each, and whether it runs (a finished game's clocks stand still). */
function sides(match, s) {
  const players = match.players || [];
  const running = s.result || match.status !== "live" ? null : (s.clock && s.clock.running) || null;
  return {
    white: { name: players[0] || "—", ms: s.clock ? s.clock.white_ms : null, running: running === "white" },
    black: { name: players[1] || "—", ms: s.clock ? s.clock.black_ms : null, running: running === "black" },
  };
}

function playerCard(card, colour, side, match, s, ct, delayS) {
  const onMove = match.status === "live" && !s.result && s.turn === colour;
  const points = resultPoints(s.result);
  card.dataset.colour = colour;
  card.classList.toggle("on-move", onMove);
  card.classList.toggle("winner", Boolean(points) && points[colour === "white" ? 0 : 1] === "1");
  const swatch = el("span", `chess-swatch chess-swatch-${colour}`);
  swatch.title = colour === "white" ? ct.white : ct.black;
  swatch.setAttribute("role", "img");
  swatch.setAttribute("aria-label", swatch.title);
  const point = el("span", "chess-point", points ? points[colour === "white" ? 0 : 1] : "");
  point.hidden = !points;
  const clock = clockEl("chess-clock", side.ms, side.running, s.clock ? s.clock.as_of : null, delayS);
  clock.hidden = !s.clock;
  clock.title = side.running ? ct.clockRunning : ct.clock;
  card.replaceChildren(swatch, el("span", "chess-name", side.name), point, clock);
}

/** Draw the whole chess match screen into `root` (a container the page owns). */
/** White's share of the evaluation bar, 0 to 1, from the engine's verdict: lichess's curve of the centipawns
 * (a mate fills it). A display, not a rule: the number beside it is the engine's own. */
export function whiteShare(evaluation) {
  if (evaluation.mate != null) return evaluation.mate > 0 ? 1 : 0;
  return 1 / (1 + Math.exp(-0.00368208 * (evaluation.cp || 0)));
}

/** The engine's evaluation (Stockfish, behind the broadcast delay), as a bar beside the board and a line of
 * its score, depth and best moves; nothing where the hub sends none (no engine, a hall screen). */
function showEvaluation(root, evaluation, flipped, ct) {
  const bar = root.querySelector(".chess-eval");
  const line = root.querySelector(".chess-eval-line");
  bar.hidden = line.hidden = !evaluation;
  if (!evaluation) return;
  const share = whiteShare(evaluation);
  bar.classList.toggle("flipped", flipped);  // White's part at the bottom, on White's side of the board
  bar.querySelector(".chess-eval-white").style.height = `${(share * 100).toFixed(1)}%`;
  bar.querySelector(".chess-eval-text").textContent = evaluation.text;
  bar.title = ct.evalBy;
  line.textContent = evaluation.result ? evaluation.text  // a finished game's position: its result, no search
    : `${evaluation.text} · ${ct.depth(evaluation.depth)}${evaluation.pv.length ? ` · ${evaluation.pv.join(" ")}` : ""}`;
  line.title = ct.evalBy;
}

export function renderChess(root, match, lang, { flipped = root.dataset.flipped === "true" } = {}) {
  const ct = CHESS_TEXTS[lang] || CHESS_TEXTS.en;
  const s = match.state || {};
  const delayS = match.broadcast_delay_s || 0;
  if (!root.querySelector(".chess-layout")) {
    root.innerHTML = `
      <div class="chess-layout">
        <div class="chess-player" data-slot="top"></div>
        <div class="chess-board-wrap">
          <div class="chess-eval" hidden><div class="chess-eval-white"></div><span class="chess-eval-text"></span></div>
          <div class="chess-board"></div>
        </div>
        <div class="chess-player" data-slot="bottom"></div>
        <div class="chess-info">
          <div class="chess-status" role="status"></div>
          <div class="chess-eval-line" hidden></div>
          <div class="chess-marks">
            <span class="chess-moving" hidden></span>
            <span class="chess-illegal" hidden></span>
          </div>
          <div class="chess-meta">
            <span class="chess-control"></span>
            <a class="chess-team" hidden></a>
            <a class="chess-pgn"></a>
            <a class="chess-round-pgn"></a>
            <button class="chess-flip" type="button"></button>
          </div>
        </div>
        <section class="chess-moves"><h2></h2><ol class="chess-move-list"></ol></section>
      </div>`;
    // The list's box shrinks when the page around it settles (a name takes a second line, the bar wraps):
    // the newest move stays in sight, not only at the moment it was drawn.
    const list = root.querySelector(".chess-move-list");
    new ResizeObserver(() => { list.scrollTop = list.scrollHeight; }).observe(list);
    root.querySelector(".chess-flip").addEventListener("click", () => {
      root.dataset.flipped = String(root.dataset.flipped !== "true");
      renderChess(root, root._chessMatch, root._chessLang);
    });
  }
  root._chessMatch = match;
  root._chessLang = lang;
  root.dataset.flipped = String(flipped);
  const moving = boardMoving(s);
  root.dataset.turn = s.turn || "";
  root.dataset.result = s.result || "";
  root.dataset.moving = String(moving);
  root.querySelector(".chess-board").innerHTML = boardSvg(s, { flipped });
  showEvaluation(root, match.evaluation, flipped, ct);
  root.querySelector(".chess-svg").setAttribute("aria-label", ct.boardLabel);

  const who = sides(match, s);
  const [top, bottom] = flipped ? ["white", "black"] : ["black", "white"];
  playerCard(root.querySelector("[data-slot='top']"), top, who[top], match, s, ct, delayS);
  playerCard(root.querySelector("[data-slot='bottom']"), bottom, who[bottom], match, s, ct, delayS);

  const status = root.querySelector(".chess-status");
  status.textContent = statusLine(match, s, ct);
  status.classList.toggle("decided", Boolean(s.result));
  status.classList.toggle("awaiting", awaitingResult(match, s));
  const movingEl = root.querySelector(".chess-moving");
  movingEl.hidden = !moving;
  movingEl.textContent = ct.boardMoving;
  movingEl.title = ct.boardMovingHint;
  const illegal = root.querySelector(".chess-illegal");
  illegal.hidden = !openAnomaly(match, "chess.illegal_move");
  illegal.textContent = ct.illegal;

  const control = s.time_control ? `${ct.control}: ${fmtControl(s.time_control)}` : "";
  root.querySelector(".chess-control").textContent = control;
  const team = root.querySelector(".chess-team");
  team.hidden = !match.team_match;
  if (match.team_match) {
    team.href = `/team/${encodeURIComponent(match.team_match)}`;
    team.textContent = match.board ? `${ct.teamMatch} · ${ct.boardNo(match.board)}` : ct.teamMatch;
  }
  const pgn = root.querySelector(".chess-pgn");
  pgn.href = `/pgn/${encodeURIComponent(match.id)}.pgn`;
  pgn.textContent = "PGN";
  pgn.title = ct.pgnHint;
  const roundPgn = root.querySelector(".chess-round-pgn");
  roundPgn.hidden = match.round == null;
  roundPgn.href = `/pgn/round-${encodeURIComponent(match.round)}.pgn`;
  roundPgn.textContent = ct.roundPgn;
  const flip = root.querySelector(".chess-flip");
  flip.textContent = `⇅ ${ct.flip}`;

  root.querySelector(".chess-moves h2").textContent = ct.moves;
  const list = root.querySelector(".chess-move-list");
  const rows = moveRows(s.moves);
  const last = (s.moves || []).length ? s.moves[s.moves.length - 1] : null;
  if (!rows.length) list.replaceChildren(el("li", "chess-empty", ct.noMoves));
  else {
    list.replaceChildren(...rows.map((row) => {
      const li = el("li", "chess-move");
      li.append(el("span", "chess-no", `${row.no}.`));
      for (const [k, move] of [row.white, row.black].entries()) {
        const cell = el("span", "chess-ply");
        if (!move && k === 0) cell.textContent = "…";  // the game (or the list) starts with Black to move
        if (move) {
          cell.dataset.ply = String(move.ply ?? "");
          cell.append(el("span", "chess-san", move.san || move.uci || "?"));
          if (move.clock_ms != null) cell.append(el("span", "chess-clk", fmtClock(move.clock_ms, false)));
          cell.classList.toggle("last", move === last);
          if (move.illegal) { cell.classList.add("illegal"); cell.title = ct.illegalKept; }
        }
        li.append(cell);
      }
      return li;
    }));
  }
  if (s.result) list.append(el("li", "chess-result", fmtResult(s.result)));
  list.scrollTop = list.scrollHeight;
}

/** The compact wall tile of a chess game: colours, clocks, result, last move, and a small board. */
export function renderChessTile(tile, match, lang) {
  const ct = CHESS_TEXTS[lang] || CHESS_TEXTS.en;
  const s = match.state || {};
  const who = sides(match, s);
  const points = resultPoints(s.result);
  tile.classList.add("chess-tile");
  ["white", "black"].forEach((colour, side) => {
    const row = tile.querySelector(`.side-${side}`);
    row.dataset.colour = colour;
    const name = row.querySelector(".name");
    name.textContent = who[colour].name;
    name.classList.remove("pair");
    row.querySelector(".marks").replaceChildren();
    const games = row.querySelector(".games");
    games.replaceChildren(clockEl("chess-clock", who[colour].ms, who[colour].running, s.clock && s.clock.as_of,
      match.broadcast_delay_s));
    games.title = ct.clock;
    games.hidden = !s.clock;
    row.querySelector(".points").textContent = points ? points[side] : "";
    const dot = row.querySelector(".serve");  // the colour the player has, ringed while on move
    dot.classList.add("chess-dot", `chess-dot-${colour}`);
    dot.classList.toggle("on", match.status === "live" && !s.result && s.turn === colour);
    dot.title = colour === "white" ? ct.white : ct.black;
    row.classList.toggle("winner", Boolean(points) && points[side] === "1");
  });
  let mini = tile.querySelector(".chess-mini");
  if (!mini) {
    mini = el("div", "chess-mini");
    tile.querySelector(".rows").after(mini);
  }
  mini.innerHTML = boardSvg(s, { coords: false });
  const moves = s.moves || [];
  const last = moves[moves.length - 1];
  const bits = [];
  if (match.board) bits.push(ct.boardNo(match.board));
  if (last) {
    const ply = last.ply ?? moves.length;
    bits.push(`${Math.ceil(ply / 2)}.${ply % 2 === 0 ? ".." : ""} ${last.san || last.uci}`);
  }
  if (s.result) bits.push(fmtResult(s.result));
  else if (match.evaluation) bits.push(`${ct.evalShort} ${match.evaluation.text}`);  // the engine's, behind the delay
  if (boardMoving(s)) bits.push(ct.boardMoving);
  if (awaitingResult(match, s)) bits.push(ct.awaitingResult);
  tile.classList.toggle("chess-awaiting", awaitingResult(match, s));
  const badge = tile.querySelector(".status");  // the wall writes "live" first; a quiet game says why
  if (badge && awaitingResult(match, s)) {
    badge.textContent = ct.awaitingResult;
    badge.classList.add("awaiting");
  }
  tile.querySelector(".history").textContent = bits.join(" · ");
}

/** What the pages ask of chess (sports.js): its match screen, its wall tile, a decided game's points. */
export const PAGES = {
  names: { tr: "Satranç", en: "Chess" },
  pad: PAD,  // the umpire pad's result entry (web-display/pad.js)
  screen: {
    id: "chess",
    className: "chess-screen",
    gameNo: (match, lang) => match.board ? CHESS_TEXTS[lang].boardNo(match.board) : "",
    render(root, match, lang, statusEl) {
      if (awaitingResult(match, match.state || {})) {  // not "live" forever: the game is quiet, a result is due
        statusEl.textContent = CHESS_TEXTS[lang].awaitingResult;
        statusEl.classList.add("awaiting");
      }
      renderChess(root, match, lang);
      renderRefereeResult(document.querySelector(".bar-right"), match, lang);  // a referee's only
    },
    ticking: () => false,  // its clocks tick on their own (`clockEl`)
  },
  tile: renderChessTile,
  /** A decided game's points for the wall's big column (1 / ½ / 0), or null while it is played. */
  result(match) {
    const points = resultPoints((match.state || {}).result);
    return points ? { score: points, winner: points[0] === "1" ? 0 : points[1] === "1" ? 1 : null } : null;
  },
  refereePage: true,  // a referee records a result the board cannot see on the game's own page
  consoleTexts: CHESS_CONSOLE_TEXTS,  // its inputs on the referee console
  consoleScore: (s) => (typeof s.result === "string" ? s.result : ""),  // the live result as the console lists it
  clockEl,  // a board's clock on its team match's screen
  boardExtra: evaluationChip,  // a board's evaluation on its team match's screen
};

/** A team match board's evaluation: a small bar (White's share) and the score; null without one. */
export function evaluationChip(board, lang) {
  const evaluation = board.evaluation;
  if (!evaluation) return null;
  const chip = el("span", "chess-eval-chip");
  chip.title = (CHESS_TEXTS[lang] || CHESS_TEXTS.en).evalBy;
  const bar = el("span", "chess-eval-chip-bar");
  const white = el("span", "chess-eval-chip-white");
  white.style.width = `${(whiteShare(evaluation) * 100).toFixed(1)}%`;
  bar.append(white);
  chip.append(bar, el("span", "chess-eval-chip-text", evaluation.text));
  return chip;
}
