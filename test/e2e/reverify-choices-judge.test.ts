/**
 * `gym eval reverify` of upstream's recorded example rollouts for mcqa, gpqa_diamond and
 * equivalence_llm_judge (judge calls replayed by scripted_model from the rows' judge_evaluations,
 * D26) reproduces the recorded rewards. The rollout files carry no task index and no options, so
 * each rollout is paired with its example row by prompt and both get the same `_ng_task_index`.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");

function promptKey(r: Record<string, any>): string {
  return JSON.stringify((r.responses_create_params.input as Record<string, unknown>[]).map((m) => [m.role, m.content]));
}

/** Stamp rollouts (and their rows, when given) with matching indexes and the agent's name. */
function prepare(dir: string, server: string, rollouts: string, rows: string | undefined): { rollouts: string; inputs?: string } {
  const recs = readFileSync(join(ASSETS, server, "data", rollouts), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const byPrompt = new Map<string, Record<string, unknown>>();
  if (rows) for (const l of readFileSync(join(ASSETS, server, "data", rows), "utf8").split("\n").filter((x) => x.trim())) byPrompt.set(promptKey(JSON.parse(l)), JSON.parse(l));
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: `${server}_simple_agent` } });
  // Recorded indexes are kept out: two rollouts of one task would collide as (task, 0).
  const out = { rollouts: join(dir, `${rollouts}`), inputs: rows ? join(dir, `inputs_${rollouts}`) : undefined };
  writeFileSync(out.rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
  if (out.inputs) {
    writeFileSync(out.inputs, recs.map((r, i) => {
      const row = byPrompt.get(promptKey(r));
      if (!row) throw new Error(`${rollouts}: rollout ${i} has no example row with the same prompt`);
      return JSON.stringify({ ...row, ...stamp(i) });
    }).join("\n") + "\n");
  }
  return out;
}

/** The system message of the first recorded judge call of a server's example rollouts. */
function recordedSystemMessage(server: string): string {
  const first = JSON.parse(readFileSync(join(ASSETS, server, "data", "example_rollouts.jsonl"), "utf8").split("\n")[0]!);
  return first.judge_evaluations[0].responses_create_params.input[0].content;
}

// [server, rollouts file, example rows (for options/template_metadata), extra overrides, known upstream changes since recording]
const FILES: [string, string, string | undefined, string[] | ((dir: string) => string[]), Record<number, { recorded: number; now: number; why: string }>][] = [
  ["mcqa", "example_rollouts.jsonl", "example.jsonl", [], {
    // Upstream taught strict_single_letter_boxed to read `\boxed{C: option text}` after these were recorded
    // (tests/test_app.py TestStrictBoxedLatexExtraction); today's upstream extracts C here too.
    2: { recorded: 0, now: 1, why: "\\boxed{C: …} leading label" },
  }],
  ["mcqa", "example_rollouts_with_template_metadata.jsonl", "example_with_template_metadata.jsonl", [], {}],
  ["gpqa_diamond", "example_rollouts.jsonl", undefined, [], {}],
  ["bunsenbench_chemistry_mcq", "example_rollouts.jsonl", "example.jsonl", [], {}],
  // aalcr records its judge call as judge_responses_create_params / judge_response; the policy model replays it.
  ["aalcr", "example_rollouts.jsonl", undefined, ["++aalcr_resources_server.resources_servers.aalcr.judge_model_server.name=policy_model"], {}],
  // Upstream rewrote text_to_sql's judge system message after recording; the recorded one is passed in
  // (judge_system_message is a config key), so the replayed judge sees the prompts it saw then.
  ["text_to_sql", "example_rollouts.jsonl", undefined, (dir) => {
    const path = join(dir, "recorded-system-message.yaml");
    writeFileSync(path, JSON.stringify({ text_to_sql_resources_server: { resources_servers: { text_to_sql: { judge_system_message: recordedSystemMessage("text_to_sql") } } } }));
    return ["--config", path];
  }, {}],
  // xstest's shipped judge is a local vLLM WildGuard; the recorded WildGuard calls are replayed instead.
  ["xstest", "example_rollouts.jsonl", "example.jsonl", ["~allenai_wildguard_model_server", "++xstest_resources_server.resources_servers.xstest.judge_model_server.name=policy_model"], {}],
  ["equivalence_llm_judge", "example_rollouts.jsonl", "example.jsonl", [], {}],
  // Recorded with the swap check and the full-generation rescue on (two judge calls per row).
  ["equivalence_llm_judge", "example_rollouts_openqa.jsonl", "example_openqa.jsonl", [
    "++equivalence_llm_judge.resources_servers.equivalence_llm_judge.check_twice_swap=true",
    "++equivalence_llm_judge.resources_servers.equivalence_llm_judge.check_full_generation_on_fail=true",
  ], {}],
];

describe("gym eval reverify reproduces upstream's recorded rewards", () => {
  test.each(FILES)("%s %s", async (server, rollouts, rows, extra, changed) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, server, rollouts, rows);
    const out = join(dir.path, "out.jsonl");
    const r = await runGym([
      "eval", "reverify", "--force", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0",
      `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${p.rollouts}`,
      ...(typeof extra === "function" ? extra(dir.path) : extra), "--rollouts", p.rollouts, ...(p.inputs ? ["--inputs", p.inputs] : []), "-o", out,
    ], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const recorded = readJsonl(p.rollouts);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    for (const rec of recorded) {
      const got = now.get(rec._ng_task_index)!;
      const known = changed[rec._ng_task_index];
      if (known) expect([rec.reward, got.reward]).toEqual([known.recorded, known.now]);
      else expect(got.reward).toBe(rec.reward);
      if (got.reward === rec.reward) agree++;
      if (rec.judge_evaluations) expect(got.judge_evaluations.map((e: any) => e.verdict_label)).toEqual(rec.judge_evaluations.map((e: any) => e.verdict_label));
      if ("extracted_answer" in rec && !known) expect(got.extracted_answer).toBe(rec.extracted_answer);
    }
    process.stderr.write(`reverify ${server}/${rollouts}: ${agree}/${recorded.length} rewards as recorded\n`);
    expect(agree).toBe(recorded.length - Object.keys(changed).length);
  }, 120_000);
});

// Servers that record the judge's text (judge_output), not the call: a local chat endpoint answers each
// judge prompt with the judge_output recorded for the question and candidate it quotes.
// [server, rows whose verdict upstream changes today (row → verdict now), why]
const JUDGE_TEXT_FILES: [string, Record<number, string>, string][] = [
  // Upstream's parse_judge_grade now reads a leading grade letter first ("A: CORRECT"), so the recorded
  // judge texts "After reviewing …, the grade is B." / "… is C." parse as A today (the "A" of "After").
  ["simpleqa", { 3: "correct", 4: "correct" }, "grade parser reads the leading letter first"],
  ["omniscience", {}, ""],
  ["abstention", {}, ""],
];

describe("reverify with the recorded judge verdicts", () => {
  test.each(JUDGE_TEXT_FILES)("%s example_rollouts.jsonl", async (server, changed) => {
    const recs = readFileSync(join(ASSETS, server, "data", "example_rollouts.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
    const endpoint = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (req.method !== "POST") return Response.json({ object: "list", data: [] });
        const body = (await req.json()) as { messages?: { content: string }[]; input?: { content: string }[] };
        const prompt = (body.messages ?? body.input)![0]!.content;
        const rec = recs.find((r) => prompt.includes(r.question) && prompt.includes(r.extracted_answer));
        if (!rec) return new Response("no recorded verdict for this prompt", { status: 404 });
        if (body.input) {
          return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: rec.judge_output, annotations: [] }] }] });
        }
        return Response.json({ id: "c", object: "chat.completion", created: 1, model: "j", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: rec.judge_output } }] });
      },
    });
    try {
      await using dir = await tempDir();
      const rollouts = join(dir.path, "r.jsonl");
      writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: `${server}_simple_agent` } })).join("\n") + "\n");
      const out = join(dir.path, "out.jsonl");
      const r = await runGym([
        "eval", "reverify", "--force", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0",
        `++genrm_model={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${endpoint.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
        "--rollouts", rollouts, "-o", out,
      ], { cwd: dir.path });
      expect(r.stderr).toContain("0 failed");
      const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
      let agree = 0;
      recs.forEach((rec, i) => {
        expect(now.get(i)!.verdict).toBe(changed[i] ?? rec.verdict);
        if (now.get(i)!.reward === rec.reward) agree++;
      });
      process.stderr.write(`reverify ${server}/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded\n`);
      expect(agree).toBe(recs.length - Object.keys(changed).length);
    } finally {
      endpoint.stop(true);
    }
  }, 120_000);
});
