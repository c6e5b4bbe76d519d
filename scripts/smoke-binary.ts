/**
 * Smoke test of the compiled binary: build dist/gym, then run it with a PATH that holds no
 * node, bun or python (only a private dir with `sh`-level tools), from a cwd outside the repo.
 * Prints `N passed, M failed` and exits non-zero on any failure.
 */
import { mkdtempSync, mkdirSync, symlinkSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const bin = join(root, "dist", "gym");

const build = Bun.spawnSync([process.execPath, join(root, "build.ts")], { cwd: root, stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) {
  console.error("smoke: build failed");
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), "gym-smoke-"));
const emptyBin = join(work, "bin");
mkdirSync(emptyBin);
// A legacy alias is the binary under another name (spec §2.6).
symlinkSync(bin, join(emptyBin, "ng_dump_config"));
const env = { PATH: emptyBin, HOME: work, NO_COLOR: "1" };
// A parquet source for an offline `eval prepare`: hyparquet (and its WASM snappy) inside the binary.
mkdirSync(join(work, "src", "mmlu_pro", "data"), { recursive: true });
writeFileSync(join(work, "src", "mmlu_pro", "data", "test-00000-of-00001.parquet"), (await import("../test/fixtures/benchmarks/files.ts")).mmluProParquet());

interface Check {
  name: string;
  argv: string[];
  code: number;
  stdout?: RegExp;
  stderr?: RegExp;
}

const checks: Check[] = [
  { name: "--version", argv: [bin, "--version"], code: 0, stdout: /^gym \d+\.\d+\.\d+/ },
  { name: "--version --json", argv: [bin, "--version", "--json"], code: 0, stdout: /"version"/ },
  { name: "--help", argv: [bin, "--help"], code: 0, stdout: /USAGE/ },
  { name: "no command exits 1", argv: [bin], code: 1, stdout: /USAGE/ },
  { name: "unknown group exits 2", argv: [bin, "evl"], code: 2, stderr: /Did you mean `eval`/ },
  { name: "env resolve of an embedded component", argv: [bin, "env", "resolve", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model"], code: 0, stdout: /example_single_tool_call/ },
  {
    name: "eval run: a real rollout on a built-in environment against scripted_model",
    argv: [bin, "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "results/rollouts.jsonl"],
    code: 0,
    stderr: /NeMo Gym finished!/,
  },
  {
    name: "eval run on math_with_judge: /verify scores in a Bun worker embedded in the binary",
    argv: [bin, "eval", "run", "--resources-server", "math_with_judge", "--model-type", "scripted_model", "--split", "example", "-o", "results/math.jsonl"],
    code: 0,
    stderr: /NeMo Gym finished!/,
  },
  { name: "eval view --out: a self-contained report of those rollouts", argv: [bin, "eval", "view", "results/rollouts.jsonl", "--out", "results/report.html"], code: 0, stderr: /Wrote results\/report.html/ },
  { name: "eval prepare: a parquet benchmark from --data-dir", argv: [bin, "eval", "prepare", "--benchmark", "mmlu_pro", "--data-dir", "src", "--output-dir", "prepared"], code: 0, stderr: /mmlu_pro: wrote 2 rows/ },
  { name: "legacy alias via symlink", argv: [join(emptyBin, "ng_dump_config"), "--resources-server", "example_single_tool_call", "--model-type", "scripted_model"], code: 0, stderr: /deprecated/ },
];

let passed = 0;
let failed = 0;
for (const c of checks) {
  const p = Bun.spawnSync(c.argv, { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  const out = p.stdout.toString();
  const err = p.stderr.toString();
  const problems: string[] = [];
  if (p.exitCode !== c.code) problems.push(`exit ${p.exitCode}, want ${c.code}`);
  if (c.stdout && !c.stdout.test(out)) problems.push(`stdout !~ ${c.stdout}`);
  if (c.stderr && !c.stderr.test(err)) problems.push(`stderr !~ ${c.stderr}`);
  if (problems.length === 0) {
    passed++;
    console.error(`ok   ${c.name}`);
  } else {
    failed++;
    console.error(`FAIL ${c.name}: ${problems.join("; ")}\n  stdout: ${out.slice(0, 400)}\n  stderr: ${err.slice(0, 400)}`);
  }
}
if (!existsSync(bin)) failed++;
// The rollout run above must have written five rewarded rows.
const rolloutsPath = join(work, "results", "rollouts.jsonl");
const rows = existsSync(rolloutsPath) ? (await Bun.file(rolloutsPath).text()).trim().split("\n").map((l) => JSON.parse(l)) : [];
if (rows.length === 5 && rows.every((r) => r.reward === 1)) {
  passed++;
  console.error("ok   rollouts.jsonl holds 5 rewarded rows");
} else {
  failed++;
  console.error(`FAIL rollouts.jsonl: ${rows.length} rows, rewards ${rows.map((r) => r.reward).join(",")}`);
}
// math_with_judge's rows were scored by its worker (a missing worker would put every row in the failures file).
const mathPath = join(work, "results", "math.jsonl");
const mathRows = existsSync(mathPath) ? (await Bun.file(mathPath).text()).trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
if (mathRows.length === 5 && mathRows.every((r) => typeof r.library_reward === "number")) {
  passed++;
  console.error("ok   math.jsonl holds 5 rows scored by the math worker");
} else {
  failed++;
  console.error(`FAIL math.jsonl: ${mathRows.length} rows scored by the math worker`);
}
console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
