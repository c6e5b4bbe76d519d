/**
 * Training-token records (upstream `nemo_gym/token_id_capture/records.py`): one `TokenEntry` per
 * captured model call, the wire shape shared with training frameworks that read the store's
 * `<rollout_id>.tokens.jsonl` files. Pure: no I/O.
 */
import { pyError } from "../py-error.ts";

type Obj = Record<string, unknown>;

/** Fields that carry token metadata on a served response (`routed_experts` is optional, MoE only). */
export const TOKEN_FIELDS = ["prompt_token_ids", "generation_token_ids", "generation_log_probs", "routed_experts"] as const;
const REQUIRED = ["prompt_token_ids", "generation_token_ids", "generation_log_probs"] as const;

/** Record format version; readers refuse newer records (an unknown field may change token meaning). */
export const TOKEN_ENTRY_RECORD_SCHEMA_VERSION = 1;

/** One model call's training data (field names and defaults are upstream's `TokenEntry`). */
export interface TokenEntry {
  schema_version: number;
  rollout_id: string;
  model_call_id: string;
  model: string;
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
  routed_experts: unknown;
  /** The response's output items without token arrays (content for text-based penalties). */
  output_items: Obj[];
  /** Which output item carried the token arrays (null: none did). */
  token_item_index: number | null;
  /** Wall-clock seconds at capture; picks the delivered chain, never semantics. */
  created_at: number;
  /** Extra fields are kept (upstream `extra="allow"`). */
  [extra: string]: unknown;
}

/** The fields a caller must give; the rest take upstream's defaults. */
export type TokenEntryInit = Pick<TokenEntry, "rollout_id" | "model_call_id" | "prompt_token_ids" | "generation_token_ids" | "generation_log_probs"> & Partial<TokenEntry>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function validation(msg: string): Error {
  // Named as pydantic's error so a consumer's masked-build `error` reads like upstream's.
  const e = new Error(`1 validation error for TokenEntry\n  ${msg}`);
  e.name = "ValidationError";
  return e;
}

function ints(v: unknown, field: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x))) throw validation(`${field}: must be a list of integers`);
  return v as number[];
}

function floats(v: unknown, field: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "number")) throw validation(`${field}: must be a list of numbers`);
  return v as number[];
}

/** Check a record (from a capture or read back from a store) and fill upstream's defaults; throws a `ValidationError`. */
export function tokenEntry(raw: unknown): TokenEntry {
  if (!isObj(raw)) throw validation("input must be an object");
  const version = raw.schema_version ?? TOKEN_ENTRY_RECORD_SCHEMA_VERSION;
  if (!Number.isInteger(version)) throw validation("schema_version: must be an integer");
  if ((version as number) > TOKEN_ENTRY_RECORD_SCHEMA_VERSION) {
    throw validation(`token record is schema_version ${String(version)}, but this reader understands up to ${TOKEN_ENTRY_RECORD_SCHEMA_VERSION}. Upgrade the reader, or point it at records written by a writer it matches.`);
  }
  for (const k of ["rollout_id", "model_call_id"]) if (typeof raw[k] !== "string") throw validation(`${k}: must be a string`);
  const gen = ints(raw.generation_token_ids, "generation_token_ids");
  const lps = floats(raw.generation_log_probs, "generation_log_probs");
  if (gen.length !== lps.length) throw validation(`generation_token_ids and generation_log_probs must have the same length (got ${gen.length} and ${lps.length})`);
  const items = raw.output_items ?? [];
  if (!Array.isArray(items) || !items.every(isObj)) throw validation("output_items: must be a list of objects");
  const idx = raw.token_item_index ?? null;
  if (idx !== null && (!Number.isInteger(idx) || (idx as number) < 0 || (idx as number) >= items.length)) {
    throw validation(`token_item_index ${String(idx)} is outside output_items of length ${items.length}`);
  }
  const createdAt = raw.created_at ?? 0;
  if (typeof createdAt !== "number") throw validation("created_at: must be a number");
  return {
    ...raw,
    schema_version: version as number,
    rollout_id: raw.rollout_id as string,
    model_call_id: raw.model_call_id as string,
    model: typeof raw.model === "string" ? raw.model : "",
    prompt_token_ids: ints(raw.prompt_token_ids, "prompt_token_ids"),
    generation_token_ids: gen,
    generation_log_probs: lps,
    routed_experts: raw.routed_experts ?? null,
    output_items: items as Obj[],
    token_item_index: idx as number | null,
    created_at: createdAt,
  };
}

/** Build a new entry from its required fields (defaults as upstream). */
export function newTokenEntry(init: TokenEntryInit): TokenEntry {
  return tokenEntry({ schema_version: TOKEN_ENTRY_RECORD_SCHEMA_VERSION, model: "", routed_experts: null, output_items: [], token_item_index: null, created_at: 0, ...init });
}

/** JSON with object keys sorted at every level (orjson `OPT_SORT_KEYS`): the store's canonical line and digest input. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (!isObj(val)) return val;
    const out: Obj = {};
    for (const k of Object.keys(val).sort()) out[k] = val[k];
    return out;
  });
}

/** A served payload's content-bearing Responses output items (chat `choices[*].message` wrapped as `message` items). */
export function responseToOutputItems(payload: Obj): Obj[] {
  const output = payload.output;
  if (Array.isArray(output) && output.length > 0) return output.filter(isObj);
  const items: Obj[] = [];
  for (const choice of Array.isArray(payload.choices) ? payload.choices : []) {
    const message = isObj(choice) ? choice.message : undefined;
    if (!isObj(message)) continue;
    const item: Obj = { ...message };
    if (!("type" in item)) item.type = "message";
    if (!("role" in item)) item.role = "assistant";
    items.push(item);
  }
  return items;
}

/** Drop token arrays from items (kept once on the entry); returns the items and the index of the one that carried them. */
export function stripTokenFields(items: Obj[]): { items: Obj[]; tokenItemIndex: number | null } {
  const carriers: number[] = [];
  const stripped = items.map((item, i) => {
    if (item.generation_token_ids !== undefined && item.generation_token_ids !== null) carriers.push(i);
    const out: Obj = {};
    for (const k in item) if (!(TOKEN_FIELDS as readonly string[]).includes(k)) out[k] = item[k];
    return out;
  });
  if (carriers.length > 1) throw pyError("ValueError", "multiple output items carry token metadata");
  return { items: stripped, tokenItemIndex: carriers[0] ?? null };
}

/** The token fields of a served response (Responses output items or chat messages), or null when none carries them. */
export function extractTokenFields(response: Obj): Record<(typeof TOKEN_FIELDS)[number], unknown> | null {
  const candidates: Obj[] = [];
  const carries = (o: Obj) => REQUIRED.some((f) => o[f] !== undefined && o[f] !== null);
  for (const item of Array.isArray(response.output) ? response.output : []) if (isObj(item) && carries(item)) candidates.push(item);
  for (const choice of Array.isArray(response.choices) ? response.choices : []) {
    const message = isObj(choice) ? choice.message : undefined;
    if (isObj(message) && carries(message)) candidates.push(message);
  }
  if (candidates.length === 0) return null;
  if (candidates.length > 1) throw pyError("ValueError", "multiple response items carry token metadata");
  const source = candidates[0]!;
  const missing = REQUIRED.filter((f) => source[f] === undefined || source[f] === null);
  if (missing.length > 0) throw pyError("ValueError", `partial token metadata is missing: ${missing.join(", ")}`);
  return { prompt_token_ids: source.prompt_token_ids, generation_token_ids: source.generation_token_ids, generation_log_probs: source.generation_log_probs, routed_experts: source.routed_experts ?? null };
}
