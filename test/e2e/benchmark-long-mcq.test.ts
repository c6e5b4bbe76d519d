/**
 * `gym eval run --benchmark NAME --model-type scripted_model` for benchmarks added with issue 14:
 * global-piqa (per-row output_regex, grading_mode null) and longcodebench (strict boxed letters) are
 * prepared on the spot from the fixture Hub, then replayed right and wrong answers score exactly
 * those rows; longmemeval runs against a local rule-based judge endpoint in place of its judge_model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

type Rec = Record<string, any>;
let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

/** A replay book answering each task's first-run input with `text(task)`. */
function replayBook(rows: Rec[], text: (r: Rec) => string): string {
  const byTask = new Map(rows.map((r) => [r._ng_task_index as number, r]));
  return [...byTask.values()]
    .map((r) =>
      JSON.stringify({
        responses_create_params: r.responses_create_params,
        response: { ...r.response, output: [{ id: `msg_${r._ng_task_index}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: text(r), annotations: [] }] }] },
      }),
    )
    .join("\n");
}

async function runTwice(bench: string, answer: (r: Rec) => string): Promise<{ first: Rec[]; second: Rec[] }> {
  await using dir = await tempDir();
  const env = { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url };
  const base = ["eval", "run", "--benchmark", bench, "--model-type", "scripted_model", "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`];
  const a = await runGym([...base, "-o", "r1/rollouts.jsonl"], { cwd: dir.path, env });
  expect(a.stderr).not.toContain("error:");
  expect(a.code).toBe(0);
  const first = readJsonl(join(dir.path, "r1", "rollouts.jsonl")) as Rec[];
  writeFileSync(join(dir.path, "replay.jsonl"), `${replayBook(first, answer)}\n`);
  const b = await runGym([...base, "-o", "r2/rollouts.jsonl", `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${join(dir.path, "replay.jsonl")}`], { cwd: dir.path, env });
  expect(b.stderr).not.toContain("error:");
  expect(b.code).toBe(0);
  return { first, second: readJsonl(join(dir.path, "r2", "rollouts.jsonl")) as Rec[] };
}

describe("gym eval run --benchmark (issue 14 additions)", () => {
  test("global-piqa: the prompt renders A/B, the per-row regexes grade replayed answers", async () => {
    // Rows in prepared order: zho_hans (gold B), eng_latn jar (gold A), eng_latn shoes (gold A).
    const answers: Record<string, string> = { "你想把水烧开。": "The best answer is: B", "To open a jar,": "Answer: B", 'Dry wet "shoes"': "I think \\boxed{A}" };
    const situation = (r: Rec) => /Situation:\n(.*) \.\.\./.exec(r.responses_create_params.input[0].content as string)![1]!;
    const { first, second } = await runTwice("global-piqa", (r) => answers[situation(r)]!);
    expect(first.length).toBe(3);
    expect(first.find((r) => situation(r) === "To open a jar,")!.responses_create_params.input[0].content).toBe(
      'Given the following situation, which option is more likely to be correct?\n\nSituation:\nTo open a jar, ...\n\nOption A: twist the lid.\n\nOption B: freeze it.\n\nYour response should end with "The best answer is: [answer_letter]" where [answer_letter] is one of A or B.',
    );
    const got = Object.fromEntries(second.map((r) => [situation(r), [r.reward, r.extracted_answer]]));
    expect(got).toEqual({ "你想把水烧开。": [1, "B"], "To open a jar,": [0, "B"], 'Dry wet "shoes"': [1, "A"] });
  }, 180_000);

  test("longcodebench: strict boxed letters", async () => {
    // Rows told apart by their prompt's first word; gold letters: Root C, def B, <|endoftext|> D, short A.
    const head = (r: Rec) => (r.responses_create_params.input[0].content as string).split(/[\s(]/)[0]!;
    const answers: Record<string, string> = { Root: "Answer: \\boxed{C}", def: "Answer: \\boxed{A}", "<|endoftext|>": "Answer: D", short: "\\boxed{A}" };
    const { first, second } = await runTwice("longcodebench", (r) => answers[head(r)]!);
    expect(first.length).toBe(4);
    expect(first.map((r) => r.responses_create_params.input.length)).toEqual([1, 1, 1, 1]);
    expect(first.every((r) => (r.responses_create_params.input[0].content as string).endsWith("(e.g. 'Answer: \\boxed{A}')."))).toBe(true);
    const got = Object.fromEntries(second.map((r) => [head(r), [r.reward, r.extracted_answer]]));
    expect(got).toEqual({ Root: [1, "C"], def: [0, "A"], "<|endoftext|>": [0, null], short: [1, "A"] });
  }, 180_000);

  test("longmemeval: prepared rows run against a rule-based judge", async () => {
    const prompts: string[] = [];
    const judge = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (req.method !== "POST") return Response.json({ object: "list", data: [] });
        const body = (await req.json()) as { input: { role: string; content: string }[] };
        const user = body.input[body.input.length - 1]!.content;
        prompts.push(user);
        const text = user.includes("Where did I go?") ? "yes" : "no";
        return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
      },
    });
    try {
      await using dir = await tempDir();
      const r = await runGym(
        [
          "eval", "run", "--benchmark", "longmemeval", "--model-type", "scripted_model", "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`, "-o", "out/r.jsonl",
          `++judge_model={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${judge.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
        ],
        { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url } },
      );
      expect(r.stderr).not.toContain("error:");
      expect(r.code).toBe(0);
      const rows = readJsonl(join(dir.path, "out", "r.jsonl")) as Rec[];
      expect(rows.map((x) => [x.verifier_metadata?.question_id ?? x.question_id, x.reward]).sort()).toEqual([["q1", 1], ["q2_abs", 0]]);
      expect(prompts.length).toBe(2);
      expect(prompts.some((p) => p.includes("unanswerable question") && p.includes("How many dogs?"))).toBe(true);
    } finally {
      judge.stop(true);
    }
  }, 180_000);
});
