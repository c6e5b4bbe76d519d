import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";
import { AvgMinMax, diffMetrics } from "../../src/dataset/stats.ts";
import { applyPrompt, formatMap, pyStr } from "../../src/dataset/prompt.ts";

const CFG = `my_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      datasets:
        - {name: ex, type: example, jsonl_fpath: data/example.jsonl}
        - {name: tr, type: train, license: MIT, num_repeats: 2, jsonl_fpath: data/train.jsonl}
`;

function setup(dir: string, rows: unknown[]) {
  mkdirSync(join(dir, "data"), { recursive: true });
  writeFileSync(join(dir, "cfg.yaml"), CFG);
  writeFileSync(join(dir, "data", "example.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(join(dir, "data", "train.jsonl"), [1, 2, 3].map((i) => JSON.stringify({ responses_create_params: { input: `hi ${i}` }, v: i })).join("\n") + "\n");
}

const rows = [0, 1, 2, 3, 4].map((i) => ({ responses_create_params: { input: [{ role: "user", content: `q${i}` }], temperature: i / 10 }, expected: i, cat: i % 2 ? "a" : "b" }));

describe("gym dataset collate", () => {
  test("example_validation writes stats, the collated file with agent_ref, and detects conflicts", async () => {
    await using dir = await tempDir();
    setup(dir.path, rows);
    const r = await runGym(["dataset", "collate", "--config", "cfg.yaml", "--mode", "example_validation", "--output-dir", "out"], { cwd: dir.path });
    expect(r.stderr).toContain("View your final data!");
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(dir.path, "data", "example_metrics.json"), "utf8"));
    expect(m["Number of examples"]).toBe(5);
    expect(m.Temperature).toEqual({ "Total # non-null values": 5, Average: 0.2, Min: 0, Max: 0.4, "Standard deviation": 0.158 });
    expect(m.cat).toEqual({ unique_count: 2, total_count: 5 });
    const collated = readFileSync(join(dir.path, "out", "example.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(collated.length).toBe(5);
    expect(collated[0].agent_ref).toEqual({ type: "responses_api_agents", name: "my_agent" });
    // Change the data: the sidecar now disagrees → conflict file and exit 2.
    writeFileSync(join(dir.path, "data", "example.jsonl"), rows.slice(0, 4).map((x) => JSON.stringify(x)).join("\n") + "\n");
    const again = await runGym(["dataset", "collate", "--config", "cfg.yaml", "--mode", "example_validation", "--output-dir", "out"], { cwd: dir.path });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("conflicting aggregate metrics");
    expect(existsSync(join(dir.path, "data", "example_metrics_conflict.json"))).toBe(true);
  });

  test("train_preparation expands repeats; rows without responses_create_params are rejected", async () => {
    await using dir = await tempDir();
    setup(dir.path, rows);
    const r = await runGym(["dataset", "collate", "--config", "cfg.yaml", "--mode", "train_preparation", "--output-dir", "out"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "out", "train.jsonl"), "utf8").trim().split("\n").length).toBe(6);
    expect(JSON.parse(readFileSync(join(dir.path, "out", "train_metrics.json"), "utf8"))["Number of examples"]).toBe(6);
    writeFileSync(join(dir.path, "data", "train.jsonl"), `{"x": 1}\nnot json\n`);
    const bad = await runGym(["dataset", "collate", "--config", "cfg.yaml", "--mode", "train_preparation", "--output-dir", "out2"], { cwd: dir.path });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("responses_create_params");
  });

  test("missing datasets fail unless downloading", async () => {
    await using dir = await tempDir();
    setup(dir.path, rows);
    writeFileSync(join(dir.path, "data", "example.jsonl"), "");
    const { rmSync } = await import("node:fs");
    rmSync(join(dir.path, "data", "example.jsonl"));
    const r = await runGym(["dataset", "collate", "--config", "cfg.yaml", "--mode", "example_validation", "--output-dir", "out"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("You must provide the above missing example jsonl files");
  });
});

describe("stats and prompts", () => {
  test("Welford merge equals one pass; rounding", () => {
    const a = new AvgMinMax();
    const b = new AvgMinMax();
    const all = new AvgMinMax();
    const xs = [1, 5, 2.5, 9, 3, 7, 0.25];
    xs.forEach((x, i) => ((i < 3 ? a : b).observe(x), all.observe(x)));
    a.add(b);
    expect(a.toJSON()).toEqual(all.toJSON());
    const mean = xs.reduce((p, q) => p + q, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((p, q) => p + (q - mean) ** 2, 0) / (xs.length - 1));
    expect(all.toJSON()["Standard deviation"]).toBe(Math.round(sd * 100) / 100);
  });

  test("diffMetrics tolerances and multisets", () => {
    expect(diffMetrics({ a: 1.001, b: [1, 2] }, { a: 1.004, b: [2, 1], c: 3 })).toEqual([]);
    expect(diffMetrics({ a: 1.0 }, { a: 1.01 }).length).toBe(1);
    expect(diffMetrics({ a: 0.1 }, { a: 0.1006 }).length).toBe(1);
    expect(diffMetrics({ a: 1 }, {})).toEqual(["Missing key in new metrics: a"]);
  });

  test("Python format_map subset", () => {
    expect(formatMap("Q: {q} \\boxed{{}} {n} {b} {l}", { q: "x", n: 1.5, b: true, l: ["a", null] })).toBe("Q: x \\boxed{} 1.5 True ['a', None]");
    expect(() => formatMap("{missing}", { q: 1 })).toThrow("available fields: q");
    expect(() => formatMap("{a.b}", { a: 1 })).toThrow("unsupported format field");
    expect(pyStr({ k: "v" })).toBe("{'k': 'v'}");
    const row = applyPrompt({ path: "p", user: "Solve {problem}", system: "sys" }, { problem: "2+2", responses_create_params: { temperature: 0.1 } });
    expect(row.responses_create_params).toEqual({ temperature: 0.1, input: [{ role: "system", content: "sys" }, { role: "user", content: "Solve 2+2" }] });
    expect(() => applyPrompt({ path: "p", user: "x" }, { responses_create_params: { input: "pre" } })).toThrow("mutually exclusive");
  });
});
