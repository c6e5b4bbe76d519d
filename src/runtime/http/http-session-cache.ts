/**
 * Memoised session-cookie work for the HTTP layer (runtime.md §6.1). Every response re-sends the
 * signed session cookie and most requests carry one to check; both are an HMAC-SHA1 each, per
 * request. The signed value only changes when its one-second timestamp does, and a checked
 * cookie stays valid for 14 days, so both are cached for a short window (a cookie signed here counts
 * as checked). The output is exactly what SessionCodec produces; the maps are cleared on each
 * window so memory stays bounded.
 */
import type { SessionCodec } from "./session.ts";

/** How long a verified cookie is trusted without re-checking (its lifetime is 1,209,600 s). */
const READ_WINDOW_MS = 10_000;

/** A SessionCodec front with the two caches. */
export class CachedSessions {
  private signed = new Map<string, string>();
  private signedSecond = -1;
  private verified = new Map<string, string>();
  private verifiedUntil = 0;

  constructor(private readonly codec: SessionCodec) {}

  /** The session id of a request's cookies (a fresh uuid when absent or invalid), as `SessionCodec.idFor`. */
  idFor(cookies: Record<string, string>): string {
    const raw = cookies[this.codec.cookieName];
    if (!raw) return this.codec.idFor(cookies);
    const hit = this.verifiedNow().get(raw);
    if (hit !== undefined) return hit;
    const id = this.codec.read(cookies);
    // Only good cookies are remembered: a bad one must get a fresh id every time.
    if (id === undefined) return this.codec.idFor({});
    this.verified.set(raw, id);
    return id;
  }

  /** The verified-cookie map of the current window (a new one when the window has passed). */
  private verifiedNow(): Map<string, string> {
    const now = Date.now();
    if (now >= this.verifiedUntil) {
      this.verified = new Map();
      this.verifiedUntil = now + READ_WINDOW_MS;
    }
    return this.verified;
  }

  /** The `Set-Cookie` value for a session id, as `SessionCodec.setCookie` at this second. */
  setCookie(sessionId: string): string {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.signedSecond) {
      this.signed = new Map();
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
