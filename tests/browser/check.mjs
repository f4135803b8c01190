// Loads scribe HTML pages in Debian's headless Chromium and checks that each one is safe and
// works and can be read by everyone: no serious or critical axe-core violation (WCAG 2.1 A/AA and
// best practices) in light or dark, no console error, no network request, no injected script ran (the hostile sample's
// payloads try to set window.__scribe_xss), no dangerous markup in the DOM, toggles open on
// click, search finds and steps through matches, and with scripting off everything is still
// there. Pages named colour.html, tour.html and index.html also get the checks of issue 12 (what
// opens on load, previews, colours, highlighting, prompt index, timeline links, the archive
// index), and screenshots in light and dark are saved for the README.
//
// usage: node check.mjs SHOTS_DIR PAGE.html...   (prints one line per page; exit 1 on failure)
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pdfText } from "./pdf-text.mjs";
import { AsyncLocalStorage } from "node:async_hooks";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

// axe-core's source, evaluated in each page (through the debugger protocol, which the page's
// CSP does not govern: the page itself still loads nothing).
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
// The rules run: WCAG 2.1 A and AA, and axe's best practices.
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

// axe-core's serious and critical violations on the page in light and dark (prefers-color-scheme
// emulated), one line a rule with the number of elements and the first one's selector.
async function checkAxe(page) {
  const problems = [];
  // Everything laid out and open, so that contrast is measured on folded and far-off text too.
  await page.evaluate(() => {
    window.__axeOpened = [...document.querySelectorAll("details:not([open])")];
    for (const d of window.__axeOpened) d.open = true;
    for (const a of document.querySelectorAll("main > article")) a.style.contentVisibility = "visible";
  });
  for (const scheme of ["light", "dark"]) {
    log(`axe ${scheme}`);
    await page.emulateMedia({ colorScheme: scheme });
    if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
    const found = await page.evaluate(async (tags) => {
      const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => ({ id: v.id, n: v.nodes.length, first: v.nodes[0].target.join(" "), why: v.nodes[0].failureSummary }));
    }, AXE_TAGS);
    for (const v of found) {
      problems.push(`axe ${scheme}: ${v.id} on ${v.n} elements, first ${v.first}${process.env.SCRIBE_AXE_WHY ? ` (${v.why})` : ""}`);
    }
  }
  await page.emulateMedia({ colorScheme: null });
  await page.evaluate(() => {
    for (const d of window.__axeOpened) d.open = false;
    for (const a of document.querySelectorAll("main > article")) a.style.contentVisibility = "";
  });
  return problems;
}

// One browser; a context with scripting on and one with it off.
async function browser() {
  const b = await chromium.launch({
    executablePath: process.env.SCRIBE_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
  });
  const context = async (javaScriptEnabled) => {
    const c = await b.newContext({ javaScriptEnabled, viewport: { width: 1000, height: 800 } });
    c.setDefaultTimeout(STEP_MS);
    c.setDefaultNavigationTimeout(STEP_MS);
    return c;
  };
  return { browser: b, on: await context(true), off: await context(false) };
}

// Everything in the DOM that should never come from transcript content.
function audit() {
  const bad = [];
  if (document.scripts.length !== 1) bad.push(`${document.scripts.length} <script> elements`);
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) bad.push(`<${el.localName} ${a.name}>`);
      if (a.name === "style") bad.push(`<${el.localName} style>`);
    }
  }
  for (const tag of ["iframe", "object", "embed", "form", "base", "frame", "math", "foreignObject", "use", "image"]) {
    if (document.getElementsByTagName(tag).length) bad.push(`<${tag}>`);
  }
  // The one SVG is the renderer's timeline.
  const svgs = document.getElementsByTagName("svg");
  if (svgs.length > 1 || (svgs.length === 1 && !svgs[0].matches("section.map > svg.timeline"))) {
    bad.push(`${svgs.length} <svg> (only the timeline may be one)`);
  }
  const here = location.href.split("#")[0];
  for (const a of document.querySelectorAll("[href]")) {
    const href = a.getAttribute("href");
    const url = new URL(href, location.href);
    const ok = ["http:", "https:", "mailto:"].includes(url.protocol)
      || (href.startsWith("#") && url.href.split("#")[0] === here)
      || (a.localName === "link" && href === "data:,")
      || href === "index.html"
      || (document.body.classList.contains("archive") && /^[A-Za-z0-9._~%-]+\.html$/.test(href));
    if (!ok) bad.push(`href ${href}`);
  }
  for (const img of document.images) {
    if (!img.getAttribute("src").startsWith("data:image/")) bad.push(`img ${img.getAttribute("src")}`);
  }
  if (document.documentElement.outerHTML.includes("\u001b")) bad.push("an ESC character in the DOM");
  return bad;
}

// Progress on stderr (shown live by tests/html_browser.rs), so a slow or stuck step is named.
// Pages are checked a few at a time; each line names its page (kept through awaits).
const T0 = Date.now();
const current = new AsyncLocalStorage();
const lastStep = new Map();
const log = (msg) => {
  const file = current.getStore() || "";
  lastStep.set(file, msg.trim());
  process.stderr.write(`[${((Date.now() - T0) / 1000).toFixed(1)}s] ${basename(file)}: ${msg.trim()}\n`);
};
// No wait may hang: every Playwright wait gives up after STEP_MS, every page after PAGE_MS,
// and pages not started within TOTAL_MS are reported unchecked (failures, not skips).
const STEP_MS = 10_000;
const PAGE_MS = 60_000;
const TOTAL_MS = 8 * 60_000;
// Pages checked at once: the checks mostly wait on the browser, so a few overlap well.
const PARALLEL = Number(process.env.SCRIBE_BROWSER_PARALLEL) || 4;

// A tab a worker keeps and navigates from page to page (a new tab per page costs about three
// times as much): what it reports goes to the problems of the page it shows.
async function newTab(context) {
  const tab = { page: await context.newPage(), url: "", problems: [] };
  tab.page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") tab.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  tab.page.on("pageerror", (e) => tab.problems.push(`page error: ${e.message}`));
  tab.page.on("request", (r) => {
    const u = r.url();
    const url = tab.url;
    // Only this page, and in an archive the pages beside it (a link followed on purpose).
    const beside = u.startsWith(url.slice(0, url.lastIndexOf("/") + 1)) && /\.html(#.*)?$/.test(u);
    if (u.split("#")[0] !== url && !u.startsWith("data:") && !beside) tab.problems.push(`network request: ${u}`);
  });
  return tab;
}

async function open(tab, file, problems) {
  log("open");
  tab.problems = problems;
  tab.url = pathToFileURL(resolve(file)).href;
  // about:blank first: the same file again (a second round of checks) must load afresh.
  if (tab.page.url().split("#")[0] === tab.url) await tab.page.goto("about:blank");
  await tab.page.goto(tab.url, { waitUntil: "load" });
  return tab.page;
}

// A real mouse click on an element, brought into view, if nothing covers the point clicked;
// false if something does. (Playwright's own click also waits two animation frames for the
// element to be still, which costs about half a second a click on a loaded machine.)
async function clickAt(locator) {
  // Articles are `content-visibility: auto`: the ones scrolled into view are laid out in the
  // next frames and take their real height, which moves the toggle. So the point is measured
  // once the toggle has stayed in one place for two frames (at most ten tries).
  const at = await locator.evaluate(async (el) => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
    let last = null;
    for (let i = 0; i < 10; i++) {
      el.scrollIntoView({ block: "center" });
      await frame();
      await frame();
      const r = el.getBoundingClientRect();
      if (last && last.top === r.top && last.left === r.left) break;
      last = r;
    }
    const r = el.getBoundingClientRect();
    const x = r.left + Math.min(8, r.width / 2);
    const y = r.top + r.height / 2;
    return { x, y, hit: el.contains(document.elementFromPoint(x, y)) };
  });
  if (!at.hit) return false;
  await locator.page().mouse.click(at.x, at.y);
  return true;
}

// The kinds of toggle (their class lists) clicked so far in this run.
const clickedKinds = new Set();

const inView = (el) => {
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.bottom > 0 && r.top < innerHeight;
};

async function checkSession(tab, file, shots) {
  const problems = [];
  const page = await open(tab, file, problems);
  if (await page.evaluate(() => window.__scribe_xss !== undefined)) problems.push("injected script ran");
  problems.push(...(await page.evaluate(audit)));
  if (!(await page.locator("#search").isVisible())) problems.push("search box not shown");
  problems.push(...(await checkAxe(page)));

  log("toggles");
  // Closed toggles open on a real click: the first visible one of each kind (its class list)
  // not yet clicked in this run, outermost first, so a toggle inside an opened one is tried
  // too; at most 25 a page. (Every toggle of every page is opened and closed by expand all /
  // collapse all below.)
  let clicked = 0;
  while (clicked < 25) {
    const pick = await page.evaluate((seen) => {
      const all = [...document.querySelectorAll("summary")];
      const i = all.findIndex((s) => {
        const d = s.parentElement;
        return d.localName === "details" && !d.open && !seen.includes(d.className)
          && s.getClientRects().length > 0 && s.checkVisibility();
      });
      return i < 0 ? null : { i, kind: all[i].parentElement.className };
    }, [...clickedKinds]);
    if (!pick) break;
    clickedKinds.add(pick.kind);
    const s = page.locator("summary").nth(pick.i);
    clicked++;
    if (!(await clickAt(s))) problems.push(`a "${pick.kind}" toggle is covered by another element`);
    else if (!(await s.evaluate((el) => el.parentElement.open))) problems.push(`a "${pick.kind}" toggle did not open on click`);
  }
  log(`expand/collapse (${clicked} clicked)`);
  // Expand all / collapse all.
  if (!(await clickAt(page.locator("#expand")))) problems.push("expand all is covered");
  const shut = await page.locator("details:not([open])").count();
  if (shut) problems.push(`expand all left ${shut} toggles closed`);
  if (!(await clickAt(page.locator("#collapse")))) problems.push("collapse all is covered");
  const still = await page.locator("details[open]").count();
  if (still) problems.push(`collapse all left ${still} toggles open`);

  // Search: nothing found for nonsense; the first speaker's words found, marked and stepped.
  // Typing searches after a short pause (no Enter needed).
  const counted = (re) => page.waitForFunction((src) => new RegExp(src).test(
    document.getElementById("qcount").textContent), re.source, { polling: 25 }).then(() => true, () => false);
  log("search nothing");
  await page.fill("#q", "zq-no-such-text-qz");
  if (!(await counted(/^no match$/))) problems.push("search for nothing found something");
  // A word the page certainly holds: the first prompt's, else (a stream without its prompt)
  // the first model text's. Read without waiting: a page may have neither.
  const said = await page.evaluate(() => {
    const el = document.querySelector("main article:is(.o-user, .o-replay) .plain")
      || document.querySelector("main article.assistant .md");
    return el ? el.textContent : "";
  });
  let searched = "no prompt or model text to search";
  if (said.trim()) {
    const word = said.trim().split(/\s+/)[0];
    log(`search ${word}`);
    searched = `searched "${word}"`;
    await page.fill("#q", word);
    if (!(await counted(/^1 of \d+$/))) problems.push(`search for "${word}" counted "${await page.textContent("#qcount")}"`);
    problems.push(...(await page.evaluate(async () => {
      // The exact place is scrolled to once the browser has drawn the item (page.js).
      await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
      await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
      const bad = [];
      if (!document.querySelector("mark.hit")) bad.push("search marked nothing");
      const cur = document.querySelectorAll(".cur");
      const r = cur.length === 1 && cur[0].getBoundingClientRect();
      if (!r || !(r.height > 0 && r.bottom > 0 && r.top < innerHeight)) bad.push("the match is not in view");
      return bad;
    })));
  }
  log("search cleared");
  await page.fill("#q", "");
  await page.press("#q", "Enter");
  problems.push(...(await page.evaluate(() => {
    const bad = [];
    if (document.querySelector("main [hidden]")) bad.push("search left items hidden");
    if (window.__scribe_xss !== undefined) bad.push("injected script ran (after clicks)");
    return bad;
  })));

  // A malformed fragment in the address (`page.html#%`) must not stop the page's script: the
  // page still opens everything with expand all (a page error would be reported too).
  log("malformed fragment");
  await page.goto("about:blank");
  await page.goto(tab.url + "#%", { waitUntil: "load" });
  if (await page.locator("details").count()) {
    if (!(await clickAt(page.locator("#expand")))) problems.push("expand all is covered (#%)");
    else if (await page.locator("details:not([open])").count()) problems.push("expand all did nothing on a page opened at #%");
  }
  await page.goto("about:blank");
  await page.goto(tab.url, { waitUntil: "load" });

  const name = basename(file, ".html");
  if (name === "hostile") problems.push(...(await checkCsp(tab, file)));
  if (name === "colour") problems.push(...(await checkColour(tab, file)), ...(await checkKeyboard(tab, file)));
  if (name === "tour") problems.push(...(await checkTour(tab, file)), ...(await checkPrint(tab, file)));
  if (name === "colour" || name === "tour") await screenshots(tab, file, shots, name);
  return { problems, clicked, searched };
}

// The page's CSP itself: were escaping ever to let the hostile sample's payloads into the DOM
// (an inline script, an event handler, a script from elsewhere), none of them would run. The
// browser reports each refusal on the console: those reports are this check's evidence, not
// problems of the page.
async function checkCsp(tab, file) {
  log("csp");
  const problems = [];
  const page = await open(tab, file, problems);
  const reports = [];
  tab.problems = reports;
  const r = await page.evaluate(async () => {
    const refused = [];
    document.addEventListener("securitypolicyviolation", (e) => refused.push(e.violatedDirective));
    const s = document.createElement("script");
    s.textContent = "window.__scribe_xss = 'csp-inline'";
    document.body.appendChild(s);
    const d = document.createElement("div");
    d.innerHTML = '<img src="data:," onerror="window.__scribe_xss=\'csp-handler\'"><img src=x onerror="window.__scribe_xss=\'csp-handler2\'">';
    document.body.appendChild(d);
    const far = document.createElement("script");
    far.src = "data:text/javascript,window.__scribe_xss='csp-src'";
    document.body.appendChild(far);
    await new Promise((ok) => setTimeout(ok, 300));
    return { ran: window.__scribe_xss, refused };
  });
  tab.problems = problems;
  if (r.ran !== undefined) problems.push(`CSP let an injected script run (${r.ran})`);
  if (!r.refused.some((d) => d.startsWith("script-src"))) problems.push(`CSP refused nothing: ${JSON.stringify(r.refused)}`);
  return problems;
}

// html-colour.jsonl: previews, ANSI colours, highlighting, word marks, prompts, timeline,
// local times, search steps and filters.
async function checkColour(tab, file) {
  const problems = [];
  const page = await open(tab, file, problems);
  const counted = (re) => page.waitForFunction((src) => new RegExp(src).test(
    document.getElementById("qcount").textContent), re.source, { polling: 25 }).then(() => true, () => false);
  // A long output: ten lines shown, the rest behind "show all N lines".
  const preview = page.locator("details.tool.k-shell").first();
  if (!(await preview.evaluate((d) => d.open))) problems.push("the failing command's card is closed");
  const more = preview.locator("details.more > summary").first();
  if (!/^show all \d+ lines$/.test(((await more.textContent()) || "").trim())) problems.push("no 'show all N lines'");
  const shown = await preview.locator(".tbody > pre.out").first().evaluate((p) => p.textContent.split("\n").length);
  if (shown !== 10) problems.push(`the preview shows ${shown} lines, not 10`);
  // ANSI colours: styled spans, coloured; no ESC anywhere (audit).
  const green = await page.locator("pre.out span.a-f2").first().evaluate((s) =>
    getComputedStyle(s).color !== getComputedStyle(s.parentElement).color);
  if (!green) problems.push("ANSI green is not a coloured span");
  // Highlighted code: a keyword in the Rust fence, a comment in the diff, a marked word.
  const kw = page.locator(".md pre.hl span.h-k").first();
  if ((await kw.count()) === 0 || !(await kw.evaluate((s) =>
    getComputedStyle(s).color !== getComputedStyle(s.closest("pre")).color))) {
    problems.push("no highlighted keyword in the code fence");
  }
  if ((await page.locator(".tool.k-edit pre.diff.hl .add .w").count()) === 0) problems.push("no changed word marked in the diff");
  if (!(await page.locator(".tool.k-edit pre.diff").isVisible())) problems.push("the diff is not visible on load");
  // The model is named when it changes, not on every turn.
  const models = await page.locator(".turn-h .model").allTextContents();
  if (models.join(",") !== "claude-sonnet-4-5,claude-opus-4-5") problems.push(`models shown: ${models}`);
  // Local times with UTC on hover.
  const t = page.locator(".turn-h time[datetime]").first();
  if (!/UTC$/.test((await t.getAttribute("title")) || "")) problems.push("a time has no UTC title");
  // The prompt index: every prompt, linked; a click lands on it.
  const links = page.locator("nav.prompts a");
  if ((await links.count()) !== 2) problems.push(`${await links.count()} prompts in the index, not 2`);
  await links.nth(1).click();
  if (!(await page.evaluate(() => location.hash === "#t6"))) problems.push("prompt link went elsewhere");
  if (!(await page.locator("#t6").evaluate(inView))) problems.push("prompt link target not in view");
  // The timeline: a mark for the failed call links to its card.
  const err = page.locator("svg.timeline a:has(rect.tl-e)").first();
  const href = await err.getAttribute("href");
  await err.click();
  const target = page.locator(href);
  if (!(await target.evaluate(inView))) problems.push(`timeline link ${href} does not show its target`);
  // Search: a count, next and previous, filters by kind.
  await page.fill("#q", "tests");
  await counted(/^1 of/);
  const c1 = await page.textContent("#qcount");
  await page.click("#qnext");
  const c2 = await page.textContent("#qcount");
  await page.click("#qprev");
  const c3 = await page.textContent("#qcount");
  if (!/^1 of [2-9]/.test(c1) || !c2.startsWith("2 of") || !c3.startsWith("1 of")) {
    problems.push(`search steps: ${c1} / ${c2} / ${c3}`);
  }
  for (const k of ["text", "tool", "error"]) await page.uncheck(`.kinds input[value=${k}]`);
  const onlyPrompts = await page.textContent("#qcount");
  if (onlyPrompts !== "1 of 1") problems.push(`prompts only: ${onlyPrompts}`);
  return problems;
}

// html-colour.jsonl by keyboard only: `/` focuses search, typing and Enter step through matches,
// Escape leaves the box; Tab reaches every kind of control in reading order (header, overview
// with its timeline, prompt index, transcript), each with a focus ring; Enter and Space open
// and close a toggle, press expand all / collapse all, tick a kind filter.
async function checkKeyboard(tab, file) {
  log("keyboard");
  const problems = [];
  const page = await open(tab, file, problems);
  const kb = page.keyboard;
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const ring = el.closest("svg") ? getComputedStyle(el.querySelector("rect")).strokeWidth !== "0px"
      : getComputedStyle(el).outlineStyle !== "none" && parseFloat(getComputedStyle(el).outlineWidth) >= 2;
    const where = el.closest("header.page-h") ? "header" : el.closest("section.map") ? "map"
      : el.closest("nav.prompts") ? "prompts" : el.closest("main") ? "main"
      : el.closest(".page-f") ? "footer" : `other (${el.outerHTML.slice(0, 60)})`;
    const what = el.id ? `#${el.id}` : el.closest("svg") ? "mark" : el.localName === "input" ? `input ${el.value}`
      : el.localName;
    const key = [...document.querySelectorAll("*")].indexOf(el);
    return { what, where, ring, key, open: el.localName === "summary" ? el.parentElement.open : undefined };
  });
  await kb.press("/");
  if ((await focused())?.what !== "#q") problems.push("/ did not focus the search box");
  await kb.type("tests");
  await page.waitForFunction(() => /^1 of/.test(document.getElementById("qcount").textContent), null, { polling: 25 }).catch(() => {});
  await kb.press("Enter");
  const step = await page.textContent("#qcount");
  if (!step.startsWith("2 of")) problems.push(`Enter in the search box: "${step}", not the second match`);
  await kb.press("Escape");
  if ((await focused())?.what === "#q") problems.push("Escape did not leave the search box");
  if (await page.inputValue("#q")) problems.push("Escape did not clear the search");
  // Tab from the top of a freshly loaded page through every control, in order.
  await page.goto("about:blank");
  await page.goto(tab.url, { waitUntil: "load" });
  const seen = [];
  for (let i = 0; i < 300; i++) {
    await kb.press("Tab");
    const f = await focused();
    if (!f || (seen.length && f.key === seen[0].key)) break;
    seen.push(f);
  }
  if (process.env.SCRIBE_TAB_DEBUG) console.error(JSON.stringify(seen));
  const order = ["header", "map", "prompts", "main", "footer"];
  const places = seen.map((f) => order.indexOf(f.where));
  if (places.some((p, i) => p < 0 || (i && p < places[i - 1]))) {
    problems.push(`Tab order is not reading order: ${[...new Set(seen.map((f) => f.where))].join(", ")}`);
  }
  for (const want of ["#q", "#qprev", "#qnext", "input prompt", "#expand", "#collapse", "mark", "summary", "a"]) {
    if (!seen.some((f) => f.what === want)) problems.push(`Tab never reached ${want}`);
  }
  const ringless = [...new Set(seen.filter((f) => !f.ring).map((f) => `${f.what} in ${f.where}`))];
  if (ringless.length) problems.push(`no focus ring on: ${ringless.join(", ")}`);
  // Enter and Space on a closed toggle in the transcript, the buttons and a kind filter.
  const focus = (sel) => page.evaluate((s) => document.querySelector(s).focus(), sel);
  await focus("main details:not([open]) > summary");
  await kb.press("Enter");
  if (!(await focused())?.open) problems.push("Enter did not open a toggle");
  await kb.press(" ");
  if ((await focused())?.open) problems.push("Space did not close a toggle");
  await focus("#expand");
  await kb.press("Enter");
  if (await page.locator("details:not([open])").count()) problems.push("Enter on expand all left toggles closed");
  await focus("#collapse");
  await kb.press(" ");
  if (await page.locator("details[open]").count()) problems.push("Space on collapse all left toggles open");
  await focus(".kinds input[value=tool]");
  await kb.press(" ");
  if (await page.isChecked(".kinds input[value=tool]")) problems.push("Space did not untick a kind filter");
  return problems;
}

// A page on paper, asked for in the dark theme: printed in light colours without the search bar
// or buttons, every toggle's content shown; then printed to PDF by Chromium (page.pdf) and the
// text of every tool output found in the PDF's text (read by pdf-text.mjs).
async function checkPrint(tab, file) {
  log("print");
  const problems = [];
  const page = await open(tab, file, problems);
  await page.emulateMedia({ media: "print", colorScheme: "dark" });
  problems.push(...(await page.evaluate(() => {
    const bad = [];
    const bg = getComputedStyle(document.body).backgroundColor;
    if (bg !== "rgb(255, 255, 255)") bad.push(`printed on ${bg}, not white`);
    for (const el of document.querySelectorAll("#search, button")) {
      if (el.checkVisibility()) bad.push(`printed: ${el.outerHTML.slice(0, 40)}`);
    }
    const folded = [...document.querySelectorAll("details.tool pre.out")].filter((p) => !p.checkVisibility());
    if (folded.length) bad.push(`${folded.length} tool outputs not printed`);
    return bad;
  })));
  const outputs = await page.$$eval("details.tool pre.out", (ps) => ps.map((p) => p.textContent));
  const text = pdfText(await page.pdf({ format: "A4" })).replace(/\s+/g, "");
  await page.emulateMedia({ media: null, colorScheme: null });
  const missing = outputs.filter((o) => !text.includes(o.replace(/\s+/g, "").slice(0, 200)));
  if (!outputs.length) problems.push("no tool output to look for in the PDF");
  if (missing.length) problems.push(`${missing.length} of ${outputs.length} tool outputs not in the PDF, first: ${JSON.stringify(missing[0].slice(0, 60))}`);
  return problems;
}

// html-tour.jsonl: a diff and a todo list open on load, a sub-agent's report shown and its
// transcript folded, a denial said once.
async function checkTour(tab, file) {
  const problems = [];
  const page = await open(tab, file, problems);
  if (!(await page.locator(".tool.k-edit pre.diff").first().isVisible())) problems.push("no diff visible on load");
  if (!(await page.locator("ul.todos").first().isVisible())) problems.push("no todo list visible on load");
  if (await page.locator("details.sub-transcript").first().evaluate((d) => d.open)) problems.push("sub-agent transcript open");
  const body = await page.locator("main").textContent();
  const denials = body.split("Writing outside the project needs approval.").length - 1;
  if (denials !== 1) problems.push(`the denial is said ${denials} times`);
  // Durations: the Bash call (no duration from the harness) shows the time from its call line
  // to its result line; each model turn shows its own duration.
  const bashDur = await page.locator("#t2-c2 > summary .dur").textContent().catch(() => "");
  if (bashDur !== "400 ms") problems.push(`the Bash call's duration reads "${bashDur}", not "400 ms"`);
  const took = await page.locator("#t2 .turn-h .dur.took").textContent().catch(() => "");
  if (took !== "500 ms") problems.push(`turn 2's own duration reads "${took}", not "500 ms"`);
  // A hook is one line: its name, outcome and output, never a "started" line beside it.
  const hooks = await page.locator(".notice.hook").allTextContents();
  if (hooks.length !== 1 || !/^Hook SessionStart:startup · success · exit 0 · warmed the cache$/.test(hooks[0].trim())) {
    problems.push(`hook lines: ${JSON.stringify(hooks)}`);
  }
  if (/started/.test(hooks.join(" "))) problems.push("a hook says it started");
  // A timeline mark in a sub-agent lane opens the folded transcript it links to.
  const sub = page.locator("svg.timeline a").last();
  const href = await sub.getAttribute("href");
  await sub.click();
  if (!(await page.locator(href).evaluate(inView))) problems.push(`sub-agent mark ${href} does not show its target`);
  return problems;
}

// The archive index: grouped by project with totals, a search that filters, links to pages.
async function checkIndex(tab, file, shots) {
  const problems = [];
  const page = await open(tab, file, problems);
  problems.push(...(await page.evaluate(audit)));
  problems.push(...(await checkAxe(page)));
  const projects = await page.locator("section.project").count();
  if (projects < 2) problems.push(`${projects} project groups`);
  if ((await page.locator("section.project tfoot").count()) !== projects) problems.push("a project has no totals");
  if (!/sessions ·/.test(await page.textContent(".page-h .totals"))) problems.push("no overall totals");
  const rows = await page.locator("tr[data-s]").count();
  await page.fill("#q", "notes.txt");
  const shown = await page.locator("tr[data-s]:not([hidden])").count();
  if (!(shown >= 1 && shown < rows)) problems.push(`search for notes.txt shows ${shown} of ${rows}`);
  if (!/of \d+ sessions/.test(await page.textContent("#qcount"))) problems.push("the index search has no count");
  await page.fill("#q", "");
  await page.locator("tr[data-s] a").first().click();
  await page.waitForLoadState("load");
  if (!(await page.locator("a[href='index.html']").count())) problems.push("a session page has no link back to the index");
  await screenshots(tab, file, shots, "index");
  return { problems, clicked: 0 };
}

async function screenshots(tab, file, shots, name) {
  log(`screenshots ${name}`);
  for (const scheme of ["light", "dark"]) {
    const page = await tab.page.context().newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
    await page.screenshot({ path: join(shots, `${name}-${scheme}.png`) });
    await page.close();
  }
}

async function checkNoScript(tab, file) {
  log("no-script");
  const problems = [];
  const page = await open(tab, file, problems);
  if (await page.locator("#search").isVisible()) problems.push("no-script: search box shown");
  if ((await page.locator("main [hidden]").count()) !== 0) problems.push("no-script: hidden items");
  const more = page.locator("details.more > summary").first();
  if ((await more.count()) > 0) {
    await more.click();
    if (!(await page.locator("details.more").first().evaluate((el) => el.open))) problems.push("no-script: 'show all' did not open");
  }
  const t = page.locator("time[datetime]").first();
  if ((await t.count()) > 0 && !/UTC$/.test(await t.textContent())) problems.push("no-script: a time is not in UTC");
  return problems;
}

const [shots, ...files] = process.argv.slice(2);
if (!shots || files.length === 0) {
  console.error("usage: node check.mjs SHOTS_DIR PAGE.html...");
  process.exit(2);
}
const { browser: chrome, on, off } = await browser();

// Runs one page's checks, or fails naming the step still running after PAGE_MS.
async function withDeadline(check) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(
      `no result after ${PAGE_MS / 1000} s (stuck at: ${lastStep.get(current.getStore())})`)), PAGE_MS);
  });
  try {
    return await Promise.race([check(), late]);
  } finally {
    clearTimeout(timer);
  }
}

// One page's checks: its problems (none when it passes) and what was exercised.
// A worker's tabs are replaced after a failure, which may have left one mid-step.
async function checkPage(file, tabs) {
  try {
    return await current.run(file, () => withDeadline(async () => {
      const r = basename(file) === "index.html"
        ? await checkIndex(tabs.on, file, shots)
        : await checkSession(tabs.on, file, shots);
      r.problems.push(...(await checkNoScript(tabs.off, file)));
      return r;
    }));
  } catch (e) {
    for (const k of ["on", "off"]) {
      await tabs[k].page.close().catch(() => {});
      tabs[k] = await newTab(k === "on" ? on : off);
    }
    return { problems: [`check failed at "${lastStep.get(file)}": ${e.message.split("\n")[0]}`] };
  }
}

const results = new Array(files.length);
let next = 0;
let failed = 0;
try {
  await Promise.all(Array.from({ length: Math.min(PARALLEL, files.length) }, async () => {
    const tabs = { on: await newTab(on), off: await newTab(off) };
    while (next < files.length) {
      const i = next++;
      results[i] = Date.now() - T0 > TOTAL_MS
        ? { problems: [`not checked: the run passed its ${TOTAL_MS / 1000} s budget`] }
        : await checkPage(files[i], tabs);
    }
  }));
  files.forEach((file, i) => {
    const { problems, clicked, searched } = results[i];
    if (problems.length) {
      failed++;
      console.log(`FAIL ${file}\n  ${problems.join("\n  ")}`);
    } else {
      console.log(`ok   ${file} (${clicked} toggles clicked${searched ? `, ${searched}` : ""})`);
    }
  });
} finally {
  await chrome.close();
}
process.exit(failed ? 1 : 0);
