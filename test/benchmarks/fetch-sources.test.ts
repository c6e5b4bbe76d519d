/**
 * Source fetching over real loopback HTTP: Hub revisions such as `refs/pr/7`, raw files in every
 * archive format the readers take (CSV, tar, zip, gz, a pickled-string payload), the mirror
 * mapping, and --data-dir lookups (hf-parquet folders in numeric order).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { HubHttp } from "../../src/dataset/hf-http.ts";
import { parseCsvRecords } from "../../src/dataset/formats/csv.ts";
import { gunzip } from "../../src/dataset/formats/gzip.ts";
import { parseJsonlRows } from "../../src/dataset/formats/jsonl.ts";
import { decodeCompressedPickledStr } from "../../src/dataset/formats/pickled-str.ts";
import { readTar, writeTar } from "../../src/dataset/formats/tar.ts";
import { readZip } from "../../src/dataset/formats/zip.ts";
import { checkSources, fetchSource, type FetchEnv } from "../../src/benchmarks/fetch-sources.ts";
import { PICKLED_STR, PICKLED_VALUE, zipOf } from "../fixtures/benchmarks/files.ts";
import { startSourceServer, TOKEN, type SourceServer } from "../fixtures/benchmarks/server.ts";
import { tempDir } from "../helpers/tmp.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
let srv: SourceServer;

beforeAll(() => {
  srv = startSourceServer();
  const csv = enc.encode('What is 1+1?,1,2,3,4,B\n"Comma, inside",a,b,c,d,A\n');
  srv.files.set("/people.eecs.berkeley.edu/~hendrycks/data.tar", writeTar([{ path: "data/test/math_test.csv", data: csv }]));
  srv.files.set("/example.org/bundle.zip", zipOf([{ path: "x/rows.jsonl", data: enc.encode('{"q": "a"}\n'), deflate: true }]));
  srv.files.set("/example.org/HumanEvalPlus.jsonl.gz", new Uint8Array(gzipSync(enc.encode('{"task_id": "HumanEval/0"}\n'))));
  srv.files.set("/openaipublic.blob.core.windows.net/browsecomp.csv", enc.encode("problem,answer\nq1,a1\n"));
  srv.files.set("/datasets/livecodebench/code_generation_lite/resolve/refs/pr/7/test6.jsonl", enc.encode(`${JSON.stringify({ private_test_cases: PICKLED_STR[4] })}\n`));
});
afterAll(() => srv.stop());

function env(extra: Partial<FetchEnv> = {}): FetchEnv {
  return { hub: new HubHttp(srv.url, TOKEN, "Hugging Face"), raw: (o) => new HubHttp(o, undefined, "download"), hasToken: true, mirror: srv.url, ...extra };
}

describe("fetchSource", () => {
  test("a Hub file at revision refs/pr/7 (encoded in the URL) with a pickled-string payload", async () => {
    const before = srv.seen.length;
    const [file] = await fetchSource(env(), "livecodebench", { kind: "hf-file", repo: "livecodebench/code_generation_lite", path: "test6.jsonl", revision: "refs/pr/7" });
    expect(file!.name).toBe("test6.jsonl");
    const seen = srv.seen.slice(before);
    expect(seen.map((s) => s.path)).toEqual(["/datasets/livecodebench/code_generation_lite/resolve/refs/pr/7/test6.jsonl"]);
    expect(seen[0]!.auth).toBe(`Bearer ${TOKEN}`);
    const { row, line } = parseJsonlRows(dec.decode(file!.bytes), file!.name)[0]!;
    expect(decodeCompressedPickledStr(String(row.private_test_cases), `${file!.name}:${line}`)).toBe(PICKLED_VALUE);
  });

  test("raw sources in tar (CSV inside), zip, gz and CSV, through the mirror, without the token", async () => {
    const before = srv.seen.length;
    const [tar] = await fetchSource(env(), "mmlu", { kind: "url", url: "https://people.eecs.berkeley.edu/~hendrycks/data.tar", file: "data.tar" });
    const csv = readTar(tar!.bytes, tar!.name).find((e) => e.path === "data/test/math_test.csv")!;
    expect(parseCsvRecords(dec.decode(csv.data), "math_test.csv")[1]).toEqual(["Comma, inside", "a", "b", "c", "d", "A"]);
    const [zip] = await fetchSource(env(), "z", { kind: "url", url: "https://example.org/bundle.zip", file: "bundle.zip" });
    expect(dec.decode(readZip(zip!.bytes, zip!.name)[0]!.data)).toBe('{"q": "a"}\n');
    const [gz] = await fetchSource(env(), "human_eval", { kind: "url", url: "https://example.org/HumanEvalPlus.jsonl.gz", file: "HumanEvalPlus.jsonl.gz" });
    expect(dec.decode(gunzip(gz!.bytes, gz!.name))).toBe('{"task_id": "HumanEval/0"}\n');
    const [plain] = await fetchSource(env(), "browsecomp", { kind: "url", url: "https://openaipublic.blob.core.windows.net/browsecomp.csv", file: "browsecomp.csv" });
    expect(parseCsvRecords(dec.decode(plain!.bytes), plain!.name)).toEqual([["problem", "answer"], ["q1", "a1"]]);
    expect(srv.seen.slice(before).every((s) => s.auth === null && s.status === 200)).toBe(true);
  });

  test("a Hub 404 is one clear error naming the URL", async () => {
    await expect(fetchSource(env(), "x", { kind: "hf-file", repo: "org/none", path: "a.jsonl" })).rejects.toThrow(/x: a\.jsonl: Hugging Face: GET http:\/\/127\.0\.0\.1:\d+\/datasets\/org\/none\/resolve\/main\/a\.jsonl → HTTP 404/);
  });

  test("--data-dir: files by source name, parquet folders in numeric order, problems listed before any read", async () => {
    await using dir = await tempDir();
    const d = join(dir.path, "gpqa", "gpqa_diamond", "train");
    mkdirSync(d, { recursive: true });
    for (const n of ["10", "2", "1"]) writeFileSync(join(d, `${n}.parquet`), n);
    const e = env({ dataDir: dir.path, hasToken: false });
    const files = await fetchSource(e, "gpqa", { kind: "hf-parquet", repo: "Idavidrein/gpqa", config: "gpqa_diamond", split: "train", gated: true });
    expect(files.map((f) => f.name)).toEqual(["gpqa_diamond/train/1.parquet", "gpqa_diamond/train/2.parquet", "gpqa_diamond/train/10.parquet"]);
    // Offline, a gated source needs no token; a missing file is reported by name.
    expect(checkSources("gpqa", [{ kind: "hf-parquet", repo: "Idavidrein/gpqa", config: "gpqa_diamond", split: "train", gated: true }], e)).toEqual([]);
    expect(checkSources("gsm8k", [{ kind: "url", url: "https://h/test.jsonl", file: "test.jsonl" }], e)).toEqual([`gsm8k: ${join(dir.path, "gsm8k", "test.jsonl")} is missing (source https://h/test.jsonl)`]);
  });
});
