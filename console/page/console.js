// The memory console's page (docs/console.md): five views over the console's API on this
// machine. Every text is set as text, never as markup.
"use strict";

const PAGE_SIZE = 100;
const $ = (id) => document.getElementById(id);

// An element with attributes (on* names become listeners) and children (strings become text).
function el(tag, attrs, ...children) {
  const svg = ["svg", "rect", "text", "g", "line", "title", "circle", "path"].includes(tag);
  const node = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag)
                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A request to the console's API: {ok, status, data} (data.error: the line to show).
async function api(path, method = "GET", body) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const res = await fetch("/api/" + path, init);
    let data = {};
    try { data = await res.json(); } catch (e) { data = { error: "no answer from the console" }; }
    if (!res.ok && !data.error) data.error = "the console answered " + res.status;
    return { ok: res.ok, status: res.status, data };
  } catch (e) {
    return { ok: false, status: 0, data: { error: "the console does not answer (is mem0-hooks ui still running?)" } };
  }
}

function status(view, text, isError) {
  const line = $(view + "-status");
  line.textContent = text || "";
  line.classList.toggle("error", !!isError);
}

function age(created) {
  const t = Date.parse(created);
  if (!t) return "";
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 3600) return Math.round(s / 60) + " min";
  if (s < 86400) return Math.round(s / 3600) + " h";
  return Math.round(s / 86400) + " d";
}

function when(unix) {
  return unix ? new Date(unix * 1000).toLocaleString() : "";
}

// A confirmation through the page's one dialog: resolves true on Confirm.
function confirmWith(title, text) {
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  return new Promise((resolve) => {
    const done = (answer) => {
      $("confirm").onclick = $("cancel").onclick = dialog.oncancel = null;
      dialog.close();
      resolve(answer);
    };
    $("confirm").onclick = () => done(true);
    $("cancel").onclick = () => done(false);
    dialog.oncancel = () => done(false);
    dialog.showModal();
  });
}

// ---- Memories ----------------------------------------------------------------------------

const memories = { page: 1, count: 0, items: [], searching: false };

function memoryRow(m) {
  const text = el("p", { class: "text" }, m.memory);
  const problem = el("span", { class: "error", role: "alert" });
  const pinMark = el("span", { class: "pin" }, m.pinned ? "pinned" : "");
  const li = el("li", { class: "memory", "data-memory-id": m.id, "data-type": m.type,
                        "data-agent": m.agent },
    el("div", { class: "meta" }, el("span", { class: "type" }, m.type || "untyped"),
       el("span", { class: "age" }, age(m.created_at)), el("span", { class: "agent" }, m.agent),
       pinMark, el("span", { class: "mono" }, m.id.slice(0, 8))),
    text);
  const say = (line) => { problem.textContent = line || ""; };
  const edit = el("button", { type: "button", onclick: () => startEdit() }, "Edit");
  const forget = el("button", { type: "button", onclick: async () => {
    say("");
    if (!await confirmWith("Forget this memory?", m.memory)) return;
    const r = await api("memories/" + encodeURIComponent(m.id), "DELETE");
    if (!r.ok) return say("not forgotten: " + r.data.error);
    memories.items = memories.items.filter((x) => x.id !== m.id);
    li.remove();
    status("memories", "forgot " + m.id.slice(0, 8));
  } }, "Forget");
  const pin = el("button", { type: "button", onclick: async () => {
    say("");
    const want = !m.pinned;
    const r = await api("memories/" + encodeURIComponent(m.id) + "/pin", "POST", { pinned: want });
    if (!r.ok) return say((want ? "not pinned: " : "not unpinned: ") + r.data.error);
    m.pinned = want;
    pin.textContent = want ? "Unpin" : "Pin";
    pinMark.textContent = want ? "pinned" : "";
  } }, m.pinned ? "Unpin" : "Pin");
  const actions = el("div", { class: "actions" }, edit, forget, pin, problem);
  li.append(actions);

  function startEdit() {
    say("");
    const box = el("textarea", { "aria-label": "Memory text" });
    box.value = m.memory;
    const save = el("button", { type: "button", onclick: async () => {
      save.disabled = true;
      const r = await api("memories/" + encodeURIComponent(m.id), "PUT", { text: box.value });
      save.disabled = false;
      if (!r.ok) return say("not saved: " + r.data.error);
      m.memory = r.data.memory.memory;
      text.textContent = m.memory;
      stopEdit();
    } }, "Save");
    const cancel = el("button", { type: "button", onclick: () => stopEdit() }, "Cancel");
    const editor = el("div", { class: "editor" }, box, el("div", { class: "actions" }, save, cancel));
    text.replaceWith(editor);
    actions.hidden = true;
    li.append(problem);
    box.focus();
    function stopEdit() {
      editor.replaceWith(text);
      actions.hidden = false;
      actions.append(problem);
    }
  }
  return li;
}

function fillSelect(select, values) {
  const keep = select.value;
  select.replaceChildren(el("option", { value: "" }, "all"),
    ...[...values].sort().map((v) => el("option", { value: v }, v || "(none)")));
  select.value = [...values].includes(keep) ? keep : "";
}

// Show `items`, then apply the filters and the search box to what is shown.
function showMemories(items) {
  const list = $("memory-list");
  list.replaceChildren(...items.map(memoryRow));
  fillSelect($("filter-type"), new Set(items.map((m) => m.type)));
  fillSelect($("filter-agent"), new Set(items.map((m) => m.agent)));
  filterMemories();
  // For the bench (scripts/bench.py): when the rows were first drawn after navigation.
  requestAnimationFrame(() => performance.mark("memories-painted"));
}

function filterMemories() {
  const words = $("search").value.toLowerCase().split(/\s+/).filter(Boolean);
  const type = $("filter-type").value, agent = $("filter-agent").value;
  const byId = new Map(memories.items.map((m) => [m.id, m]));
  let shown = 0;
  for (const li of $("memory-list").children) {
    const m = byId.get(li.dataset.memoryId);
    const hay = m ? (m.memory + " " + m.type + " " + m.id).toLowerCase() : "";
    const keep = (!type || li.dataset.type === type) && (!agent || li.dataset.agent === agent) &&
                 (memories.searching || words.every((w) => hay.includes(w)));
    li.classList.toggle("hidden", !keep);
    if (keep) shown++;
  }
  return shown;
}

async function loadMemories(page) {
  memories.searching = false;
  $("show-all").hidden = true;
  status("memories", "loading…");
  const r = await api("memories?page=" + page + "&size=" + PAGE_SIZE);
  if (!r.ok) {
    status("memories", "Mem0: " + r.data.error, true);
    return;
  }
  memories.page = page;
  memories.count = r.data.count;
  memories.items = r.data.memories;
  showMemories(memories.items);
  const pages = Math.max(1, Math.ceil(memories.count / PAGE_SIZE));
  $("page-info").textContent = "page " + page + " of " + pages;
  $("prev").disabled = page <= 1;
  $("next").disabled = page >= pages;
  status("memories", memories.count + (r.data.at_least ? "+" : "") + " memories (" +
                     (r.data.scope === "global" ? "every project" : "this project") + ")");
}

async function searchMemories(query) {
  status("memories", "searching Mem0…");
  const r = await api("search", "POST", { query });
  if (!r.ok) {
    status("memories", "search failed: " + r.data.error, true);
    return;
  }
  memories.searching = true;
  memories.items = r.data.memories;
  showMemories(memories.items);
  $("show-all").hidden = false;
  status("memories", r.data.memories.length + " found by Mem0's search for \"" + query + "\"");
}

// ---- Sessions ----------------------------------------------------------------------------

async function loadSessions() {
  status("sessions", "loading…");
  const r = await api("sessions");
  if (!r.ok) return status("sessions", r.data.error, true);
  const list = $("session-list");
  list.replaceChildren(...r.data.sessions.map((s) => el("li", { "data-session-id": s.id },
    el("button", { type: "button", "aria-pressed": "false", onclick: (e) => {
      for (const b of list.querySelectorAll("button")) b.setAttribute("aria-pressed", "false");
      e.currentTarget.setAttribute("aria-pressed", "true");
      loadRuns(s.id);
    } }, el("span", { class: "mono" }, s.id), el("br"),
       el("span", { class: "small" }, s.agent + " · " + when(s.time) + " · " + s.runs +
          " runs · " + s.injected + " injected")))));
  status("sessions", r.data.sessions.length ? r.data.sessions.length + " sessions on this machine"
                                            : "no session has been recorded on this machine yet");
  if (r.data.sessions.length) list.querySelector("button").click();
}

async function loadRuns(id) {
  const box = $("session-runs");
  const r = await api("sessions/" + encodeURIComponent(id));
  if (!r.ok) return box.replaceChildren(el("p", { class: "status error" }, r.data.error));
  const rows = r.data.runs.map((run) => el("tr", {},
    el("td", {}, when(run.time)), el("td", { class: "mono" }, run.hook),
    el("td", {}, run.memories.map((m) => el("a", { href: "#memories", "data-memory-id": m.id,
      title: m.id + (m.type ? " (" + m.type + ")" : ""), onclick: () => {
        $("search").value = m.id.slice(0, 8);
      } }, m.id.slice(0, 8)))),
    el("td", {}, run.chars), el("td", {}, run.tokens),
    el("td", {}, run.ms === undefined ? "" : run.ms + " ms"),
    el("td", {}, run.used ? run.used.map((u) => u.slice(0, 8)).join(" ") : ""),
    el("td", {}, run.skipped.map((k) => k.reason + (k.detail ? ": " + k.detail : "")).join("; "))));
  box.replaceChildren(el("h3", {}, "Session " + id + " (" + r.data.agent + ")"),
    el("table", { "aria-label": "Runs" },
      el("thead", {}, el("tr", {}, ["Time", "Hook", "Injected", "Characters", "Tokens (est.)",
                                    "Latency", "Used", "Skipped"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)));
}

// ---- Stats -------------------------------------------------------------------------------

// A bar chart named `name`: one bar (or two: `b`) per label, as SVG.
function barChart(name, rows, opts = {}) {
  const w = 340, rowH = 20, left = 110, h = Math.max(1, rows.length) * rowH + 10;
  const max = Math.max(1e-9, ...rows.map((r) => Math.max(r.a, r.b || 0)));
  const svg = el("svg", { role: "img", "aria-label": name, viewBox: "0 0 " + w + " " + h,
                          width: "100%" }, el("title", {}, name));
  rows.forEach((r, i) => {
    const y = 5 + i * rowH, span = w - left - 60;
    svg.append(el("text", { x: 0, y: y + 13 }, r.label));
    const aw = Math.max(1, (r.a / max) * span);
    svg.append(el("rect", { class: "bar", x: left, y: y + 2, width: aw,
                            height: opts.two ? 7 : 14 }));
    if (opts.two) svg.append(el("rect", { class: "bar2", x: left, y: y + 10,
                                          width: Math.max(1, ((r.b || 0) / max) * span), height: 7 }));
    svg.append(el("text", { x: left + aw + 4, y: y + 13 }, opts.format ? opts.format(r) : r.a));
  });
  return el("figure", {}, el("figcaption", {}, name), svg,
            opts.legend ? el("p", { class: "small" }, opts.legend) : null);
}

async function loadStats() {
  status("stats", "loading…");
  const r = await api("stats?days=30");
  const charts = $("charts");
  if (!r.ok) {
    charts.replaceChildren();
    return status("stats", r.data.error, true);
  }
  const s = r.data;
  const obj = (o) => Object.entries(o || {}).map(([label, a]) => ({ label, a }));
  const agents = Object.entries(s.agents || {});
  const pct = (x) => Math.round(x * 100) + " %";
  charts.replaceChildren(
    barChart("Memories by type", obj(s.memories.by_type)),
    barChart("Memories by age", obj(s.memories.by_age)),
    barChart("Searches and captures per day",
             (s.days || []).map((d) => ({ label: d.date, a: d.searches, b: d.adds })),
             { two: true, format: (x) => x.a + " / " + x.b,
               legend: "blue: automatic searches, orange: captures delivered" }),
    barChart("Injected per prompt",
             [{ label: "all agents", a: s.injected.runs ? s.injected.memories / s.injected.runs : 0 },
              ...agents.map(([n, a]) => ({ label: n, a: a.runs ? a.injected / a.runs : 0 }))],
             { format: (x) => x.a.toFixed(1) }),
    barChart("Use rate",
             [{ label: "all agents", a: s.injected.use_rate || 0 },
              ...agents.map(([n, a]) => ({ label: n, a: a.injected ? a.used / a.injected : 0 }))],
             { format: (x) => pct(x.a) }));
  status("stats", s.memories.total + " memories, " + s.memories.pinned + " pinned; hook latency p50 " +
                  s.latency_ms.p50 + " ms, p95 " + s.latency_ms.p95 + " ms");
}

// ---- Hygiene -----------------------------------------------------------------------------

async function loadHygiene() {
  status("hygiene", "loading…");
  const r = await api("hygiene");
  const box = $("dream");
  $("apply").disabled = true;
  if (!r.ok) return status("hygiene", r.data.error, true);
  $("undo").replaceChildren(...r.data.undo.map((f) => el("li", { class: "mono" }, f)));
  if (!r.data.undo.length) $("undo").replaceChildren(el("li", { class: "small" }, "none yet"));
  // dream --json: {"plan": {memories, duplicates, expired, conflicts, unused, pinned_skipped}}.
  const d = r.data.report && (r.data.report.plan || r.data.report);
  if (!d) {
    box.replaceChildren();
    return status("hygiene", r.data.error, true);
  }
  const ids = (xs) => xs.map((x) => el("span", { class: "mono", "data-memory-id": x }, x.slice(0, 8) + " "));
  box.replaceChildren(
    el("h3", {}, "Duplicates (" + d.duplicates.length + ")"),
    el("ul", {}, d.duplicates.map((x) => el("li", {}, "keep ", ids([x.keep]), "drop ", ids(x.drop),
                                           "(" + x.reason + ", " + Number(x.similarity).toFixed(2) + ")"))),
    el("h3", {}, "Expired (" + d.expired.length + ")"),
    el("ul", {}, d.expired.map((x) => el("li", {}, ids([x.id]), x.type + ", " + x.age_days + " days (" + x.rule + ")"))),
    el("h3", {}, "Conflicts, for you to settle (" + d.conflicts.length + ")"),
    el("ul", {}, d.conflicts.map((x) => el("li", {}, ids(x.ids), x.why))),
    el("h3", {}, "Injected but never used (" + d.unused.length + ")"),
    el("ul", {}, d.unused.map((x) => el("li", {}, ids([x.id]), x.injected + " times in " + x.sessions + " sessions"))));
  const changes = d.duplicates.reduce((n, x) => n + x.drop.length, 0) + d.expired.length;
  $("apply").disabled = changes === 0;
  status("hygiene", d.memories + " memories read; " + changes + " to delete; " +
                    d.pinned_skipped + " pinned left alone");
}

// ---- Health ------------------------------------------------------------------------------

async function loadHealth() {
  status("health", "running doctor's checks…");
  const r = await api("health");
  if (!r.ok) return status("health", r.data.error, true);
  const h = r.data;
  $("pause-state").textContent = h.paused
    ? "Automatic recall and capture are paused by you" + (h.paused_everywhere ? " everywhere." : " for project " + h.project + ".")
    : "Automatic recall and capture are on for project " + h.project + ".";
  $("pause").disabled = h.paused;
  $("resume").disabled = !h.paused;
  const body = $("checks").tBodies[0];
  if (!h.doctor) {
    body.replaceChildren();
    $("fixes").replaceChildren();
    return status("health", h.error || "doctor's checks are not available", true);
  }
  body.replaceChildren(...h.doctor.rows.map((row) =>
    el("tr", {}, el("td", { class: row.sub ? "sub" : "" }, row.name), el("td", {}, row.value))));
  $("fixes").replaceChildren(
    ...h.doctor.warnings.map((w) => el("li", { class: "warnings" }, "Warning: " + w)),
    ...h.doctor.fixes.map((f) => el("li", {}, "Fix: " + f)));
  status("health", h.doctor.summary || h.doctor.fixes.length + " to fix (below), first: " + h.doctor.fixes[0],
         !!h.doctor.fixes.length);
}

async function setPause(paused) {
  const r = await api("pause", "POST", { paused });
  if (!r.ok) return status("health", r.data.error, true);
  loadHealth();
}

// ---- Views -------------------------------------------------------------------------------

const views = { memories: () => memories.items.length ? null : loadMemories(1), sessions: loadSessions,
                stats: loadStats, hygiene: loadHygiene, health: loadHealth };

function show() {
  const name = location.hash.slice(1) in views ? location.hash.slice(1) : "memories";
  for (const v of Object.keys(views)) $(v).hidden = v !== name;
  for (const a of document.querySelectorAll("header nav a"))
    if (a.getAttribute("href") === "#" + name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  views[name]();
}

document.addEventListener("DOMContentLoaded", () => {
  $("search").addEventListener("input", () => { if (!memories.searching) filterMemories(); });
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && $("search").value.trim()) searchMemories($("search").value.trim());
  });
  $("filter-type").addEventListener("change", filterMemories);
  $("filter-agent").addEventListener("change", filterMemories);
  $("show-all").addEventListener("click", () => { $("search").value = ""; loadMemories(1); });
  $("prev").addEventListener("click", () => loadMemories(memories.page - 1));
  $("next").addEventListener("click", () => loadMemories(memories.page + 1));
  $("pause").addEventListener("click", () => setPause(true));
  $("resume").addEventListener("click", () => setPause(false));
  $("apply").addEventListener("click", async () => {
    if (!await confirmWith("Apply the dream report?", "The memories listed to drop and the expired ones are deleted; an undo file is written first.")) return;
    const r = await api("hygiene/apply", "POST", {});
    if (!r.ok) return status("hygiene", "not applied: " + r.data.error, true);
    await loadHygiene();
    const applied = r.data.applied || {};
    status("hygiene", r.data.error ? "not applied: " + r.data.error
                                   : "applied: " + (applied.deleted || []).length + " deleted; undo file: " + (applied.undo || ""),
           !!r.data.error);
  });
  window.addEventListener("hashchange", show);
  show();
});
