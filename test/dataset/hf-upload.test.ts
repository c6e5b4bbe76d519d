/** `gym dataset upload` to Hugging Face against a mock hub on loopback (components §4.2). */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HubHttp } from "../../src/dataset/hf-http.ts";
import { hfCollectionSlug, hfRepoId, resourcesServerInfo } from "../../src/dataset/hf-naming.ts";
import { uploadToHf, type HfUploadSpec } from "../../src/dataset/hf-upload.ts";
import { startMockHf, type MockHf } from "../fixtures/hub/mock-hf.ts";
import { runGym, tempDir, type TempDir } from "../helpers/tmp.ts";

const TOKEN = "hf_test_token_5up3r53cr3t";
const RS_CONFIG = "resources_servers/my_rs/configs/my_rs.yaml";
const ROWS = [
  { responses_create_params: { input: [{ role: "user", content: "2+2?" }] }, expected_answer: "4" },
  { responses_create_params: { input: "hi" }, expected_answer: "x" },
];

let hub: MockHf;
let dir: TempDir;

function jsonl(rows: unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

beforeAll(async () => {
  hub = startMockHf();
  dir = await tempDir();
  mkdirSync(join(dir.path, "resources_servers/my_rs/configs"), { recursive: true });
  writeFileSync(
    join(dir.path, RS_CONFIG),
    ["my_rs:", "  resources_servers:", "    my_rs:", "      entrypoint: app.py", "      domain: math", "      description: test server", ""].join("\n"),
  );
  writeFileSync(
    join(dir.path, "env.yaml"),
    [`hf_token: ${TOKEN}`, "hf_organization: nvidia", "hf_collection_name: My Datasets", "hf_collection_slug: abc123", `hf_endpoint: ${hub.url}`, ""].join("\n"),
  );
  writeFileSync(join(dir.path, "train.jsonl"), jsonl(ROWS));
});

afterAll(async () => {
  await hub[Symbol.asyncDispose]();
  await dir[Symbol.asyncDispose]();
});

beforeEach(() => {
  hub.requests.length = 0;
  hub.repos.clear();
  hub.collections.clear();
  hub.collections.set("nvidia/my-datasets-abc123", []);
  hub.fail.clear();
  hub.hang.clear();
  hub.forbidCreate = false;
  hub.lfsThreshold = 10 * 1024 * 1024;
  hub.multipartChunk = 0;
});

describe("naming", () => {
  test("repo id and collection slug follow upstream's pattern", () => {
    expect(hfRepoId("nvidia", "Nemotron-RL", "Math", "OpenMathReasoning")).toBe("nvidia/Nemotron-RL-math-OpenMathReasoning");
    expect(hfRepoId("org", "", undefined, "ds")).toBe("org/ds");
    expect(hfRepoId("org", "P", undefined, "ds")).toBe("org/P-ds");
    expect(hfCollectionSlug("nvidia", "NeMo Gym  Datasets", "x1")).toBe("nvidia/nemo-gym--datasets-x1");
  });

  test("domain and server name come from the resources-server block, through the config pipeline", async () => {
    expect(await resourcesServerInfo(RS_CONFIG, dir.path)).toEqual({ name: "my_rs", domain: "math" });
    // The embedded install root is a search root too.
    expect(await resourcesServerInfo("resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", dir.path)).toEqual({
      name: "example_single_tool_call",
      domain: "agent",
    });
    await expect(resourcesServerInfo("resources_servers/none/configs/none.yaml", dir.path)).rejects.toThrow(/resource_config_path .* was not found/);
  });
});

describe("gym dataset upload (hf)", () => {
  test("creates the private repo, joins the collection, commits the file; the token is never printed", async () => {
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stdout).not.toContain(TOKEN);
    expect(r.code).toBe(0);
    const repo = "nvidia/Nemotron-RL-math-my_rs";
    expect(hub.text(repo, "train.jsonl")).toBe(jsonl(ROWS));
    expect(hub.collections.get("nvidia/my-datasets-abc123")).toEqual([{ type: "dataset", id: repo }]);
    const create = hub.requests.find((q) => q.path === "/api/repos/create")!;
    expect(JSON.parse(create.body)).toMatchObject({ type: "dataset", name: "Nemotron-RL-math-my_rs", organization: "nvidia", private: true });
    const commit = hub.requests.find((q) => q.path.includes("/commit/"))!;
    expect(commit.path).toBe(`/api/datasets/${repo}/commit/main`);
    expect(commit.contentType).toBe("application/x-ndjson");
    expect(JSON.parse(commit.body.split("\n")[0]!)).toEqual({ key: "header", value: { summary: "Upload train.jsonl with gym", description: "" } });
    for (const q of hub.requests) expect(q.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.stdout.trim()).toMatch(new RegExp(`^${hub.url}/datasets/${repo}/commit/[0-9]+$`));
  });

  test("a second upload to an existing repo that is already in the collection only commits", async () => {
    hub.seed("nvidia/Nemotron-RL-math-ds2", { "old.jsonl": "{}\n" });
    hub.collections.set("nvidia/my-datasets-abc123", [{ type: "dataset", id: "NVIDIA/Nemotron-RL-math-ds2" }]);
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", "--name", "ds2", `+resource_config_path=${RS_CONFIG}`, "+hf_dataset_prefix=Nemotron-RL"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(hub.requests.some((q) => q.path.endsWith("/items"))).toBe(false);
    expect(hub.text("nvidia/Nemotron-RL-math-ds2", "train.jsonl")).toBe(jsonl(ROWS));
    expect(hub.text("nvidia/Nemotron-RL-math-ds2", "old.jsonl")).toBe("{}\n");
  });

  test("create_pr tolerates a 403 on repo creation, opens a PR with the commit message and prints its URL", async () => {
    hub.forbidCreate = true;
    hub.seed("nvidia/Nemotron-RL-math-my_rs", {});
    const r = await runGym(
      ["dataset", "upload", "-i", "train.jsonl", "--create-pr", "--revision", "dev", `+resource_config_path=${RS_CONFIG}`, "+commit_message=Add train split", '+commit_description="Rows from the test"'],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const commit = hub.requests.find((q) => q.path.includes("/commit/"))!;
    expect(commit.path).toBe("/api/datasets/nvidia/Nemotron-RL-math-my_rs/commit/dev");
    expect(commit.query).toBe("?create_pr=1");
    expect(hub.requests.find((q) => q.path.includes("/preupload/"))!.query).toBe("?create_pr=1");
    expect(JSON.parse(commit.body.split("\n")[0]!).value).toEqual({ summary: "Add train split", description: "Rows from the test" });
    expect(r.stdout.trim()).toBe(`${hub.url}/datasets/nvidia/Nemotron-RL-math-my_rs/discussions/1`);
    expect(hub.text("nvidia/Nemotron-RL-math-my_rs", "train.jsonl", "refs/pr/1")).toBe(jsonl(ROWS));
    expect(hub.text("nvidia/Nemotron-RL-math-my_rs", "train.jsonl")).toBeUndefined();
  });

  test("without create_pr a 403 on repo creation is an error, exit 1", async () => {
    hub.forbidCreate = true;
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("HTTP 403");
    expect(r.stderr).toContain("/api/repos/create");
    expect(hub.requests.some((q) => q.path.includes("/commit/"))).toBe(false);
  });

  test("the train split refuses rows without responses_create_params before any call (exit 2)", async () => {
    writeFileSync(join(dir.path, "bad.jsonl"), jsonl([ROWS[0], { expected_answer: "no rcp" }]) + "not json\n");
    const r = await runGym(["dataset", "upload", "-i", "bad.jsonl", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 2: no responses_create_params");
    expect(r.stderr).toContain("line 3: not JSON");
    expect(r.stderr).toContain("nothing was uploaded");
    expect(hub.requests).toEqual([]);
    // The validation split is not checked.
    const v = await runGym(["dataset", "upload", "-i", "bad.jsonl", "--split", "validation", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(v.code).toBe(0);
    expect(hub.text("nvidia/Nemotron-RL-math-my_rs", "bad.jsonl")).toContain("no rcp");
  });

  test("a dataset name the Hub would refuse is a config error before any call", async () => {
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", "--name", "my dataset", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the Hugging Face repo id 'nvidia/Nemotron-RL-math-my dataset' is not valid");
    expect(hub.requests).toEqual([]);
  });

  test("missing keys are reported together (exit 2), before any call", async () => {
    await using bare = await tempDir();
    writeFileSync(join(bare.path, "train.jsonl"), jsonl(ROWS));
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", `+hf_endpoint=${hub.url}`], { cwd: bare.path });
    expect(r.code).toBe(2);
    for (const k of ["hf_token", "hf_organization", "hf_collection_name", "hf_collection_slug", "resource_config_path"]) expect(r.stderr).toContain(k);
    expect(r.stderr).not.toContain("input_jsonl_fpath is required");
    expect(hub.requests).toEqual([]);
  });

  test("a 500 from the hub is a runtime error naming the URL (exit 1); a hub that hangs hits the deadline", async () => {
    hub.fail.set("/api/collections/", 500);
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", `+resource_config_path=${RS_CONFIG}`], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`GET ${hub.url}/api/collections/nvidia/my-datasets-abc123 → HTTP 500: injected failure 500`);
    expect(r.stderr).not.toContain(TOKEN);

    hub.fail.clear();
    hub.hang.add("/api/datasets/");
    const started = performance.now();
    const h = await runGym(["dataset", "upload", "-i", "train.jsonl", `+resource_config_path=${RS_CONFIG}`, "+request_timeout_seconds=1"], { cwd: dir.path });
    expect(h.code).toBe(1);
    expect(h.stderr).toContain("timed out after 1s");
    expect(h.stderr).toContain("request_timeout_seconds");
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  test("HF_ENDPOINT is used when the config has no hf_endpoint", async () => {
    await using d2 = await tempDir();
    mkdirSync(join(d2.path, "resources_servers/my_rs/configs"), { recursive: true });
    writeFileSync(join(d2.path, RS_CONFIG), ["my_rs:", "  resources_servers:", "    my_rs:", "      entrypoint: app.py", "      domain: coding", ""].join("\n"));
    writeFileSync(join(d2.path, "train.jsonl"), jsonl(ROWS));
    const r = await runGym(
      ["dataset", "upload", "-i", "train.jsonl", `+resource_config_path=${RS_CONFIG}`, `+hf_token=${TOKEN}`, "+hf_organization=o", "+hf_collection_name=c", "+hf_collection_slug=s", "+hf_dataset_prefix="],
      { cwd: d2.path, env: { HF_ENDPOINT: hub.url } },
    );
    expect(r.stderr).toContain("Collection not found");
    expect(r.code).toBe(1);
    // An empty prefix drops the prefix part.
    expect(JSON.parse(hub.requests.find((q) => q.path === "/api/repos/create")!.body)).toMatchObject({ organization: "o", name: "coding-my_rs" });
  });
});

describe("large files go through Git LFS", () => {
  const spec = (input: string): HfUploadSpec => ({
    token: TOKEN,
    organization: "nvidia",
    collectionName: "My Datasets",
    collectionSlug: "abc123",
    inputPath: input,
    resourceConfigPath: RS_CONFIG,
    datasetName: "big",
    prefix: "",
    split: "validation",
    createPr: false,
    revision: undefined,
    commitMessage: undefined,
    commitDescription: undefined,
  });

  test("basic PUT to the presigned URL without the token, then verify and an lfsFile commit op", async () => {
    hub.lfsThreshold = 16;
    const input = join(dir.path, "big.jsonl");
    writeFileSync(input, jsonl(ROWS));
    const { repoId } = await uploadToHf(spec(input), new HubHttp(hub.url, TOKEN, "Hugging Face"), dir.path);
    expect(repoId).toBe("nvidia/math-big");
    expect(hub.repos.get(repoId)!.get("main")!.get("big.jsonl")!.lfs).toBe(true);
    expect(hub.text(repoId, "big.jsonl")).toBe(jsonl(ROWS));
    const put = hub.requests.find((q) => q.method === "PUT")!;
    expect(put.authorization).toBeNull();
    expect(hub.requests.some((q) => q.path === "/lfs-verify")).toBe(true);
    const ops = hub.requests.find((q) => q.path.includes("/commit/"))!.body.split("\n").map((l) => JSON.parse(l));
    expect(ops[1]).toMatchObject({ key: "lfsFile", value: { path: "big.jsonl", algo: "sha256", size: jsonl(ROWS).length } });
  });

  test("multipart upload: one PUT per part, completion with the ETags", async () => {
    hub.lfsThreshold = 16;
    hub.multipartChunk = 40;
    const input = join(dir.path, "big2.jsonl");
    writeFileSync(input, jsonl([...ROWS, ...ROWS]));
    const { repoId } = await uploadToHf(spec(input), new HubHttp(hub.url, TOKEN, "Hugging Face"), dir.path);
    const parts = hub.requests.filter((q) => q.path.startsWith("/lfs-part/"));
    expect(parts.length).toBe(Math.ceil(jsonl([...ROWS, ...ROWS]).length / 40));
    expect(parts.every((p) => p.authorization === null)).toBe(true);
    expect(hub.text(repoId, "big2.jsonl")).toBe(jsonl([...ROWS, ...ROWS]));
  });
});
