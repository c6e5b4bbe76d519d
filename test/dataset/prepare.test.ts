import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const hasPython = Bun.which("python3") !== null;

function setup(dir: string, script: string) {
  mkdirSync(join(dir, "bench"), { recursive: true });
  writeFileSync(join(dir, "bench", "prepare.py"), script);
  writeFileSync(
    join(dir, "cfg.yaml"),
    `b_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      datasets:
        - {name: b, type: benchmark, jsonl_fpath: bench/data.jsonl, prepare_script: bench/prepare.py}
`,
  );
}

describe.skipIf(!hasPython)("gym eval prepare", () => {
  test("runs prepare(**prepare_script_args), checks the returned path, honours the cache", async () => {
    await using dir = await tempDir();
    setup(dir.path, `import json\ndef prepare(n=2):\n    with open("bench/data.jsonl", "w") as f:\n        for i in range(n):\n            f.write(json.dumps({"question": i}) + "\\n")\n    return "bench/data.jsonl"\n`);
    const r = await runGym(["eval", "prepare", "--config", "cfg.yaml", "+prepare_script_args={n: 3}"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "bench", "data.jsonl"), "utf8").trim().split("\n").length).toBe(3);
    writeFileSync(join(dir.path, "bench", "prepare.py"), "def prepare():\n    raise SystemExit(3)\n");
    const cached = await runGym(["eval", "prepare", "--config", "cfg.yaml", "+use_cached_prepared_benchmarks=true"], { cwd: dir.path });
    expect(cached.code).toBe(0);
    const failing = await runGym(["eval", "prepare", "--config", "cfg.yaml"], { cwd: dir.path });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("failed (exit 3)");
  });

  test("a prepare() that returns another path is an error", async () => {
    await using dir = await tempDir();
    setup(dir.path, `def prepare():\n    open("other.jsonl", "w").close()\n    return "other.jsonl"\n`);
    const r = await runGym(["eval", "prepare", "--config", "cfg.yaml"], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the dataset's jsonl_fpath is");
    expect(existsSync(join(dir.path, "bench", "data.jsonl"))).toBe(false);
  });
});
