// Loads scribe HTML pages in Debian's headless Chromium and checks that each one is safe and
// works: no console error, no network request, no injected script ran (the hostile sample's
// payloads try to set window.__scribe_xss), no dangerous markup in the DOM, every card expands on
// click, search filters and highlights, and with scripting off everything is still there.
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
  for (const tag of ["iframe", "object", "embed", "form", "base", "frame", "svg", "math"]) {
    if (document.getElementsByTagName(tag).length) bad.push(`<${tag}>`);
  }
  const here = location.href.split("#")[0];
  for (const a of document.querySelectorAll("[href]")) {
    const href = a.getAttribute("href");
    const url = new URL(href, location.href);
    const ok = ["http:", "https:", "mailto:"].includes(url.protocol)
      || (href.startsWith("#") && url.href.split("#")[0] === here)
      || (a.localName === "link" && href === "data:,");
    if (!ok) bad.push(`href ${href}`);
  }
  for (const img of document.images) {
    if (!img.getAttribute("src").startsWith("data:image/")) bad.push(`img ${img.getAttribute("src")}`);
  }
  return bad;
}

async function checkPage(context, file, shots) {
  const problems = [];
  const url = pathToFileURL(resolve(file)).href;
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    const u = r.url();
    if (u !== url && !u.startsWith("data:")) problems.push(`network request: ${u}`);
  });
  await page.goto(url, { waitUntil: "load" });
  if (await page.evaluate(() => window.__scribe_xss !== undefined)) problems.push("injected script ran");
  problems.push(...(await page.evaluate(audit)));
  if (!(await page.locator("#search").isVisible())) problems.push("search box not shown");

  // Cards and toggles expand on click, outermost first, so nested ones become visible.
  let clicked = 0;
  const all = page.locator("details");
  const n = await all.count();
  for (let i = 0; i < n && clicked < 300; i++) {
    const d = all.nth(i);
    if (await d.evaluate((el) => el.open)) continue;
    const summary = d.locator(":scope > summary");
    if (!(await summary.isVisible())) continue;
    await summary.click();
    clicked++;
    if (!(await d.evaluate((el) => el.open))) problems.push(`details #${i} did not open on click`);
  }
  const tools = await page.locator("details.tool").count();
  const openTools = await page.locator("details.tool[open]").count();
  if (openTools !== tools) problems.push(`${tools - openTools} of ${tools} tool cards not opened`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, basename(file).replace(/\.html$/, ".png")), fullPage: true });

  // Search: a word that is nowhere hides every item; the first speaker's name is highlighted.
  const items = await page.locator("main > *").count();
  await page.fill("#q", "zq-no-such-text-qz");
  await page.waitForFunction(() => document.getElementById("qcount").textContent !== "");
  const visible = await page.locator("main > :not([hidden])").count();
  if (items > 0 && visible !== 0) problems.push(`search for nothing left ${visible} items`);
  const who = await page.locator("main > article .who").first().textContent().catch(() => null);
  if (who) {
    await page.fill("#q", who);
    await page.waitForFunction(() => !/^0 of/.test(document.getElementById("qcount").textContent));
    if ((await page.locator("mark.hit").count()) === 0) problems.push("search highlighted nothing");
  }
  await page.fill("#q", "");
  await page.waitForFunction(() => document.getElementById("qcount").textContent === "");
  if ((await page.locator("main > [hidden]").count()) !== 0) problems.push("clearing search left items hidden");
  if (await page.evaluate(() => window.__scribe_xss !== undefined)) problems.push("injected script ran (after clicks)");
  await page.close();
  return { problems, tools, clicked };
}

async function checkNoScript(context, file) {
  const problems = [];
  const page = await context.newPage();
  await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
  if (await page.locator("#search").isVisible()) problems.push("no-script: search box shown");
  if ((await page.locator("main > [hidden]").count()) !== 0) problems.push("no-script: hidden items");
  const card = page.locator("details.tool > summary").first();
  if ((await card.count()) > 0) {
    await card.click();
    if (!(await page.locator("details.tool").first().evaluate((el) => el.open))) {
      problems.push("no-script: card did not open");
    }
  }
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
    let problems, tools, clicked;
    try {
      ({ problems, tools, clicked } = await checkPage(on.context, file, shots));
      problems.push(...(await checkNoScript(off.context, file)));
    } catch (e) {
      problems = [`check failed: ${e.message.split("\n")[0]}`];
    }
    if (problems.length) {
      failed++;
      console.log(`FAIL ${file}\n  ${problems.join("\n  ")}`);
    } else {
      console.log(`ok   ${file} (${tools} tool cards, ${clicked} toggles clicked)`);
    }
  }
} finally {
  for (const b of [on, off]) {
    await b.context.close();
    rmSync(b.dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
