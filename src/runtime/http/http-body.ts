/**
 * The request-body fast path of the HTTP layer: a body with a Content-Length within the limit is
 * read in one native call (`req.text()`), which costs a fraction of pulling it through a JS
 * ReadableStream reader; everything else (no length, over the limit, invalid JSON) goes through
 * body.ts, which owns the 413/422 shapes, so both paths answer identically.
 */
import { parseBody, parseBodyText, tooLarge } from "./body.ts";

function isJsonType(contentType: string | null): boolean {
  if (!contentType) return true;
  const semi = contentType.indexOf(";");
  const main = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return main === "application/json" || main.endsWith("+json");
}

/** The parsed body (as body.ts's `parseBody`) and, when it was read whole, its raw text. */
export interface ReadBody {
  value: unknown;
  /** The body text exactly as received; undefined when the slow path read it. */
  raw?: string;
}

/**
 * Read and parse a request body under `limit` bytes; `parse: false` keeps only the raw text (relays).
 * `length` is the request's Content-Length header when the caller has already read it.
 */
export async function readRequestBody(req: Request, limit: number, parse = true, length: string | null = req.headers.get("content-length")): Promise<ReadBody> {
  const declared = length === null ? Number.NaN : Number(length);
  if (!(declared <= limit)) return { value: await parseBody(req, limit) };
  if (declared === 0) return { value: undefined, raw: "" };
  return bodyOfText(req, await req.text(), limit, parse);
}

/**
 * The rest of the fast path once the text is read (callers that read it themselves save an async
 * frame per request): synchronous, except for invalid JSON, whose 422 the slow path builds.
 */
export function bodyOfText(req: Request, raw: string, limit: number, parse = true): ReadBody | Promise<ReadBody> {
  if (raw.length === 0) return { value: undefined, raw };
  if (!isJsonType(req.headers.get("content-type"))) return { value: raw, raw };
  if (!parse) return { value: undefined, raw };
  try {
    return { value: JSON.parse(raw), raw };
  } catch {
    // Re-run the text through the slow path so the 422 is built in one place.
    return parseBody(new Request(req.url, { method: "POST", body: raw, headers: req.headers }), limit).then((value) => ({ value, raw }));
  }
}

/**
 * `readRequestBody` for a body handed over in process (local-dispatch.ts): the same limit, the
 * same JSON rule and the same 413/422 answers as the bytes would get over HTTP.
 */
export function readLocalBody(body: string | undefined, contentType: string | null, limit: number, parse = true): ReadBody {
  if (body === undefined || body === "") return { value: undefined, raw: "" };
  const bytes = Buffer.byteLength(body);
  if (bytes > limit) throw tooLarge(bytes, limit);
  if (!isJsonType(contentType)) return { value: body, raw: body };
  if (!parse) return { value: undefined, raw: body };
  return { value: parseBodyText(body, contentType), raw: body };
}
