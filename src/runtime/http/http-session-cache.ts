/**
 * Memoised session-cookie work for the HTTP layer (runtime.md §6.1). Every response re-sends the
 * signed session cookie and most requests carry one to check; both are an HMAC-SHA1 each, per
 * request. The signed value only changes when its one-second timestamp does, and a checked
 * cookie stays valid for 14 days, so both are cached (a cookie signed here counts as checked).
 * The output is exactly what SessionCodec produces. Both caches hold a bounded number of recent
 * entries: a session's follow-up calls arrive within its rollout, and a map that grew with every
 * new session (thousands a second per server) cost more in inserts and GC than the HMACs it saved.
 */
import type { SessionCodec } from "./session.ts";

/** How long a verified cookie is trusted without re-checking (its lifetime is 1,209,600 s). */
const READ_WINDOW_MS = 10_000;
/** Entries per generation of each cache: a few seconds of new sessions at full load. */
const GENERATION_SIZE = 4096;

/**
 * A map of recent entries in two generations: when the current one fills up it becomes the old
 * one (the previous old one is dropped), so an entry survives at least GENERATION_SIZE later inserts.
 */
class RecentMap {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  /** The value of `key`, if still held. */
  get(key: string): string | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }

  /** Remember `key` (may push the oldest generation out). */
  set(key: string, value: string): void {
    if (this.current.size >= GENERATION_SIZE) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  /** Forget everything. */
  clear(): void {
    if (this.current.size > 0) this.current = new Map();
    if (this.previous.size > 0) this.previous = new Map();
  }
}

/** A SessionCodec front with the two caches. */
export class CachedSessions {
  /** Session id → its Set-Cookie value, signed at `signedSecond`. */
  private readonly signed = new RecentMap();
  private signedSecond = -1;
  /** Cookie value → session id, for cookies known to be good (checked, or signed here). */
  private readonly verified = new RecentMap();
  private verifiedUntil = 0;

  constructor(private readonly codec: SessionCodec) {}

  /** The session id of a request's cookies (a fresh uuid when absent or invalid), as `SessionCodec.idFor`. */
  idFor(cookies: Record<string, string>): string {
    const raw = cookies[this.codec.cookieName];
    if (!raw) return crypto.randomUUID();
    const hit = this.verifiedNow().get(raw);
    if (hit !== undefined) return hit;
    const id = this.codec.read(cookies);
    // Only good cookies are remembered: a bad one must get a fresh id every time.
    if (id === undefined) return crypto.randomUUID();
    this.verified.set(raw, id);
    return id;
  }

  /** The verified-cookie cache, emptied when its window has passed. */
  private verifiedNow(): RecentMap {
    const now = Date.now();
    if (now >= this.verifiedUntil) {
      this.verified.clear();
      this.verifiedUntil = now + READ_WINDOW_MS;
    }
    return this.verified;
  }

  /** The `Set-Cookie` value for a session id, as `SessionCodec.setCookie` at this second. */
  setCookie(sessionId: string): string {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.signedSecond) {
      this.signed.clear();
      this.signedSecond = second;
    }
    let value = this.signed.get(sessionId);
    if (value === undefined) {
      this.signed.set(sessionId, (value = this.codec.setCookie(sessionId)));
      // The client sends this value straight back on its next call (a new session's second request
      // is the common case): a cookie signed here is valid by construction, so it needs no HMAC check.
      const start = this.codec.cookieName.length + 1;
      const end = value.indexOf(";", start);
      this.verifiedNow().set(value.slice(start, end < 0 ? value.length : end), sessionId);
    }
    return value;
  }
}
