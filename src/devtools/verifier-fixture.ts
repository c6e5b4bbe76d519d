/**
 * The verifier-fixture contract (upstream `nemo_gym/verifier_fixture.py`): a resources server's
 * `tests/verifier_cases.jsonl` holds a full-reward, a zero-reward and a malformed case (plus a
 * determinism case for `seeded` workloads); exercising it checks every case against the manifest's
 * reward contract without starting services. `--update-expected` rewrites the recorded rewards
 * atomically, and only after every behavioural check passed.
 */
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { ConfigError, GymError, EXIT_RUNTIME } from "../errors.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { pyDumps } from "../util/py-json-dumps.ts";

/** The kinds of fixture case. */
export const CASE_KINDS = ["full_reward", "zero_reward", "malformed", "determinism"] as const;
/** One kind of fixture case. */
export type CaseKind = (typeof CASE_KINDS)[number];

/** One fixture case, with the line it came from. */
export interface FixtureCase {
  name: string;
  kind: CaseKind;
  request: Record<string, unknown>;
  expected_reward?: number;
  expected_error?: string;
  line: number;
}

/** The outcome of one case (the `--json` report's `cases`). */
export interface FixtureResult {
  name: string;
  kind: CaseKind;
  observed_rewards: number[];
}

/** What one verify call produced: the answer's JSON, or the error text of a rejected request. */
export type Observation = { ok: true; result: unknown } | { ok: false; error: string };

/** Run one request on a fresh verifier (`reseed`: reseed it first; determinism cases). */
export type Observe = (request: Record<string, unknown>, opts: { reseed: boolean }) => Promise<Observation>;

/** The manifest's reward contract and the run options. */
export interface FixtureContract {
  rewardRange: [number, number];
  higherIsBetter: boolean;
  determinism: string;
  updateExpected?: boolean;
}

/** The fixture failed (a behavioural check did not hold). Exit 1, like every failed test. */
export class VerifierFixtureError extends GymError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_VERIFIER_FIXTURE", exitCode: EXIT_RUNTIME, hint });
    this.name = "VerifierFixtureError";
  }
}

const CASE_KEYS = new Set(["name", "kind", "request", "expected_reward", "expected_error"]);

function invalid(path: string, line: number, field: string, message: string): ConfigError {
  return new ConfigError(`invalid verifier fixture case: ${field}: ${message}`, { location: { file: path, line }, code: "E_VERIFIER_FIXTURE", hint: "each line is {name, kind: full_reward|zero_reward|malformed|determinism, request: {…}, expected_reward | expected_error}" });
}

function checkCase(raw: unknown, path: string, line: number): FixtureCase {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid(path, line, "case", "must be a JSON object");
  const c = raw as Record<string, unknown>;
  const extra = Object.keys(c).filter((k) => !CASE_KEYS.has(k));
  if (extra.length) throw invalid(path, line, extra[0]!, "extra inputs are not permitted");
  const name = typeof c.name === "string" ? c.name.trim() : "";
  if (name === "") throw invalid(path, line, "name", "a non-empty string is required");
  if (!(CASE_KINDS as readonly unknown[]).includes(c.kind)) throw invalid(path, line, "kind", `must be one of ${CASE_KINDS.join(", ")}, got ${JSON.stringify(c.kind)}`);
  const kind = c.kind as CaseKind;
  if (!c.request || typeof c.request !== "object" || Array.isArray(c.request)) throw invalid(path, line, "request", "must be a JSON object");
  const reward = c.expected_reward;
  if (reward !== undefined && reward !== null && (typeof reward !== "number" || !Number.isFinite(reward))) throw invalid(path, line, "expected_reward", `must be a finite number, got ${JSON.stringify(reward)}`);
  const error = typeof c.expected_error === "string" ? c.expected_error.trim() : c.expected_error;
  if (error !== undefined && error !== null && typeof error !== "string") throw invalid(path, line, "expected_error", "must be a string");
  const hasReward = typeof reward === "number";
  const hasError = typeof error === "string" && error !== "";
  if (kind === "malformed" && (!hasError || hasReward)) throw invalid(path, line, "expected_error", "a malformed case requires expected_error and forbids expected_reward");
  if (kind !== "malformed" && (!hasReward || (error !== undefined && error !== null))) throw invalid(path, line, "expected_reward", `a ${kind} case requires expected_reward and forbids expected_error`);
  const out: FixtureCase = { name, kind, request: c.request as Record<string, unknown>, line };
  if (hasReward) out.expected_reward = reward as number;
  if (hasError) out.expected_error = error as string;
  return out;
}

/** Read and check a fixture file; every problem names `file:line` and the field. */
export function loadVerifierFixture(path: string): FixtureCase[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`Could not read verifier fixture '${path}': ${(e as Error).message}`, { code: "E_VERIFIER_FIXTURE" });
  }
  const cases: FixtureCase[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(l);
    } catch (e) {
      throw new ConfigError(`Invalid JSON in verifier fixture: ${(e as Error).message}`, { location: { file: path, line: i + 1 }, code: "E_VERIFIER_FIXTURE" });
    }
    cases.push(checkCase(raw, path, i + 1));
  });
  if (cases.length === 0) throw new ConfigError(`Verifier fixture '${path}' contains no cases`, { code: "E_VERIFIER_FIXTURE", hint: "add a full_reward, a zero_reward and a malformed case" });
  return cases;
}

/** Python's float repr for a reward (`1.0`, not `1`), so a rewritten fixture reads like upstream's. */
function floatText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e16 ? `${n}.0` : pyDumps(n);
}

/** One case as upstream writes it: sorted keys, Python's json.dumps separators, unset fields left out. */
function caseLine(c: FixtureCase): string {
  const fields: [string, string][] = [];
  if (c.expected_error !== undefined) fields.push(["expected_error", pyDumps(c.expected_error)]);
  if (c.expected_reward !== undefined) fields.push(["expected_reward", floatText(c.expected_reward)]);
  fields.push(["kind", pyDumps(c.kind)], ["name", pyDumps(c.name)], ["request", pyDumps(sortKeys(c.request))]);
  return `{${fields.map(([k, v]) => `"${k}": ${v}`).join(", ")}}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

function rewardOf(c: FixtureCase, o: Observation): number {
  if (!o.ok) throw new VerifierFixtureError(`Case '${c.name}' (line ${c.line}) failed: ${o.error}`);
  const r = o.result && typeof o.result === "object" && !Array.isArray(o.result) ? (o.result as Record<string, unknown>).reward : o.result;
  if (typeof r !== "number" || !Number.isFinite(r)) throw new VerifierFixtureError(`Case '${c.name}' (line ${c.line}) returned a non-finite numeric reward: ${JSON.stringify(r) ?? "None"}`);
  return r;
}

function same(actual: number, expected: number, message: string): void {
  if (actual !== expected) throw new VerifierFixtureError(`${message}: expected ${floatText(expected)}, observed ${floatText(actual)}`);
}

/** Exercise every case of the fixture at `path` against `observe`; returns the per-case results. */
export async function exerciseVerifierFixture(path: string, observe: Observe, contract: FixtureContract): Promise<FixtureResult[]> {
  const cases = loadVerifierFixture(path);
  const [lower, upper] = contract.rewardRange;
  if (!Number.isFinite(lower) || !Number.isFinite(upper) || !(lower < upper)) throw new VerifierFixtureError("reward_range must contain finite endpoints with lower < upper");
  if (!["seeded", "stochastic", "unknown"].includes(contract.determinism)) throw new VerifierFixtureError(`Unsupported determinism value: '${contract.determinism}'`);
  const [full, zero] = contract.higherIsBetter ? [upper, lower] : [lower, upper];
  const [fullEnd, zeroEnd] = contract.higherIsBetter ? ["upper", "lower"] : ["lower", "upper"];
  const required = new Set<CaseKind>(["full_reward", "zero_reward", "malformed", ...(contract.determinism === "seeded" ? (["determinism"] as const) : [])]);
  const missing = [...required].filter((k) => !cases.some((c) => c.kind === k)).sort();
  if (missing.length) throw new VerifierFixtureError(`Verifier fixture '${path}' is missing required cases: ${missing.join(", ")}`);

  const results: FixtureResult[] = [];
  const updates = new Map<FixtureCase, number>();
  for (const c of cases) {
    if (c.kind === "determinism" && contract.determinism !== "seeded") continue;
    if (c.kind === "malformed") {
      const o = await observe(c.request, { reseed: false });
      if (o.ok) throw new VerifierFixtureError(`Malformed case '${c.name}' (line ${c.line}) did not raise an error`);
      if (!o.error.includes(c.expected_error!)) throw new VerifierFixtureError(`Malformed case '${c.name}' (line ${c.line}) error did not contain '${c.expected_error}': ${o.error}`);
      results.push({ name: c.name, kind: c.kind, observed_rewards: [] });
      continue;
    }
    const observed = rewardOf(c, await observe(c.request, { reseed: c.kind === "determinism" }));
    if (!(lower <= observed && observed <= upper)) throw new VerifierFixtureError(`Case '${c.name}' (line ${c.line}) returned reward ${floatText(observed)} outside declared range [${floatText(lower)}, ${floatText(upper)}]`);
    const rewards = [observed];
    if (c.kind === "full_reward") same(observed, full, `Full-reward case '${c.name}' (line ${c.line}) does not pin the ${fullEnd} endpoint`);
    else if (c.kind === "zero_reward") same(observed, zero, `Zero-reward case '${c.name}' (line ${c.line}) does not pin the ${zeroEnd} endpoint`);
    else if (c.kind === "determinism") {
      const again = rewardOf(c, await observe(c.request, { reseed: true }));
      rewards.push(again);
      same(again, observed, `Determinism case '${c.name}' (line ${c.line}) changed on a fresh server`);
    }
    if (contract.updateExpected) updates.set(c, observed);
    else same(observed, c.expected_reward!, `Case '${c.name}' (line ${c.line}) reward mismatch`);
    results.push({ name: c.name, kind: c.kind, observed_rewards: rewards });
  }
  if (contract.updateExpected && [...updates].some(([c, r]) => c.expected_reward !== r)) {
    if (lstatSync(path).isSymbolicLink() || !statSync(path).isFile()) throw new VerifierFixtureError(`Refusing to replace non-regular verifier fixture '${path}'`);
    const text = cases.map((c) => `${caseLine(updates.has(c) ? { ...c, expected_reward: updates.get(c)! } : c)}\n`).join("");
    writeFileAtomic(path, text, statSync(path).mode & 0o777);
  }
  return results;
}

/** Whether `path` is a fixture file (the contract's marker that a resources server exports one). */
export function hasFixture(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
