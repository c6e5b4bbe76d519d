/**
 * Viewer figures at scale (prints, never asserts): for a generated 100,000-row run, the time from
 * navigation to the first rendered summary and list in headless Chromium, to a filtered list (failure
 * filter, task filter, free-text search), and the `--out` report size per 1,000 rows.
 * Usage: bun scripts/bench-view.ts [rows=100000] [screenshot-dir]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { viewRollouts } from "../src/view/view.ts";
import { writeRollouts } from "../test/helpers/rollouts-gen.ts";

const rows = Number(process.argv[2] ?? 100_000);
const shots = process.argv[3];
const dir = mkdtempSync(join(tmpdir(), "gym-bench-view-"));
try {
  const file = join(dir, "rollouts.jsonl");
  writeRollouts(file, rows / 2, 2);
  console.log(`rollouts file: ${rows} rows, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const t0 = performance.now();
  let served!: Promise<unknown>;
  const url = await new Promise<string>((resolve) => (served = viewRollouts({ rollouts: file, host: "127.0.0.1", port: 0, until, onListening: resolve })));
  console.log(`server ready (file indexed): ${(performance.now() - t0).toFixed(0)} ms`);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const countIs = async (pred: (s: string) => boolean) => {
    const end = Date.now() + 60_000;
    for (;;) {
      const t = (await page.locator("[data-testid=count]").textContent().catch(() => "")) ?? "";
      if (pred(t) || Date.now() > end) return t;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const t1 = performance.now();
  await page.goto(url);
  await page.waitForSelector("body[data-ready='1']");
  const tSummary = performance.now() - t1;
  if (shots) await page.screenshot({ path: join(shots, "summary.png") });
  await page.click("nav button[data-tab=list]");
  await countIs((s) => s.startsWith(`${rows} of`));
  const tList = performance.now() - t1;
  const t2 = performance.now();
  await page.selectOption("select[name=failure]", "none");
  await page.fill("input[name=rmin]", "1");
  await countIs((s) => s !== "" && !s.startsWith(`${rows} of`));
  const tFilter = performance.now() - t2;
  await page.fill("input[name=rmin]", "");
  await page.selectOption("select[name=failure]", "");
  await countIs((s) => s.startsWith(`${rows} of`));
  const t3 = performance.now();
  await page.fill("input[name=q]", `city-${rows / 2 - 1}`);
  const found = await countIs((s) => /^\d+ of/.test(s) && Number(s.split(" ")[0]) === 2);
  const tSearch = performance.now() - t3;
  if (shots) {
    await page.click("[data-testid=list] .row");
    await page.waitForSelector("[data-testid=trajectory] .trajectory");
    await page.screenshot({ path: join(shots, "list.png") });
  }
  await browser.close();
  stop();
  await served;
  console.log(`first render (summary): ${tSummary.toFixed(0)} ms`);
  console.log(`list rendered:          ${tList.toFixed(0)} ms   (target ≤ 2000 ms)`);
  console.log(`filtered list:          ${tFilter.toFixed(0)} ms (includes the 200 ms input debounce)`);
  console.log(`text search:            ${tSearch.toFixed(0)} ms → "${found}"`);
  const small = join(dir, "small.jsonl");
  writeRollouts(small, 5_000, 2);
  const r = await viewRollouts({ rollouts: small, host: "127.0.0.1", port: 0, out: join(dir, "r.html") });
  console.log(`--out size: ${((r.bytes ?? 0) / 10 / 1024).toFixed(1)} KiB per 1,000 rows (JSONL: ${(statSync(small).size / 10 / 1024).toFixed(1)} KiB per 1,000 rows)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
