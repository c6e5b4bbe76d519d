/**
 * Judge benchmarks end to end: financebench, secque, frontierscience_olympiad, xstest, aalcr and
 * hle/config_vision (multimodal rows) are
 * prepared on the spot from the fixture Hub, run with scripted_model as the policy, and their judge
 * model server is overridden to a local OpenAI-compatible endpoint that answers by a fixed rule on
 * the judge prompt; each row's reward is what that rule implies under the benchmark's grading.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, TOKEN, type SourceServer } from "../fixtures/benchmarks/server.ts";

type Rec = Record<string, any>;
let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

/** Run `bench` with `judgeName` pointed at a rule-based judge; the rows and the judge prompts it saw. */
async function run(bench: string, judgeName: string, rule: (prompt: string) => string, extra: string[] = []): Promise<{ rows: Rec[]; prompts: string[] }> {
  const prompts: string[] = [];
  const judge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return Response.json({ object: "list", data: [] });
      // Responses (`input`) or Chat Completions (`messages`, frontierscience_judge's path).
      const body = (await req.json()) as { input?: { role: string; content: string }[]; messages?: { role: string; content: string }[] };
      const msgs = body.input ?? body.messages ?? [];
      const user = msgs[msgs.length - 1]?.content ?? "";
      prompts.push(user);
      const text = rule(user);
      if (new URL(req.url).pathname.endsWith("/chat/completions")) {
        return Response.json({ id: "c", object: "chat.completion", created: 1, model: "j", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
      }
      return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
    },
  });
  try {
    await using dir = await tempDir();
    const r = await runGym(
      [
        "eval", "run", "--benchmark", bench, "--model-type", "scripted_model", "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`, "-o", "out/r.jsonl",
        `++${judgeName}={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${judge.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
        ...extra,
      ],
      { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url } },
    );
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    return { rows: readJsonl(join(dir.path, "out", "r.jsonl")) as Rec[], prompts };
  } finally {
    judge.stop(true);
  }
}

const userText = (r: Rec) => {
  const input = r.responses_create_params.input as { role: string; content: string }[];
  return input[input.length - 1]!.content;
};

describe("judge benchmarks against a rule-based judge", () => {
  test("financebench: [[2]] is equal (reward 1)", async () => {
    const { rows, prompts } = await run("financebench", "judge_model", (p) => (p.includes("Revenue?") ? "Reasoning.\n[[2]]" : "[[0]]"));
    expect(rows.map((r) => r.reward)).toEqual([1]);
    expect(prompts.length).toBe(1);
    expect(prompts[0]).toContain("$1B");
  }, 180_000);

  test("secque: [[0]] is not equal (reward 0)", async () => {
    const { rows, prompts } = await run("secque", "judge_model", () => "The answer misses it. [[0]]");
    expect(rows.map((r) => r.reward)).toEqual([0]);
    expect(prompts[0]).toContain("Many");
  }, 180_000);

  test("frontierscience_olympiad: the last Judgement decides per row", async () => {
    const { rows } = await run("frontierscience_olympiad", "judge_model", (p) => (p.includes("Balance H2") || p.includes("Unit of force") ? "Judgement: NO\n...\nJudgement: YES" : "Judgement: NO"));
    const got = Object.fromEntries(rows.map((r) => [userText(r), r.reward]));
    expect(got).toEqual({ "Balance H2 + O2": 1, "Organ for insulin?": 0, "Unit of force": 1 });
  }, 180_000);

  test("xstest: WildGuard's refusal line against each prompt's label (×4 repeats)", async () => {
    // Refuse the unsafe prompt (right) and the balloon one (wrong: it is safe); comply with the Python one (right).
    const refuses = (p: string) => p.includes("neighbour") || p.includes("balloon");
    // Its judge is a local_vllm_model (WildGuard): drop that server and point the resources server at the rule judge.
    const { rows } = await run("xstest", "rule_judge", (p) => `Harmful request: no\nResponse refusal: ${refuses(p) ? "yes" : "no"}\nHarmful response: no`, [
      "~allenai_wildguard_model_server",
      "++xstest_benchmark_resources_server.resources_servers.xstest.judge_model_server.name=rule_judge",
    ]);
    expect(rows.length).toBe(12);
    for (const r of rows) {
      const q = userText(r);
      const want = q.includes("Python") ? [1, false] : q.includes("balloon") ? [0, true] : [1, true];
      expect([q, r.reward, r.is_refusal]).toEqual([q, ...want]);
    }
  }, 180_000);

  test("aalcr: CORRECT / INCORRECT per row, reported under its token band", async () => {
    // Its judge is a vllm_model defined in the benchmark config: drop it, point the server at the rule judge.
    const { rows, prompts } = await run("aalcr", "rule_judge", (p) => (p.includes("What changed?") ? "CORRECT" : "INCORRECT"), [
      "~Qwen3-235B-A22B-Instruct-2507-FP8",
      "++aalcr_benchmark_resources_server.resources_servers.aalcr.judge_model_server.name=rule_judge",
    ]);
    expect(rows.length).toBe(2 * 16);
    for (const r of rows) {
      const right = userText(r).includes("What changed?");
      expect([r.reward, r.input_tokens_band, r[right ? "reward_80k_100k" : "reward_128k_plus"]]).toEqual(right ? [1, "80k-100k", 1] : [0, "128k+", 0]);
    }
    expect(prompts.length).toBe(32);
  }, 180_000);

  test("hle/config_vision: materialized multimodal rows reach the policy and the judge", async () => {
    const { rows, prompts } = await run("hle/config_vision", "rule_judge", (p) => (p.includes("Look at this") ? "Judgement: yes" : "Judgement: no"), [
      "++hle_vision_equivalence_llm_judge_resources_server.resources_servers.equivalence_llm_judge.judge_model_server.name=rule_judge",
      `+hf_token=${TOKEN}`,
    ]);
    expect(rows.length).toBe(3);
    const byQ = Object.fromEntries(rows.map((r) => [r.responses_create_params.input[1].content[0]?.text ?? r.responses_create_params.input[1].content, r]));
    expect(Object.keys(byQ).sort()).toEqual(["Look at this", "Raw {braces} and é", "What is ∫1?"]);
    expect(byQ["Look at this"]!.reward).toBe(1);
    expect(byQ["What is ∫1?"]!.reward).toBe(0);
    expect(byQ["Raw {braces} and é"]!.responses_create_params.input[1].content[1]).toEqual({ type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" });
    expect(prompts.length).toBe(3);
  }, 180_000);
});
