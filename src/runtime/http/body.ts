/**
 * Request bodies for the HTTP layer: a size limit enforced before and while reading (413), and
 * FastAPI's parsing rule (JSON when the content type is absent or JSON, else the raw text, which
 * then fails the handler's schema like upstream's bytes body would).
 */
import { HttpError, RequestValidationError } from "./http-types.ts";
import { pythonJsonError } from "./json-error.ts";

/** Default request body limit: generous, because verify bodies carry whole transcripts with token ids. */
export const DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024;

/** The 413 of a body over the limit. */
export function tooLarge(size: number | string, limit: number): HttpError {
  return new HttpError(413, `Request body too large: ${size} bytes exceed the limit of ${limit} bytes`);
}

/** Read the body bytes, refusing more than `limit` bytes (by Content-Length first, then while streaming). */
export async function readBodyBytes(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(declared, limit);
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`more than ${limit}`, limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function isJsonType(contentType: string | null): boolean {
  if (!contentType) return true;
  const main = contentType.split(";")[0]!.trim().toLowerCase();
  return main === "application/json" || main.endsWith("+json");
}

/** Parse a request body: `undefined` when empty, JSON when JSON-typed, else the text. Invalid JSON → 422 json_invalid. */
export async function parseBody(req: Request, limit: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, limit);
  if (bytes.byteLength === 0) return undefined;
  return parseBodyText(new TextDecoder().decode(bytes), req.headers.get("content-type"));
}

/** `parseBody` for a body already in hand as text (non-empty): the same JSON rule and the same 422. */
export function parseBodyText(text: string, contentType: string | null): unknown {
  if (!isJsonType(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    const err = pythonJsonError(text) ?? { pos: 0, msg: "Expecting value" };
    throw new RequestValidationError([{ type: "json_invalid", loc: ["body", err.pos], msg: "JSON decode error", input: {}, ctx: { error: err.msg } }]);
  }
}
