// A hall screen that pages by itself: when the wall's tiles do not fit the screen, whole rows of tiles are
// shown a page at a time, the next page every few seconds (`?rotate=8`), with "page 1/3" in a corner.

const MIN_SECONDS = 2;

/** The seconds per page a `rotate` parameter asks for, or null: no paging, the page scrolls. */
export function rotateSeconds(value) {
  if (value == null || value === "") return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? Math.max(MIN_SECONDS, seconds) : null;
}

// The shown items of the wall (tiles and group headings) in rows, as the grid lays them out with all shown.
function rowsOf(wall) {
  const rows = [];
  for (const item of wall.children) {
    if (item.hidden || item.tagName === "TEMPLATE") continue;
    const box = item.getBoundingClientRect();
    const last = rows[rows.length - 1];
    if (last && Math.abs(box.top - last.top) < 2) {
      last.items.push(item);
      last.bottom = Math.max(last.bottom, box.bottom);
    } else {
      rows.push({ top: box.top, bottom: box.bottom, items: [item] });
    }
  }
  return rows;
}

// Rows packed into pages of at most `height` pixels; a heading never ends a page (it goes with its tiles).
function packPages(rows, height) {
  const pages = [];
  let page = null;
  for (const row of rows) {
    if (!page || (row.bottom - page.top > height && page.rows.length)) {
      const carried = page && page.rows.length > 1 && isHeading(page.rows[page.rows.length - 1]) ? page.rows.pop() : null;
      page = { top: carried ? carried.top : row.top, rows: carried ? [carried] : [] };
      pages.push(page);
    }
    page.rows.push(row);
  }
  return pages.map((p) => p.rows.flatMap((r) => r.items));
}

function isHeading(row) { return row.items.every((item) => item.classList.contains("group-head")); }

/** Pages the wall's rows every `seconds`; `onShow` runs after each page is drawn, `label(i, n)` words it. */
export class Pager {
  constructor(wall, indicator, seconds, label, onShow) {
    this.wall = wall;
    this.indicator = indicator;
    this.label = label;
    this.onShow = onShow;
    this.page = 0;
    this.count = 1;
    this.pending = false;
    setInterval(() => { this.page += 1; this.layout(); }, seconds * 1000);
    addEventListener("resize", () => this.refresh());
  }

  /** Lay the pages out again soon (tiles came, went or changed size), staying on the same page. */
  refresh() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.layout(); });
  }

  /** Measure with every tile shown, cut the rows into pages that fit the screen, and show the current one. */
  layout() {
    const items = [...this.wall.children];
    for (const item of items) item.classList.remove("off-page");
    const padding = parseFloat(getComputedStyle(this.wall).paddingBottom) || 0;
    const top = this.wall.getBoundingClientRect().top + scrollY;
    const height = Math.max(1, innerHeight - top - padding);
    const pages = packPages(rowsOf(this.wall), height);
    this.count = Math.max(1, pages.length);
    this.page %= this.count;
    const shown = new Set(pages[this.page] || []);
    for (const item of items) item.classList.toggle("off-page", pages.length > 1 && !shown.has(item));
    this.wall.dataset.page = String(this.page + 1);
    this.wall.dataset.pages = String(this.count);
    this.indicator.hidden = this.count < 2;
    this.indicator.textContent = this.label(this.page + 1, this.count);
    if (this.onShow) this.onShow();
  }
}
