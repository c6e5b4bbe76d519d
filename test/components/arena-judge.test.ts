/**
 * arena_judge: upstream's tests/test_app.py as data (verdict parsing, sanitising, score function, key
 * metrics), the Arena-Elo headline against 43 cases computed once by upstream's own code (numpy
 * 1.24, pandas 1.5, scikit-learn 1.2: bootstrap draws included), the server over real sockets with a
 * local chat judge, and `gym eval reverify` of upstream's recorded rollouts with every verify field.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { arenaComputeMetrics, arenaKeyMetrics, component as arena, sanitizeGeneration } from "../../src/components/resources/arena-judge.ts";
import { arenaEloMetrics, arenaScores, parseArenaVerdict } from "../../src/verify/judge/arena.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers", "arena_judge");

test.each([
  ["my final verdict is [[A>B]]", "A>B"], ["verdict: [[A>>B]]", "A>>B"], ["close call, [[A=B]]", "A=B"], ["[[B>>A]]", "B>>A"], ["[[B>A]]", "B>A"],
  ["first: [[A>B]] then again [[A>B]]", "A>B"], ["[[A>B]] ... [[B>A]]", null], ["no verdict was given", null], ["", null], ["my verdict: [[A=]]", null],
  ["[[A>B]] and [[a>b]]", "A>B"], ["[[ A>B ]]", null],
] as [string, string | null][])("parseArenaVerdict(%p) = %p", (text, want) => expect(parseArenaVerdict(text) as string | null).toBe(want));

describe("sanitizeGeneration (upstream's TestSanitizeGeneration)", () => {
  test("clean text and valid pairs pass through; lone halves become replacement characters", () => {
    expect(sanitizeGeneration("hello world")).toBe("hello world");
    expect(sanitizeGeneration("hello 🐀 world")).toBe("hello 🐀 world");
    // Python: json.dumps → encode(surrogatepass) → decode(replace) gives three U+FFFD per lone half.
    expect(sanitizeGeneration("hello \ud83d world")).toBe("hello \ufffd\ufffd\ufffd world");
    const r = sanitizeGeneration("\ud83d mixed \udc00");
    expect(r.includes("\ud83d") || r.includes("\udc00")).toBe(false);
    expect(r).toContain("mixed");
    expect(sanitizeGeneration("a\u0000b")).toBe("a\u0000b"); // upstream's NUL strip never fires (json.dumps escaped it)
  });
});

test.each([
  [{ verdict_gen_base: "A>>B", verdict_base_gen: "B>>A" }, { wins: 1, strict_wins: 1, ties: 0, losses: 0, double_wins: 1, invalid_gen_base: 0 }],
  [{ verdict_gen_base: "A>B", verdict_base_gen: "A>B" }, { wins: 1, strict_wins: 0, ties: 0, losses: 0, double_wins: 0, invalid_gen_base: 0 }],
  [{ verdict_gen_base: "A=B", verdict_base_gen: "A=B" }, { wins: 0, strict_wins: 0, ties: 1, losses: 0, double_wins: 0, invalid_gen_base: 0 }],
  [{ verdict_gen_base: "B>>A", verdict_base_gen: "A>>B" }, { wins: 0, strict_wins: 0, ties: 0, losses: 1, double_wins: 0, invalid_gen_base: 0 }],
  [{ verdict_gen_base: null, verdict_base_gen: null, invalid_gen_base: true }, { wins: 0, strict_wins: 0, ties: 0, losses: 0, double_wins: 0, invalid_gen_base: 1 }],
] as [Record<string, unknown>, Record<string, number>][])("arenaScores %#", (r, want) => expect(arenaScores(r)).toEqual(want));

test("Arena-Elo equals upstream's show_result port on 43 verdict sets (score, bootstrap interval, invalid count, n)", () => {
  const lines = readFileSync(join(import.meta.dir, "..", "fixtures", "library", "arena-elo.jsonl"), "utf8").trim().split("\n");
  let same = 0;
  for (const line of lines) {
    const { tasks, expected } = JSON.parse(line) as { tasks: [string | null, string | null, string | null][][]; expected: Record<string, number | null> };
    const rows = tasks.map((t) => t.map(([g, b, c]) => ({ verdict_gen_base: g, verdict_base_gen: b, category: c })));
    const got = Object.fromEntries(Object.entries(arenaEloMetrics(rows, 100, 42)).map(([k, v]) => [k, Number.isNaN(v) ? null : v]));
    expect(got).toEqual(expected);
    same++;
  }
  expect(same).toBe(43);
});

test("compute_metrics has pass@k, category subsets and Arena-Elo; key metrics pick the headline (upstream's TestComputeAndKeyMetrics)", () => {
  const t = (g: string | null, b: string | null, category: string) => [{ verdict_gen_base: g, verdict_base_gen: b, category, reward: g === "A>>B" || g === "A>B" ? 1 : 0 }];
  const m = arenaComputeMetrics([t("A>>B", "B>>A", "hard_prompt"), t("A=B", "A=B", "hard_prompt"), t("B>>A", "A>>B", "hard_prompt"), t("A>B", "B>A", "creative_writing"), t("B>A", "A>B", "creative_writing")], 100, 42);
  expect(Object.keys(m).some((k) => k.startsWith("pass@1[avg-of-") && k.endsWith("/wins"))).toBe(true);
  expect(Object.keys(m).some((k) => k.startsWith("hard_prompt/"))).toBe(true);
  expect(Object.keys(m).some((k) => k.startsWith("creative_writing/"))).toBe(true);
  for (const k of ["arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores", "arena_elo/hard_prompt/score", "arena_elo/creative_writing/score"]) expect(m).toHaveProperty([k]);
  expect(arenaComputeMetrics([t("B>>A", "A>>B", "hard_prompt"), t("B>>A", "A>>B", "hard_prompt")], 100, 42)["arena_elo/score"]).toBe(0);
  const invalid = arenaComputeMetrics([t(null, null, "hard_prompt")], 100, 42);
  expect([Number.isNaN(invalid["arena_elo/score"]), invalid["arena_elo/invalid_scores"]]).toEqual([true, 2]);
  const key = arenaKeyMetrics({ "mean/input_tokens": 100, "mean/output_tokens": 200, "pass@1[avg-of-4]/wins": 0.5, "pass@4/wins": 0.75, "pass@4/no_answer": 0.01 });
  expect(key).toMatchObject({ "mean/input_tokens": 100, "mean/output_tokens": 200, "pass@1[avg-of-4]/wins": 0.5, "pass@4/wins": 0.75 });
  expect(key).not.toHaveProperty(["pass@4/no_answer"]);
});

// A local chat judge: answers queued per test (or 500), requests recorded.
const seen: any[] = [];
const answers: (string | 500)[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    seen.push(await req.json());
    const text = answers.shift() ?? "no verdict";
    if (text === 500) return new Response("overloaded", { status: 500 });
    return Response.json({ id: "c", object: "chat.completion", created: 0, model: "j", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }] });
  },
});
afterAll(() => judge.stop(true));
const stackExtra = { request_timeout_seconds: 5, judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } };
const leaf = (extra: Record<string, unknown> = {}) => ({ judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_chat_completions_create_params: { messages: [], max_tokens: 4096, temperature: 0.0 }, ...extra });
const row = (text: string, fields: Record<string, unknown>) => ({
  responses_create_params: { input: [] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] },
  ...fields,
});

describe("arena_judge server (upstream's TestArenaJudgeServer)", () => {
  test.each([
    [["verdict: [[A>>B]]", "verdict: [[B>>A]]"], 1, "A>>B", "B>>A"],
    [["[[A>B]]", "[[B>A]]"], 1, "A>B", "B>A"],
    [["[[A=B]]", "[[A=B]]"], 0, "A=B", "A=B"],
    [["[[B>>A]]", "[[A>>B]]"], 0, "B>>A", "A>>B"],
    [["lots of text but no verdict", "[[A>B]]"], 0, null, "A>B"],
  ] as [string[], number, string | null, string | null][])("judge says %p → reward %p", async (said, reward, gen, base) => {
    await using s = await startStack([{ name: "aj", serverType: "resources_servers", impl: "arena_judge", leaf: leaf() }], stackExtra);
    answers.length = 0;
    seen.length = 0;
    answers.push(...said);
    const r = (await postJson(`${s.url.aj}/verify`, row("detailed candidate answer", { question: "q", baseline_answer: "baseline", category: "hard_prompt" }))).json;
    expect([r.reward, r.verdict_gen_base, r.verdict_base_gen, r.invalid_gen_base, r.invalid_base_gen, r.category]).toEqual([reward, gen, base, gen === null, base === null, "hard_prompt"]);
    expect([r.judgement_gen_base, r.uid, r.question]).toEqual([said[0], null, "q"]);
    // The gen-base request puts the candidate first; the swapped one the baseline. Sent as upstream's params.
    const users = seen.map((b) => b.messages.at(-1).content as string);
    expect(users[0]!.indexOf("detailed candidate answer")).toBeLessThan(users[0]!.indexOf("baseline"));
    expect(users[1]!.indexOf("baseline")).toBeLessThan(users[1]!.indexOf("detailed candidate answer"));
    expect(seen[0]).toMatchObject({ max_tokens: 4096, temperature: 0 });
  });

  test("unknown or missing category falls back to the default; creative_writing uses its own system prompt", async () => {
    await using s = await startStack([{ name: "aj", serverType: "resources_servers", impl: "arena_judge", leaf: leaf() }], stackExtra);
    answers.length = 0;
    answers.push("[[A>B]]", "[[B>A]]", "[[A>B]]", "[[B>A]]");
    expect((await postJson(`${s.url.aj}/verify`, row("ok", { question: "q", baseline_answer: "b", category: "does_not_exist" }))).json).toMatchObject({ category: "hard_prompt", reward: 1 });
    expect((await postJson(`${s.url.aj}/verify`, row("ok", { question: "q", baseline_answer: "b" }))).json).toMatchObject({ category: "hard_prompt", reward: 1 });
    seen.length = 0;
    answers.push("[[A>B]]", "[[A>B]]");
    await postJson(`${s.url.aj}/verify`, row("ok", { question: "write a haiku", baseline_answer: "baseline haiku", category: "creative_writing" }));
    expect(seen).toHaveLength(2);
    for (const b of seen) {
      const systems = b.messages.filter((m: any) => m.role === "system");
      expect(systems).toHaveLength(1);
      expect(systems[0].content).not.toContain("generating your own answer");
    }
  });

  test("sanitize_generations scrubs lone surrogates from both answers before judging", async () => {
    await using s = await startStack([{ name: "aj", serverType: "resources_servers", impl: "arena_judge", leaf: leaf({ sanitize_generations: true }) }], stackExtra);
    seen.length = 0;
    answers.length = 0;
    await postJson(`${s.url.aj}/verify`, row("candidate \ud83d answer", { question: "q", baseline_answer: "baseline \udc00 answer", category: "hard_prompt" }));
    for (const b of seen) for (const m of b.messages) expect(/[\ud800-\udfff]/.test(m.content)).toBe(false);
    expect(seen[0].messages.at(-1).content).toContain("candidate \ufffd\ufffd\ufffd answer");
  });

  test("a judge failure in either direction is a judge_failed row; a bad default_category fails at start", async () => {
    await using s = await startStack([{ name: "aj", serverType: "resources_servers", impl: "arena_judge", leaf: leaf() }], stackExtra);
    answers.length = 0;
    answers.push("[[A>B]]", 500);
    expect((await postJson(`${s.url.aj}/verify`, row("ok", { question: "q", baseline_answer: "b" }))).json._ng_failure_class).toBe("judge_failed");
    expect(() => arena.checkConfig!({ instanceName: "aj", config: leaf({ default_category: "nonexistent" }) })).toThrow("default_category=\"nonexistent\" is not in judge_prompt_paths keys");
    await expect(startStack([{ name: "aj", serverType: "resources_servers", impl: "arena_judge", leaf: leaf({ judge_prompt_paths: { hard_prompt: "nope.yaml" } }) }], stackExtra)).rejects.toThrow("judge_prompt_paths.hard_prompt nope.yaml was not found");
  });
});

test("gym eval reverify reproduces every recorded verify field of upstream's example rollouts (judge text replayed)", async () => {
  await using dir = await tempDir();
  const recs = readFileSync(join(ASSETS, "data", "example_rollouts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const rollouts = join(dir.path, "rollouts.jsonl");
  writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym([
    "eval", "reverify", "--resources-server", "arena_judge", "--model-type", "scripted_model", "+head_server.port=0",
    `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${rollouts}`,
    "++arena_judge.resources_servers.arena_judge.judge_model_server.name=policy_model", "~arena_judge_judge_model",
    "--rollouts", rollouts, "-o", out,
  ], { cwd: dir.path });
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  let agree = 0;
  for (const rec of recs) {
    const got = now.get(rec._ng_task_index)!;
    for (const k of ["reward", "judgement_gen_base", "judgement_base_gen", "verdict_gen_base", "verdict_base_gen", "category", "invalid_gen_base", "invalid_base_gen", "question", "baseline_answer", "uid"]) expect([k, got[k]]).toEqual([k, rec[k]]);
    agree++;
  }
  console.log(`arena_judge: ${agree}/${recs.length} recorded rollouts reproduced field for field`);
  expect(agree).toBe(5);
}, 120_000);
