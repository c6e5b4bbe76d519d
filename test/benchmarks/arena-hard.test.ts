/**
 * `gym eval prepare` of arena_hard and arena_hard_v2 over the local mirror: the lines equal what
 * upstream's prepare.py wrote for the same fixture files (test/fixtures/benchmarks/arena-files.ts), and
 * a question whose baseline answer is missing stops the preparation naming the file, line and uid.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";
import { ARENA_LINES, M_ARENA_JSONL, M_ARENA_LINES } from "../fixtures/benchmarks/arena-files.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

const prepare = (cwd: string, names: string[]) =>
  runGym(["eval", "prepare", ...names.flatMap((n) => ["--benchmark", n]), "--output-dir", join(cwd, "out"), `+benchmark_mirror_url=${srv.url}`], { cwd, env: { XDG_CACHE_HOME: join(cwd, "cache") } });

test("arena_hard and arena_hard_v2 write upstream's lines", async () => {
  await using dir = await tempDir();
  const r = await prepare(dir.path, ["arena_hard", "arena_hard_v2"]);
  expect(r.stderr).not.toContain("error:");
  expect(r.code).toBe(0);
  for (const [name, file] of [["arena_hard", "arena_hard_benchmark.jsonl"], ["arena_hard_v2", "arena_hard_v2_benchmark.jsonl"]]) {
    const got = readFileSync(join(dir.path, "out", "benchmarks", name!, "data", file!), "utf8").trimEnd().split("\n");
    expect([name, got]).toEqual([name, ARENA_LINES[name!]!]);
  }
}, 120_000);

test("m_arena_hard and m_arena_hard_v2: every Hub language config in card order, upstream's lines", async () => {
  await using dir = await tempDir();
  const r = await runGym(["eval", "prepare", "--benchmark", "m_arena_hard", "--benchmark", "m_arena_hard_v2", "--output-dir", join(dir.path, "out")], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url } });
  expect(r.stderr).not.toContain("error:");
  expect(r.code).toBe(0);
  for (const [name, rel] of Object.entries(M_ARENA_JSONL)) {
    const got = readFileSync(join(dir.path, "out", rel), "utf8").trimEnd().split("\n");
    expect([name, got]).toEqual([name, M_ARENA_LINES[name]!]);
  }
}, 120_000);

test("a question without a baseline answer stops the preparation and writes nothing", async () => {
  await using dir = await tempDir();
  const path = "/raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/arena-hard-v2.0/model_answer/gemini-2.0-flash-001.jsonl";
  const real = srv.files.get(path)!;
  srv.files.set(path, new TextEncoder().encode(""));
  try {
    const r = await prepare(dir.path, ["arena_hard_v2"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("question.jsonl:2");
    expect(r.stderr).toContain('no "creative_writing" baseline answer for question uid "c1"');
    expect(existsSync(join(dir.path, "out", "benchmarks", "arena_hard_v2", "data", "arena_hard_v2_benchmark.jsonl"))).toBe(false);
  } finally {
    srv.files.set(path, real);
  }
}, 120_000);

test("gym eval run --benchmark arena_hard_v2: both directions judged per row, Arena-Elo per category in the aggregate metrics", async () => {
  await using dir = await tempDir();
  // A chat judge that prefers the candidate on hard prompts and the baseline on creative writing
  // (the creative template is the one whose system prompt does not ask for the judge's own answer).
  const judge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return Response.json({ object: "list", data: [] });
      const body = (await req.json()) as { messages: { role: string; content: string }[] };
      const creative = !body.messages[0]!.content.includes("generating your own answer");
      const user = body.messages.at(-1)!.content;
      const baseline = creative ? "Grey fog on the bay" : "Lifetimes name how long";
      const aIsCandidate = user.indexOf(baseline) > user.indexOf("<|The Start of Assistant B's Answer|>");
      const prefersCandidate = !creative;
      const label = prefersCandidate === aIsCandidate ? (creative ? "[[A>>B]]" : "[[A>B]]") : creative ? "[[B>>A]]" : "[[B>A]]";
      return Response.json({ id: "c", object: "chat.completion", created: 0, model: "j", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `Verdict: ${label}` } }] });
    },
  });
  try {
    const r = await runGym([
      "eval", "run", "--benchmark", "arena_hard_v2", "--model-type", "scripted_model", "+head_server.port=0", "-o", "res/rollouts.jsonl", `+benchmark_mirror_url=${srv.url}`,
      `++arena_judge_judge_model.responses_api_models.openai_model.openai_base_url=http://127.0.0.1:${judge.port}/v1`,
      "++arena_judge_judge_model.responses_api_models.openai_model.openai_api_key=dummy", "++arena_judge_judge_model.responses_api_models.openai_model.openai_model=judge",
    ], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache") } });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const rows = readFileSync(join(dir.path, "res", "rollouts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const byCat = Object.fromEntries(rows.map((x) => [x.category, [x.reward, x.verdict_gen_base, x.verdict_base_gen]]));
    expect(byCat).toEqual({ hard_prompt: [1, "A>B", "B>A"], creative_writing: [0, "B>>A", "A>>B"] });
    const agg = JSON.parse(readFileSync(join(dir.path, "res", "rollouts_aggregate_metrics.json"), "utf8"));
    const m = agg[0].agent_metrics;
    // Battles: hard 2 candidate wins (weight 1 each way), creative 6 baseline wins (weight 3): q = 4/16.
    expect([m["arena_elo/score"], m["arena_elo/hard_prompt/score"], m["arena_elo/creative_writing/score"], m["arena_elo/n"]]).toEqual([25, 100, 0, 2]);
  } finally {
    judge.stop(true);
  }
}, 180_000);
