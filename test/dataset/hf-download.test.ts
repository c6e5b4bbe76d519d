/** `gym dataset download` from Hugging Face against a mock hub on loopback (components §4.2). */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hfDownloadSpec } from "../../src/dataset/hf-download.ts";
import { jsonlSplits } from "../../src/dataset/hf-splits.ts";
import { keysOf } from "../../src/dataset/upload-keys.ts";
import { startMockHf, type MockHf } from "../fixtures/hub/mock-hf.ts";
import { GYM_MAIN, runGym, tempDir } from "../helpers/tmp.ts";

const REPO = "nvidia/Nemotron-RL-math-demo";
const TRAIN = '{"responses_create_params": {"input": "a"}}\n{"responses_create_params": {"input": "b"}}\n';
// No trailing newline: concatenation must still keep one row per line.
const VAL_0 = '{"responses_create_params": {"input": "v0"}}';
const VAL_1 = '{"responses_create_params": {"input": "v1"}}\n';
const TEST = '{"responses_create_params": {"input": "t"}}\n';

let hub: MockHf;

beforeAll(() => {
  hub = startMockHf();
});

afterAll(async () => {
  await hub[Symbol.asyncDispose]();
});

beforeEach(() => {
  hub.requests.length = 0;
  hub.repos.clear();
  hub.fail.clear();
  hub.hang.clear();
  hub.pageSize = 100;
  hub.seed(REPO, { "README.md": "# demo\n", "train.jsonl": TRAIN, "data/validation-00000.jsonl": VAL_0, "data/validation-00001.jsonl": VAL_1, "test.jsonl": TEST, ".hidden/train.jsonl": "{}\n" });
});

function keys(dict: Record<string, unknown>) {
  return keysOf({ dict });
}

describe("download keys (upstream's validation rules)", () => {
  test("each rule is a config error naming the fix", () => {
    expect(() => hfDownloadSpec(keys({ output_dirpath: "d" }))).toThrow("repo_id is required");
    expect(() => hfDownloadSpec(keys({ repo_id: REPO }))).toThrow("Either output_dirpath or output_fpath must be provided");
    expect(() => hfDownloadSpec(keys({ repo_id: REPO, output_dirpath: "d", output_fpath: "f" }))).toThrow("Cannot specify both output_dirpath and output_fpath");
    expect(() => hfDownloadSpec(keys({ repo_id: REPO, output_dirpath: "d", artifact_fpath: "a", split: "train" }))).toThrow("Cannot specify both artifact_fpath and split");
    expect(() => hfDownloadSpec(keys({ repo_id: REPO, output_fpath: "f" }))).toThrow("When using output_fpath without artifact_fpath, split must be specified");
    expect(() => hfDownloadSpec(keys({ repo_id: REPO, output_fpath: "f", split: "benchmark" }))).toThrow("split must be one of train, validation, test");
    expect(() => hfDownloadSpec(keys({ repo_id: "no-slash", output_dirpath: "d" }))).toThrow("repo_id must look like ORG/NAME");
    expect(hfDownloadSpec(keys({ repo_id: REPO, output_fpath: "f", split: "test" }))).toMatchObject({ split: "test", outputPath: "f" });
  });
});

describe("split inference from the repo tree", () => {
  test("keywords delimited like the datasets library's patterns; hidden files skipped", () => {
    const s = jsonlSplits(REPO, ["train.jsonl", "data/validation-00000.jsonl", "dev/x.jsonl", "test_set.jsonl", "eval-2.jsonl", "interval.jsonl", ".github/train.jsonl", "README.md"]);
    expect(Object.fromEntries(s)).toEqual({ train: ["train.jsonl"], validation: ["data/validation-00000.jsonl", "dev/x.jsonl"], test: ["eval-2.jsonl", "test_set.jsonl"] });
  });

  test("files that name no split are all train", () => {
    expect(Object.fromEntries(jsonlSplits(REPO, ["b.jsonl", "a.jsonl"]))).toEqual({ train: ["a.jsonl", "b.jsonl"] });
  });

  test("a parquet-only repo gets an error that says so", () => {
    expect(() => jsonlSplits(REPO, ["README.md", "data/train-00000-of-00001.parquet"])).toThrow(/holds parquet files only \(data\/train-00000-of-00001\.parquet\); gym downloads JSONL/);
    expect(() => jsonlSplits(REPO, ["README.md"])).toThrow("has no *.jsonl files");
  });
});

describe("gym dataset download (hf)", () => {
  test("every split into --output-dir as <split>.jsonl, tree pages followed, parts concatenated line by line", async () => {
    await using dir = await tempDir();
    hub.pageSize = 2;
    const r = await runGym(["dataset", "download", "--repo-id", REPO, "--output-dir", "out", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "out/train.jsonl"), "utf8")).toBe(TRAIN);
    expect(readFileSync(join(dir.path, "out/validation.jsonl"), "utf8")).toBe(`${VAL_0}\n${VAL_1}`);
    expect(readFileSync(join(dir.path, "out/test.jsonl"), "utf8")).toBe(TEST);
    expect(readdirSync(join(dir.path, "out")).sort()).toEqual(["test.jsonl", "train.jsonl", "validation.jsonl"]);
    expect(r.stdout.trim().split("\n").sort()).toEqual(["test", "train", "validation"].map((s) => join(dir.path, "out", `${s}.jsonl`)));
    expect(hub.requests.filter((q) => q.path.includes("/tree/")).length).toBeGreaterThan(1);
    // No token configured: nothing is sent.
    expect(hub.requests.every((q) => q.authorization === null)).toBe(true);
  });

  test("one split to -o, and a raw artifact to -o or into --output-dir under its base name, with the bearer token", async () => {
    await using dir = await tempDir();
    const s = await runGym(["dataset", "download", "--repo-id", REPO, "--split", "validation", "-o", "v.jsonl", `+hf_endpoint=${hub.url}`, "+hf_token=hf_dl_secret"], { cwd: dir.path });
    expect(s.code).toBe(0);
    expect(readFileSync(join(dir.path, "v.jsonl"), "utf8")).toBe(`${VAL_0}\n${VAL_1}`);
    expect(hub.requests.every((q) => q.authorization === "Bearer hf_dl_secret")).toBe(true);
    expect(s.stderr).not.toContain("hf_dl_secret");

    const a = await runGym(["dataset", "download", "--repo-id", REPO, "--artifact", "data/validation-00001.jsonl", "--output-dir", "raw", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(a.code).toBe(0);
    expect(readFileSync(join(dir.path, "raw/validation-00001.jsonl"), "utf8")).toBe(VAL_1);
    expect(hub.requests.at(-1)!.path).toBe(`/datasets/${REPO}/resolve/main/data/validation-00001.jsonl`);
  });

  test("bad key combinations exit 2 before any call", async () => {
    await using dir = await tempDir();
    const r = await runGym(["dataset", "download", "--repo-id", REPO, "-o", "a.jsonl", "--output-dir", "d", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: Cannot specify both output_dirpath and output_fpath");
    expect(hub.requests).toEqual([]);
  });

  test("a 500 on the second file or a hub that hangs mid-way leave no output and no partial file (exit 1)", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "keep.txt"), "unrelated\n");
    hub.fail.set("/datasets/nvidia/Nemotron-RL-math-demo/resolve/main/test.jsonl", 500);
    const r = await runGym(["dataset", "download", "--repo-id", REPO, "--output-dir", ".", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("resolve/main/test.jsonl → HTTP 500");
    expect(readdirSync(dir.path)).toEqual(["keep.txt"]);

    hub.fail.clear();
    hub.hang.add("/datasets/nvidia/Nemotron-RL-math-demo/resolve/main/data/validation-00001.jsonl");
    const h = await runGym(["dataset", "download", "--repo-id", REPO, "--split", "validation", "-o", "v.jsonl", `+hf_endpoint=${hub.url}`, "+request_timeout_seconds=1"], { cwd: dir.path });
    expect(h.code).toBe(1);
    expect(h.stderr).toContain("timed out after 1s");
    expect(readdirSync(dir.path)).toEqual(["keep.txt"]);
  });

  test("Ctrl-C during a download removes the partial files (exit 130)", async () => {
    await using dir = await tempDir();
    hub.hang.add("/datasets/nvidia/Nemotron-RL-math-demo/resolve/main/data/validation-00001.jsonl");
    const proc = Bun.spawn([process.execPath, GYM_MAIN, "dataset", "download", "--repo-id", REPO, "--output-dir", "out", `+hf_endpoint=${hub.url}`], { cwd: dir.path, stdout: "pipe", stderr: "pipe" });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    for (let i = 0; i < 200 && !hub.requests.some((q) => q.path.endsWith("validation-00001.jsonl")); i++) await Bun.sleep(25);
    expect(readdirSync(join(dir.path, "out")).length).toBeGreaterThan(0); // the partial files exist at this point
    proc.kill("SIGINT");
    const code = await proc.exited;
    clearTimeout(killer);
    expect(code).toBe(130);
    expect(readdirSync(join(dir.path, "out"))).toEqual([]);
  });

  test("a missing artifact, a missing split and a parquet-only repo are clear errors", async () => {
    await using dir = await tempDir();
    const a = await runGym(["dataset", "download", "--repo-id", REPO, "--artifact", "nope.jsonl", "-o", "x.jsonl", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain("HTTP 404: Entry not found");

    hub.seed("org/only-train", { "data.jsonl": TRAIN });
    const s = await runGym(["dataset", "download", "--repo-id", "org/only-train", "--split", "test", "--output-dir", "o", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("has no 'test' split (its JSONL splits: train)");

    hub.seed("org/pq", { "data/train-00000-of-00001.parquet": "PAR1" });
    const p = await runGym(["dataset", "download", "--repo-id", "org/pq", "--output-dir", "o", `+hf_endpoint=${hub.url}`], { cwd: dir.path });
    expect(p.code).toBe(1);
    expect(p.stderr).toContain("holds parquet files only");
    expect(p.stderr).toContain("artifact_fpath");
    expect(existsSync(join(dir.path, "o"))).toBe(false);
    expect(existsSync(join(dir.path, "x.jsonl"))).toBe(false);
  });
});

describe("hub calls are external (D34)", () => {
  test("they go through HTTP_PROXY, and NO_PROXY exempts a host", async () => {
    await using dir = await tempDir();
    // The mock hub answers proxied requests (absolute-form URLs) for any host, like a forwarding proxy would.
    const env = { HTTP_PROXY: hub.url, http_proxy: hub.url, NO_PROXY: "", no_proxy: "" };
    const args = ["dataset", "download", "--repo-id", REPO, "--artifact", "test.jsonl", "-o", "t.jsonl", "+hf_endpoint=http://hub.gym-test.invalid"];
    const r = await runGym(args, { cwd: dir.path, env });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "t.jsonl"), "utf8")).toBe(TEST);
    const direct = await runGym([...args.slice(0, -3), "-o", "u.jsonl", "+hf_endpoint=http://hub.gym-test.invalid", "+request_retry_budget_seconds=0"], { cwd: dir.path, env: { ...env, NO_PROXY: "hub.gym-test.invalid", no_proxy: "hub.gym-test.invalid" } });
    expect(direct.code).toBe(1);
    expect(existsSync(join(dir.path, "u.jsonl"))).toBe(false);
    expect(hub.requests.length).toBe(1);
  });
});
