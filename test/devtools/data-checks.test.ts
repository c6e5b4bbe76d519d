import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataChecks } from "../../src/devtools/data-checks.ts";
import { tempDir } from "../helpers/tmp.ts";

function rows(n: number, trailingNewline = true): string {
  const text = Array.from({ length: n }, (_, i) => JSON.stringify({ i })).join("\n");
  return trailingNewline ? `${text}\n` : text;
}

function byName(dir: string) {
  return Object.fromEntries(dataChecks(dir, "srv").map((c) => [c.name, c]));
}

describe("env test data checks (§6.6)", () => {
  test("a complete data dir passes all four checks", async () => {
    await using d = await tempDir();
    mkdirSync(join(d.path, "data"));
    writeFileSync(join(d.path, "data", "example.jsonl"), rows(5));
    writeFileSync(join(d.path, "data", "example_metrics.json"), JSON.stringify({ "Number of examples": 5 }));
    writeFileSync(join(d.path, "data", "example_rollouts.jsonl"), rows(5, false));
    const checks = dataChecks(d.path, "srv");
    expect(checks.map((c) => c.name)).toEqual(["example data", "example metrics", "no conflicts", "example rollouts"]);
    expect(checks.every((c) => c.status === "pass")).toBe(true);
  });

  test("wrong counts, a bad metrics count and conflict files fail with fixes", async () => {
    await using d = await tempDir();
    mkdirSync(join(d.path, "data"));
    writeFileSync(join(d.path, "data", "example.jsonl"), rows(4));
    writeFileSync(join(d.path, "data", "example_metrics.json"), JSON.stringify({ "Number of examples": 6 }));
    writeFileSync(join(d.path, "data", "example_metrics_conflict.json"), "{}");
    writeFileSync(join(d.path, "data", "example_rollouts.jsonl"), rows(6));
    const c = byName(d.path);
    expect(c["example data"]!.status).toBe("fail");
    expect(c["example data"]!.detail).toContain("Expected 5 examples at");
    expect(c["example data"]!.detail).toContain("but got 4");
    expect(c["example metrics"]!.detail).toContain("but got 6");
    expect(c["no conflicts"]!.detail).toContain("Found 1 conflicting paths");
    expect(c["no conflicts"]!.detail).toContain("example_metrics_conflict.json");
    expect(c["example rollouts"]!.detail).toContain("but got 6");
  });

  test("missing files name the gym command that creates them", async () => {
    await using d = await tempDir();
    const c = byName(d.path);
    expect(c["example data"]!.status).toBe("fail");
    expect(c["example metrics"]!.hint).toContain("gym dataset collate --resources-server srv --mode example_validation");
    expect(c["example rollouts"]!.hint).toContain("gym eval run --resources-server srv");
    expect(c["no conflicts"]!.status).toBe("pass");
  });
});
