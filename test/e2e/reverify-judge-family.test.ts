/**
 * `gym eval reverify` of upstream's recorded example rollouts for the judge family servers that
 * record the judge's TEXT (not the call): a local OpenAI-compatible endpoint stands in for the
 * judge and answers each judge prompt with the text recorded for it, so today's verifier re-reads
 * the recorded verdicts and must reproduce the recorded rewards.
 *
 * multichallenge, over_refusal_detection and jailbreak_detection ship no recorded rewards upstream
 * (their example_rollouts.jsonl is a copy of the rows or placeholder lines); they are covered by
 * test/e2e/judge-family-run.test.ts instead.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
type Rec = Record<string, any>;

/** The recorded judge text for a judge prompt (the last message's content), or undefined. */
type Lookup = (recs: Rec[], prompt: string) => string | undefined;

// [server, judge text lookup, the example row a rollout was collected from (when the verify
// response drops task fields the verifier needs again, as inverse_if drops its rubric)]
const FILES: [server: string, lookup: Lookup, rowOf: ((rec: Rec, rows: Rec[]) => Rec) | undefined][] = [
  // One judge call per row; its prompt quotes the row's question and gold answer.
  ["longmemeval", (recs, p) => recs.find((r) => p.includes(r.verifier_metadata.question) && p.includes(String(r.verifier_metadata.answer)))?.judge_raw, undefined],
  // Chat-completions judge (use_chat_completions_for_judge: true in the shipped config).
  ["frontierscience_judge", (recs, p) => recs.find((r) => p.includes(`The problem: ${r.question}\n`) && p.includes(`The attempted answer: ${r.extracted_answer}\n`))?.judge_output, undefined],
  // One judge call per rubric criterion; each recorded evaluation keeps the exact prompt.
  ["inverse_if", (recs, p) => recs.flatMap((r) => r.rubric_evaluations).find((e: Rec) => e.judge_prompt === p)?.judge_response, (rec, rows) => rows.find((x) => x.uuid === rec.uuid)!],
];

function judgeEndpoint(recs: Rec[], lookup: Lookup, seen: string[]) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return Response.json({ object: "list", data: [] });
      const body = (await req.json()) as { messages?: { content: string }[]; input?: { content: string }[] };
      const msgs = (body.messages ?? body.input)!;
      const prompt = msgs[msgs.length - 1]!.content;
      seen.push(body.messages ? "chat" : "responses");
      const text = lookup(recs, prompt);
      if (text === undefined) return new Response("no recorded verdict for this prompt", { status: 404 });
      if (body.input) {
        return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
      }
      return Response.json({ id: "c", object: "chat.completion", created: 1, model: "j", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }] });
    },
  });
}

describe("reverify of the judge family's recorded example rollouts (judge texts replayed)", () => {
  test.each(FILES)("%s", async (server, lookup, rowOf) => {
    const recs = readFileSync(join(ASSETS, server, "data", "example_rollouts.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Rec);
    const seen: string[] = [];
    const endpoint = judgeEndpoint(recs, lookup, seen);
    try {
      await using dir = await tempDir();
      const rollouts = join(dir.path, "r.jsonl");
      writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { type: "responses_api_agents", name: `${server}_simple_agent` } })).join("\n") + "\n");
      let inputs: string[] = [];
      if (rowOf) {
        const rows = readJsonl(join(ASSETS, server, "data", "example.jsonl"));
        writeFileSync(join(dir.path, "in.jsonl"), recs.map((r, i) => JSON.stringify({ ...rowOf(r, rows), _ng_task_index: i, _ng_rollout_index: 0 })).join("\n") + "\n");
        inputs = ["--inputs", join(dir.path, "in.jsonl")];
      }
      const out = join(dir.path, "out.jsonl");
      const r = await runGym([
        "eval", "reverify", "--force", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0",
        `++judge_model={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${endpoint.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
        "--rollouts", rollouts, ...inputs, "-o", out,
      ], { cwd: dir.path });
      expect(r.stderr).toContain("0 failed");
      expect(r.code).toBe(0);
      const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
      let agree = 0;
      recs.forEach((rec, i) => {
        const got = now.get(i)!;
        expect(got.reward).toBe(rec.reward);
        if (got.reward === rec.reward) agree++;
        for (const k of ["verdict", "judge_raw", "judge_label", "question_type", "abstention", "generation", "extracted_answer", "num_passed", "num_total"]) if (k in rec) expect([k, got[k]]).toEqual([k, rec[k]]);
        if (rec.rubric_evaluations) expect(got.rubric_evaluations.map((e: Rec) => [e.verdict, e.judge_prompt])).toEqual(rec.rubric_evaluations.map((e: Rec) => [e.verdict, e.judge_prompt]));
      });
      if (server === "frontierscience_judge") expect(new Set(seen)).toEqual(new Set(["chat"]));
      process.stderr.write(`reverify ${server}/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded\n`);
      expect(agree).toBe(recs.length);
    } finally {
      endpoint.stop(true);
    }
  }, 120_000);
});
