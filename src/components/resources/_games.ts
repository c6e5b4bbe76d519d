/** Helpers shared by the Gymnasium-style game servers (blackjack, grl_tetris, grl_sokoban). */
import { HttpError } from "../../runtime/http/http-types.ts";

/** 128 bits of entropy: the seed of an unseeded Python `random.Random()` (CPython seeds from os.urandom). */
export function entropySeed(): bigint {
  const w = crypto.getRandomValues(new Uint32Array(4));
  return w.reduce((acc, x) => (acc << 32n) | BigInt(x), 0n);
}

/**
 * A row's `seed`: absent/null → unseeded; an integer → itself. Upstream also seeds numpy, which takes
 * only integers in [0, 2**32): anything else fails the reset there, and is a 400 here.
 */
export function integerSeed(v: unknown): bigint | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= 0xffffffff) return BigInt(v);
  throw new HttpError(400, `seed must be an integer between 0 and 2**32 - 1, got ${JSON.stringify(v)}`);
}

/** An `action_lookup` (`{id: label}`, ids possibly JSON strings) as a Map, or the default. */
export function labelLookup(v: unknown, fallback: Record<number, string>): Map<number, string> {
  const src = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : fallback;
  const out = new Map<number, string>();
  for (const [k, label] of Object.entries(src)) if (/^-?\d+$/.test(k) && typeof label === "string") out.set(Number(k), label);
  return out;
}

/**
 * Per-session game state. Upstream keeps a finished game (a further step answers its last frame
 * again) for as long as the process lives; here the newest `keepFinished` finished games are kept.
 */
export class DoneSessions<T> {
  private readonly map = new Map<string, T>();
  private readonly finished: string[] = [];
  constructor(private readonly keepFinished = 4096) {}
  /** The session's state. */
  get(sid: string): T | undefined {
    return this.map.get(sid);
  }
  /** Start (or restart) a session. */
  set(sid: string, v: T): void {
    this.map.set(sid, v);
  }
  /** The episode ended: keep its state a while for steps that still arrive. */
  finish(sid: string): void {
    this.finished.push(sid);
    while (this.finished.length > this.keepFinished) this.map.delete(this.finished.shift()!);
  }
}
