// Interface strings: loaded from /static/i18n/<lang>.json; every visible string goes through t().
// Only the language in use is fetched (the other one when the player switches to it), and the
// long texts of the rules page and the tutorial (<lang>.pages.json) only when one of them opens.
// Each language's files hold every key (tests/server/test_i18n_files.py): none needs English.
const LANGS = ["en", "ja"];
const tables = {};
const loading = {};
let current = "en";
let wantPages = false;

function fetchJson(url) {
  return fetch(url).then((res) => { if (!res.ok) throw new Error(`${url}: ${res.status}`); return res.json(); });
}

function load(lang, part) {
  const key = `${lang}.${part}`;
  if (!loading[key]) {
    loading[key] = fetchJson(`/static/i18n/${part === "main" ? lang : `${lang}.pages`}.json`)
      .then((table) => { tables[lang] = merge(tables[lang] || {}, table); })
      .catch((e) => { delete loading[key]; throw e; });
  }
  return loading[key];
}

function merge(into, more) {
  for (const [k, v] of Object.entries(more)) {
    into[k] = v && typeof v === "object" && !Array.isArray(v) && into[k] && typeof into[k] === "object" ? merge(into[k], v) : v;
  }
  return into;
}

/** Use ``lang`` from now on, fetching its strings first if this page has not yet. */
export async function setLanguage(lang) {
  let want = LANGS.includes(lang) ? lang : "en";
  try { await load(want, "main"); } catch { want = "en"; await load(want, "main"); }
  current = want;
  document.documentElement.lang = current;
  if (wantPages) await loadPages();
}

/** The rules page's and the tutorial's texts: loaded once asked for (true once they are). */
export function pagesLoaded() { return !!(loading[`${current}.pages`] && tables[current] && tables[current].rules && tables[current].rules.sections); }

/** Fetch the rules page's and the tutorial's texts of the current language. */
export function loadPages() {
  wantPages = true;
  return load(current, "pages");
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

/** The raw entry for a key (strings, arrays or objects); English if it is loaded and has one. */
export function raw(key) {
  const v = lookup(current, key);
  return v === undefined ? lookup("en", key) : v;
}

/** A translated string with {name} placeholders filled in. */
export function t(key, params = {}) {
  const one = params.one !== undefined ? params.one : params.n === 1;  // the singular, if there is one
  let s = one && typeof lookup(current, `${key}_one`) === "string" ? lookup(current, `${key}_one`) : raw(key);
  if (typeof s !== "string") s = key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

// The names the server gives ("Guest 4821", "Computer 2", "Deleted player": its
// canasta.server.app.GIVEN_NAME, which players may not choose) are read in the page's language.
const GIVEN = [
  [/^Guest (\d{4})$/, "people.guest"],
  [/^Computer (\d)$/, "online.computer_n"],
  [/^Deleted player$/, "people.deleted"],
];

/** Whether the server gave this name (a guest's, a computer seat's, a deleted account's). */
function givenName(name) {
  return typeof name === "string" && GIVEN.some(([pattern]) => pattern.test(name));
}

/** A name field's start for a person's own ``name``: a given name is not a draft to edit, so
 * the field starts empty, showing it. */
export function nameDraft(name) {
  return givenName(name) ? { value: "", placeholder: personName(name) } : { value: name, placeholder: "" };
}

/** A person's name as the server sends it, in the page's language if the server gave it. */
export function personName(name) {
  if (typeof name !== "string") return name;
  for (const [pattern, key] of GIVEN) {
    const m = pattern.exec(name);
    if (m) return t(key, { n: m[1] });
  }
  return name;
}

/** The kinds of rating (the server's ``ratings.KINDS``), in the order pages list them. */
export const RATING_KINDS = ["classic", "two-player"];

/** A kind of rating by name: "Classic (4 players)", "Two players". */
export function ratingKindName(kind) {
  return t(kind === "two-player" ? "account.kind_two" : "account.kind_classic");
}

/** Translate the static attributes of a subtree (data-i18n, data-i18n-aria, data-i18n-title). */
export function translateDom(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
}
