// Small DOM helpers of the referee console: building elements, and redrawing a list without moving buttons.

/** An element with attributes (`text`, `class`, `on…` handlers, `data-…`) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key.startsWith("data-")) node.dataset[key.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** Keep each child whose key and content signature are unchanged, so buttons do not move under a click. */
export function sync(container, items, key, signature, build) {
  const old = new Map([...container.children].map((node) => [node.dataset.key, node]));
  const next = items.map((item) => {
    const k = key(item);
    const sig = signature(item);
    let node = old.get(k);
    if (!node || node.dataset.sig !== sig) {
      node = build(item);
      node.dataset.key = k;
      node.dataset.sig = sig;
    }
    return node;
  });
  if (next.length !== container.children.length || next.some((node, i) => container.children[i] !== node)) {
    container.replaceChildren(...next);
  }
}
