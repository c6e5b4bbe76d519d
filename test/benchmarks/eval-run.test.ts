/**
 * `gym eval run --benchmark NAME` end to end: a benchmark config in a search root that reuses the
 * built-in gsm8k preparer on a built-in server is prepared on the spot (from the local source
 * server), collated with its prompt_config, and run against scripted_model; a shipped benchmark
 * whose server is not built in yet is refused with one clear error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

const CONFIG = `config_paths:
  - resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml

gsm8k_tools_simple_agent:
  _inherit_from: example_single_tool_call_simple_agent
  responses_api_agents:
    simple_agent:
      datasets:
      - name: gsm8k_tools
        type: benchmark
        jsonl_fpath: benchmarks/gsm8k_tools/data/gsm8k_tools_benchmark.jsonl
        prompt_config: benchmarks/prompts/generic/math.yaml
        prepare_script: benchmarks/gsm8k/prepare.py
        num_repeats: 2
`;

describe("gym eval run --benchmark", () => {
  test("prepares on the spot, applies the prompt, runs every row × repeats", async () => {
    await using dir = await tempDir();
    const root = join(dir.path, "root");
    mkdirSync(join(root, "benchmarks", "gsm8k_tools"), { recursive: true });
    writeFileSync(join(root, "benchmarks", "gsm8k_tools", "config.yaml"), CONFIG);
    const r = await runGym(["eval", "run", "--benchmark", "gsm8k_tools", "--model-type", "scripted_model", "--search-dir", root, "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`], {
      cwd: dir.path,
      env: { XDG_CACHE_HOME: join(dir.path, "cache") },
    });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(existsSync(join(dir.path, "cache", "gym", "prepared", "benchmarks", "gsm8k_tools", "data", "gsm8k_tools_benchmark.jsonl"))).toBe(true);
    const rows = readJsonl(join(dir.path, "results", "gsm8k_tools", "rollouts.jsonl"));
    expect(rows.length).toBe(6);
    for (const x of rows) {
      const input = (x.responses_create_params as { input: { role: string; content: string }[] }).input;
      expect(input[0]!.content).toStartWith("Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\n");
    }
    expect(new Set(rows.map((x) => x._ng_task_index))).toEqual(new Set([0, 1, 2]));
  }, 120_000);

  test("a benchmark whose server is not built in: one error line, exit 2, nothing started; the catalog says so", async () => {
    await using dir = await tempDir();
    const root = join(dir.path, "root");
    mkdirSync(join(root, "benchmarks", "future"), { recursive: true });
    writeFileSync(join(root, "benchmarks", "future", "config.yaml"), CONFIG.replaceAll("example_single_tool_call", "future_server").replace("gsm8k_tools_simple_agent", "future_agent"));
    const env = { XDG_CACHE_HOME: join(dir.path, "cache") };
    const r = await runGym(["eval", "run", "--benchmark", "future", "--model-type", "scripted_model", "--search-dir", root], { cwd: dir.path, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: benchmark 'future' is scored by the resources server 'future_server': server not built in yet");
    expect(r.stderr.split("\n").filter((l) => l.startsWith("error:")).length).toBe(1);
    expect(existsSync(join(dir.path, "results"))).toBe(false);

    const list = await runGym(["list", "benchmarks", "--json", "--search-dir", root], { cwd: dir.path, env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(rows.find((x) => x.name === "future")).toMatchObject({ server: "future_server", server_status: "server not built in yet", prepared: null, rows: null, prepared_locally: "no" });
    // The shipped catalog: every benchmark names its server and its sources.
    const shipped = Object.fromEntries(rows.filter((x) => x.name !== "future").map((x) => [x.name, [x.server, x.num_repeats, x.source]]));
    expect(shipped).toMatchObject({
      gsm8k: ["math_with_judge", 1, "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl"],
      "math-500": ["math_with_judge", 1, "https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl"],
      ifeval: ["instruction_following", 1, expect.stringContaining("input_data.jsonl")],
      gpqa: ["mcqa", 8, "hf:Idavidrein/gpqa gpqa_diamond/train (parquet)"],
      mmlu_pro: ["mcqa", 1, "hf:TIGER-Lab/MMLU-Pro/data/test-00000-of-00001.parquet"],
    });
    const table = await runGym(["list", "benchmarks", "--search-dir", root], { cwd: dir.path, env });
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+DOMAIN\s+AGENT\s+REPEATS\s+SERVER\s+STATUS\s+PREPARED\s+ROWS\s+SOURCE/);
  }, 60_000);
});
