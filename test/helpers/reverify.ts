/**
 * Shared plumbing of the `gym eval reverify` agreement tests: read upstream's recorded example
 * rollouts, pair each with the input row it was recorded on, write both as the files reverify
 * reads, and run it. Each test file keeps its own pairing rule and its own comparison.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym } from "./tmp.ts";

/** A JSONL record. */
export type Row = Record<string, any>;

/** `assets/resources_servers` of this checkout. */
export const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");

/** Fields of a rollout that are the wire itself (request, answer, routing, reward), not verify output. */
export const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);

/** The records of a JSONL file (blank lines skipped). */
export function jsonLines(path: string): Row[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** JSON with object keys sorted at every level (pairing keys that ignore key order). */
export function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Row)[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

/**
 * A row's prompt as a pairing key. Recorded inputs gained `type: "message"` and may order keys
 * differently, so by default only each message's role and content count.
 */
export function promptKey(r: Row, part: (m: Row) => unknown[] = (m) => [m.role, m.content]): string {
  return stable((r.responses_create_params.input as Row[]).map(part));
}

/** The two files reverify reads, and the recorded rollouts as written (task index = position). */
export interface ReverifyFiles {
  rollouts: string;
  inputs: string;
  recs: Row[];
}

/**
 * Stamp recorded rollout `i` and the input row `pair` finds for it with task index `i`, rollout 0
 * and `agentRef`, and write both files into `dir`. A rollout without a row fails the test, naming `what`.
 */
export function writePairs(dir: string, recorded: Row[], pair: (rec: Row, i: number) => Row | undefined, agentRef: Row, what: string): ReverifyFiles {
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: agentRef });
  const rows = recorded.map((r, i) => {
    const row = pair(r, i);
    if (!row) throw new Error(`${what}: rollout ${i} has no example row with its prompt and no materialized input`);
    return { ...row, ...stamp(i) };
  });
  const out = { rollouts: join(dir, "rollouts.jsonl"), inputs: join(dir, "inputs.jsonl"), recs: recorded.map((r, i) => ({ ...r, ...stamp(i) })) };
  writeFileSync(out.rollouts, out.recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(out.inputs, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return out;
}

/**
 * Run `gym eval reverify --force` for `selector` against scripted_model over the written files
 * (`extra`: more overrides); returns the exit code, stderr and the re-verified rows by task index.
 */
export async function runReverify(dir: string, selector: string, files: ReverifyFiles, extra: string[] = []): Promise<{ code: number; stderr: string; byTask: Map<unknown, Row> }> {
  const out = join(dir, "out.jsonl");
  const r = await runGym(["eval", "reverify", "--force", "--resources-server", selector, "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", files.rollouts, "--inputs", files.inputs, "-o", out, ...extra], { cwd: dir });
  return { code: r.code, stderr: r.stderr, byTask: new Map(readJsonl(out).map((x) => [x._ng_task_index, x])) };
}
