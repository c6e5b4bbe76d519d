import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");

const lines = readJsonl;

/** n distinct rows built from the example row (the city varies). */
function writeRows(path: string, n: number): void {
  const base = JSON.parse(readFileSync(EXAMPLE, "utf8").split("\n")[0]!) as { responses_create_params: { input: { role: string; content: string }[] } };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const row = structuredClone(base);
    row.responses_create_params.input[1]!.content = `What's the weather like in city number ${i} right now?`;
    out.push(JSON.stringify({ ...row, id: i }));
  }
  writeFileSync(path, `${out.join("\n")}\n`);
}

const dataset = (file: string) => `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${file}}]`;

describe("gym eval run on the built-in stack", () => {
  test("1,000 rows × 4 repeats through legacy_agent → simple_agent → scripted_model: indices and metrics", async () => {
    await using dir = await tempDir();
    writeRows(join(dir.path, "val.jsonl"), 1000);
    const r = await runGym(
      ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation", "-o", "out/r.jsonl",
        "--num-repeats", "4", "--concurrency", "64", "+head_server.port=0", dataset(join(dir.path, "val.jsonl"))],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const rows = lines(join(dir.path, "out", "r.jsonl"));
    expect(rows.length).toBe(4000);
    const keys = new Set(rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`));
    expect(keys.size).toBe(4000);
    for (let t = 0; t < 1000; t++) for (let k = 0; k < 4; k++) expect(keys.has(`${t}:${k}`)).toBe(true);
    // Task index follows the input line: the city number of the stored prompt is the task index.
    for (const x of rows) {
      const input = (x.responses_create_params as { input: { content: string }[] }).input;
      expect(input[1]!.content).toContain(`city number ${x._ng_task_index} `);
    }
    const agg = JSON.parse(readFileSync(join(dir.path, "out", "r_aggregate_metrics.json"), "utf8"));
    const mean = rows.reduce((a, x) => a + Number(x.reward), 0) / rows.length;
    expect(agg[0].agent_metrics["mean/reward"]).toBeCloseTo(mean, 10);
    expect(agg[0].group_level_metrics.length).toBe(1000);
    expect(agg[0].group_level_metrics[0].num_rollouts).toBe(4);
  }, 120_000);

  test("a model endpoint answering 500 / 429 / hanging gives bounded retries and typed failures, not a hang", async () => {
    await using dir = await tempDir();
    writeRows(join(dir.path, "val.jsonl"), 3);
    let calls429 = 0;
    const endpoint = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        if (req.method === "GET") return Response.json({ object: "list", data: [] }); // readiness probe (/models)
        const body = await req.text();
        if (body.includes("city number 0")) return Response.json({ error: { message: "boom" } }, { status: 500 });
        if (body.includes("city number 1")) {
          calls429++;
          return Response.json({ error: { message: "slow down" } }, { status: 429 });
        }
        await Bun.sleep(60_000);
        return new Response("late");
      },
    });
    try {
      const t0 = performance.now();
      const r = await runGym(
        ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "openai_model", "--split", "validation", "-o", "out/r.jsonl",
          "--model-url", `http://127.0.0.1:${endpoint.port}/v1`, "--model-api-key", "k", "-m", "m", "+head_server.port=0",
          "+request_timeout_seconds=3", "+request_retry_budget_seconds=2", dataset(join(dir.path, "val.jsonl"))],
        { cwd: dir.path },
      );
      const seconds = (performance.now() - t0) / 1000;
      expect(seconds).toBeLessThan(60);
      // Nothing succeeded: the run says so and exits 1, with every rollout a typed failure.
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("None of the 3 dispatched rollouts produced a result");
      const fails = lines(join(dir.path, "out", "r_failures.jsonl"));
      expect(fails.length).toBe(3);
      for (const f of fails) {
        // The endpoint's 500 and exhausted 429s surface as the agent's 500 naming the model server (D21: model).
        expect(f._ng_failure_category).toBe(f._ng_task_index === 2 ? "timeout" : "model");
        expect(f.reward).toBeUndefined();
      }
      expect(lines(join(dir.path, "out", "r.jsonl")).length).toBe(0);
      expect(calls429).toBeGreaterThan(1);
      expect(calls429).toBeLessThan(50);
    } finally {
      endpoint.stop(true);
    }
  }, 120_000);
});
