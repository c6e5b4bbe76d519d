import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadRun, rowText, searchRows } from "../../src/view/load.ts";
import { compareRuns, passAtK, summarize } from "../../src/view/summary.ts";
import { packRows, selectRows, unpackRows } from "../../src/view/query.ts";
import { createViewHandler } from "../../src/view/server.ts";
import { fakeRollout, writeRollouts } from "../helpers/rollouts-gen.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";

test("a torn last line, non-JSON lines and the failures sidecar are told apart", async () => {
  await using dir = await tempDir();
  const p = join(dir.path, "out.jsonl");
  const rows = [fakeRollout(0, 0, { reward: 1 }), fakeRollout(1, 0, { reward: 0 })].map((r) => JSON.stringify(r));
  writeFileSync(p, `${rows[0]}\nnot json\n[1,2]\n${rows[1]}\n{"reward": 1, "_ng_ta`);
  writeFileSync(join(dir.path, "out_failures.jsonl"), `${JSON.stringify({ _ng_task_index: 2, _ng_rollout_index: 0, _ng_failure_class: "agent_run_error", _ng_failure_category: "infra" })}\n`);
  writeFileSync(join(dir.path, "out_aggregate_metrics.json"), "{broken");
  const run = await loadRun(p);
  expect(run.metas.map((m) => [m.line, m.src, m.task, m.reward, m.failure])).toEqual([
    [1, 0, 0, 1, null],
    [4, 0, 1, 0, null],
    [1, 1, 2, null, "infra"],
  ]);
  expect(run.bad).toEqual({ count: 2, first: [`${p}:2`, `${p}:3`] });
  expect(run.torn).toBe(true);
  expect(run.aggregate).toBeNull();
  expect(JSON.parse(await rowText(run, 1))._ng_task_index).toBe(1);
  expect(JSON.parse(await rowText(run, 2))._ng_failure_category).toBe("infra");
  expect(searchRows(run, "CITY-1 cold")).toEqual([1]);
});

test("rows spanning stream chunks keep exact byte ranges", async () => {
  await using dir = await tempDir();
  const p = join(dir.path, "big.jsonl");
  writeRollouts(p, 3000, 1);
  const run = await loadRun(p);
  expect(run.metas.length).toBe(3000);
  for (const i of [0, 1234, 2999]) expect(JSON.parse(await rowText(run, i))._ng_task_index).toBe(i);
});

test("an empty file loads as zero rows; a missing file or a directory is a usage error", async () => {
  await using dir = await tempDir();
  const p = join(dir.path, "empty.jsonl");
  writeFileSync(p, "");
  expect((await loadRun(p)).metas).toEqual([]);
  await expect(loadRun(join(dir.path, "nope.jsonl"))).rejects.toThrow(/not found/);
  await expect(loadRun(dir.path)).rejects.toThrow(/is a directory/);
  const r = await runGym(["eval", "view", join(dir.path, "nope.jsonl")]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("rollouts file not found");
  const noArg = await runGym(["eval", "view"]);
  expect(noArg.code).toBe(2);
});

test("filters, sorting and packing", () => {
  const metas = [0, 1, 2, 3].map((t) => ({ line: t + 1, src: 0 as const, task: t, rollout: 0, agent: t % 2 ? "b" : "a", reward: t / 3, failure: null, tokens: 10 - t, latency: null }));
  metas.push({ line: 1, src: 1, task: 9, rollout: 0, agent: "a", reward: null, failure: "timeout", tokens: null, latency: null } as never);
  expect(unpackRows(packRows(metas))).toEqual(metas);
  expect(selectRows(metas, { rewardMin: 0.5 })).toEqual([2, 3]);
  expect(selectRows(metas, { agent: "a", failure: "none" })).toEqual([0, 2]);
  expect(selectRows(metas, { failure: "any" })).toEqual([4]);
  expect(selectRows(metas, { failure: "timeout" })).toEqual([4]);
  expect(selectRows(metas, { sort: "tokens" })).toEqual([3, 2, 1, 0, 4]);
  expect(selectRows(metas, { sort: "reward", desc: true })).toEqual([3, 2, 1, 0, 4]);
  expect(selectRows(metas, { task: 1, textHits: new Set([1]) })).toEqual([1]);
  expect(selectRows(metas, { task: 1, textHits: new Set([2]) })).toEqual([]);
});

test("summary and compare figures", () => {
  const m = (task: number, reward: number | null, failure: string | null = null) => ({ line: 1, src: 0 as const, task, rollout: 0, agent: "x", reward, failure, tokens: null, latency: null });
  const a = [m(0, 1), m(0, 0), m(1, 0), m(1, 0), m(2, null, "timeout")];
  const s = summarize(a);
  expect(s.meanReward).toBe(0.25);
  expect(s.passAtK).toEqual([{ k: 1, value: 0.25 }, { k: 2, value: 0.5 }]);
  expect(s.failures).toEqual([{ type: "timeout", count: 1 }]);
  expect(passAtK(5, 0, 1)).toBe(0);
  expect(passAtK(2, 1, 2)).toBe(1);
  const d = compareRuns(a, [m(0, 0), m(1, 1)]);
  expect(d[0]).toEqual({ task: 1, meanA: 0, meanB: 1, flipped: true });
  expect(d.find((x) => x.task === 0)).toEqual({ task: 0, meanA: 0.5, meanB: 0, flipped: true });
});

test("the data server answers only GETs of its routes and serves rows by index", async () => {
  await using dir = await tempDir();
  const p = join(dir.path, "out.jsonl");
  writeRollouts(p, 5, 2);
  const h = createViewHandler([await loadRun(p)]);
  const page = await h(new Request("http://x/"));
  expect(page.headers.get("content-type")).toContain("text/html");
  expect(await page.text()).toContain("Content-Security-Policy");
  const runs = (await (await h(new Request("http://x/api/runs"))).json()) as { rows: { rows: unknown[] } }[];
  expect(runs[0]!.rows.rows.length).toBe(10);
  expect(JSON.parse(await (await h(new Request("http://x/api/row?run=0&i=3"))).text())._ng_rollout_index).toBe(1);
  expect((await h(new Request("http://x/api/row?run=0&i=99"))).status).toBe(404);
  expect((await h(new Request("http://x/api/row?run=5&i=0"))).status).toBe(404);
  expect((await h(new Request("http://x/api/nope"))).status).toBe(404);
  expect((await h(new Request("http://x/", { method: "POST" }))).status).toBe(405);
  expect(await (await h(new Request("http://x/api/search?run=0&q=city-3"))).json()).toEqual({ hits: [6, 7] });
});
