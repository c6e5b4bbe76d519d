/**
 * Memoised session-cookie work for the HTTP layer (runtime.md §6.1). Every response re-sends the
 * signed session cookie and most requests carry one to check: an HMAC-SHA1 each, per request.
 * A cookie value signed here (or checked once) is remembered with its session id, so a returning
 * cookie needs no HMAC check; and a cookie signed here this very second is exactly what signing
 * again now would give (same payload, same one-second stamp), so it is sent back as it came. The
 * output is what SessionCodec produces. The cache holds a bounded number of recent values: a
 * session's follow-up calls arrive within its rollout, and a map that grew with every new session
 * (thousands a second per server) cost more in inserts and GC than the HMACs it saved.
 */
import type { SessionCodec } from "./session.ts";

/** How long a verified cookie is trusted without re-checking (its lifetime is 1,209,600 s). */
const READ_WINDOW_MS = 10_000;
/** Entries per generation: a few seconds of new sessions at full load. */
const GENERATION_SIZE = 4096;

/**
 * A map of recent entries in two generations: when the current one fills up it becomes the old
 * one (the previous old one is dropped), so an entry survives at least GENERATION_SIZE later inserts.
 */
class RecentMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  /** The value of `key`, if still held. */
  get(key: string): V | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }

  /** Remember `key` (may push the oldest generation out). */
  set(key: string, value: V): void {
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

/** What is known about a good cookie value: its session, and the second it was signed here (-1: signed elsewhere). */
interface Known {
  id: string;
  second: number;
}

/** The session of one request: its id, and the cookie value it came with when that value was signed here. */
export interface RequestSession {
  id: string;
  /** The request's cookie value, when this server signed it ... */
  value?: string;
  /** ... at this second (epoch seconds). */
  second?: number;
}

/** A SessionCodec front with the cache. */
export class CachedSessions {
  /** Cookie value → session, for values known to be good (checked, or signed here). */
  private readonly known = new RecentMap<Known>();
  private knownUntil = 0;

  constructor(private readonly codec: SessionCodec) {}

  /** The session of a request's cookies: a fresh uuid when the cookie is absent or invalid. */
  session(cookies: Record<string, string>): RequestSession {
    const raw = cookies[this.codec.cookieName];
    if (!raw) return { id: crypto.randomUUID() };
    const hit = this.knownNow().get(raw);
    if (hit !== undefined) return hit.second < 0 ? { id: hit.id } : { id: hit.id, value: raw, second: hit.second };
    const id = this.codec.read(cookies);
    // Only good cookies are remembered: a bad one must get a fresh id every time.
    if (id === undefined) return { id: crypto.randomUUID() };
    this.known.set(raw, { id, second: -1 });
    return { id };
  }

  /** The session id of a request's cookies, as `SessionCodec.idFor`. */
  idFor(cookies: Record<string, string>): string {
    return this.session(cookies).id;
  }

  /** The `Set-Cookie` value for a request's session (or a session id), as `SessionCodec.setCookie` at this second. */
  setCookie(session: RequestSession | string): string {
    const s = typeof session === "string" ? { id: session } : session;
    const now = Math.floor(Date.now() / 1000);
    if (s.value !== undefined && s.second === now) return this.codec.cookieLine(s.value);
    const value = this.codec.signedValue(s.id, now);
    // The client sends this value straight back on its next call (a new session's second request
    // is the common case): a cookie signed here is valid by construction, so it needs no HMAC check.
    this.knownNow().set(value, { id: s.id, second: now });
    return this.codec.cookieLine(value);
  }

  /** The cache, emptied when its window has passed. */
  private knownNow(): RecentMap<Known> {
    const now = Date.now();
    if (now >= this.knownUntil) {
      this.known.clear();
      this.knownUntil = now + READ_WINDOW_MS;
    }
    return this.known;
  }
}
