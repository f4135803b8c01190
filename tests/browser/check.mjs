// Loads scribe HTML pages in Debian's headless Chromium and checks that each one is safe and
// works: no console error, no network request, no injected script ran (the hostile sample's
// payloads try to set window.__scribe_xss), no dangerous markup in the DOM, toggles open on
// click, search finds and steps through matches, and with scripting off everything is still
// there. Pages named colour.html, tour.html and index.html also get the checks of issue 12 (what
// opens on load, previews, colours, highlighting, prompt index, timeline links, the archive
// index), and screenshots in light and dark are saved for the README.
//
// usage: node check.mjs SHOTS_DIR PAGE.html...   (prints one line per page; exit 1 on failure)
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

async function browser(javaScriptEnabled) {
  const dir = mkdtempSync(join(tmpdir(), "scribe-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.SCRIBE_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    javaScriptEnabled,
    viewport: { width: 1000, height: 800 },
  });
  return { context, dir };
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

async function open(context, file, problems) {
  const url = pathToFileURL(resolve(file)).href;
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    const u = r.url();
    // Only this page, and in an archive the pages beside it (a link followed on purpose).
    const beside = u.startsWith(url.slice(0, url.lastIndexOf("/") + 1)) && /\.html(#.*)?$/.test(u);
    if (u.split("#")[0] !== url && !u.startsWith("data:") && !beside) problems.push(`network request: ${u}`);
  });
  await page.goto(url, { waitUntil: "load" });
  return page;
}

const inView = (el) => {
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.bottom > 0 && r.top < innerHeight;
};

async function checkSession(context, file, shots) {
  const problems = [];
  const page = await open(context, file, problems);
  if (await page.evaluate(() => window.__scribe_xss !== undefined)) problems.push("injected script ran");
  problems.push(...(await page.evaluate(audit)));
  if (!(await page.locator("#search").isVisible())) problems.push("search box not shown");

  // Closed toggles open on click (the first 25 visible ones, outermost first).
  let clicked = 0;
  for (const s of await page.$$("details:not([open]) > summary")) {
    if (clicked >= 25) break;
    if (!(await s.isVisible())) continue;
    await s.click();
    clicked++;
    if (!(await s.evaluate((el) => el.parentElement.open))) problems.push(`toggle ${clicked} did not open on click`);
  }
  // Expand all / collapse all.
  await page.click("#expand");
  const shut = await page.locator("details:not([open])").count();
  if (shut) problems.push(`expand all left ${shut} toggles closed`);
  await page.click("#collapse");
  const still = await page.locator("details[open]").count();
  if (still) problems.push(`collapse all left ${still} toggles open`);

  // Search: nothing found for nonsense; the first speaker's words found, marked and stepped.
  // Typing searches after a short pause (no Enter needed).
  const counted = (re) => page.waitForFunction((src) => new RegExp(src).test(
    document.getElementById("qcount").textContent), re.source, { timeout: 10_000 }).then(() => true, () => false);
  await page.fill("#q", "zq-no-such-text-qz");
  if (!(await counted(/^no match$/))) problems.push("search for nothing found something");
  const prompt = await page.locator("main article:is(.o-user, .o-replay) .plain").first().textContent().catch(() => null);
  if (prompt && prompt.trim()) {
    const word = prompt.trim().split(/\s+/)[0];
    await page.fill("#q", word);
    if (!(await counted(/^1 of \d+$/))) problems.push(`search for "${word}" counted "${await page.textContent("#qcount")}"`);
    if ((await page.locator("mark.hit").count()) === 0) problems.push("search marked nothing");
    const cur = page.locator(".cur");
    if ((await cur.count()) !== 1 || !(await cur.evaluate(inView))) problems.push("the match is not in view");
  }
  await page.fill("#q", "");
  await page.press("#q", "Enter");
  if ((await page.locator("main [hidden]").count()) !== 0) problems.push("search left items hidden");
  if (await page.evaluate(() => window.__scribe_xss !== undefined)) problems.push("injected script ran (after clicks)");
  await page.close();

  const name = basename(file, ".html");
  if (name === "colour") problems.push(...(await checkColour(context, file)));
  if (name === "tour") problems.push(...(await checkTour(context, file)));
  if (name === "colour" || name === "tour") await screenshots(context, file, shots, name);
  return { problems, clicked };
}

// html-colour.jsonl: previews, ANSI colours, highlighting, word marks, prompts, timeline,
// local times, search steps and filters.
async function checkColour(context, file) {
  const problems = [];
  const page = await open(context, file, problems);
  const counted = (re) => page.waitForFunction((src) => new RegExp(src).test(
    document.getElementById("qcount").textContent), re.source, { timeout: 10_000 }).then(() => true, () => false);
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
  await page.close();
  return problems;
}

// html-tour.jsonl: a diff and a todo list open on load, a sub-agent's report shown and its
// transcript folded, a denial said once.
async function checkTour(context, file) {
  const problems = [];
  const page = await open(context, file, problems);
  if (!(await page.locator(".tool.k-edit pre.diff").first().isVisible())) problems.push("no diff visible on load");
  if (!(await page.locator("ul.todos").first().isVisible())) problems.push("no todo list visible on load");
  if (await page.locator("details.sub-transcript").first().evaluate((d) => d.open)) problems.push("sub-agent transcript open");
  const body = await page.locator("main").textContent();
  const denials = body.split("Writing outside the project needs approval.").length - 1;
  if (denials !== 1) problems.push(`the denial is said ${denials} times`);
  // A timeline mark in a sub-agent lane opens the folded transcript it links to.
  const sub = page.locator("svg.timeline a").last();
  const href = await sub.getAttribute("href");
  await sub.click();
  if (!(await page.locator(href).evaluate(inView))) problems.push(`sub-agent mark ${href} does not show its target`);
  await page.close();
  return problems;
}

// The archive index: grouped by project with totals, a search that filters, links to pages.
async function checkIndex(context, file, shots) {
  const problems = [];
  const page = await open(context, file, problems);
  problems.push(...(await page.evaluate(audit)));
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
  await page.close();
  await screenshots(context, file, shots, "index");
  return { problems, clicked: 0 };
}

async function screenshots(context, file, shots, name) {
  for (const scheme of ["light", "dark"]) {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
    await page.screenshot({ path: join(shots, `${name}-${scheme}.png`) });
    await page.close();
  }
}

async function checkNoScript(context, file) {
  const problems = [];
  const page = await context.newPage();
  await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
  if (await page.locator("#search").isVisible()) problems.push("no-script: search box shown");
  if ((await page.locator("main [hidden]").count()) !== 0) problems.push("no-script: hidden items");
  const more = page.locator("details.more > summary").first();
  if ((await more.count()) > 0) {
    await more.click();
    if (!(await page.locator("details.more").first().evaluate((el) => el.open))) problems.push("no-script: 'show all' did not open");
  }
  const t = page.locator("time[datetime]").first();
  if ((await t.count()) > 0 && !/UTC$/.test(await t.textContent())) problems.push("no-script: a time is not in UTC");
  await page.close();
  return problems;
}

const [shots, ...files] = process.argv.slice(2);
if (!shots || files.length === 0) {
  console.error("usage: node check.mjs SHOTS_DIR PAGE.html...");
  process.exit(2);
}
const on = await browser(true);
const off = await browser(false);
let failed = 0;
try {
  for (const file of files) {
    let problems, clicked;
    try {
      ({ problems, clicked } = basename(file) === "index.html"
        ? await checkIndex(on.context, file, shots)
        : await checkSession(on.context, file, shots));
      problems.push(...(await checkNoScript(off.context, file)));
    } catch (e) {
      problems = [`check failed: ${e.message.split("\n")[0]}`];
    }
    if (problems.length) {
      failed++;
      console.log(`FAIL ${file}\n  ${problems.join("\n  ")}`);
    } else {
      console.log(`ok   ${file} (${clicked} toggles clicked)`);
    }
  }
} finally {
  for (const b of [on, off]) {
    await b.context.close();
    rmSync(b.dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
