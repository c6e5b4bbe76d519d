/**
 * Preprocessing → `<stem>_materialized_inputs.jsonl` (runtime §11.3). Streams the input once
 * per pass, so memory holds only the task-index table (a 53-bit hash of each distinct raw line,
 * not the line). The file is written under a temporary name and renamed into place (D22).
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { BufferedJsonlWriter } from "./jsonl.ts";
import { readLines } from "../util/jsonl.ts";
import type { NumRepeats, RolloutConfig } from "./config.ts";
import { inShard } from "./shard-slice.ts";
import type { Row } from "./record.ts";

/** What materialization produced. */
export interface MaterializeResult {
  /** Materialized rows written. */
  total: number;
  /** Rows per agent name. */
  perAgent: Map<string, number>;
}

const ROLLOUT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const HASH_MASK = (1n << 53n) - 1n;

/** Repeats for one agent under `num_repeats` (an int, or a dict with optional `_default`). */
export function repeatsFor(nr: NumRepeats, agent: string): number {
  if (typeof nr === "number") return nr;
  const n = nr[agent] ?? nr._default;
  if (n === undefined) {
    throw new ConfigError(`num_repeats has no entry for agent '${agent}' and no _default`, { key: "num_repeats", hint: `add num_repeats.${agent} or num_repeats._default` });
  }
  return n;
}

function withSeed(rcp: Row, seed: number): Row {
  const metadata = { ...((rcp.metadata as Row | null | undefined) ?? {}) };
  let extra: Row = {};
  if (typeof metadata.extra_body === "string" && metadata.extra_body !== "") {
    try {
      extra = JSON.parse(metadata.extra_body) as Row;
    } catch {
      extra = {};
    }
  }
  metadata.extra_body = JSON.stringify({ ...extra, seed });
  return { ...rcp, metadata };
}

interface ParsedInput {
  row: Row;
  agent: string;
  taskIndex: number;
  repeats: number;
}

/** Fail when the input file is missing (before anything of an earlier run is deleted). */
export function checkInput(cfg: Pick<RolloutConfig, "input">): void {
  if (!existsSync(cfg.input)) {
    throw new ConfigError(`Input file not found: '${cfg.input}'. Check the path is spelled correctly.`, { key: "input_jsonl_fpath", hint: "relative paths are looked up in the search roots, then the cwd, then the install root" });
  }
  if (!statSync(cfg.input).isFile()) {
    throw new ConfigError(`Input '${cfg.input}' is a directory, not a JSONL file`, { key: "input_jsonl_fpath", hint: "pass the .jsonl file itself to -i/--input (e.g. a file inside that directory)" });
  }
}

/** Options beyond the config: a row transform (prompt config) and a known-agent check. */
export interface MaterializeOptions {
  /** Applied to each parsed row before stamping (prompt rendering). */
  transform?: (row: Row, lineNo: number) => Row;
  /** Called once per distinct agent name; throws when the agent is unknown. */
  checkAgent?: (agent: string) => void;
  /** Called once per distinct environment server a row is routed to directly; throws when unknown. */
  checkServer?: (server: string) => void;
}

/** Materialize `cfg.input` into `dest`; returns counts. */
export async function materialize(cfg: RolloutConfig, dest: string, opts: MaterializeOptions = {}): Promise<MaterializeResult> {
  checkInput(cfg);
  const taskByLine = new Map<number, number>();
  const nextRollout = new Map<number, number>();
  let nextTask = 0;
  const perAgent = new Map<string, number>();
  const checkedServers = new Set<string>();
  const noAgent: number[] = [];
  let overridden = 0;
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const out = new BufferedJsonlWriter(tmp);

  const malformed = (lineNo: number, why: string) => new ConfigError(`Malformed JSON in '${cfg.input}' at line ${lineNo}: ${why}`, { location: { file: cfg.input, line: lineNo } });
  const parse = (text: string, lineNo: number, hasNewline: boolean): ParsedInput | undefined => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw malformed(lineNo, (e as Error).message);
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) throw malformed(lineNo, "not a JSON object");
    let row = v as Row;
    if (opts.transform) row = opts.transform(row, lineNo);
    const ref = row.agent_ref as { name?: unknown } | undefined;
    const own = ref && typeof ref.name === "string" ? ref.name : undefined;
    let agent = own;
    if (cfg.agentName !== undefined) {
      if (own !== undefined && own !== cfg.agentName) overridden++;
      agent = cfg.agentName;
      row.agent_ref = { ...(ref ?? {}), name: cfg.agentName };
    }
    // Where the row goes (§11.1 environment_routing_mode): native rows by taskset, flat rows by mode.
    const taskId = row.task_id as { taskset?: unknown } | undefined;
    const native = !!taskId && typeof taskId === "object" && typeof taskId.taskset === "string" && !!row.task_input && typeof row.task_input === "object";
    let server: string | undefined;
    if (native) {
      server = cfg.environmentServerRoutes[taskId.taskset as string];
      if (!server && agent === undefined) {
        throw new ConfigError(`native row at line ${lineNo} has taskset '${taskId.taskset}', which environment_server_routes does not route`, {
          key: "environment_server_routes",
          location: { file: cfg.input, line: lineNo },
          hint: `add +environment_server_routes.${taskId.taskset}=<environment server>`,
        });
      }
    } else if (cfg.routingMode === "legacy") server = cfg.environmentServerName;
    else if (cfg.routingMode === "taskset") {
      throw new ConfigError(`flat row at line ${lineNo} is rejected in environment_routing_mode=taskset (only task_id + task_input rows are routed)`, { location: { file: cfg.input, line: lineNo } });
    }
    if (server !== undefined) {
      row._ng_environment_server = server;
      if (!checkedServers.has(server)) {
        opts.checkServer?.(server);
        checkedServers.add(server);
      }
      agent ??= server;
    }
    if (agent === undefined) {
      noAgent.push(lineNo - 1);
      return undefined;
    }
    if (row._ng_rollout_id !== undefined && (typeof row._ng_rollout_id !== "string" || !ROLLOUT_ID_RE.test(row._ng_rollout_id))) {
      throw new ConfigError(`_ng_rollout_id ${JSON.stringify(row._ng_rollout_id)} at line ${lineNo} must match ${ROLLOUT_ID_RE.source}`, { location: { file: cfg.input, line: lineNo } });
    }
    let taskIndex: number;
    if (typeof row._ng_task_index === "number" && Number.isInteger(row._ng_task_index)) taskIndex = row._ng_task_index;
    else {
      // Upstream keys task identity on the exact raw line, trailing newline included.
      const h = Number(Bun.hash.wyhash(hasNewline ? `${text}\n` : text) & HASH_MASK);
      let t = taskByLine.get(h);
      if (t === undefined) {
        t = nextTask++;
        taskByLine.set(h, t);
      }
      taskIndex = t;
    }
    if (!perAgent.has(agent)) {
      if (server === undefined) opts.checkAgent?.(agent);
      perAgent.set(agent, 0);
    }
    if (native) {
      const ti = row.task_input as Row;
      row.task_input = { ...ti, responses_create_params: { ...((ti.responses_create_params as Row | null | undefined) ?? {}), ...cfg.rcpOverrides } };
    } else {
      row.responses_create_params = { ...((row.responses_create_params as Row | null | undefined) ?? {}), ...cfg.rcpOverrides };
    }
    if (cfg.skills !== undefined) row.skills_ref = cfg.skills;
    return { row, agent, taskIndex, repeats: repeatsFor(cfg.numRepeats, agent) };
  };

  const emit = (p: ParsedInput) => {
    // Sharded collection: a task and all its repeats belong to exactly one shard.
    if (!inShard(p.taskIndex, cfg.shard)) return;
    const r = nextRollout.get(p.taskIndex) ?? 0;
    nextRollout.set(p.taskIndex, r + 1);
    const row: Row = { ...p.row, _ng_task_index: p.taskIndex, _ng_rollout_index: r };
    if (cfg.numRepeatsAddSeed) {
      const ti = p.row.task_input as Row | undefined;
      if (p.row.responses_create_params) row.responses_create_params = withSeed(p.row.responses_create_params as Row, r);
      else if (ti?.responses_create_params) row.task_input = { ...ti, responses_create_params: withSeed(ti.responses_create_params as Row, r) };
    }
    out.append(row);
    perAgent.set(p.agent, (perAgent.get(p.agent) ?? 0) + 1);
  };

  try {
    const passes = cfg.interleaveRepeats ? Number.POSITIVE_INFINITY : 1;
    for (let pass = 0; pass < passes; pass++) {
      let taken = 0;
      let anyLeft = false;
      for await (const l of readLines(cfg.input)) {
        if (cfg.limit !== undefined && taken >= cfg.limit) break;
        if (l.text.trim() === "") continue;
        taken++;
        // Let timers (status file, signals) run during long inputs; JSC collects lazily, so a
        // periodic collection keeps RSS flat on million-row inputs.
        if (taken % 10_000 === 0) await new Promise((r) => setImmediate(r));
        if (taken % 100_000 === 0) Bun.gc(true);
        const p = parse(l.text, l.lineNo, l.hasNewline);
        if (!p) continue;
        if (!cfg.interleaveRepeats) {
          for (let i = 0; i < p.repeats; i++) emit(p);
        } else if (pass < p.repeats) {
          emit(p);
          if (pass + 1 < p.repeats) anyLeft = true;
        }
      }
      if (noAgent.length > 0) {
        const shown = noAgent.slice(0, 20).join(", ") + (noAgent.length > 20 ? `, … (${noAgent.length} rows)` : "");
        throw new ConfigError(`No agent specified for rows [${shown}]. Either provide +agent_name config or include agent_ref in data.`, { hint: "pass -a/--agent NAME" });
      }
      if (!anyLeft) break;
    }
    out.close();
    renameSync(tmp, dest);
  } catch (e) {
    out.close();
    rmSync(tmp, { force: true });
    throw e;
  }
  if (overridden > 0) log.warn(`agent_name=${cfg.agentName} overrides the agent_ref of ${overridden} input row(s)`);
  if (typeof cfg.numRepeats === "object") {
    for (const k of Object.keys(cfg.numRepeats)) if (k !== "_default" && !perAgent.has(k)) log.warn(`num_repeats.${k}: no input row uses agent '${k}'`);
  }
  return { total: out.count, perAgent };
}
