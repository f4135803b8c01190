// Times the page's search on a big page: node search-bench.mjs PAGE.html WORD...
// Prints the time to read the page's text (on focus) and each query's time (count, first match
// marked and scrolled to). Not a test: performance lives apart (run by hand, figures in the docs).
import { chromium } from "playwright-core";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [file, ...words] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.SCRIBE_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const page = await browser.newPage();
const t0 = Date.now();
await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load", timeout: 600_000 });
console.log(`load: ${Date.now() - t0} ms`);
const build = await page.evaluate(() => {
  const t = performance.now();
  document.getElementById("q").focus();
  return performance.now() - t;
});
console.log(`read the text (on focus): ${build.toFixed(0)} ms`);
for (const w of words) {
  const r = await page.evaluate((w) => {
    const q = document.getElementById("q");
    q.value = w;
    q.dispatchEvent(new Event("input"));
    const t = performance.now();
    q.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    const ms = performance.now() - t;
    const count = document.getElementById("qcount").textContent;
    // The next match: marking and scrolling alone, without the scan.
    const t2 = performance.now();
    q.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    return { ms, count, next: performance.now() - t2 };
  }, w);
  // After the frame: what the browser still had to lay out and paint for the query.
  const frame = await page.evaluate(
    () => new Promise((ok) => { const t = performance.now(); requestAnimationFrame(() => setTimeout(() => ok(performance.now() - t), 0)); }));
  console.log(`query ${JSON.stringify(w)}: ${r.ms.toFixed(1)} ms (${r.count}); next match ${r.next.toFixed(1)} ms; then frame ${frame.toFixed(1)} ms`);
}
await browser.close();
