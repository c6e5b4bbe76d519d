/**
 * `gym eval run` with `token_id_capture` on (real child processes): legacy_agent → simple_agent
 * (opted in with its leaf flag) → vllm_model → a loopback fake vLLM that checks every request.
 * The model server records each call on the training-capture path; the collector freezes the
 * rollout, finds the agent's own output already carries the ids (the policy's samples win over a
 * rebuild, as upstream) and retires the capture after the durable write. The token fields in the
 * output are upstream's projection of the same calls (builder-upstream.json).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import upstream from "../fixtures/token-capture/builder-upstream.json";
import { logProbs, startFakeVllm, TURNS } from "../fixtures/token-capture/fake-vllm.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Obj = Record<string, any>;
const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");
const AGENT = "example_single_tool_call_simple_agent.responses_api_agents.simple_agent";

describe("gym eval run: training-token capture", () => {
  test("simple_agent over vllm_model: every call captured, output tokens equal upstream's projection, captures retired", async () => {
    await using dir = await tempDir();
    const fake = startFakeVllm();
    try {
      const rows = readFileSync(EXAMPLE, "utf8").trim().split("\n").slice(0, 3);
      writeFileSync(join(dir.path, "val.jsonl"), `${rows.join("\n")}\n`);
      const cap = join(dir.path, "tokcap");
      const r = await runGym(
        ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", fake.url, "--model-api-key", "k", "-m", "policy",
          "--split", "validation", "-o", "out/r.jsonl", "--concurrency", "2", "+head_server.port=0",
          "+policy_model.responses_api_models.vllm_model.return_token_id_information=true",
          "+policy_model.responses_api_models.vllm_model.request_prompt_and_generation_token_ids=true",
          `+${AGENT}.token_id_capture=true`,
          `+token_id_capture={enabled: true, dir: ${cap}}`,
          `${AGENT}.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`],
        { cwd: dir.path },
      );
      if (r.code !== 0) console.error(r.stderr);
      expect(r.code).toBe(0);
      expect(fake.violations).toEqual([]);
      expect(fake.seen.length).toBe(9);
      const out = readJsonl(join(dir.path, "out", "r.jsonl"));
      expect(out.length).toBe(3);
      const want = ((upstream as Obj[]).find((c) => c.name === "append-only rollout: one contiguous main chain")!.assembled.rebuilt_response.output) as Obj[];
      for (const row of out) {
        const carriers = (row.response.output as Obj[]).filter((i) => i.generation_token_ids);
        expect(carriers.map((i) => i.prompt_token_ids)).toEqual(want.map((i) => i.prompt_token_ids));
        expect(carriers.map((i) => i.generation_token_ids)).toEqual(want.map((i) => i.generation_token_ids));
        expect(carriers.map((i) => i.generation_log_probs)).toEqual(TURNS.map((_t, k) => logProbs(k)));
        // Redundant capture: nothing rebuilt, nothing masked.
        expect(row._ng_token_capture).toBeUndefined();
        expect(row.mask_sample).toBeUndefined();
        const id = `${row._ng_task_index}-${row._ng_rollout_index}`;
        const state = JSON.parse(readFileSync(join(cap, `${id}.tokens.state.json`), "utf8"));
        // Three durable puts and one freeze happened before the capture was retired.
        expect(state).toMatchObject({ frozen: true, retired: true, incomplete: false, version: 4 });
      }
      expect(readdirSync(cap).filter((f) => f.endsWith(".tokens.jsonl"))).toEqual([]);
    } finally {
      fake.stop();
    }
  }, 120_000);
});

describe("gym eval run: a bad token_id_capture block", () => {
  test.each([
    ["a relative directory", "{enabled: true, dir: rel/tokcap}", "training-token capture directory must be an absolute path"],
    ["a typo in a key", "{enabled: true, dirr: /tmp/x}", "token_id_capture has unknown key(s) dirr"],
    ["a Python sink class", "{enabled: true, sink: 'my_pkg.sinks:MySink'}", "names a Python class"],
  ])("%s is a config error (exit 2) before any server starts", async (_n, block, msg) => {
    await using dir = await tempDir();
    const r = await runGym(
      ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0", `+token_id_capture=${block}`],
      { cwd: dir.path },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).not.toContain("started");
  }, 60_000);
});

describe("gym eval run --no-serve: token capture across kill -9 and --resume (D22)", () => {
  test("every pair exactly once, every record rebuilt from its own attempt's capture, delivered captures retired", async () => {
    const { stringify } = await import("yaml");
    const { existsSync } = await import("node:fs");
    const { startHarness } = await import("../fixtures/token-capture/harness.ts");
    const { startStack } = await import("../servers/_stack.ts");
    const { GYM_MAIN } = await import("../helpers/tmp.ts");
    await using dir = await tempDir();
    const cap = join(dir.path, "tokcap");
    const fake = startFakeVllm();
    fake.delayMs = 25;
    const models = await startStack([{ name: "policy", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: fake.url, api_key: "k", model: "policy", return_token_id_information: true, request_prompt_and_generation_token_ids: true } }], { token_id_capture: { enabled: true, dir: cap } });
    const harness = startHarness(() => models.url.policy!);
    const config = {
      harness_agent: { responses_api_agents: { opaque_harness: { entrypoint: "app.py", host: "127.0.0.1", port: harness.port, token_id_capture: true } } },
      token_id_capture: { enabled: true, dir: cap },
    };
    const yaml = stringify(config);
    const head = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (new URL(req.url).pathname === "/global_config_dict_yaml" ? Response.json(yaml) : Response.json({ status: "ok" })) });
    const count = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter((l) => l !== "").length : 0);
    try {
      const input = join(dir.path, "in.jsonl");
      writeFileSync(input, `${Array.from({ length: 24 }, (_v, i) => JSON.stringify({ responses_create_params: { input: `q${i}` }, agent_ref: { name: "harness_agent" }, id: i })).join("\n")}\n`);
      const out = join(dir.path, "rollouts.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--concurrency", "4", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      for (const [i, point] of [2, 9].entries()) {
        const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args, ...(i > 0 ? ["--resume"] : [])], { cwd: dir.path, env, stdout: "ignore", stderr: "ignore" });
        const deadline = performance.now() + 30_000;
        while (count(out) < point && performance.now() < deadline && proc.exitCode === null) await Bun.sleep(2);
        proc.kill(9);
        await proc.exited;
      }
      expect(count(out)).toBeLessThan(24);
      const r = await runGym([...args, "--resume"], { cwd: dir.path });
      expect(r.code).toBe(0);
      const rows = readJsonl(out);
      expect(rows.map((x) => x._ng_task_index).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_v, i) => i));
      const want = (upstream as Obj[]).find((c) => c.name === "append-only rollout: one contiguous main chain")!.assembled;
      for (const row of rows) {
        // Killed mid-rollout, a pair's stale capture was cleared before it ran again: no mixed attempts.
        expect(row._ng_token_capture).toEqual(want.metrics);
        expect(row.mask_sample).toBeUndefined();
        expect((row.response.output as Obj[]).map((i) => i.prompt_token_ids)).toEqual((want.rebuilt_response.output as Obj[]).map((i) => i.prompt_token_ids));
      }
      // A delivered capture is retired; at most the rollouts killed between their write and their retirement keep a frozen copy.
      const live = readdirSync(cap).filter((f) => f.endsWith(".tokens.jsonl"));
      expect(live.length).toBeLessThanOrEqual(2 * 4);
      for (const f of live) expect(JSON.parse(readFileSync(join(cap, f.replace(".jsonl", ".state.json")), "utf8")).frozen).toBe(true);
      expect(fake.violations).toEqual([]);
    } finally {
      head.stop(true);
      harness.stop();
      await models.stop();
      fake.stop();
    }
  }, 180_000);
});
