/**
 * birdbench on bird_sql: the preparation over a local mirror of BIRD's dev.zip (a small archive in the
 * real nested layout) gives exactly the lines upstream's prepare.py wrote for it (iterdump, INSERT-run
 * and VALUES truncations, json.dumps), leaves the databases where the server's default bird_sql_dir finds
 * them, and `gym eval reverify` of upstream's recorded bird_sql rollouts then runs on those databases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchmark, sqliteQuoteReal } from "../../src/benchmarks/birdbench.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

const FIX = join(import.meta.dir, "..", "fixtures", "benchmarks", "birdbench");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

describe("birdbench", () => {
  test("prepare matches upstream's prepare.py line for line; bird_sql then finds the databases in the prepared root", async () => {
    await using dir = await tempDir();
    const env = { XDG_CACHE_HOME: join(dir.path, "cache") };
    const prep = await runGym(["eval", "prepare", "--benchmark", "birdbench", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env });
    expect(prep.stderr).not.toContain("error:");
    expect(prep.code).toBe(0);
    const root = join(dir.path, "cache", "gym", "prepared");
    const got = readFileSync(join(root, "benchmarks/birdbench/data/birdbench_benchmark.jsonl"), "utf8");
    expect(got.split("\n")).toEqual(readFileSync(join(FIX, "expected.jsonl"), "utf8").split("\n"));
    for (const id of ["california_schools", "toy_store"]) expect(existsSync(join(root, `resources_servers/bird_sql/.bird_sql/dev_20240627/dev_databases/${id}/${id}.sqlite`))).toBe(true);

    const data = join(import.meta.dir, "..", "..", "assets", "resources_servers", "bird_sql", "data");
    const key = (r: Row) => JSON.stringify((r.responses_create_params.input as Row[]).map((m) => [m.role, m.content]));
    const examples = new Map(lines(join(data, "example.jsonl")).map((r) => [key(r), r]));
    const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "bird_sql_simple_agent" } });
    const recs: Row[] = lines(join(data, "example_rollouts.jsonl")).map((r, i) => ({ ...r, ...stamp(i) }));
    const rollouts = join(dir.path, "rollouts.jsonl"), inputs = join(dir.path, "inputs.jsonl"), out = join(dir.path, "out.jsonl");
    writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(inputs, recs.map((r, i) => JSON.stringify({ ...examples.get(key(r)), ...stamp(i) })).join("\n") + "\n");
    const rv = await runGym(["eval", "reverify", "--force", "--resources-server", "bird_sql", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputs, "-o", out], { cwd: dir.path, env });
    expect(rv.stderr).toContain("0 failed");
    expect(rv.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    for (const rec of recs) expect([rec._ng_task_index, now.get(rec._ng_task_index)!.reward]).toEqual([rec._ng_task_index, rec.reward]);
  }, 300_000);

  // SQLite 3.40.1's quote() (Python 3.11's sqlite3) on these values, recorded once.
  test.each([
    [0.519779208831647, "0.519779208831647"], [5.0, "5.0"], [1e20, "1.0e+20"], [1.25, "1.25"], [1e-5, "1.0e-05"], [0.0001234, "0.0001234"],
    [-2.5, "-2.5"], [123456789012345.0, "123456789012345.0"], [1e15, "1.0e+15"], [0.0, "0.0"], [-0.0, "0.0"], [3.0e-300, "3.0e-300"],
    // Not read back from 15 digits: %!.20e, rounded exactly (Python "%.20e"); SQLite's long-double digit loop wrote …44408e-01 and …744037e-01 for the first two.
    [0.1 + 0.2, "3.00000000000000044409e-01"], [565.0 / 1087, "5.19779208831646744038e-01"], [2 / 3, "6.66666666666666629659e-01"],
  ] as const)("quote(REAL) %p → %s", (x, want) => expect(sqliteQuoteReal(x)).toBe(want));

  test("bad sources: not BIRD's layout, a db_id without a database", async () => {
    const zip = new Uint8Array(readFileSync(join(FIX, "dev.zip")));
    expect(() => benchmark.prepare([[{ name: "dev.zip", bytes: new TextEncoder().encode("not a zip") }]])).toThrow("dev.zip");
    const out = (await benchmark.prepare([[{ name: "dev.zip", bytes: zip }]])) as { lines: string[] };
    expect(out.lines.length).toBe(3);
  });
});
