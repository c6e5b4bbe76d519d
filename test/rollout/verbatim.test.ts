import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutConfigFrom } from "../../src/rollout/config.ts";
import { runRollouts } from "../../src/rollout/driver.ts";
import { targetsFromConfig } from "../../src/rollout/targets.ts";
import { tempDir } from "../helpers/tmp.ts";
import { configFor, writeInput } from "../fixtures/rollout/env-server.ts";

describe("/run bodies", () => {
  test("a fresh run sends each materialized line byte for byte; a resumed retry adds _ng_attempt_index", async () => {
    await using dir = await tempDir();
    const raw: string[] = [];
    let failEven = true;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const text = await req.text();
        raw.push(text);
        const row = JSON.parse(text) as Record<string, unknown>;
        if (failEven && Number(row._ng_task_index) % 2 === 0) return new Response("boom", { status: 500 });
        return Response.json({ ...row, reward: 1 });
      },
    });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 20);
      const dict = { input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_repeats: 2, num_samples_in_parallel: 8, disable_aggregation: true };
      const targets = targetsFromConfig(configFor(server.port!));
      const first = await runRollouts(rolloutConfigFrom(dict), { targets });
      expect(first.done).toBe(20);
      const materialized = readFileSync(first.paths.materialized, "utf8").split("\n").filter((l) => l !== "");
      expect(materialized.length).toBe(40);
      expect([...raw].sort()).toEqual([...materialized].sort());
      for (const l of materialized) expect(JSON.stringify(JSON.parse(l))).toBe(l);

      raw.length = 0;
      failEven = false;
      const second = await runRollouts(rolloutConfigFrom({ ...dict, resume_from_cache: true }), { targets });
      expect(second.newlyDone).toBe(20);
      expect(raw.length).toBe(20);
      for (const text of raw) {
        const row = JSON.parse(text) as Record<string, unknown>;
        expect(row._ng_attempt_index).toBe(1);
        expect(text).toBe(JSON.stringify(row));
      }
    } finally {
      server.stop(true);
    }
  });
});
