/**
 * Upstream's environment bundles whose servers are built in (environments/<name>/config.yaml and
 * data) run end to end with `gym eval run --environment NAME --split example`, the model replaying
 * the bundle's recorded example rollouts, and reproduce the recorded rewards (paired by prompt).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const ENVS = join(import.meta.dir, "..", "..", "assets", "environments");
const stable = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(stable).join(",")}]` : v && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Row)[k])}`).join(",")}}` : JSON.stringify(v);
const promptKey = (r: Row) => stable((typeof r.responses_create_params.input === "string" ? [{ role: "user", content: r.responses_create_params.input }] : r.responses_create_params.input).map((m: Row) => [m.role, m.content]));

/** Bundles whose judge is another model server: pointed at the replaying scripted model, as `gym env test` does offline. */
const JUDGE_REPLAY: Record<string, string[]> = {
  abstention: ["++abstention.resources_servers.abstention.judge_model_server.name=policy_model"],
};

describe("environment bundles run on built-in servers and replay their recorded rewards", () => {
  test.each(["calendar", "calendar_v2", "arc_agi", "circle_click", "circle_count", "code_gen", "abstention"])("%s", async (env) => {
    await using dir = await tempDir();
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "run", "--environment", env, "--model-type", "scripted_model", "+head_server.port=0", `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=environments/${env}/data/example_rollouts.jsonl`, ...(JUDGE_REPLAY[env] ?? []), "--split", "example", "-o", out], { cwd: dir.path });
    expect(existsSync(out)).toBe(true);
    const recorded = new Map<string, unknown>();
    for (const l of readFileSync(join(ENVS, env, "data", "example_rollouts.jsonl"), "utf8").split("\n").filter((x) => x.trim())) {
      const rec = JSON.parse(l) as Row;
      if (!recorded.has(promptKey(rec))) recorded.set(promptKey(rec), rec.reward);
    }
    let agree = 0, compared = 0;
    for (const got of readJsonl(out)) {
      if (!recorded.has(promptKey(got))) continue;
      compared++;
      expect(got.reward).toBe(recorded.get(promptKey(got)));
      if (got.reward === recorded.get(promptKey(got))) agree++;
    }
    expect(compared).toBeGreaterThan(0);
    process.stderr.write(`environment ${env}: ${agree}/${compared} replayed rewards as recorded (exit ${r.code})\n`);
  }, 180_000);
});
