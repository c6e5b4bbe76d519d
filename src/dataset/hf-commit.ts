/**
 * Committing one file to a Hugging Face dataset repo over the Hub's REST API (components §4.2):
 * `preupload` asks the hub whether the file goes inline ("regular") or through Git LFS; LFS
 * content goes through the LFS batch API (single PUT, or the hub's multipart protocol when it
 * answers with a `chunk_size`); then one NDJSON `commit` (header with summary and description,
 * then the file operation), optionally as a pull request.
 */
import { RuntimeError } from "../errors.ts";
import type { HubHttp } from "./hf-http.ts";

/** One file commit. */
export interface CommitFileOptions {
  repoId: string;
  pathInRepo: string;
  content: Uint8Array;
  /** Branch (or `refs/pr/N`) to commit to; default `main`. */
  revision?: string;
  createPr: boolean;
  summary: string;
  description?: string;
}

/** What the hub answered to the commit. */
export interface CommitResult {
  commitUrl?: string;
  commitOid?: string;
  pullRequestUrl?: string;
}

interface PreuploadAnswer {
  files?: { path: string; uploadMode?: string; shouldIgnore?: boolean }[];
}

interface LfsAction {
  href: string;
  header?: Record<string, string>;
}

interface LfsBatchAnswer {
  objects?: { oid: string; size: number; error?: { code: number; message: string }; actions?: { upload?: LfsAction; verify?: LfsAction } }[];
}

const LFS_HEADERS = { accept: "application/vnd.git-lfs+json", "content-type": "application/vnd.git-lfs+json" };

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Ask the hub how the file is to be uploaded: "regular" (inline, base64) or "lfs". */
async function uploadMode(http: HubHttp, o: CommitFileOptions, rev: string, query: string): Promise<"regular" | "lfs"> {
  const answer = await http.json<PreuploadAnswer>(`/api/datasets/${o.repoId}/preupload/${rev}${query}`, {
    json: { files: [{ path: o.pathInRepo, size: o.content.byteLength, sample: b64(o.content.subarray(0, 512)) }] },
  });
  const entry = answer.files?.find((f) => f.path === o.pathInRepo);
  if (entry?.shouldIgnore) {
    throw new RuntimeError(`Hugging Face ignores '${o.pathInRepo}' in ${o.repoId} (a .gitignore rule of the repo matches it)`, { hint: "rename the input file or change the repo's .gitignore" });
  }
  return entry?.uploadMode === "lfs" ? "lfs" : "regular";
}

/** Upload one multipart part per `header["00001"…]` URL, then post the completion with the ETags. */
async function multipart(http: HubHttp, upload: LfsAction, oid: string, content: Uint8Array): Promise<void> {
  const header = upload.header ?? {};
  const chunk = Number.parseInt(header.chunk_size ?? "", 10);
  const parts = Object.keys(header).filter((k) => /^\d+$/.test(k)).sort((a, b) => Number(a) - Number(b));
  if (!(chunk > 0) || parts.length !== Math.ceil(content.byteLength / chunk)) {
    throw new RuntimeError(`Hugging Face answered an LFS multipart upload with ${parts.length} part URL(s) for ${content.byteLength} bytes in chunks of ${header.chunk_size}`, { hint: "retry; report it if it persists" });
  }
  const done: { partNumber: number; etag: string }[] = [];
  for (const part of parts) {
    const i = Number(part) - 1;
    const res = await http.request(header[part]!, { method: "PUT", body: content.subarray(i * chunk, (i + 1) * chunk), auth: false });
    const etag = res.headers.get("etag");
    await res.body?.cancel().catch(() => {});
    if (!etag) throw new RuntimeError(`LFS storage answered part ${part} of the upload without an ETag`, { hint: "retry; report it if it persists" });
    done.push({ partNumber: Number(part), etag });
  }
  await http.request(upload.href, { json: { oid, parts: done }, headers: LFS_HEADERS, auth: false });
}

/** Send the content through the LFS batch API unless the hub already has it. */
async function lfsUpload(http: HubHttp, o: CommitFileOptions, oid: string): Promise<void> {
  const batch = await http.json<LfsBatchAnswer>(`/datasets/${o.repoId}.git/info/lfs/objects/batch`, {
    json: {
      operation: "upload",
      transfers: ["basic", "multipart"],
      hash_algo: "sha_256",
      ...(o.createPr ? {} : { ref: { name: o.revision ?? "main" } }),
      objects: [{ oid, size: o.content.byteLength }],
    },
    headers: LFS_HEADERS,
  });
  const obj = batch.objects?.find((x) => x.oid === oid);
  if (!obj) throw new RuntimeError(`Hugging Face's LFS batch answer does not mention the object ${oid} of '${o.pathInRepo}'`);
  if (obj.error) throw new RuntimeError(`Hugging Face refused the LFS upload of '${o.pathInRepo}': ${obj.error.message} (code ${obj.error.code})`);
  const upload = obj.actions?.upload;
  if (!upload) return; // the hub already stores this content
  if (upload.header?.chunk_size) await multipart(http, upload, oid, o.content);
  else {
    const res = await http.request(upload.href, { method: "PUT", body: o.content, headers: { ...upload.header }, auth: false });
    await res.body?.cancel().catch(() => {});
  }
  const verify = obj.actions?.verify;
  if (verify) {
    const res = await http.request(verify.href, { json: { oid, size: o.content.byteLength }, headers: { ...LFS_HEADERS, ...verify.header } });
    await res.body?.cancel().catch(() => {});
  }
}

/** Commit one file (preupload → LFS when asked → NDJSON commit); returns the hub's commit answer. */
export async function commitFile(http: HubHttp, o: CommitFileOptions): Promise<CommitResult> {
  const rev = encodeURIComponent(o.revision ?? "main");
  const query = o.createPr ? "?create_pr=1" : "";
  const mode = await uploadMode(http, o, rev, query);
  let op: unknown;
  if (mode === "lfs") {
    const oid = new Bun.CryptoHasher("sha256").update(o.content).digest("hex");
    await lfsUpload(http, o, oid);
    op = { key: "lfsFile", value: { path: o.pathInRepo, algo: "sha256", oid, size: o.content.byteLength } };
  } else {
    op = { key: "file", value: { content: b64(o.content), path: o.pathInRepo, encoding: "base64" } };
  }
  const header = { key: "header", value: { summary: o.summary, description: o.description ?? "" } };
  const body = `${JSON.stringify(header)}\n${JSON.stringify(op)}`;
  return http.json<CommitResult>(`/api/datasets/${o.repoId}/commit/${rev}${query}`, { body, headers: { "content-type": "application/x-ndjson" } });
}
