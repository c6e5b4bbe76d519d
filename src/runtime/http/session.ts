/**
 * Session cookies (runtime.md §6.1). The cookie name is `<ClassName>___<instance>` and the value
 * has the shape Starlette's SessionMiddleware writes (itsdangerous TimestampSigner over base64
 * JSON). Upstream signs with the cookie name itself, which anyone can forge; cookies are opaque to
 * clients and checked only by the server that set them, so gym signs with a random per-run secret
 * (D39) that the supervisor hands every child through `GYM_SESSION_SECRET`: every worker of one
 * instance, and a server restarted within the run, still accepts the cookies of the others.
 */
import { readEnv } from "../../env.ts";
// node:crypto loads on first use: a static import is hoisted into every CLI command's start-up.
let nodeCryptoMod: typeof import("node:crypto") | undefined;
const nodeCrypto = () => (nodeCryptoMod ??= require("node:crypto") as typeof import("node:crypto"));

/** Session lifetime and cookie attributes, as upstream. */
export const SESSION_MAX_AGE_SECONDS = 1_209_600;

function b64url(buf: Uint8Array): string {
  return Buffer.from(buf).toString("base64url");
}

function intToBytes(n: number): Uint8Array {
  const out: number[] = [];
  while (n > 0) {
    out.unshift(n & 0xff);
    n = Math.floor(n / 256);
  }
  return Uint8Array.from(out);
}

function bytesToInt(b: Uint8Array): number {
  let n = 0;
  for (const x of b) n = n * 256 + x;
  return n;
}

/** Signs and checks cookie values for one secret (itsdangerous "django-concat" key derivation, SHA-1). */
export class CookieSigner {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = nodeCrypto().createHash("sha1").update("itsdangerous.Signer").update("signer").update(secret).digest();
  }

  /** The keyed HMAC state, copied per signature (cheaper than re-keying a new hasher). */
  private keyed: Bun.CryptoHasher | undefined;
  /** The last timestamp encoded and its base64url text: every sign within one second shares it. */
  private stampSecond = -1;
  private stampText = "";

  private signature(value: string): string {
    // Bun's native HMAC: about half the CPU of node:crypto's createHmac, same bytes (a fresh sign per new session).
    this.keyed ??= new Bun.CryptoHasher("sha1", this.key);
    return this.keyed.copy().update(value).digest("base64url");
  }

  /** `value.<timestamp>.<signature>`. */
  sign(value: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
    if (nowSeconds !== this.stampSecond) {
      this.stampText = b64url(intToBytes(nowSeconds));
      this.stampSecond = nowSeconds;
    }
    const signed = `${value}.${this.stampText}`;
    return `${signed}.${this.signature(signed)}`;
  }

  /** The original value when the signature holds and the stamp is not older than `maxAge`; else undefined. */
  unsign(token: string, maxAgeSeconds = SESSION_MAX_AGE_SECONDS, nowSeconds = Math.floor(Date.now() / 1000)): string | undefined {
    const sigAt = token.lastIndexOf(".");
    if (sigAt <= 0) return undefined;
    const signed = token.slice(0, sigAt);
    const expected = this.signature(signed);
    // Constant-time over the (ASCII base64url) signature, without two Buffer copies per check.
    let diff = expected.length ^ (token.length - sigAt - 1);
    for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ token.charCodeAt(sigAt + 1 + i);
    if (diff !== 0) return undefined;
    const tsAt = signed.lastIndexOf(".");
    if (tsAt <= 0) return undefined;
    const stamp = bytesToInt(Buffer.from(signed.slice(tsAt + 1), "base64url"));
    if (nowSeconds - stamp > maxAgeSeconds) return undefined;
    return signed.slice(0, tsAt);
  }
}

let processSecret: string | undefined;

/**
 * The session-signing secret of this run: `GYM_SESSION_SECRET` when a supervisor started this
 * process, else one random value for this process (a supervisor passes it on to its children).
 */
export function sessionSecret(): string {
  return (processSecret ??= readEnv().sessionSecret ?? nodeCrypto().randomBytes(32).toString("hex"));
}

/** Parse a `Cookie` header into name → value (first occurrence wins). */
export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name && !(name in out)) out[name] = value;
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;

/** The session store of one server instance: cookie name, signer, and id extraction. */
export class SessionCodec {
  readonly cookieName: string;
  private readonly signer: CookieSigner;

  constructor(className: string, instanceName: string, secret: string = sessionSecret()) {
    this.cookieName = `${className}___${instanceName}`;
    // The instance's cookie name is mixed in, so one run secret still gives each server its own key.
    this.signer = new CookieSigner(`${secret}:${this.cookieName}`);
  }

  /** The session id carried by a request's cookies, or undefined (missing, tampered, expired). */
  read(cookies: Record<string, string>): string | undefined {
    const raw = cookies[this.cookieName];
    if (!raw) return undefined;
    const payload = this.signer.unsign(raw);
    if (payload === undefined) return undefined;
    try {
      const data = JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as unknown;
      const id = data && typeof data === "object" ? (data as Record<string, unknown>).session_id : undefined;
      return typeof id === "string" && id !== "" ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /** The session id of a request, a fresh uuid4 when it has none. */
  idFor(cookies: Record<string, string>): string {
    return this.read(cookies) ?? crypto.randomUUID();
  }

  /** The `Set-Cookie` header value for a session id (Starlette's attributes). */
  setCookie(sessionId: string): string {
    return this.cookieLine(this.signedValue(sessionId));
  }

  /** The signed cookie value of a session id at `nowSeconds` (the part after `<name>=`). */
  signedValue(sessionId: string, nowSeconds?: number): string {
    // Python's json.dumps spacing, so the decoded payload reads like upstream's.
    const json = `{"session_id": ${JSON.stringify(sessionId)}}`;
    // ASCII (every uuid) is its own UTF-8, so btoa gives the same base64 without a Buffer copy.
    const payload = ASCII.test(json) ? btoa(json) : Buffer.from(json).toString("base64");
    return this.signer.sign(payload, nowSeconds);
  }

  /** The `Set-Cookie` header value for a signed cookie value. */
  cookieLine(value: string): string {
    return `${this.cookieName}=${value}; path=/; Max-Age=${SESSION_MAX_AGE_SECONDS}; httponly; samesite=lax`;
  }
}
