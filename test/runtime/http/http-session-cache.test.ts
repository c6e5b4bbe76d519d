import { describe, expect, test } from "bun:test";
import { CachedSessions } from "../../../src/runtime/http/http-session-cache.ts";
import { SessionCodec } from "../../../src/runtime/http/session.ts";

/** A codec that counts the HMAC checks it makes. */
class CountingCodec extends SessionCodec {
  reads = 0;
  override read(cookies: Record<string, string>): string | undefined {
    this.reads++;
    return super.read(cookies);
  }
}

const valueOf = (header: string, name: string) => header.split(";")[0]!.slice(name.length + 1);

describe("CachedSessions: cookies signed here", () => {
  test("a cookie this cache signed comes back as its session id without an HMAC check", () => {
    const codec = new CountingCodec("M", "policy");
    const cache = new CachedSessions(codec);
    const ids = ["a-1", "b-2", "c-3"];
    const values = ids.map((id) => valueOf(cache.setCookie(id), codec.cookieName));
    ids.forEach((id, i) => expect(cache.idFor({ [codec.cookieName]: values[i]! })).toBe(id));
    expect(codec.reads).toBe(0);
  });

  test("a cookie signed elsewhere (another worker, same secret) is checked once, then cached", () => {
    const codec = new CountingCodec("M", "policy");
    const other = valueOf(new SessionCodec("M", "policy").setCookie("from-worker-2"), codec.cookieName);
    const cache = new CachedSessions(codec);
    expect(cache.idFor({ [codec.cookieName]: other })).toBe("from-worker-2");
    expect(cache.idFor({ [codec.cookieName]: other })).toBe("from-worker-2");
    expect(codec.reads).toBe(1);
  });

  test("a cookie signed for another instance is not accepted: it gets a fresh id", () => {
    const mine = new CachedSessions(new SessionCodec("M", "policy"));
    const theirs = valueOf(new CachedSessions(new SessionCodec("M", "judge")).setCookie("x"), "M___judge");
    const id = mine.idFor({ M___policy: theirs });
    expect(id).not.toBe("x");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("the caches keep recent sessions only: an old cookie is checked again (and still valid), a recent one is not", () => {
    const codec = new CountingCodec("M", "policy");
    const cache = new CachedSessions(codec);
    const first = valueOf(cache.setCookie("first"), codec.cookieName);
    // Far more new sessions than the two generations hold (thousands a second per server under load).
    for (let i = 0; i < 20_000; i++) cache.setCookie(`s-${i}`);
    const recent = valueOf(cache.setCookie("recent"), codec.cookieName);
    expect(cache.idFor({ [codec.cookieName]: recent })).toBe("recent");
    expect(codec.reads).toBe(0);
    expect(cache.idFor({ [codec.cookieName]: first })).toBe("first");
    expect(codec.reads).toBe(1);
    expect(cache.idFor({ [codec.cookieName]: first })).toBe("first");
    expect(codec.reads).toBe(1);
  });

  test("a cookie signed here this second is sent back as it came: the same bytes as signing it again now", () => {
    const codec = new CountingCodec("M", "policy");
    const cache = new CachedSessions(codec);
    for (let attempt = 0; ; attempt++) {
      const second = Math.floor(Date.now() / 1000);
      const value = valueOf(cache.setCookie("abc"), codec.cookieName);
      const session = cache.session({ [codec.cookieName]: value });
      const line = cache.setCookie(session);
      const expected = codec.setCookie("abc");
      // Across a second boundary the stamp moves on: try again (at most twice).
      if (Math.floor(Date.now() / 1000) !== second && attempt < 2) continue;
      expect(session).toEqual({ id: "abc", value, second });
      expect(line).toBe(expected);
      expect(codec.reads).toBe(0);
      break;
    }
  });

  test("a good cookie signed in an earlier second, or elsewhere, is signed again with this second's stamp", () => {
    const codec = new CountingCodec("M", "policy");
    const cache = new CachedSessions(codec);
    // A value another worker (same secret) signed a minute ago.
    const minuteAgo = new SessionCodec("M", "policy").signedValue("abc", Math.floor(Date.now() / 1000) - 60);
    const session = cache.session({ [codec.cookieName]: minuteAgo });
    expect(session).toEqual({ id: "abc" });
    expect(codec.reads).toBe(1);
    const line = cache.setCookie(session);
    expect(line).not.toContain(minuteAgo);
    expect(cache.idFor({ [codec.cookieName]: valueOf(line, codec.cookieName) })).toBe("abc");
    expect(codec.reads).toBe(1);
  });
});
