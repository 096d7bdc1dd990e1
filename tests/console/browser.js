// Drive the memory console in headless Chromium through playwright-core (test_console.py runs
// this with NODE_PATH at the cached package): each view, its actions, every request and answer.
// Input: one JSON argument (url, chromium, key, expectations, shots); output: one JSON line of
// what was seen, or {"error": ...}.
"use strict";
const { chromium } = require("playwright-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const input = JSON.parse(process.argv[2]);
const seen = { requests: [], keyIn: [], views: {}, steps: [] };

function step(name, value) {
  seen.steps.push(name);
  if (value !== undefined) seen.views[name] = value;
}

async function shot(page, name) {
  if (!input.shots) return;
  fs.mkdirSync(input.shots, { recursive: true });
  await page.screenshot({ path: path.join(input.shots, name + ".png") });
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "mem0-console-chromium-"));
  // A fresh profile (playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: input.chromium,
    headless: true,
    viewport: { width: 1100, height: 720 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    page.on("request", (r) => seen.requests.push(r.url()));
    page.on("response", async (r) => {
      try {
        const body = await r.text();
        if (input.key && body.includes(input.key)) seen.keyIn.push(r.url());
      } catch (e) { /* a redirect has no body */ }
    });
    const problems = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    // A failed request the page shows as its line (a 501, a 502) is logged too: not a problem.
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(m.text());
    });

    if (input.down) {
      // Mem0 failing: the Memories view says so in its line; the local views keep working.
      await page.goto(input.url);
      await page.locator("#memories-status.error").waitFor();
      seen.downLine = await page.locator("#memories-status").textContent();
      await page.getByRole("link", { name: "Sessions" }).click();
      await page.locator(`#sessions [data-session-id="${input.session}"]`).waitFor();
      seen.downSessions = await page.locator("#sessions [data-session-id]").count();
      await page.getByRole("link", { name: "Health" }).click();
      await page.locator("#checks tr").first().waitFor({ timeout: 30000 });
      seen.downFixes = await page.locator("#fixes li").allTextContents();
      seen.problems = problems;
      return;
    }

    // The token is traded for the cookie and leaves the address bar.
    const started = Date.now();
    await page.goto(input.url);
    const memories = page.locator("#memories [data-memory-id]");
    await memories.first().waitFor();
    seen.paintMs = Date.now() - started;
    seen.address = page.url();
    const cookies = await context.cookies();
    seen.cookie = cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }));
    seen.views.memories = await memories.count();
    if (input.bench) {
      // Warm: navigate again, and take the page's own mark (from navigation start).
      await page.reload();
      await memories.first().waitFor();
      await page.waitForFunction(() => performance.getEntriesByName("memories-painted").length);
      seen.paintMs = await page.evaluate(
        () => performance.getEntriesByName("memories-painted")[0].startTime);
      return;
    }
    await shot(page, "memories");

    // The search box filters what is loaded at once.
    const search = page.getByRole("searchbox", { name: "Search memories" });
    await search.fill(input.filter);
    seen.filtered = await page.locator("#memories li.memory:not(.hidden)").count();
    // Enter runs the hooks' search on the server.
    await search.fill(input.query);
    await search.press("Enter");
    await page.locator("#memories-status", { hasText: "found by Mem0" }).waitFor();
    seen.searched = await page.locator("#memories [data-memory-id]").evaluateAll(
      (xs) => xs.map((x) => x.dataset.memoryId));
    await page.getByRole("button", { name: "Show all" }).click();
    await page.locator("#memories-status", { hasText: "memories (" }).waitFor();
    step("search");

    // Edit: the textbox "Memory text" and Save.
    const editRow = page.locator(`#memories [data-memory-id="${input.edit}"]`);
    await editRow.getByRole("button", { name: "Edit" }).click();
    await editRow.getByRole("textbox", { name: "Memory text" }).fill(input.editText);
    await editRow.getByRole("button", { name: "Save" }).click();
    await editRow.locator("p.text", { hasText: input.editText }).waitFor();
    step("edit");

    // Forget, after the dialog's Confirm.
    const forgetRow = page.locator(`#memories [data-memory-id="${input.forget}"]`);
    await forgetRow.getByRole("button", { name: "Forget" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Confirm" }).click();
    await forgetRow.waitFor({ state: "detached" });
    step("forget");

    // Pin / Unpin.
    const pinRow = page.locator(`#memories [data-memory-id="${input.pin}"]`);
    await pinRow.getByRole("button", { name: "Pin" }).click();
    await page.waitForFunction((id) => {
      const row = document.querySelector(`#memories [data-memory-id="${id}"]`);
      return row && (row.querySelector(".error").textContent || row.querySelector(".pin").textContent);
    }, input.pin);
    seen.pin = { mark: await pinRow.locator(".pin").textContent(),
                 error: await pinRow.locator(".error").textContent(),
                 button: await pinRow.locator(".actions button").nth(2).textContent() };
    step("pin");

    // Sessions: the session's runs with the injected ids, linked.
    await page.getByRole("link", { name: "Sessions" }).click();
    const session = page.locator(`#sessions [data-session-id="${input.session}"]`);
    await session.waitFor();
    await session.getByRole("button").click();
    await page.locator("#session-runs table").waitFor();
    seen.injectedLinks = await page.locator("#session-runs a[data-memory-id]").evaluateAll(
      (xs) => xs.map((x) => x.dataset.memoryId));
    seen.hooks = await page.locator("#session-runs tbody tr td:nth-child(2)").allTextContents();
    await shot(page, "sessions");
    step("sessions");

    // Stats: drawn charts, or the one line saying why not.
    await page.getByRole("link", { name: "Stats" }).click();
    await page.locator("#stats-status:not(:empty)").waitFor();
    await page.waitForFunction(() => document.getElementById("stats-status").textContent !== "loading…");
    seen.stats = { status: await page.locator("#stats-status").textContent(), charts: {} };
    for (const name of ["Memories by type", "Memories by age", "Searches and captures per day",
                        "Injected per prompt", "Use rate"]) {
      const chart = page.getByRole("img", { name });
      seen.stats.charts[name] = (await chart.count()) ? await chart.locator("rect").count() : -1;
    }
    await shot(page, "stats");
    step("stats");

    // Hygiene: the dream report, or the line saying why not.
    await page.getByRole("link", { name: "Hygiene" }).click();
    await page.waitForFunction(() => {
      const t = document.getElementById("hygiene-status").textContent;
      return t && t !== "loading…";
    });
    seen.hygiene = await page.locator("#hygiene-status").textContent();
    await shot(page, "hygiene");
    step("hygiene");

    // Health: doctor's checks, Pause and Resume.
    await page.getByRole("link", { name: "Health" }).click();
    await page.locator("#checks tr").first().waitFor({ timeout: 30000 });
    seen.health = { rows: await page.locator("#checks tr").count(),
                    key: await page.locator("#checks tr", { hasText: "api key" }).textContent() };
    await page.getByRole("button", { name: "Pause" }).click();
    await page.locator("#pause-state", { hasText: "paused by you" }).waitFor();
    seen.health.paused = await page.locator("#pause-state").textContent();
    await shot(page, "health");
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator("#pause-state", { hasText: "are on" }).waitFor();
    step("health");

    seen.problems = problems;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(() => console.log(JSON.stringify(seen)),
            (e) => { seen.error = String(e && e.stack || e); console.log(JSON.stringify(seen)); });
