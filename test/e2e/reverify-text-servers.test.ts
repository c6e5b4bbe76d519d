/**
 * `gym eval reverify` of upstream's recorded example rollouts for the citation / text / structured
 * servers reproduces the recorded rewards and every other recorded verify field. Rollouts are paired
 * with their example row by prompt (recorded inputs gained `type: "message"`), else by task index.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ASSETS, jsonLines, promptKey as rolePromptKey, runReverify, WIRE, writePairs, type ReverifyFiles, type Row } from "../helpers/reverify.ts";
import { tempDir } from "../helpers/tmp.ts";

// Tool calls and their outputs are part of these prompts: they pair on type and output/arguments too.
const promptKey = (r: Row) => rolePromptKey(r, (m) => [m.role ?? m.type, m.content ?? m.output ?? m.arguments]);

/** One reverify case: selector, asset dir, agent, example file, rollouts file, fields whose recorded value is not reproducible (with why). */
interface Case {
  selector: string;
  server: string;
  agent: string;
  examples?: string;
  rollouts?: string;
  skipFields?: string[];
  /** Example rows from a test fixture instead of the asset (rollouts recorded against an older example file). */
  examplesFixture?: string;
  /** Extra overrides (with the reason in CASES). */
  overrides?: string[];
}

function prepare(dir: string, c: Case): ReverifyFiles {
  const data = join(ASSETS, c.server, "data");
  const examples = jsonLines(c.examplesFixture ? join(import.meta.dir, "..", "fixtures", "library", c.examplesFixture) : join(data, c.examples ?? "example.jsonl"));
  const byPrompt = new Map(examples.map((r) => [promptKey(r), r]));
  return writePairs(dir, jsonLines(join(data, c.rollouts ?? "example_rollouts.jsonl")), (r) => byPrompt.get(promptKey(r)) ?? examples[r._ng_task_index], { name: c.agent }, c.server);
}

const CASES: Case[] = [
  { selector: "citation_if", server: "citation_if", agent: "citation_if_simple_agent" },
  { selector: "hotpotqa_qa", server: "hotpotqa_qa", agent: "hotpotqa_qa_simple_agent" },
  { selector: "structeval/structeval_nonrenderable", server: "structeval", agent: "structeval_nonrenderable_simple_agent" },
  { selector: "structeval/structeval_nonrenderable", server: "structeval", agent: "structeval_nonrenderable_simple_agent", examples: "structeval_nonrenderable_example.jsonl", rollouts: "structeval_nonrenderable_example_rollouts.jsonl" },
  // Upstream recorded these rollouts against the example.jsonl that commit 9e447f784 replaced (v4 tool calls): its
  // rows are a test fixture taken from that commit's parent.
  { selector: "structured_outputs/structured_outputs_json", server: "structured_outputs", agent: "structured_outputs_simple_agent", examplesFixture: "structured-outputs-example-9e447f784-parent.jsonl" },
  { selector: "ragtruth", server: "ragtruth", agent: "ragtruth_simple_agent" },
  // spartqa.yaml spells its license "CC-BY-SA-4.0" (an SPDX id upstream rejects); gym reads it as CC BY-SA 4.0.
  { selector: "spartqa", server: "spartqa", agent: "spartqa_simple_agent" },
];

describe("gym eval reverify reproduces upstream's recorded rewards (citation, text and structured servers)", () => {
  test.each(CASES.map((c) => [`${c.server}/${c.rollouts ?? "example_rollouts.jsonl"}`, c] as const))("%s", async (_name, c) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, c);
    const r = await runReverify(dir.path, c.selector, p, c.overrides);
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = r.byTask;
    let agree = 0;
    for (const rec of p.recs) {
      const got = now.get(rec._ng_task_index)!;
      expect(got.reward).toBe(rec.reward);
      if (got.reward === rec.reward) agree++;
      for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_") && !c.skipFields?.includes(k)) expect([k, got[k]]).toEqual([k, v]);
    }
    process.stderr.write(`reverify ${c.server}/${c.rollouts ?? "example_rollouts.jsonl"}: ${agree}/${p.recs.length} rewards as recorded\n`);
  }, 120_000);
});
