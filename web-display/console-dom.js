// A DOM helper of the referee console: redrawing a list without moving buttons (elements are built with
// `el` from page.js).

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
