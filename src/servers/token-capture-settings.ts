/**
 * The run-wide `token_id_capture` block (runtime.md "Training token capture", upstream
 * `TokenIdCaptureSettings`/`TokenIdCaptureConfig`): read and checked once, plus the collector's
 * masked-fraction abort. Pure: no I/O.
 */
import { isAbsolute } from "node:path";
import { ConfigError } from "../errors.ts";
import { pyError } from "./py-error.ts";

type Obj = Record<string, unknown>;

/** The checked `token_id_capture` settings. */
export interface TokenCaptureSettings {
  enabled: boolean;
  /** Capture every agent's model calls, not only agents whose leaf sets `token_id_capture: true`. */
  allAgents: boolean;
  /** The file-store directory: `token_id_capture.dir`, else the top-level `model_call_capture_dir`. */
  dir: string | null;
  /** Whether the collector rebuilds `response.output` from the captured tokens. */
  rebuildResponse: boolean;
  /** Abort once enough finalized rollouts exceed this masked fraction (null: never). */
  maxMaskFraction: number | null;
  /** Finalized rollouts needed before the masked fraction is judged. */
  maskFractionMinSamples: number;
}

const KEYS = ["enabled", "all_agents", "dir", "sink", "sink_kwargs", "rebuild_response", "max_mask_fraction", "mask_fraction_min_samples"];

function boolKey(block: Obj, key: string, fallback: boolean): boolean {
  const v = block[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "false") return v === "true";
  throw new ConfigError(`token_id_capture.${key} must be true or false, got ${JSON.stringify(v)}`, { key: `token_id_capture.${key}` });
}

/** Read and check the block from the global config (absent or `false` → disabled). */
export function tokenCaptureSettings(global: Obj): TokenCaptureSettings {
  const raw = global.token_id_capture;
  if (raw !== undefined && raw !== null && typeof raw !== "boolean" && (typeof raw !== "object" || Array.isArray(raw))) throw new ConfigError(`token_id_capture must be a mapping, got ${JSON.stringify(raw)}`, { key: "token_id_capture" });
  const block: Obj = raw && typeof raw === "object" ? (raw as Obj) : raw === true ? { enabled: true } : {};
  // Upstream forbids unknown keys: a typo must not silently turn a setting off.
  const unknown = Object.keys(block).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) throw new ConfigError(`token_id_capture has unknown key(s) ${unknown.join(", ")}; known keys: ${KEYS.join(", ")}`, { key: `token_id_capture.${unknown[0]}` });

  const mmf = block.max_mask_fraction;
  if (mmf !== undefined && mmf !== null && (typeof mmf !== "number" || !Number.isFinite(mmf))) throw new ConfigError(`token_id_capture.max_mask_fraction must be a number or null, got ${JSON.stringify(mmf)}`, { key: "token_id_capture.max_mask_fraction" });
  const min = block.mask_fraction_min_samples ?? 50;
  if (typeof min !== "number" || !Number.isInteger(min)) throw new ConfigError(`token_id_capture.mask_fraction_min_samples must be an integer, got ${JSON.stringify(min)}`, { key: "token_id_capture.mask_fraction_min_samples" });
  const dirRaw = block.dir ?? global.model_call_capture_dir ?? null;
  const dir = dirRaw === null || dirRaw === "" ? null : String(dirRaw);

  const s: TokenCaptureSettings = {
    enabled: boolKey(block, "enabled", false),
    allAgents: boolKey(block, "all_agents", false),
    dir,
    rebuildResponse: boolKey(block, "rebuild_response", true),
    maxMaskFraction: typeof mmf === "number" ? mmf : null,
    maskFractionMinSamples: min,
  };
  if (!s.enabled) return s; // inactive settings stay unchecked so a run can toggle only `enabled`
  if (block.sink !== undefined && block.sink !== null) {
    throw new ConfigError(`token_id_capture.sink (${JSON.stringify(block.sink)}) names a Python class; gym is one binary and cannot load it`, { key: "token_id_capture.sink", hint: "use the file store: set token_id_capture.dir to an absolute directory and read the records from there" });
  }
  if (dir === null) {
    if (!s.rebuildResponse) return s;
    throw new ConfigError("token_id_capture requires a directory or sink", { key: "token_id_capture.dir", hint: "set token_id_capture.dir (or model_call_capture_dir) to an absolute directory shared by the model servers and the collector" });
  }
  if (!isAbsolute(dir)) throw new ConfigError(`training-token capture directory must be an absolute path (got ${dir})`, { key: "token_id_capture.dir" });
  return s;
}

/** Whether an agent takes part: capture enabled and (`all_agents` or the agent's leaf `token_id_capture: true`). */
export function tokenCaptureForAgent(s: TokenCaptureSettings, agentLeaf: Obj | undefined): boolean {
  return s.enabled && (s.allAgents || agentLeaf?.token_id_capture === true);
}

/** Python's `{:.1%}` (x*100 in floats, then one decimal; an exact .x5 tie cannot occur for a binary double, so toFixed agrees). */
function percent1(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The collector's running count of finalized and masked token-capture builds; aborts like upstream. */
export class MaskTally {
  finalized = 0;
  masked = 0;
  readonly reasons = new Map<string, number>();
  constructor(private readonly s: Pick<TokenCaptureSettings, "maxMaskFraction" | "maskFractionMinSamples">) {}

  /** Count one finalized build (`reasons` only when masked); throws the RuntimeError that stops the run. */
  record(masked: boolean, reasons: string[] = []): void {
    this.finalized++;
    if (masked) {
      this.masked++;
      for (const r of reasons) this.reasons.set(r, (this.reasons.get(r) ?? 0) + 1);
    }
    const max = this.s.maxMaskFraction;
    if (max !== null && this.finalized >= this.s.maskFractionMinSamples && this.masked / this.finalized > max) {
      const shown = `{${[...this.reasons].map(([k, v]) => `'${k}': ${v}`).join(", ")}}`;
      throw pyError("RuntimeError", `${this.masked}/${this.finalized} finalized rollouts (${percent1(this.masked / this.finalized)}) are masked, exceeding token_id_capture.max_mask_fraction=${String(max)}. Mask reasons: ${shown}. Aborting instead of collecting mostly token-less data.`);
    }
  }
}
