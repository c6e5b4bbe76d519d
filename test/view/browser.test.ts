/**
 * The viewer in a real headless Chromium (Debian `chromium`, driven by playwright-core): a served
 * 100,000-row run, the compare view, an XSS payload that must stay inert, and the `--out` report opened
 * from disk with every network request blocked. Screenshots land in the test's temp dir.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { viewRollouts } from "../../src/view/view.ts";
import { fakeRollout, writeRollouts } from "../helpers/rollouts-gen.ts";
import { tempDir, type TempDir } from "../helpers/tmp.ts";

const CHROMIUM = "/usr/bin/chromium";
// .ci/run installs Debian chromium; a developer machine without it skips these (and says so).
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`note: ${CHROMIUM} is missing, browser tests skipped (apt-get install chromium)`);

const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2">`;
let dir: TempDir;
let browser: Browser;
let url = "";
let stop: () => void = () => undefined;
let served: Promise<unknown>;

beforeAll(async () => {
  if (!haveChromium) return;
  dir = await tempDir("gym-view-");
  const a = join(dir.path, "a.jsonl"), b = join(dir.path, "b.jsonl");
  writeRollouts(a, 50_000, 2);
  appendFileSync(a, `${JSON.stringify({ ...fakeRollout(77_777, 0, { reward: 0.5, answer: XSS }), extracted_answer: XSS })}\nthis line is not json\n`);
  writeFileSync(join(dir.path, "a_failures.jsonl"), `${JSON.stringify({ _ng_task_index: 5, _ng_rollout_index: 1, _ng_failure_class: "agent_run_error", _ng_failure_category: "infra", _ng_failure_message: "connection refused" })}\n`);
  writeRollouts(b, 50_000, 2, (t) => (t % 5 === 0 ? 1 : 0));
  const until = new Promise<void>((r) => (stop = r));
  const listening = new Promise<string>((resolve) => {
    served = viewRollouts({ rollouts: a, baseline: b, host: "127.0.0.1", port: 0, until, onListening: resolve });
  });
  url = await listening;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}, 120_000);

afterAll(async () => {
  if (!haveChromium) return;
  await browser?.close();
  stop();
  await served;
  await dir[Symbol.asyncDispose]();
});

/** Re-read `read()` until `ok` holds (or 30 s pass) and return the last value: bun:test has no expect.poll. */
async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 30_000;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
}

test.skipIf(!haveChromium)("served 100k rows: summary, filters, trajectory, inert XSS, compare", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await ready(page);
  await expect(page.locator("[data-testid=bad-lines]").first().textContent()).resolves.toContain("1 line(s) are not JSON");
  await expect(page.locator("[data-testid=failures]").first().textContent()).resolves.toContain("infra");
  await page.screenshot({ path: join(dir.path, "summary.png") });

  await page.click("nav button[data-tab=list]");
  const count = page.locator("[data-testid=count]");
  await expect(await poll(async () => await count.textContent(), (v) => v === "100002 of 100002 rows")).toBe("100002 of 100002 rows");
  await page.fill("input[name=q]", "city-49999");
  await expect(await poll(async () => await count.textContent(), (v) => v === "2 of 100002 rows")).toBe("2 of 100002 rows");
  await page.fill("input[name=q]", "");
  await page.selectOption("select[name=failure]", "any");
  await expect(await poll(async () => await count.textContent(), (v) => v === "1 of 100002 rows")).toBe("1 of 100002 rows");
  await page.selectOption("select[name=failure]", "");
  await page.fill("input[name=task]", "77777");
  await expect(await poll(async () => await count.textContent(), (v) => v === "1 of 100002 rows")).toBe("1 of 100002 rows");
  await page.click("[data-testid=list] .row");
  const traj = page.locator("[data-testid=trajectory]");
  await expect(await poll(async () => (await traj.textContent()) ?? "", (v) => String(v).includes("tool call: get_weather"))).toContain("tool call: get_weather");
  const text = (await traj.textContent()) ?? "";
  expect(text).toContain("extracted_answer");
  expect(text).toContain(XSS); // shown as text…
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined(); // …never run
  expect(await traj.locator("img").count()).toBe(0);
  await page.screenshot({ path: join(dir.path, "trajectory.png") });

  await page.click("nav button[data-tab=compare]");
  const cmp = page.locator("[data-testid=compare]");
  await expect(await poll(async () => await cmp.locator("tr.flipped").count(), (v) => Number(v) > 10)).toBeGreaterThan(10);
  await cmp.locator("tr.flipped").first().click();
  await expect(await poll(async () => await page.locator("[data-testid=pair] [data-testid=trajectory]").count(), (v) => v === 2)).toBe(2);
  await page.screenshot({ path: join(dir.path, "compare.png") });
  expect(errors).toEqual([]);
  await page.close();
}, 180_000);

test.skipIf(!haveChromium)("the --out report opens from file:// with the network blocked and renders the same", async () => {
  const small = join(dir.path, "small.jsonl");
  writeRollouts(small, 500, 2);
  appendFileSync(small, `${JSON.stringify(fakeRollout(999, 0, { answer: XSS }))}\n`);
  const out = join(dir.path, "report.html");
  await viewRollouts({ rollouts: small, host: "127.0.0.1", port: 0, out });
  const context = await browser.newContext();
  const requests: string[] = [];
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith("file:")) return route.continue();
    requests.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  await page.goto(`file://${out}`);
  await ready(page);
  await page.click("nav button[data-tab=list]");
  await expect(await poll(async () => await page.locator("[data-testid=count]").textContent(), (v) => v === "1001 of 1001 rows")).toBe("1001 of 1001 rows");
  await page.fill("input[name=q]", "city-999");
  await expect(await poll(async () => await page.locator("[data-testid=count]").textContent(), (v) => v === "1 of 1001 rows")).toBe("1 of 1001 rows");
  await page.click("[data-testid=list] .row");
  await expect(await poll(async () => (await page.locator("[data-testid=trajectory]").textContent()) ?? "", (v) => String(v).includes("tool call: get_weather"))).toContain("tool call: get_weather");
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await page.screenshot({ path: join(dir.path, "report.png") });
  expect(requests).toEqual([]);
  await context.close();
}, 120_000);
