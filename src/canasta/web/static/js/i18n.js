// Interface strings: loaded from /static/i18n/<lang>.json; every visible string goes through t().
const LANGS = ["en", "ja"];
const tables = {};
let current = "en";

export async function loadLanguages() {
  await Promise.all(LANGS.map(async (lang) => {
    const res = await fetch(`/static/i18n/${lang}.json`);
    tables[lang] = await res.json();
  }));
}

export function setLanguage(lang) {
  current = LANGS.includes(lang) ? lang : "en";
  document.documentElement.lang = current;
}

export function language() { return current; }
export function languages() { return LANGS; }

function lookup(lang, key) {
  let node = tables[lang];
  for (const part of key.split(".")) {
    if (node == null) return undefined;
    node = node[part];
  }
  return node;
}

/** The raw entry for a key (strings, arrays or objects), falling back to English. */
export function raw(key) {
  const v = lookup(current, key);
  return v === undefined ? lookup("en", key) : v;
}

/** A translated string with {name} placeholders filled in. */
export function t(key, params = {}) {
  let s = params.n === 1 && typeof lookup(current, `${key}_one`) === "string" ? lookup(current, `${key}_one`) : raw(key);
  if (typeof s !== "string") s = key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Translate the static attributes of a subtree (data-i18n, data-i18n-aria, data-i18n-title). */
export function translateDom(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
}
