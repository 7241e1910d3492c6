// Start screen, settings, stats, help and the rules page.
import { S, savePrefs, lastTable, rememberTable, forgetTable } from "./store.js";
import { t, raw, language, languages, loadPages, pagesLoaded } from "./i18n.js";
import { api } from "./net.js";
import { dialog, closeOverlay, button } from "./overlays.js";
import { cardEl } from "./cards.js";
import { recentMatches, scoreLine } from "./replay-links.js";
import { h } from "./dom.js";


export const MODES = {
  computer4: { mode: "computer", players: 4, presets: ["classic", "bicycle"] },
  computer2: { mode: "computer", players: 2, presets: ["two-player", "two-player-quick"] },
  computer2q: { mode: "computer", players: 2, presets: ["two-player-quick", "two-player"] },
  computer3: { mode: "computer", players: 3, presets: ["three-player"] },
  local2: { mode: "local", players: 2, presets: ["two-player", "two-player-quick"] },
  local3: { mode: "local", players: 3, presets: ["three-player"] },
  local4: { mode: "local", players: 4, presets: ["classic", "bicycle"] },
};
// What a settings form may offer comes from the server (GET /api/presets): the client holds no ranges.
function presetFields(name) { return (S.presets && S.presets.fields && S.presets.fields[name]) || []; }
function targets() { return (S.presets && S.presets.targets) || [S.prefs.target]; }

function presetTable() {
  let p = S.presets;
  if (p && p.presets) p = p.presets;
  if (Array.isArray(p)) {
    const out = {};
    for (const item of p) out[item.name || item.preset] = item.settings || item;
    return out;
  }
  return p || {};
}

function presetDefaults(name) { return presetTable()[name] || null; }

function currentMode() { return MODES[S.prefs.mode] ? S.prefs.mode : "computer4"; }

function ensurePreset() {
  const m = MODES[currentMode()];
  if (!m.presets.includes(S.prefs.preset)) S.prefs.preset = m.presets[0];
}

/** The value a rule setting will have in the next match. */
function ruleValue(key) {
  if (key in (S.prefs.rules || {})) return S.prefs.rules[key];
  const d = presetDefaults(S.prefs.preset);
  return d ? d[key] : undefined;
}

function setRule(key, value) {
  const d = presetDefaults(S.prefs.preset);
  S.prefs.rules = { ...(S.prefs.rules || {}) };
  if (d && d[key] === value) delete S.prefs.rules[key]; else S.prefs.rules[key] = value;
  savePrefs();
}

function select(id, options, value, onChange, label) {
  const wrap = h("label", "field");
  wrap.htmlFor = id;
  wrap.append(h("span", "field-label", label));
  const sel = document.createElement("select");
  sel.id = id;
  for (const [v, text] of options) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = text;
    if (String(v) === String(value)) o.selected = true;
    sel.append(o);
  }
  sel.addEventListener("change", () => onChange(options.find(([v]) => String(v) === sel.value)[0]));
  wrap.append(sel);
  return wrap;
}

function checkbox(id, value, onChange, label) {
  const wrap = h("label", "field check");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = id;
  box.checked = !!value;
  box.addEventListener("change", () => onChange(box.checked));
  wrap.append(box, h("span", "field-label", label));
  return wrap;
}

/** Preset, target, difficulty and the individual rule settings for the next match. */
function matchSettings(ctl, { inPanel = false } = {}) {
  ensurePreset();
  // The Settings dialog repeats these fields: its ids differ from the start screen's.
  const id = (name) => (inPanel ? `dlg-${name}` : name);
  const box = h("div", "match-settings");
  const m = MODES[currentMode()];
  const rerender = () => ctl.redraw();
  if (m.mode === "computer") {
    box.append(select(id("set-difficulty"), ["beginner", "normal", "expert"].map((d) => [d, t(`difficulty.${d}`)]),
      S.prefs.difficulty, (v) => { S.prefs.difficulty = v; savePrefs(); rerender(); }, t("settings.difficulty")));
  }
  box.append(select(id("set-preset"), m.presets.map((p) => [p, t(`presets.${p}`)]), S.prefs.preset,
    (v) => { S.prefs.preset = v; S.prefs.rules = {}; savePrefs(); rerender(); }, t("settings.preset")));
  box.append(select(id("set-target"), targets().map((x) => [x, x === "one_hand" ? t("settings.target_one_hand") : t("settings.target_points", { n: x })]),
    S.prefs.target, (v) => { S.prefs.target = v; savePrefs(); rerender(); }, t("settings.target")));
  const det = document.createElement("details");
  det.className = "rules-details";
  if (inPanel) det.open = true;
  det.append(h("summary", null, t("settings.rules_title")));
  // the fields' grid is a box of its own: a <details> does not lay its children out as a grid
  const grid = h("div", "rules-grid");
  det.append(grid);
  for (const field of presetFields(S.prefs.preset)) {
    const key = field.name;
    const value = ruleValue(key);
    const label = t(`rules_fields.${key}`);
    if (field.kind === "flag") grid.append(checkbox(id(`rule-${key}`), value, (v) => { setRule(key, v); }, label));
    else if (field.kind === "choice") grid.append(select(id(`rule-${key}`), field.values.map((x) => [x, t(`rules_values.${key}.${x}`)]), value, (v) => { setRule(key, v); }, label));
    else {
      const wrap = h("label", "field");
      wrap.append(h("span", "field-label", label));
      const inp = document.createElement("input");
      inp.type = "number";
      inp.id = id(`rule-${key}`);
      inp.min = field.min;
      inp.max = field.max;
      inp.value = value == null ? "" : value;
      inp.addEventListener("change", () => { const n = parseInt(inp.value, 10); if (n >= field.min && n <= field.max) setRule(key, n); });
      wrap.append(inp);
      grid.append(wrap);
    }
  }
  const reset = button(t("settings.reset_rules"), () => { S.prefs.rules = {}; savePrefs(); rerender(); }, "ghost small");
  det.append(reset);
  if (inPanel) det.append(h("p", "muted", t("settings.next_match_note")));
  box.append(det);
  return box;
}

export function newMatchBody() {
  const m = MODES[currentMode()];
  const rules = { ...(S.prefs.rules || {}), target: S.prefs.target };
  if (m.players !== 4) delete rules.ask_partner;
  const body = { mode: m.mode, preset: S.prefs.preset, rules, difficulty: S.prefs.difficulty };
  if (m.mode === "local") body.players = m.players;
  return body;
}

// ---- start screen -------------------------------------------------------------------------

let resumeCache = null;

export function renderStart(root, ctl) {
  root.innerHTML = "";
  const hero = h("section", "hero");
  const fan = h("div", "hero-fan");
  fan.setAttribute("aria-hidden", "true");
  ["AS", "KH", "JK", "QD", "7C"].forEach((c, i) => {
    const el = cardEl(c);
    el.removeAttribute("aria-label");
    el.style.setProperty("--k", i - 2);
    fan.append(el);
  });
  hero.append(fan);
  hero.append(h("h1", null, t("start.title")));
  hero.append(h("p", "tagline", t("start.tagline")));
  root.append(hero);

  const resume = h("section", "card-panel resume");
  resume.id = "resume";
  resume.append(h("h2", null, t("start.resume")));
  const list = h("div", "resume-list");
  resume.append(list);
  root.append(resume);
  fillResume(list, ctl, resume);

  const form = h("section", "card-panel newmatch");
  form.append(h("h2", null, t("start.new_match")));
  const modes = h("div", "modes");
  modes.setAttribute("role", "radiogroup");
  modes.setAttribute("aria-label", t("start.mode"));
  // A radio group: one Tab stop (the chosen mode), arrow keys move and choose.
  const keys = Object.keys(MODES);
  const choose = (key) => { S.prefs.mode = key; S.prefs.rules = {}; S.prefs.preset = MODES[key].presets[0]; savePrefs(); ctl.redraw(); };
  for (const key of keys) {
    const on = currentMode() === key;
    const b = h("button", "mode" + (on ? " on" : ""));
    b.type = "button";
    b.id = `mode-${key}`;
    b.tabIndex = on ? 0 : -1;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", on ? "true" : "false");
    const title = h("b", null, t(`modes.${key}.title`));
    const text = h("small", null, t(`modes.${key}.text`));
    title.id = `mode-${key}-title`;
    text.id = `mode-${key}-text`;
    b.setAttribute("aria-labelledby", title.id);
    b.setAttribute("aria-describedby", text.id);
    b.append(title, text);
    b.addEventListener("click", () => choose(key));
    b.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (!step) return;
      e.preventDefault();
      const next = keys[(keys.indexOf(key) + step + keys.length) % keys.length];
      choose(next);
      const el = document.getElementById(`mode-${next}`);
      if (el) el.focus();
    });
    modes.append(b);
  }
  form.append(modes);
  form.append(matchSettings(ctl));
  const go = button(t("start.play"), () => ctl.newMatch(newMatchBody()), "primary big");
  go.id = "btn-start";
  form.append(go);
  root.append(form);

  const online = h("section", "card-panel online-entry");
  online.append(h("h2", null, t("online.title")));
  online.append(h("p", "muted", t("online.entry_text")));
  const play = button(t("online.play_online"), () => ctl.openOnline(), "primary");
  play.id = "btn-online";
  online.append(play);
  root.append(online);

  const more = h("section", "card-panel more");
  const links = h("div", "links");
  const rules = button(t("start.rules"), () => ctl.show("rules"), "ghost");
  rules.id = "btn-open-rules";
  const tut = button(t("start.tutorial"), () => ctl.show("tutorial"), "ghost");
  tut.id = "btn-open-tutorial";
  links.append(rules, tut);
  const lang = select("start-lang", languages().map((l) => [l, t(`lang.name_${l}`)]), S.prefs.lang, (v) => ctl.setLanguage(v), t("settings.language"));
  links.append(lang);
  more.append(links);
  root.append(more);
}

/** The match this browser remembers playing (an online one the server does not list), as the
 * server describes it now; null when it is over, gone, or cannot be described. */
async function rememberedMatch() {
  const last = lastTable();
  if (!last) return null;
  let summary;
  try { summary = await api("GET", `/api/tables/${encodeURIComponent(last.table)}`); } catch (e) {
    if (e.code === "table_not_found" || e.code === "http_404") forgetTable(last.table);
    return null;
  }
  const over = !summary || ["match_over", "abandoned"].includes(summary.status) || (summary.match && summary.match.over);
  if (over) { forgetTable(last.table); return null; }
  const match = summary.match || {};
  return { table: last.table, mode: summary.mode || last.mode, status: summary.status, settings: summary.settings, hand_number: match.hand_number, scores: match.scores, team: last.team };
}

const MODE_WORDS = { computer: "start.mode_computer", local: "start.mode_local", online: "online.title" };

async function fillResume(list, ctl, section) {
  let tables = resumeCache;
  if (!tables) {
    try {
      const res = await api("GET", "/api/tables");
      tables = Array.isArray(res) ? res : (res && res.tables) || [];
    } catch { tables = []; }
    const usable = tables.filter((x) => x && !["match_over", "abandoned"].includes(x.status));
    if (!usable.length) {
      const mine = await rememberedMatch();
      if (mine) usable.push(mine);
    }
    tables = usable;
    resumeCache = tables;
    setTimeout(() => { resumeCache = null; }, 1500);
  }
  list.innerHTML = "";
  // Each offer says what it continues: one that cannot be described is not offered at all.
  const offers = tables.filter((x) => (x.table || x.id) && MODE_WORDS[x.mode]);
  section.hidden = !offers.length;
  offers.slice(0, 5).forEach((tb, k) => {
    const id = tb.table || tb.id;
    const settings = tb.settings || {};
    const parts = [];
    if (settings.preset) parts.push(t(`presets.${settings.preset}`));
    parts.push(t(MODE_WORDS[tb.mode]));
    if (tb.hand_number) parts.push(t("start.hand_n", { n: tb.hand_number }));
    if (Array.isArray(tb.scores)) parts.push(scoreLine(tb.scores, tb.team));
    const b = h("button", "btn resume-btn" + (k === 0 ? " primary" : ""));
    b.type = "button";
    b.dataset.table = id;
    b.append(h("b", null, t("start.continue")), h("small", null, parts.join(" · ")));
    b.addEventListener("click", () => ctl.openTable(id));
    list.append(b);
  });
}

// ---- settings panel -----------------------------------------------------------------------

// The table the settings panel paused (its id), and the resume waiting to be sent after the
// panel closed: opened again meanwhile, the table simply stays paused, so quick openings and
// closings send nothing (the server limits pauses and resumes).
let pausedBySettings = null;
let resumeLater = null;
const RESUME_AFTER_MS = 400;

/** The settings panel closed (× , Esc or Close): the play it paused resumes a moment later. */
function settingsClosed(ctl) {
  if (pausedBySettings) {
    clearTimeout(resumeLater);
    resumeLater = setTimeout(() => {
      resumeLater = null;
      if (pausedBySettings && pausedBySettings === S.tableId && S.table && S.table.paused) ctl.send({ type: "resume" });
      pausedBySettings = null;
    }, RESUME_AFTER_MS);
  }
  ctl.redraw();
}

export function renderSettingsPanel(ctl) {
  const body = dialog("settings", t("settings.title"), { onClose: () => settingsClosed(ctl) });
  if (resumeLater && pausedBySettings === S.tableId) {
    clearTimeout(resumeLater);  // closed a moment ago: still paused for this panel
    resumeLater = null;
  } else if (S.table && S.table.mode === "computer" && S.table.seat != null && !S.table.paused && S.sock) {
    // (only the owner pauses: a spectator's settings leave the table playing)
    ctl.send({ type: "pause" });
    pausedBySettings = S.tableId;
  }
  const prefs = h("div", "prefs");
  prefs.append(select("set-lang", languages().map((l) => [l, t(`lang.name_${l}`)]), S.prefs.lang, (v) => ctl.setLanguage(v), t("settings.language")));
  prefs.append(checkbox("set-sound", S.prefs.sound, (v) => ctl.setPref("sound", v), t("settings.sound")));
  prefs.append(select("set-speed", ["off", "fast", "normal", "slow"].map((x) => [x, t(`settings.speed_${x}`)]), S.prefs.speed, (v) => ctl.setPref("speed", v), t("settings.speed")));
  prefs.append(checkbox("set-fourcolour", S.prefs.fourColour, (v) => ctl.setPref("fourColour", v), t("settings.four_colour")));
  prefs.append(select("set-sort", ["rank", "suit"].map((x) => [x, t(`settings.sort_${x}`)]), S.prefs.sort, (v) => ctl.setPref("sort", v), t("settings.sort")));
  prefs.append(checkbox("set-shortcuts", S.prefs.shortcuts !== false, (v) => ctl.setPref("shortcuts", v), t("settings.shortcuts")));
  body.append(prefs);
  body.append(h("h3", null, t("settings.next_match")));
  body.append(select("set-mode", Object.keys(MODES).map((k) => [k, t(`modes.${k}.title`)]), currentMode(),
    (v) => { S.prefs.mode = v; S.prefs.rules = {}; S.prefs.preset = MODES[v].presets[0]; savePrefs(); ctl.redraw(); }, t("start.mode")));
  body.append(matchSettings(ctl, { inPanel: true }));
  const row = h("div", "dialog-buttons");
  const start = button(t("settings.start_new"), () => { pausedBySettings = null; closeOverlay(); ctl.newMatch(newMatchBody()); }, "primary");
  start.id = "btn-settings-new";
  row.append(start);
  row.append(button(t("common.close"), () => { closeOverlay(); settingsClosed(ctl); }));
  body.append(row);
}

// ---- stats --------------------------------------------------------------------------------

let statsData = null;
let onlineStats = null;   // online matches are counted apart (GET /api/stats?scope=online)
let confirmReset = false;

export async function openStats(ctl, refresh = true) {
  if (refresh || !statsData) {
    statsData = null;
    confirmReset = false;
    drawStats(ctl);
    try { statsData = await api("GET", "/api/stats"); } catch { statsData = {}; }
    try { onlineStats = await api("GET", "/api/stats?scope=online"); } catch { onlineStats = null; }
  }
  drawStats(ctl);
}

function drawStats(ctl) {
  // Only into an open Stats dialog: the figures arriving after it closed must not reopen it.
  if (document.body.dataset.overlay !== "stats") return;
  const body = dialog("stats", t("stats.title"));
  if (!statsData) { body.append(h("p", "muted", t("common.loading"))); return; }
  // a figure not had yet (the best hand before any hand): a dash, not a 0 it never scored
  const statText = (value) => (value == null ? "—" : String(value));
  const figures = (data, scope) => {
    const dl = h("dl", "stats");
    dl.dataset.scope = scope;
    for (const key of ["played", "won", "best_hand", "canastas", "streak", "best_streak"]) {
      const row = h("div", "stat");
      row.append(h("dt", null, t(`stats.${key}`)), h("dd", null, statText(data[key])));
      row.dataset.stat = key;
      dl.append(row);
    }
    return dl;
  };
  body.append(h("h3", null, t("stats.offline")));
  body.append(figures(statsData, "offline"));
  if (onlineStats && onlineStats.played) {
    body.append(h("h3", null, t("stats.online")));
    body.append(figures(onlineStats, "online"));
  }
  body.append(recentMatches(ctl));
  const row = h("div", "dialog-buttons");
  if (!confirmReset) {
    const b = button(t("stats.reset"), () => { confirmReset = true; drawStats(ctl); }, "danger");
    b.id = "btn-reset-stats";
    row.append(b);
  } else {
    body.append(h("p", "warn", t("stats.reset_confirm_text")));
    const yes = button(t("stats.reset_confirm"), async () => {
      try { statsData = await api("DELETE", "/api/stats"); } catch { /* keep */ }
      try { statsData = await api("GET", "/api/stats"); } catch { statsData = statsData || {}; }
      confirmReset = false;
      // the unfinished matches are set aside too (the server no longer offers them)
      rememberTable(null);
      resumeCache = null;
      ctl.toast(t("stats.reset_done"));
      const here = S.table && S.screen === "table" && ["computer", "local"].includes(S.table.mode) && S.table.status !== "match_over";
      if (here) ctl.leaveTable(); else drawStats(ctl);
    }, "danger");
    yes.id = "btn-reset-confirm";
    row.append(yes, button(t("common.cancel"), () => { confirmReset = false; drawStats(ctl); }));
  }
  body.append(row);
}

// ---- help ---------------------------------------------------------------------------------

export function openHelp(ctl) {
  const body = dialog("help", t("help.title"));
  const keys = h("dl", "keys");
  // Key names are words in the player's language (Esc, Space); letters are the keys' own.
  const list = [[t("keys.space_enter"), "select"], [t("keys.move"), "move"], [t("keys.ranks"), "stage"]];
  if (S.prefs.shortcuts !== false) list.push(["D", "draw"], ["T", "take"], ["F", "meld"], ["X", "discard"], ["U", "undo"], ["S", "sort"], ["M", "sound"], ["?", "help"]);
  list.push([t("keys.esc"), "cancel"]);
  keys.setAttribute("aria-label", t("help.keys_title"));
  for (const [k, key] of list) {
    const row = h("div", "key" + (k.length > 3 ? " wide" : ""));
    const dt = h("dt");
    dt.append(h("kbd", null, k));
    row.append(dt, h("dd", null, t(`help.keys.${key}`)));
    keys.append(row);
  }
  body.append(keys);
  body.append(h("p", "muted", S.prefs.shortcuts !== false ? t("help.shortcuts_on") : t("help.shortcuts_off")));
  const steps = h("ol", "howto");
  for (const line of raw("help.steps") || []) steps.append(h("li", null, line));
  body.append(steps);
  const row = h("div", "dialog-buttons");
  row.append(button(t("start.rules"), () => { closeOverlay(); ctl.show("rules"); }, "ghost"));
  row.append(button(t("start.tutorial"), () => { closeOverlay(); ctl.show("tutorial"); }, "ghost"));
  body.append(row);
}

// ---- rules page ---------------------------------------------------------------------------

export function renderRules(root, ctl) {
  root.innerHTML = "";
  const back = button(t("common.back"), () => ctl.back(S.view ? "table" : "start"), "ghost");
  back.id = "btn-back";
  root.append(back);
  root.append(h("h1", null, t("rules.title")));
  if (!pagesLoaded()) {
    root.append(h("p", "muted", t("common.loading")));
    loadPages().then(() => { if (S.screen === "rules") ctl.redraw(); }, () => {});
    return;
  }
  root.append(h("p", "lead", t("rules.lead")));
  const toc = h("nav", "toc");
  toc.setAttribute("aria-label", t("rules.contents"));
  const sections = raw("rules.sections") || [];
  sections.forEach((sec, i) => {
    const a = h("a", null, sec.title);
    a.href = `#rule-${i}`;
    a.addEventListener("click", (e) => {
      e.preventDefault();
      const target = document.getElementById(`rule-${i}`);
      const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      target.scrollIntoView({ behavior: still ? "auto" : "smooth" });
      target.querySelector("h2").focus({ preventScroll: true });
    });
    toc.append(a);
  });
  const faqLink = h("a", { href: "#faq" }, t("rules.faq_title"));
  faqLink.addEventListener("click", (e) => {
    e.preventDefault();
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    document.getElementById("faq").scrollIntoView({ behavior: still ? "auto" : "smooth" });
    document.querySelector("#faq h2").focus({ preventScroll: true });
  });
  toc.append(faqLink);
  root.append(toc);
  sections.forEach((sec, i) => {
    const s = h("section", "rule-section");
    s.id = `rule-${i}`;
    s.append(h("h2", null, sec.title));
    s.lastChild.tabIndex = -1;
    const ul = h("ul");
    for (const item of sec.items) ul.append(h("li", null, item));
    s.append(ul);
    if (sec.example) s.append(...scoreExample(sec.example));
    root.append(s);
  });
  root.append(faqSection());
  const tut = button(t("start.tutorial"), () => ctl.show("tutorial"), "primary");
  root.append(tut);
}

// A worked example's figures are text like the rest of the page (tests/core/test_rules_page.py
// checks them against the engine's scoring); the page only lays them out as a table.
function scoreExample(ex) {
  const signed = new Intl.NumberFormat(language(), { signDisplay: "exceptZero" });
  const row = (label, text, cls) => h("tr", cls, h("th", { scope: "row" }, label), h("td", null, text));
  const table = h("table", "breakdown score-example",
    h("thead", null, h("tr", null, ...ex.columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, ...ex.rows.map((r) => row(r.label, signed.format(r.points)))),
    h("tfoot", null, row(ex.total.label, ex.total.points.toLocaleString(language()), "total")));
  return [table, h("p", "example-after", ex.after)];
}

// The questions are disclosure widgets (<details>): each opens by click, Enter or Space, and
// screen readers announce it as expanded or collapsed. Opened ones stay open across redraws.
const faqOpen = new Set();

function faqSection() {
  const s = h("section", { class: "rule-section faq", id: "faq" });
  s.append(h("h2", { tabindex: -1 }, t("rules.faq_title")));
  (raw("rules.faq") || []).forEach((item, i) => {
    const det = h("details", { class: "faq-item", "data-faq": i, open: faqOpen.has(i) },
      h("summary", null, item.q), h("p", null, item.a));
    det.addEventListener("toggle", () => { if (det.open) faqOpen.add(i); else faqOpen.delete(i); });
    s.append(det);
  });
  return s;
}
