// The client's one element builder. Text is always text, never parsed as HTML.

/**
 * Build an element: ``h("p", "muted", "text")`` or ``h("a", {class: "link", href, onclick}, child…)``.
 * ``attrs`` is a class name, or an object of attributes (``class``, ``text``, ``on<event>``
 * listeners; ``true`` sets an empty attribute, ``null``/``false`` leaves it out).
 * Children are nodes or strings; ``null`` and ``undefined`` are skipped.
 */
export function h(tag, attrs = null, ...children) {
  const e = document.createElement(tag);
  if (typeof attrs === "string") e.className = attrs;
  else {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

/** The first element matching ``sel`` (in ``root``, the document by default). */
export const $ = (sel, root = document) => root.querySelector(sel);
