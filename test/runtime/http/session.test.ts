import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { CookieSigner, SessionCodec } from "../../../src/runtime/http/session.ts";

/** itsdangerous' TimestampSigner computed independently with node:crypto (django-concat key, HMAC-SHA1). */
function reference(secret: string, value: string, now: number): string {
  const key = createHash("sha1").update("itsdangerous.Signer").update("signer").update(secret).digest();
  const bytes: number[] = [];
  for (let n = now; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  const signed = `${value}.${Buffer.from(bytes).toString("base64url")}`;
  return `${signed}.${createHmac("sha1", key).update(signed).digest().toString("base64url")}`;
}

describe("CookieSigner", () => {
  const now = 1_764_000_000;
  test("signs exactly as itsdangerous does, for ASCII and non-ASCII payloads", () => {
    for (const [secret, value] of [["SimpleModelServer___policy_model", "eyJzZXNzaW9uX2lkIjogIngifQ=="], ["ünï___cödé", "välue.with.dots"]] as const) {
      const token = new CookieSigner(secret).sign(value, now);
      expect(token).toBe(reference(secret, value, now));
      expect(new CookieSigner(secret).unsign(token, 100, now + 10)).toBe(value);
    }
  });

  test("rejects another secret, a changed signature and an expired stamp", () => {
    const token = new CookieSigner("a___b").sign("payload", now);
    expect(new CookieSigner("a___c").unsign(token, 100, now)).toBeUndefined();
    const last = token.at(-1) === "A" ? "B" : "A";
    expect(new CookieSigner("a___b").unsign(token.slice(0, -1) + last, 100, now)).toBeUndefined();
    expect(new CookieSigner("a___b").unsign(token, 100, now + 101)).toBeUndefined();
  });

  test("one signer across seconds and back: each token carries its own second", () => {
    const signer = new CookieSigner("a___b");
    for (const t of [now, now, now + 1, now - 5, now + 1]) expect(signer.sign("v", t)).toBe(reference("a___b", "v", t));
  });
});

describe("SessionCodec", () => {
  test("ASCII and non-ASCII session ids round-trip, with Python's json.dumps spacing in the payload", () => {
    const codec = new SessionCodec("C", "i");
    for (const id of ["11111111-2222-3333-4444-555555555555", "sé-ßion-✓"]) {
      const value = codec.setCookie(id).split(";")[0]!.slice("C___i=".length);
      const payload = value.slice(0, value.indexOf("."));
      expect(Buffer.from(payload, "base64").toString("utf8")).toBe(`{"session_id": ${JSON.stringify(id)}}`);
      expect(codec.read({ C___i: value })).toBe(id);
    }
  });
});
