/**
 * The manifest-backed onboarding journey (cli-config §2.4; upstream test_environment_onboarding /
 * _publication / _scaffold): gym env init --environment|--benchmark → validate → test → publish,
 * and the manifest entries of gym list environments. Real child processes; the new scorer's fixture
 * runs under the host python3, the external-runner protocol against a stand-in nemo_gym module.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const gym = (args: string[], cwd: string, env?: Record<string, string>) => runGym(args, { cwd, env: { NEMO_GYM_EXTRA_ROOTS: undefined, ...env } });
const hasPython = Bun.which("python3") !== null;

function finishManifest(path: string): void {
  const text = readFileSync(path, "utf8")
    .replace('description: "TODO: Describe the my_env environment."', "description: Multiplication facts.")
    .replace("  - TODO", "  - Jane Doe")
    .replace("licensing: unknown", "licensing: Apache-2.0");
  writeFileSync(path, text);
}

describe("gym env init/validate/test/publish (manifest-backed)", () => {
  test.skipIf(!hasPython)("a new environment: scaffold, validate, fixture, placeholders block publication, then publish and list", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    const init = await gym(["env", "init", "--environment", "my_env"], cwd);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`✓ Created ${join(cwd, "environments", "my_env")}`);
    for (const f of ["environments/my_env/manifest.yaml", "environments/my_env/config.yaml", "environments/my_env/data/example.jsonl", "resources_servers/my_env/app.py", "resources_servers/my_env/tests/verifier_cases.jsonl"]) expect(existsSync(join(cwd, f))).toBe(true);

    const again = await gym(["env", "init", "--environment", "my_env"], cwd);
    expect([again.code, again.stdout.trim()]).toEqual([0, `✓ ${join(cwd, "environments", "my_env")} is already up to date.`]);

    const v = await gym(["env", "validate", "my_env", "--json"], cwd);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ name: "my_env", kind: "environment", declared_profile: "custom-gym-verifier", datasets: [{ name: "my_env", rows: 1 }] });

    const t = await gym(["env", "test", "my_env", "--json"], cwd);
    expect(t.code).toBe(0);
    const report = JSON.parse(t.stdout);
    expect(report).toMatchObject({ name: "my_env", kind: "environment", resources_server: "my_env", fixture_path: join(cwd, "resources_servers", "my_env", "tests", "verifier_cases.jsonl") });
    expect(report.cases).toEqual([
      { name: "correct", kind: "full_reward", observed_rewards: [1] },
      { name: "incorrect", kind: "zero_reward", observed_rewards: [0] },
      { name: "missing response", kind: "malformed", observed_rewards: [] },
    ]);

    const blocked = await gym(["env", "publish", "my_env"], cwd);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain("Replace scaffold placeholders before publishing: description, authors, licensing");

    finishManifest(join(cwd, "environments", "my_env", "manifest.yaml"));
    const pub = await gym(["env", "publish", "my_env", "--json"], cwd);
    expect(pub.code).toBe(0);
    expect(JSON.parse(pub.stdout)).toEqual({ name: "my_env", version: "0.1.0", kind: "environment", status: "experimental", manifest_path: join(cwd, "environments", "my_env", "manifest.yaml"), verifier_cases: 3 });
    const human = await gym(["env", "publish", "my_env"], cwd);
    expect(human.stdout.trim()).toBe("✓ Publication checks passed for environment my_env 0.1.0; catalog status=experimental (3 verifier cases).");

    const listed = await gym(["list", "environments", "--status", "experimental", "--json"], cwd);
    const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.name)).toEqual(["my_env"]);
    expect(rows[0]).toMatchObject({ kind: "environment", status: "experimental", version: "0.1.0", integration_profile: "custom-gym-verifier", modality: "text", licensing: "Apache-2.0", lifecycle: "active", description: "Multiplication facts.", domain: "other" });
    expect(listed.stderr).toMatch(/entries have no status metadata and could not be matched/);
    const legacy = JSON.parse((await gym(["list", "environments", "--status", "no-manifest", "--kind", "environment", "--json"], cwd)).stdout) as Record<string, unknown>[];
    expect(legacy.length).toBeGreaterThan(3);
    expect(legacy.every((r) => r.status === "no-manifest" && r.version === null)).toBe(true);
    expect(legacy.some((r) => r.name === "my_env")).toBe(false);
    const inspect = await gym(["list", "environments", "my_env"], cwd);
    expect(inspect.stdout).toMatch(/status\s+experimental/);
    expect(inspect.stdout).toContain(join(cwd, "environments", "my_env", "manifest.yaml"));
  }, 120_000);

  test.skipIf(!hasPython)("a fixture that disagrees fails with the case and line; --update-expected records the observed reward", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    expect((await gym(["env", "init", "--environment", "my_env"], cwd)).code).toBe(0);
    const fixture = join(cwd, "resources_servers", "my_env", "tests", "verifier_cases.jsonl");
    const lines = readFileSync(fixture, "utf8").split("\n");
    lines[1] = lines[1]!.replace('"expected_reward":0', '"expected_reward":0.5');
    writeFileSync(fixture, lines.join("\n"));
    const fail = await gym(["env", "test", "my_env"], cwd);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain("Verifier fixture for environment 'my_env' failed");
    expect(fail.stderr).toContain("Case 'incorrect' (line 2) reward mismatch: expected 0.5, observed 0.0");
    const upd = await gym(["env", "test", "my_env", "--update-expected"], cwd);
    expect(upd.code).toBe(0);
    expect(readFileSync(fixture, "utf8").split("\n")[1]).toContain('"expected_reward": 0.0');
    expect((await gym(["env", "test", "my_env"], cwd)).code).toBe(0);

    writeFileSync(fixture, `${readFileSync(fixture, "utf8")}{"name": "x", "kind": "malformed", "request": {}}\n`);
    const bad = await gym(["env", "test", "my_env"], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${fixture}:4: invalid verifier fixture case: expected_error: a malformed case requires expected_error`);
  }, 120_000);

  test("a benchmark reusing a built-in verifier (mcqa's shipped fixture); its embedded fixture is never rewritten", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    const init = await gym(["env", "init", "--benchmark", "my_bench", "--reuse-verifier", "mcqa", "--reward-range", "0", "1", "--higher-is-better"], cwd);
    expect(init.code).toBe(0);
    expect(existsSync(join(cwd, "resources_servers"))).toBe(false);
    for (const f of ["manifest.yaml", "config.yaml", "prompt.yaml", "prepare.py", "data/source.jsonl", "data/example.jsonl"]) expect(existsSync(join(cwd, "benchmarks", "my_bench", f))).toBe(true);
    const t = await gym(["env", "test", "my_bench", "--kind", "benchmark"], cwd);
    expect([t.code, t.stdout.trim()]).toEqual([0, "✓ Verifier: my_bench (mcqa) 3 cases passed."]);
    const upd = await gym(["env", "test", "my_bench", "--update-expected"], cwd);
    expect(upd.code).toBe(2);
    expect(upd.stderr).toContain("Cannot update a verifier fixture embedded in the gym binary");
    const pub = await gym(["env", "publish", "my_bench"], cwd);
    expect(pub.stderr).toContain("Replace scaffold placeholders before publishing: description, authors, licensing, canonical_split");
  }, 120_000);

  test("scaffold conflicts abort the whole write set; option rules", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    mkdirSync(join(cwd, "environments", "my_env"), { recursive: true });
    writeFileSync(join(cwd, "environments", "my_env", "config.yaml"), "mine: true\n");
    const r = await gym(["env", "init", "--environment", "my_env"], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Scaffolding would overwrite existing content:\n  - ${join(cwd, "environments", "my_env", "config.yaml")}`);
    expect(existsSync(join(cwd, "environments", "my_env", "manifest.yaml"))).toBe(false);
    expect(existsSync(join(cwd, "resources_servers"))).toBe(false);
    expect(readFileSync(join(cwd, "environments", "my_env", "config.yaml"), "utf8")).toBe("mine: true\n");

    const cases: [string[], string][] = [
      [["--environment", "my-env"], "requires a lowercase Python identifier"],
      [["--environment", "x", "--reuse-verifier", "mcqa"], "reuse_verifier requires reward_range and higher_is_better"],
      [["--environment", "x", "--reuse-verifier", "no_such_scorer", "--reward-range", "0", "1", "--higher-is-better"], "reuse_verifier 'no_such_scorer' was not found"],
      [["--environment", "x", "--reuse-verifier", "gpqa_diamond", "--reward-range", "0", "1", "--higher-is-better"], "must declare a VERIFIER_FIXTURE"],
    ];
    for (const [args, message] of cases) {
      const e = await gym(["env", "init", ...args], cwd);
      expect([e.code, e.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  }, 120_000);

  test("selection and override errors of the manifest commands", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    const cases: [string[], number, string][] = [
      [["env", "test", "my_env", "+foo=1"], 2, "Manifest-backed commands do not accept runtime config overrides: foo"],
      [["env", "test", "nope"], 2, "Unknown catalog entry 'nope'."],
      [["env", "test", "spartqa"], 2, "'spartqa' is a resources server, not a manifest-backed workload"],
      [["env", "test", "circle_count"], 2, "Environment 'circle_count' has no manifest.yaml. Add one beside"],
      [["env", "publish"], 2, "gym env publish requires a catalog name"],
      [["env", "publish", "circle_count"], 2, "'circle_count' has no manifest and cannot be published."],
      [["env", "publish", "x", "+limit=3"], 2, "do not accept runtime config overrides: limit"],
    ];
    for (const [args, code, message] of cases) {
      const r = await gym(args, cwd);
      expect([r.code, r.stderr]).toEqual([code, expect.stringContaining(message)]);
    }
  }, 120_000);

  test.skipIf(!hasPython)("an external scorer that exports VERIFIER_FIXTURE runs upstream's _verifier_runner with the spec, in its own Python", async () => {
    await using dir = await tempDir();
    const cwd = dir.path;
    expect((await gym(["env", "init", "--environment", "my_env"], cwd)).code).toBe(0);
    writeFileSync(join(cwd, "resources_servers", "my_env", "app.py"), "from nemo_gym.verifier_fixture import VerifierFixture\nVERIFIER_FIXTURE = VerifierFixture(server_factory=object, request_model=dict, cases_path='tests/verifier_cases.jsonl')\n");
    // A stand-in for upstream's runner module: it checks the request it gets and answers as the real one does.
    const pkg = join(cwd, "fakepy", "nemo_gym", "environment");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(cwd, "fakepy", "nemo_gym", "__init__.py"), "");
    writeFileSync(join(pkg, "__init__.py"), "");
    writeFileSync(
      join(pkg, "_verifier_runner.py"),
      `import argparse, json, os
p = argparse.ArgumentParser(); p.add_argument("--request"); p.add_argument("--result"); a = p.parse_args()
req = json.load(open(a.request))
spec = req["spec"]
ok = os.path.isabs(a.request) and spec["app_path"].endswith("resources_servers/my_env/app.py") and spec["reward_range"] == [0, 1] and spec["determinism"] == "unknown" and spec["bundled_component"] is False and req["update_expected"] is False
if spec["name"] == "my_env" and os.environ.get("FAKE_FAIL"):
    json.dump({"ok": False, "error": "Verifier fixture for environment 'my_env' failed: Case 'x' reward mismatch"}, open(a.result, "w")); raise SystemExit(1)
report = {"name": spec["name"], "kind": spec["kind"], "resources_server": spec["resources_server"], "manifest_path": spec["manifest_path"], "fixture_path": "/f.jsonl", "cases": [{"name": "c", "kind": "full_reward", "observed_rewards": [1.0]}]}
json.dump({"ok": ok, "report": report, "error": None if ok else "bad spec " + json.dumps(req)}, open(a.result, "w"))
`,
    );
    const env = { PYTHONPATH: join(cwd, "fakepy") };
    const t = await gym(["env", "test", "my_env", "--json"], cwd, env);
    expect(t.stderr).not.toContain("bad spec");
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)).toEqual({ name: "my_env", kind: "environment", resources_server: "my_env", manifest_path: join(cwd, "environments", "my_env", "manifest.yaml"), fixture_path: "/f.jsonl", cases: [{ name: "c", kind: "full_reward", observed_rewards: [1] }] });
    const f = await gym(["env", "test", "my_env"], cwd, { ...env, FAKE_FAIL: "1" });
    expect([f.code, f.stderr]).toEqual([1, expect.stringContaining("Case 'x' reward mismatch")]);
    const none = await gym(["env", "test", "my_env"], cwd, { PYTHONPATH: join(cwd, "nowhere") });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Verifier runner exited with code 1 without producing a result.");
    expect(none.stderr).toContain("cannot import nemo_gym");
  }, 120_000);
});
