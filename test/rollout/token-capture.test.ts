/**
 * Training-token capture end to end through the real driver: an opaque harness agent (a loopback
 * `/run` service standing in for Claude Code / Codex-style harnesses, upstream's use case: it streams
 * chat completions and returns text only) drives gym's real vllm_model over a fake vLLM on the
 * training-capture path; the collector freezes each rollout, rebuilds `response.output` from the
 * captured ids and retires the capture once the record is fsync'd. The rebuilt trajectory must equal
 * upstream's builder on the same calls (builder-upstream.json, case "append-only rollout").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutConfigFrom } from "../../src/rollout/config.ts";
import { runRollouts } from "../../src/rollout/driver.ts";
import { targetsFromConfig } from "../../src/rollout/targets.ts";
import { tokenCaptureCollectorFrom } from "../../src/rollout/token-capture.ts";
import upstream from "../fixtures/token-capture/builder-upstream.json";
import { logProbs, startFakeVllm, TURNS, type FakeVllm } from "../fixtures/token-capture/fake-vllm.ts";
import { startHarness, type Harness } from "../fixtures/token-capture/harness.ts";
import { readJsonl, tempDir } from "../helpers/tmp.ts";
import { startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;

let fake: FakeVllm;
let models: Stack | undefined;
let harness: Harness;
const harnessSeen = () => harness.seen;

beforeAll(() => {
  fake = startFakeVllm();
  harness = startHarness((row) => models!.url[row.model_server ?? "policy"]!);
});
afterAll(() => {
  harness.stop();
  fake.stop();
});

/** The model servers for one test: their `token_id_capture.dir` is that test's. */
async function modelStack(cap: string): Promise<Stack> {
  const leaf = (over: Obj = {}) => ({ base_url: fake.url, api_key: "k", model: "policy", return_token_id_information: true, request_prompt_and_generation_token_ids: true, ...over });
  models = await startStack([
    { name: "policy", serverType: "responses_api_models", impl: "vllm_model", leaf: leaf() },
    { name: "silent", serverType: "responses_api_models", impl: "vllm_model", leaf: leaf({ return_token_id_information: false, request_prompt_and_generation_token_ids: false }) },
  ], { token_id_capture: { enabled: true, dir: cap } });
  return models;
}

/** The run config: one harness agent opted in with the agent-level flag, the capture block pointing at `dir`. */
function runConfig(capDir: string, block: Obj = {}): Obj {
  return {
    harness_agent: { responses_api_agents: { opaque_harness: { entrypoint: "app.py", host: "127.0.0.1", port: harness.port, token_id_capture: true } } },
    token_id_capture: { enabled: true, dir: capDir, ...block },
  };
}

async function writeRows(path: string, n: number, over: Obj = {}): Promise<void> {
  await Bun.write(path, `${Array.from({ length: n }, (_v, i) => JSON.stringify({ responses_create_params: { input: `q${i}` }, agent_ref: { name: "harness_agent" }, id: i, ...over })).join("\n")}\n`);
}

const mainCase = (upstream as Obj[]).find((c) => c.name === "append-only rollout: one contiguous main chain")!;

describe("collector: freeze, rebuild, retire", () => {
  test("a token-less harness rollout is rebuilt with upstream's trajectory, and its capture is retired after the durable write", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "tokcap");
    const restarted = await modelStack(cap);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeRows(input, 3);
      fake.seen.length = 0;
      const dict = runConfig(cap);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out", "r.jsonl"), num_samples_in_parallel: 2 });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(dict), tokenCapture: tokenCaptureCollectorFrom(dict) });
      expect(s.exitCode).toBe(0);
      expect(fake.violations).toEqual([]);
      const rows = readJsonl(s.paths.output);
      expect(rows.length).toBe(3);
      const want = mainCase.assembled;
      for (const row of rows) {
        const id = `${row._ng_task_index}-${row._ng_rollout_index}`;
        // Upstream's projection of the same calls: the token fields per item, and its build metrics.
        const items = row.response.output as Obj[];
        const wantItems = want.rebuilt_response.output as Obj[];
        expect(items.map((i) => i.prompt_token_ids)).toEqual(wantItems.map((i) => i.prompt_token_ids));
        expect(items.map((i) => i.generation_token_ids)).toEqual(wantItems.map((i) => i.generation_token_ids));
        expect(items.map((i) => i.generation_log_probs)).toEqual(TURNS.map((_t, k) => logProbs(k)));
        expect(row._ng_token_capture).toEqual(want.metrics);
        expect(row.mask_sample).toBeUndefined();
        // The captured content (the model's tool calls, then its text) replaces the harness's text-only output.
        expect(items.map((i) => i.type)).toEqual(["message", "message", "message"]);
        expect(items[0]!.tool_calls[0].function.name).toBe("get_weather");
        expect(items[2]!.content).toBe("It is cold in SF.");
        // Reward and every other harness field are untouched.
        expect(row.reward).toBe(1.0);
        expect(row.response.id).toBe("resp_harness");
        // Retired: payloads gone, a frozen tombstone left for late writers of this attempt.
        expect(existsSync(join(cap, `${id}.tokens.jsonl`))).toBe(false);
        expect(JSON.parse(readFileSync(join(cap, `${id}.tokens.state.json`), "utf8"))).toMatchObject({ retired: true, frozen: true });
      }
      // Nothing on the harness's stream carried the ids it never needed.
      for (const h of harnessSeen()) for (const sse of h.sse) expect(sse).not.toContain("token_id:");
    } finally {
      await restarted.stop();
    }
  }, 60_000);

  test("a compacted history (non-monotonic prompts) is masked with upstream's reasons, and its evidence is kept", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "tokcap");
    const restarted = await modelStack(cap);
    fake.mode = "rewrite";
    try {
      const input = join(dir.path, "in.jsonl");
      await writeRows(input, 1);
      const dict = runConfig(cap);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out", "r.jsonl") });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(dict), tokenCapture: tokenCaptureCollectorFrom(dict) });
      expect(s.exitCode).toBe(0);
      const [row] = readJsonl(s.paths.output);
      expect(row!.mask_sample).toBe(true);
      // Two roots: the rewritten prompt extends nothing that was captured (upstream: post-compaction chain dropped).
      const compacted = (upstream as Obj[]).find((c) => c.name.startsWith("the fake vLLM's compacted third turn"))!;
      expect(row!._ng_token_capture).toEqual(compacted.assembled.metrics);
      expect(compacted.assembled.metrics).toMatchObject({ roots: 2, chains: 2, delivered_fraction: 0.6 });
      // The main chain is still rebuilt for inspection, but the snapshot is not retired.
      expect(row!.response.output.length).toBe(2);
      expect(readdirSync(cap)).toContain("0-0.tokens.jsonl");
    } finally {
      fake.mode = "normal";
      await restarted.stop();
    }
  }, 60_000);

  test("token-less model answers mask every rollout; max_mask_fraction stops the run with upstream's message", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "tokcap");
    const restarted = await modelStack(cap);
    fake.mode = "no-ids";
    try {
      const input = join(dir.path, "in.jsonl");
      await writeRows(input, 4, { model_server: "silent" });
      const dict = runConfig(cap, { max_mask_fraction: 0.5, mask_fraction_min_samples: 2 });
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out", "r.jsonl"), num_samples_in_parallel: 1 });
      const err = await runRollouts(cfg, { targets: targetsFromConfig(dict), tokenCapture: tokenCaptureCollectorFrom(dict) }).catch((e) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain("2/2 finalized rollouts (100.0%) are masked, exceeding token_id_capture.max_mask_fraction=0.5");
      expect((err as Error).message).toContain("'capture_incomplete': 2");
      expect((err as Error).message).toContain("'capture contains no token records': 2");
      // The masked records that were finalized are in the output (the run stops after them), each saying why.
      const rows = readJsonl(join(dir.path, "out", "r.jsonl"));
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const r of rows) {
        expect(r.mask_sample).toBe(true);
        expect(r._ng_token_capture).toMatchObject({ n_calls: 0, capture_incomplete: true, error: "capture contains no token records" });
      }
    } finally {
      fake.mode = "normal";
      await restarted.stop();
    }
  }, 60_000);

  test("rows of an agent that did not opt in are left alone (no freeze, no fields)", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "tokcap");
    const stack = await modelStack(cap);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeRows(input, 1);
      const dict = runConfig(cap);
      ((dict.harness_agent as Obj).responses_api_agents.opaque_harness as Obj).token_id_capture = false;
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out", "r.jsonl") });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(dict), tokenCapture: tokenCaptureCollectorFrom(dict) });
      expect(s.exitCode).toBe(0);
      const [row] = readJsonl(s.paths.output);
      expect(row!._ng_token_capture).toBeUndefined();
      expect(row!.mask_sample).toBeUndefined();
      expect(row!.response.output[0].prompt_token_ids).toBeUndefined();
      expect(existsSync(cap) ? readdirSync(cap).filter((f) => f.includes(".tokens.")) : []).toEqual([]);
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
