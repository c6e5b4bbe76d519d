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

describe.skipIf(!hasPython)("gym eval prepare --benchmark with Python scripts", () => {
  test("a catalog benchmark's own prepare.py runs under Python; one in the cwd shadows a built-in preparer", async () => {
    await using dir = await tempDir();
    const bench = join(dir.path, "benchmarks", "gsm8k");
    mkdirSync(bench, { recursive: true });
    // The shipped gsm8k config names benchmarks/gsm8k/prepare.py: a real file there wins over the TS preparer.
    writeFileSync(
      join(bench, "prepare.py"),
      `import json, os\ndef prepare():\n    os.makedirs("benchmarks/gsm8k/data", exist_ok=True)\n    with open("benchmarks/gsm8k/data/gsm8k_benchmark.jsonl", "w") as f:\n        f.write(json.dumps({"question": "mine"}) + "\\n")\n    return "benchmarks/gsm8k/data/gsm8k_benchmark.jsonl"\n`,
    );
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8k"], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache") } });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`running ${join(bench, "prepare.py")}`);
    expect(readFileSync(join(bench, "data", "gsm8k_benchmark.jsonl"), "utf8")).toBe('{"question": "mine"}\n');
    expect(existsSync(join(dir.path, "cache", "gym", "prepared"))).toBe(false);
  });
});
