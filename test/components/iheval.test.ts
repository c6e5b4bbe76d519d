import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ROLLOUTS = join(import.meta.dir, "..", "..", "assets", "resources_servers", "iheval", "data", "example_rollouts.jsonl");

describe("gym eval reverify of upstream's recorded iheval example rollouts", () => {
  test("reproduces every recorded reward, scorer detail and generation", async () => {
    await using dir = await tempDir();
    const rv = await runGym(["eval", "reverify", "--resources-server", "iheval", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", ROLLOUTS, "-o", "rv.jsonl"], { cwd: dir.path });
    expect(rv.code).toBe(0);
    expect(rv.stderr).toContain("5 re-verified (0 with a different reward)");
    const out = new Map(readJsonl(join(dir.path, "rv.jsonl")).map((r) => [r._ng_task_index, r]));
    for (const r of readJsonl(ROLLOUTS)) {
      const got = out.get(r._ng_task_index)!;
      expect(got.reward).toBe(r.reward);
      for (const k of ["task", "setting", "row_id", "generation", "strict", "loose"]) expect(got[k]).toEqual(r[k]);
    }
  }, 120_000);
});
