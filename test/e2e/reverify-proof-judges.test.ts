/**
 * `gym eval reverify` of upstream's recorded example rollouts for proof_judge and proof_verification.
 * Their recordings keep only the reward, not the judge's answers, so a local judge endpoint stands in:
 * it knows each judge prompt by the sha256 of the text upstream's own Python renders for that rollout
 * (computed once with upstream's `parse_response` / `parse_verification_response` and its templates) and
 * answers the score that reproduces the recorded reward. A prompt it does not know gets no score and is
 * reported, so the test checks both the byte-exact proof / verification extraction and the reward formula.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const sha16 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** Judge prompt digests upstream's Python renders per recorded rollout (task index → verifier, meta). */
const PROOF_JUDGE: Record<number, { verifier: string; meta: string; reward: number }> = {
  0: { verifier: "31ffba5cd738635e", meta: "54a7132847f6c45d", reward: 1.0 },
  1: { verifier: "d54c388957ff4d05", meta: "b4bce6f5bd3e6d1c", reward: 1.0 },
  2: { verifier: "e3077540d3d59bbb", meta: "d326b8ea69422cfd", reward: 0.0 },
  3: { verifier: "b5e81e3ff65f7fc3", meta: "3c543a0d420f05a8", reward: 1.0 },
  4: { verifier: "4c96c331580b10cd", meta: "35bd0d73e75c94ee", reward: 0.0 },
};
/** proof_verification: meta prompt digest and the r_score = 1 − |predicted − gold| upstream computes. */
const PROOF_VERIFICATION: Record<number, { meta: string; rScore: number }> = {
  0: { meta: "7ca3f5e396303014", rScore: 1.0 },
  1: { meta: "e338e23e5e070e04", rScore: 0.5 },
  2: { meta: "2298d15ec583c825", rScore: 0.5 },
  3: { meta: "2f7de9c25a996cf3", rScore: 1.0 },
  4: { meta: "123bcd732edf2a3f", rScore: 0.5 },
};

/** A Responses endpoint answering `\boxed{score}` for a known prompt digest, and "no verdict" otherwise. */
function judgeEndpoint(answers: Map<string, number>, unknown: string[]) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return Response.json({ object: "list", data: [] });
      const body = (await req.json()) as { input: { content: string }[] };
      const prompt = body.input[body.input.length - 1]!.content;
      const score = answers.get(sha16(prompt));
      if (score === undefined) unknown.push(prompt.slice(0, 200));
      const text = score === undefined ? "I cannot grade this." : `Evaluation done.\n\\boxed{${score}}`;
      return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
    },
  });
}

/** Reverify one server's recordings (paired with their materialized inputs) against the judge endpoint. */
async function reverify(server: string, answers: Map<string, number>, extra: string[] = []): Promise<{ got: Map<number, Row>; recs: Row[]; unknown: string[] }> {
  const unknown: string[] = [];
  const endpoint = judgeEndpoint(answers, unknown);
  try {
    await using dir = await tempDir();
    const data = join(ASSETS, server, "data");
    const agent = `${server === "proof_judge" ? "proof" : server}_simple_agent`;
    const stamp = { agent_ref: { type: "responses_api_agents", name: agent } };
    const recs = lines(join(data, "example_rollouts.jsonl")).map((r) => ({ ...r, ...stamp }));
    const inputs = lines(join(data, "example_rollouts_materialized_inputs.jsonl")).map((r) => ({ ...r, ...stamp }));
    const rollouts = join(dir.path, "rollouts.jsonl");
    const inputsPath = join(dir.path, "inputs.jsonl");
    writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(inputsPath, inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir.path, "out.jsonl");
    const r = await runGym([
      "eval", "reverify", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0",
      `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${rollouts}`,
      `++judge={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${endpoint.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
      `++${server}.resources_servers.${server}.judge_model_server.name=judge`,
      ...extra,
      "--rollouts", rollouts, "--inputs", inputsPath, "-o", out,
    ], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const rows = readJsonl(out);
    expect(rows.map((x) => x._ng_failure_class ?? null)).toEqual(recs.map(() => null));
    return { got: new Map(rows.map((x) => [x._ng_task_index as number, x])), recs, unknown };
  } finally {
    endpoint.stop(true);
  }
}

describe("gym eval reverify reproduces upstream's recorded proof-judge rollouts", () => {
  test("proof_judge (alpha 1, beta 0): the verifier's score is the reward; every verifier prompt is byte-exact", async () => {
    const answers = new Map(Object.values(PROOF_JUDGE).map((t) => [t.verifier, t.reward]));
    const { got, recs, unknown } = await reverify("proof_judge", answers);
    expect(unknown).toEqual([]);
    let agree = 0;
    for (const rec of recs) if (got.get(rec._ng_task_index)?.reward === rec.reward) agree++;
    console.log(`proof_judge: ${agree}/${recs.length} recorded rewards reproduced`);
    expect(agree).toBe(recs.length);
    // The answer is the request plus reward, as upstream's: the row's problem is echoed.
    expect(got.get(0)!.problem).toBe(recs.find((r) => r._ng_task_index === 0)!.problem);
  }, 120_000);

  test("proof_judge with beta 0.5: the meta-verifier runs too; reward r_y + ½·(1 − |s′ − r_y|)·r_meta", async () => {
    const answers = new Map<string, number>();
    for (const t of Object.values(PROOF_JUDGE)) {
      answers.set(t.verifier, t.reward);
      answers.set(t.meta, 1);
    }
    const { got, unknown } = await reverify("proof_judge", answers, ["++proof_judge.resources_servers.proof_judge.beta=0.5"]);
    expect(unknown).toEqual([]);
    // Every recorded self-evaluation predicts 1 (s′ = 1): agreement adds ½ where the verifier gave 1.
    for (const [task, t] of Object.entries(PROOF_JUDGE)) expect(got.get(Number(task))!.reward).toBe(t.reward === 1 ? 1.5 : 0);
  }, 120_000);

  test("proof_verification: (1 − |predicted − gold|) · r_meta; every meta prompt is byte-exact", async () => {
    const recs = lines(join(ASSETS, "proof_verification", "data", "example_rollouts.jsonl"));
    const answers = new Map<string, number>();
    for (const rec of recs) {
      const t = PROOF_VERIFICATION[rec._ng_task_index]!;
      const meta = rec.reward / t.rScore;
      // The recorded reward must be reachable with a meta score of 0, ½ or 1: a check on the recording itself.
      expect([0, 0.5, 1]).toContain(meta);
      answers.set(t.meta, meta);
    }
    const { got, unknown } = await reverify("proof_verification", answers);
    expect(unknown).toEqual([]);
    let agree = 0;
    for (const rec of recs) if (got.get(rec._ng_task_index)?.reward === rec.reward) agree++;
    console.log(`proof_verification: ${agree}/${recs.length} recorded rewards reproduced`);
    expect(agree).toBe(recs.length);
  }, 120_000);
});
