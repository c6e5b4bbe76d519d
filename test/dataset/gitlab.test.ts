/** GitLab registry datasets (upload/download/rm) and `gym dataset migrate`, against mock servers on loopback (components §4.2, §4.3). */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { MlflowRegistry } from "../../src/dataset/gitlab-mlflow.ts";
import { deleteFromGitlab } from "../../src/dataset/gitlab-transfer.ts";
import { downloadDataset } from "../../src/dataset/hub.ts";
import { HubHttp } from "../../src/dataset/hf-http.ts";
import { confirm, type ConfirmIO } from "../../src/dataset/upload-confirm.ts";
import { startMockGitlab, type MockGitlab } from "../fixtures/hub/mock-gitlab.ts";
import { startMockHf, type MockHf } from "../fixtures/hub/mock-hf.ts";
import { GYM_MAIN, runGym, tempDir, type TempDir } from "../helpers/tmp.ts";

const ROWS = '{"responses_create_params": {"input": "a"}}\n{"responses_create_params": {"input": "b"}}\n';
const RS_CONFIG = "resources_servers/my_rs/configs/my_rs.yaml";

let gl: MockGitlab;
let hub: MockHf;
let dir: TempDir;

beforeAll(async () => {
  gl = startMockGitlab();
  hub = startMockHf();
  dir = await tempDir();
  writeFileSync(join(dir.path, "env.yaml"), [`mlflow_tracking_uri: ${gl.trackingUri}`, `mlflow_tracking_token: ${gl.token}`, ""].join("\n"));
  writeFileSync(join(dir.path, "train.jsonl"), ROWS);
  mkdirSync(join(dir.path, "resources_servers/my_rs/configs"), { recursive: true });
  writeFileSync(join(dir.path, RS_CONFIG), ["my_rs:", "  resources_servers:", "    my_rs:", "      entrypoint: app.py", "      domain: math", ""].join("\n"));
});

afterAll(async () => {
  await gl[Symbol.asyncDispose]();
  await hub[Symbol.asyncDispose]();
  await dir[Symbol.asyncDispose]();
});

beforeEach(() => {
  gl.requests.length = 0;
  gl.models.clear();
  gl.fail.clear();
  gl.hang.clear();
  hub.requests.length = 0;
  hub.fail.clear();
  hub.repos.clear();
  hub.collections.clear();
  hub.collections.set("nvidia/c-s", []);
});

/** A terminal-like input answering `answer` (or closing without one). */
function ttyIO(answer: string | null): ConfirmIO & { asked: () => string } {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let asked = "";
  output.on("data", (d) => (asked += String(d)));
  if (answer === null) input.end();
  else input.write(`${answer}\n`);
  return { input, output, asked: () => asked };
}

function registry(): MlflowRegistry {
  return new MlflowRegistry(new HubHttp(gl.trackingUri, gl.token, "GitLab"));
}

describe("gym dataset upload/download --storage gitlab", () => {
  test("upload creates the model and version, PUTs the artifact to the run's artifact URI, prints the download command", async () => {
    const r = await runGym(["dataset", "upload", "--storage", "gitlab", "-i", "train.jsonl", "--name", "Example_DS", "--revision", "0.0.1"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(gl.token);
    expect(new TextDecoder().decode(gl.models.get("Example_DS")!.get("0.0.1")!.files.get("train.jsonl"))).toBe(ROWS);
    const create = gl.requests.find((q) => q.path.endsWith("/model-versions/create"))!;
    expect(JSON.parse(create.body)).toEqual({ name: "Example_DS", source: "0.0.1", tags: [{ key: "gitlab.version", value: "0.0.1" }] });
    expect(r.stdout).toContain("gym dataset download --storage gitlab \\\n    +dataset_name=Example_DS \\\n    +version=0.0.1 \\\n    +artifact_fpath=train.jsonl \\");
    expect(r.stdout).toContain(`+output_fpath=${join(dir.path, "train.jsonl")}`);

    // A second file for the same version reuses the model and the version.
    writeFileSync(join(dir.path, "validation.jsonl"), ROWS);
    gl.requests.length = 0;
    const again = await runGym(["dataset", "upload", "--storage", "gitlab", "-i", "validation.jsonl", "+dataset_name=Example_DS", "+version=0.0.1"], { cwd: dir.path });
    expect(again.code).toBe(0);
    expect(gl.requests.some((q) => q.path.endsWith("/model-versions/create"))).toBe(false);
    expect([...gl.models.get("Example_DS")!.get("0.0.1")!.files.keys()].sort()).toEqual(["train.jsonl", "validation.jsonl"]);

    const d = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "Example_DS", "--revision", "0.0.1", "--artifact", "validation.jsonl", "-o", "back/v.jsonl"], { cwd: dir.path });
    expect(d.code).toBe(0);
    expect(readFileSync(join(dir.path, "back/v.jsonl"), "utf8")).toBe(ROWS);
    expect(d.stdout.trim()).toBe(join(dir.path, "back/v.jsonl"));
  });

  test("bad input: a non-semver version and missing keys exit 2 before any call; missing credentials name the env.yaml keys", async () => {
    const v = await runGym(["dataset", "upload", "--storage", "gitlab", "-i", "train.jsonl", "--name", "x", "--revision", "1.0"], { cwd: dir.path });
    expect(v.code).toBe(2);
    expect(v.stderr).toContain("version must be in the format x.x.x, got '1.0'");
    const m = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "x", "--revision", "0.0.1", "-o", "o.jsonl"], { cwd: dir.path });
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("artifact_fpath is required");
    expect(gl.requests).toEqual([]);
    await using bare = await tempDir();
    const c = await runGym(["dataset", "rm", "--name", "x", "--yes"], { cwd: bare.path });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("GitLab dataset storage needs MLflow credentials. Add to env.yaml:");
  });

  test("download of a missing version, a 500 and a hang: exit 1 and no output file", async () => {
    const n = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "nope", "--revision", "0.0.1", "--artifact", "a.jsonl", "-o", "out/a.jsonl"], { cwd: dir.path });
    expect(n.code).toBe(1);
    expect(n.stderr).toContain("no version 0.0.1 of dataset 'nope'");
    await registry().createRegisteredModel("ds");
    await registry().createModelVersion("ds", "1.2.3");
    gl.models.get("ds")!.get("1.2.3")!.files.set("a.jsonl", new TextEncoder().encode(ROWS));
    gl.fail.set("/api/v4/projects/1/packages/", 500);
    const f = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "ds", "--revision", "1.2.3", "--artifact", "a.jsonl", "-o", "out/a.jsonl"], { cwd: dir.path });
    expect(f.code).toBe(1);
    expect(f.stderr).toContain("→ HTTP 500");
    gl.fail.clear();
    gl.hang.add("/api/v4/projects/1/packages/");
    const h = await runGym(["dataset", "download", "--storage", "gitlab", "--name", "ds", "--revision", "1.2.3", "--artifact", "a.jsonl", "-o", "out/a.jsonl", "+request_timeout_seconds=1"], { cwd: dir.path });
    expect(h.code).toBe(1);
    expect(h.stderr).toContain("timed out after 1s");
    expect(existsSync(join(dir.path, "out")) ? readdirSync(join(dir.path, "out")) : []).toEqual([]);
  });
});

describe("gym dataset rm", () => {
  test("--yes deletes; without a terminal and without --yes it refuses (exit 2) and deletes nothing; an unknown name is a warning", async () => {
    await registry().createRegisteredModel("old_ds");
    gl.requests.length = 0;
    const refused = await runGym(["dataset", "rm", "--name", "old_ds"], { cwd: dir.path });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    expect(gl.requests).toEqual([]);
    expect(gl.models.has("old_ds")).toBe(true);

    const ok = await runGym(["dataset", "rm", "--name", "old_ds", "--yes"], { cwd: dir.path });
    expect(ok.code).toBe(0);
    expect(gl.models.has("old_ds")).toBe(false);
    const del = gl.requests.find((q) => q.method === "DELETE")!;
    expect(del.path).toEndWith("/api/2.0/mlflow/registered-models/delete");
    expect(JSON.parse(del.body)).toEqual({ name: "old_ds" });

    const absent = await runGym(["dataset", "rm", "--name", "old_ds", "+yes=true"], { cwd: dir.path });
    expect(absent.code).toBe(0);
    expect(absent.stderr).toContain("Model 'old_ds' not found in Gitlab");
  });

  test("the [y/N] question: only y/yes delete; no answer is no", async () => {
    expect(await confirm("Sure? [y/N]: ", ttyIO("YES"))).toBe(true);
    expect(await confirm("Sure? [y/N]: ", ttyIO("n"))).toBe(false);
    expect(await confirm("Sure? [y/N]: ", ttyIO(""))).toBe(false);
    expect(await confirm("Sure? [y/N]: ", ttyIO(null))).toBe(false);

    await registry().createRegisteredModel("CaseSensitive");
    const no = ttyIO("n");
    expect(await deleteFromGitlab("CaseSensitive", registry(), { yes: false, io: no })).toBe("skipped");
    expect(no.asked()).toContain("Found model 'CaseSensitive' in the registry. Are you sure you want to delete it from Gitlab? [y/N]: ");
    expect(gl.models.has("CaseSensitive")).toBe(true);
    expect(await deleteFromGitlab("casesensitive", registry(), { yes: true, io: ttyIO(null) })).toBe("absent");
    expect(await deleteFromGitlab("CaseSensitive", registry(), { yes: false, io: ttyIO("y") })).toBe("deleted");
    expect(gl.models.has("CaseSensitive")).toBe(false);
  });

  test.skipIf(!Bun.which("script"))("on a real terminal the question is asked and answered", async () => {
    await registry().createRegisteredModel("tty_ds");
    const cmd = [process.execPath, GYM_MAIN, "dataset", "rm", "--name", "tty_ds"].map((a) => `'${a}'`).join(" ");
    const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], { cwd: dir.path, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const out = new Response(proc.stdout).text();
    // Answer once the question is on the terminal.
    for (let i = 0; i < 100 && gl.requests.every((q) => !q.path.endsWith("/registered-models/get")); i++) await Bun.sleep(50);
    await Bun.sleep(200);
    proc.stdin.write("y\n");
    await proc.stdin.flush();
    const timer = setTimeout(() => proc.kill(), 15_000);
    const code = await proc.exited;
    clearTimeout(timer);
    expect(await out).toContain("[y/N]");
    expect(code).toBe(0);
    expect(gl.models.has("tty_ds")).toBe(false);
  });
});

describe("gym dataset migrate", () => {
  const hfArgs = (hubUrl: string) => [`+hf_endpoint=${hubUrl}`, "+hf_token=hf_mig_secret", "+hf_organization=nvidia", "+hf_collection_name=c", "+hf_collection_slug=s", `+resource_config_path=${RS_CONFIG}`];

  test("delete_from_gitlab is forbidden", async () => {
    const r = await runGym(["dataset", "migrate", "-i", "train.jsonl", "--name", "ds", "+delete_from_gitlab=false", ...hfArgs(hub.url)], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Forbidden fields present: {'delete_from_gitlab'}");
    expect(hub.requests).toEqual([]);
  });

  test("uploads to Hugging Face, then deletes the GitLab model; without --yes on no terminal nothing happens at all", async () => {
    await registry().createRegisteredModel("mig_ds");
    const refused = await runGym(["dataset", "migrate", "-i", "train.jsonl", "--name", "mig_ds", ...hfArgs(hub.url)], { cwd: dir.path });
    expect(refused.code).toBe(2);
    expect(hub.requests).toEqual([]);

    const r = await runGym(["dataset", "migrate", "-i", "train.jsonl", "--name", "mig_ds", "--yes", ...hfArgs(hub.url)], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(hub.text("nvidia/Nemotron-RL-math-mig_ds", "train.jsonl")).toBe(ROWS);
    expect(gl.models.has("mig_ds")).toBe(false);
    expect(r.stderr).not.toContain("hf_mig_secret");
  });

  test("a failed HF upload deletes nothing from GitLab", async () => {
    await registry().createRegisteredModel("keep_ds");
    hub.fail.set("/api/datasets/", 500);
    const r = await runGym(["dataset", "migrate", "-i", "train.jsonl", "--name", "keep_ds", "--yes", ...hfArgs(hub.url)], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(gl.models.has("keep_ds")).toBe(true);
    expect(gl.requests.some((q) => q.method === "DELETE")).toBe(false);
  });

  test("upload +delete_from_gitlab=true deletes after the upload", async () => {
    await registry().createRegisteredModel("up_ds");
    const r = await runGym(["dataset", "upload", "-i", "train.jsonl", "--name", "up_ds", "+delete_from_gitlab=true", "--yes", ...hfArgs(hub.url)], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(hub.text("nvidia/Nemotron-RL-math-up_ds", "train.jsonl")).toBe(ROWS);
    expect(gl.models.has("up_ds")).toBe(false);
  });
});

describe("collate's download of a missing dataset with a GitLab source", () => {
  test("fetches the artifact to jsonl_fpath; without credentials it is a config error", async () => {
    await registry().createRegisteredModel("col_ds");
    await registry().createModelVersion("col_ds", "0.1.0");
    gl.models.get("col_ds")!.get("0.1.0")!.files.set("train.jsonl", new TextEncoder().encode(ROWS));
    await using out = await tempDir();
    const path = join(out.path, "data/train.jsonl");
    const entry = { agent: "a", name: "d", type: "train", path, repeats: 1, config: { source: { type: "gitlab", dataset_name: "col_ds", version: "0.1.0", artifact_fpath: "train.jsonl" } } };
    await downloadDataset(entry, "gitlab", { dict: { mlflow_tracking_uri: gl.trackingUri, mlflow_tracking_token: gl.token }, servers: [], roots: [] });
    expect(readFileSync(path, "utf8")).toBe(ROWS);
    await expect(downloadDataset({ ...entry, path: join(out.path, "x.jsonl") }, "gitlab", { dict: {}, servers: [], roots: [] })).rejects.toThrow("GitLab dataset storage needs MLflow credentials");
  });
});
