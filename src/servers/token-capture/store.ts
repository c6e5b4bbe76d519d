/**
 * The training-token file store (upstream `TokenCaptureStore`, same file layout so a framework's
 * Python reader works on gym's directory): per rollout `<id>.tokens.jsonl` (one fsync'd canonical
 * line per model call), `.tokens.intents` (calls dispatched), `.tokens.incomplete` (calls lost),
 * `.tokens.state.json` (frozen/retired/snapshot/version + the entry digest index) and
 * `.tokens.lock` (flock). It is the model server's sink and the collector's source.
 *
 * Memory is bounded: nothing per rollout stays in memory after a call (the lock chains are
 * dropped when idle); disk is bounded by `drop` (a delivered rollout keeps only a small tombstone),
 * `sweepRetired` (removes old tombstones) and `maxRolloutBytes` (a runaway rollout stops growing
 * and is marked incomplete, so it is masked rather than trained on).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, openSync, fsyncSync, closeSync, renameSync, rmSync, truncateSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { pyError } from "../py-error.ts";
import { acquireFileLock } from "./_flock.ts";
import { canonicalJson, tokenEntry, type TokenEntry } from "./records.ts";

type Obj = Record<string, unknown>;

/** Rollout ids that are safe as file names (upstream `validate_rollout_id`: ASCII alnum and `._-`). */
const SAFE_ID = /^[A-Za-z0-9._-]+$/;

/** Reject an id that could escape the store directory (throws a ValueError). */
export function validateRolloutId(rolloutId: string): string {
  if (typeof rolloutId !== "string" || !SAFE_ID.test(rolloutId)) throw pyError("ValueError", `Invalid rollout id: ${JSON.stringify(rolloutId)}`);
  return rolloutId;
}

/** An immutable view of one rollout's frozen records (upstream `TokenCaptureSnapshot`). */
export interface TokenCaptureSnapshot {
  rollout_id: string;
  entries: TokenEntry[];
  incomplete: boolean;
  snapshot_id: string;
  version: number;
}

/** Where records go (upstream `TokenSink`): the model server's side. */
export interface TokenSink {
  put(entry: TokenEntry): Promise<void>;
  markIncomplete(rolloutId: string, modelCallId?: string): Promise<void>;
  /** Optional: durably note a call before it is dispatched, so a lost entry leaves a dangling intent. */
  beginCall?(rolloutId: string, modelCallId: string): Promise<void>;
  close(): Promise<void>;
}

/** Where a consumer freezes, reads and retires records (upstream `TokenSource`). */
export interface TokenSource {
  freeze(rolloutId: string): Promise<TokenCaptureSnapshot>;
  drop(rolloutId: string, snapshot: { snapshotId: string; version: number }): Promise<boolean>;
  close(): Promise<void>;
}

interface State extends Obj {
  frozen: boolean;
  retired: boolean;
  incomplete: boolean;
  snapshot_id: string;
  version: number;
  entry_digests: Record<string, string>;
  indexed_size: number;
}

/** A rollout's capture outgrew `maxRolloutBytes` (the call is refused and the rollout marked incomplete). */
export class TokenStoreFullError extends Error {
  override name = "TokenStoreFullError";
}

/** Default cap on one rollout's token file: far above any real rollout, low enough to stop a runaway loop filling the disk. */
export const DEFAULT_MAX_ROLLOUT_BYTES = 1 << 30;

function digest(payload: string): string {
  return new Bun.CryptoHasher("sha256").update(payload).digest("hex");
}

function randomHex(): string {
  return crypto.randomUUID().replace(/-/g, "");
}

/** Durable, rollout-keyed JSONL store of TokenEntry records. */
export class TokenCaptureStore implements TokenSink, TokenSource {
  private readonly chains = new Map<string, Promise<unknown>>();
  readonly maxRolloutBytes: number;

  constructor(
    readonly root: string,
    opts: { maxRolloutBytes?: number } = {},
  ) {
    mkdirSync(root, { recursive: true });
    this.maxRolloutBytes = opts.maxRolloutBytes ?? DEFAULT_MAX_ROLLOUT_BYTES;
  }

  /** `<root>/<id>.tokens.jsonl`. */
  pathFor(id: string): string {
    return join(this.root, `${validateRolloutId(id)}.tokens.jsonl`);
  }
  /** `<root>/<id>.tokens.incomplete`: one line per lost call. */
  incompletePathFor(id: string): string {
    return join(this.root, `${validateRolloutId(id)}.tokens.incomplete`);
  }
  /** `<root>/<id>.tokens.intents`: one line per dispatched call. */
  intentsPathFor(id: string): string {
    return join(this.root, `${validateRolloutId(id)}.tokens.intents`);
  }
  /** `<root>/<id>.tokens.state.json`. */
  statePathFor(id: string): string {
    return join(this.root, `${validateRolloutId(id)}.tokens.state.json`);
  }
  /** `<root>/<id>.tokens.lock`. */
  lockPathFor(id: string): string {
    return join(this.root, `${validateRolloutId(id)}.tokens.lock`);
  }

  /** Run `fn` holding this rollout's lock: in-process callers queue on a chain, other processes on flock. */
  private locked<T>(id: string, fn: () => Promise<T> | T, shared = false): Promise<T> {
    const lockPath = this.lockPathFor(id);
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(async () => {
      const release = await acquireFileLock(lockPath, { shared });
      try {
        return await fn();
      } finally {
        release();
      }
    });
    const settled = next.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return next;
  }

  private readState(id: string): State {
    const path = this.statePathFor(id);
    if (!existsSync(path)) return { frozen: false, retired: false, incomplete: false, snapshot_id: "", version: 0, entry_digests: {}, indexed_size: 0 };
    const state = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (state === null || typeof state !== "object" || Array.isArray(state)) throw pyError("ValueError", `Invalid token-capture state for rollout ${id}`);
    return state as State;
  }

  private fsyncRoot(): void {
    const fd = openSync(this.root, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Replace the state file atomically; `durable: false` (state rebuildable from the JSONL tail) skips the fsyncs. */
  private async writeState(id: string, state: State, durable = true): Promise<void> {
    const tmp = join(this.root, `.tokens-state-${randomHex()}`);
    try {
      const fh = await open(tmp, "w");
      try {
        await fh.write(`${canonicalJson(state)}\n`);
        if (durable) await fh.sync();
      } finally {
        await fh.close();
      }
      renameSync(tmp, this.statePathFor(id));
      if (durable) this.fsyncRoot();
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /**
   * Reconcile the digest index with the durable JSONL tail: a line is fsync'd before its index
   * update, so a crash can leave lines the index does not know. Only the unindexed tail is parsed;
   * a torn last line (never acknowledged) is cut off. Returns whether the state changed.
   */
  private async syncEntryIndex(id: string, state: State): Promise<boolean> {
    const path = this.pathFor(id);
    let fileSize = existsSync(path) ? statSync(path).size : 0;
    const storedIndex = state.entry_digests;
    const storedSize = state.indexed_size;
    const legacy = storedIndex === null || typeof storedIndex !== "object" || !Number.isInteger(storedSize);
    const digests: Record<string, string> = legacy ? {} : { ...storedIndex };
    const indexed = legacy ? 0 : storedSize;
    if (indexed < 0 || indexed > fileSize) throw pyError("ValueError", `Invalid token-capture index offset for rollout ${id}`);
    if (indexed === fileSize && !legacy) return false;
    let recovered = 0;
    if (existsSync(path)) {
      const tail = readFileSync(path).subarray(indexed);
      let pos = 0;
      while (pos < tail.length) {
        const nl = tail.indexOf(0x0a, pos);
        const end = nl === -1 ? tail.length : nl;
        const payload = tail.subarray(pos, end).toString("utf8").trim();
        if (payload !== "") {
          let parsed: unknown;
          try {
            parsed = JSON.parse(payload);
          } catch (e) {
            const rest = nl === -1 ? "" : tail.subarray(end + 1).toString("utf8");
            if (rest.trim() !== "") throw e; // a bad line with content after it is corruption, not a torn write
            truncateSync(path, indexed + pos);
            fileSize = indexed + pos;
            break;
          }
          const entry = tokenEntry(parsed);
          const d = digest(payload);
          const existing = digests[entry.model_call_id];
          if (existing !== undefined && existing !== d) {
            state.incomplete = true;
            state.version = Number(state.version ?? 0) + 1;
            await this.writeState(id, state);
            throw pyError("ValueError", `Model call id ${JSON.stringify(entry.model_call_id)} has conflicting durable payloads for rollout ${JSON.stringify(id)}`);
          }
          digests[entry.model_call_id] = d;
          recovered++;
        }
        pos = end + 1;
      }
    }
    state.entry_digests = digests;
    state.indexed_size = fileSize;
    if (recovered > 0 && !legacy) state.version = Number(state.version ?? 0) + recovered;
    return true;
  }

  /** Append one entry durably (fsync before returning); the same call id with the same payload is a no-op, a different payload fails and marks the rollout. */
  async put(entry: TokenEntry): Promise<void> {
    const canonical = canonicalJson(entry);
    const d = digest(canonical);
    const id = entry.rollout_id;
    await this.locked(id, async () => {
      const state = this.readState(id);
      if (state.retired) throw pyError("RuntimeError", `Token capture for rollout ${id} is retired`);
      if (state.frozen) throw pyError("RuntimeError", `Token capture for rollout ${id} is already frozen`);
      const changed = await this.syncEntryIndex(id, state);
      const existing = state.entry_digests[entry.model_call_id];
      if (existing !== undefined) {
        if (existing === d) {
          if (changed) await this.writeState(id, state);
          return;
        }
        state.incomplete = true;
        state.version = Number(state.version) + 1;
        await this.writeState(id, state);
        throw pyError("ValueError", `Model call id ${JSON.stringify(entry.model_call_id)} was reused with a different payload for rollout ${JSON.stringify(id)}`);
      }
      const line = `${canonical}\n`;
      const size = Buffer.byteLength(line);
      if (state.indexed_size + size > this.maxRolloutBytes) {
        throw new TokenStoreFullError(`token capture for rollout ${id} would exceed ${this.maxRolloutBytes} bytes (${state.indexed_size} stored, ${size} more); the call is not recorded and the rollout will be masked`);
      }
      const fh = await open(this.pathFor(id), "a");
      try {
        await fh.write(line);
        await fh.sync();
      } finally {
        await fh.close();
      }
      state.indexed_size += size;
      state.entry_digests[entry.model_call_id] = d;
      state.version = Number(state.version) + 1;
      // The line's fsync is the durability guarantee; the index is rebuildable from the tail.
      await this.writeState(id, state, false);
    });
  }

  /** Durably record that a call of this rollout was lost (the consumer then masks the rollout). */
  async markIncomplete(id: string, modelCallId = ""): Promise<void> {
    await this.locked(id, async () => {
      const state = this.readState(id);
      if (state.retired) throw pyError("RuntimeError", `Token capture for rollout ${id} is retired`);
      state.incomplete = true;
      state.version = Number(state.version ?? 0) + 1;
      await this.writeState(id, state);
      await appendDurable(this.incompletePathFor(id), `${modelCallId}\n`);
      this.fsyncRoot();
    });
  }

  /** Whether the rollout is marked incomplete. */
  isIncomplete(id: string): Promise<boolean> {
    return this.locked(id, () => Boolean(this.readState(id).incomplete), true);
  }

  /** Durably note a call about to be dispatched; a failure here fails the call before generation. */
  async beginCall(id: string, modelCallId: string): Promise<void> {
    await this.locked(id, async () => {
      const state = this.readState(id);
      if (state.retired) throw pyError("RuntimeError", `Token capture for rollout ${id} is retired`);
      if (state.frozen) throw pyError("RuntimeError", `Token capture for rollout ${id} is already frozen`);
      await appendDurable(this.intentsPathFor(id), `${modelCallId}\n`);
    });
  }

  /** Freeze the rollout (idempotent; no write succeeds afterwards) and return its snapshot. */
  freeze(id: string): Promise<TokenCaptureSnapshot> {
    return this.locked(id, async () => {
      const state = this.readState(id);
      if (state.retired) throw pyError("RuntimeError", `Token capture for rollout ${id} is retired`);
      const changed = await this.syncEntryIndex(id, state);
      if (!state.frozen) {
        state.frozen = true;
        state.snapshot_id = randomHex();
        state.version = Number(state.version ?? 0) + 1;
        await this.writeState(id, state);
      } else if (changed) await this.writeState(id, state);
      const entries = this.readEntriesUnlocked(id);
      const recorded = new Set(entries.map((e) => e.model_call_id));
      const dangling = this.intents(id).some((c) => !recorded.has(c));
      return { rollout_id: id, entries, incomplete: Boolean(state.incomplete) || dangling, snapshot_id: String(state.snapshot_id), version: Number(state.version) };
    });
  }

  /** Retire exactly the frozen snapshot that was consumed: payloads deleted, a retired tombstone kept; false when the state moved on. */
  drop(id: string, snap: { snapshotId: string; version: number }): Promise<boolean> {
    return this.locked(id, async () => {
      const state = this.readState(id);
      if (!state.frozen || state.snapshot_id !== snap.snapshotId || Number(state.version ?? 0) !== snap.version) return false;
      for (const p of [this.pathFor(id), this.incompletePathFor(id), this.intentsPathFor(id)]) rmSync(p, { force: true });
      // The tombstone stays frozen so a late writer of this attempt still sees the freeze.
      state.indexed_size = 0;
      state.entry_digests = {};
      state.retired = true;
      await this.writeState(id, state);
      return true;
    });
  }

  /** Remove every record of a rollout (before dispatching it again under the same deterministic id). */
  delete(id: string): Promise<void> {
    return this.locked(id, () => {
      for (const p of [this.pathFor(id), this.incompletePathFor(id), this.intentsPathFor(id), this.statePathFor(id)]) rmSync(p, { force: true });
      this.fsyncRoot();
    });
  }

  /** Remove retired tombstones whose state is older than the cutoff; returns how many. */
  async sweepRetired(olderThanSeconds: number): Promise<number> {
    const cutoffMs = Date.now() - olderThanSeconds * 1000;
    let removed = 0;
    for (const name of readdirSync(this.root)) {
      if (!name.endsWith(".tokens.state.json")) continue;
      const id = name.slice(0, -".tokens.state.json".length);
      if (!SAFE_ID.test(id)) continue;
      const gone = await this.locked(id, () => {
        const statePath = this.statePathFor(id);
        if (!existsSync(statePath) || statSync(statePath).mtimeMs > cutoffMs) return false;
        if (!this.readState(id).retired) return false;
        for (const p of [statePath, this.intentsPathFor(id), this.incompletePathFor(id), this.lockPathFor(id)]) rmSync(p, { force: true });
        return true;
      });
      if (gone) removed++;
    }
    if (removed > 0) this.fsyncRoot();
    return removed;
  }

  /** Every entry of a rollout, in file order. */
  readEntries(id: string): Promise<TokenEntry[]> {
    return this.locked(id, () => this.readEntriesUnlocked(id), true);
  }

  private readEntriesUnlocked(id: string): TokenEntry[] {
    const path = this.pathFor(id);
    if (!existsSync(path)) return [];
    const out: TokenEntry[] = [];
    for (const line of readFileSync(path, "utf8").split("\n")) if (line.trim() !== "") out.push(tokenEntry(JSON.parse(line)));
    return out;
  }

  private intents(id: string): string[] {
    const path = this.intentsPathFor(id);
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8").split("\n").map((l) => l.trim()).filter((l) => l !== "");
  }

  /** The file store holds no open handles. */
  async close(): Promise<void> {}
}

async function appendDurable(path: string, text: string): Promise<void> {
  const fh = await open(path, "a");
  try {
    await fh.write(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
