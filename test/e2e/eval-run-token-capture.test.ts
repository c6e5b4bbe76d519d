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
