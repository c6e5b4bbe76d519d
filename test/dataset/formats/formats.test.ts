/** The source readers: each format read right, and each kind of damage a one-line error naming the file (and line). */
import { describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { parseCsvObjects, parseCsvRecords } from "../../../src/dataset/formats/csv.ts";
import { gunzip } from "../../../src/dataset/formats/gzip.ts";
import { parseJson } from "../../../src/dataset/formats/json.ts";
import { parseJsonl, parseJsonlRows } from "../../../src/dataset/formats/jsonl.ts";
import { readParquet } from "../../../src/dataset/formats/parquet.ts";
import { decodeCompressedPickledStr } from "../../../src/dataset/formats/pickled-str.ts";
import { readTar, writeTar } from "../../../src/dataset/formats/tar.ts";
import { readZip } from "../../../src/dataset/formats/zip.ts";
import { gpqaParquet, mmluProParquet, PICKLED_DICT, PICKLED_REDUCE, PICKLED_STR, PICKLED_VALUE, zipOf } from "../../fixtures/benchmarks/files.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("jsonl / json", () => {
  test("rows with line numbers; blank lines and CRLF tolerated", () => {
    expect(parseJsonlRows('{"a": 1}\r\n\n{"a": 2}\n', "f.jsonl")).toEqual([
      { line: 1, row: { a: 1 } },
      { line: 3, row: { a: 2 } },
    ]);
  });
  test.each([
    ['{"a": 1}\n{"a": \n', "f.jsonl:2: not valid JSON"],
    ['{"a": 1}\n\n[1, 2]\n', "f.jsonl:3: a row is not a JSON object"],
  ])("broken row %#", (text, msg) => {
    expect(() => parseJsonlRows(text, "f.jsonl")).toThrow(msg);
  });
  test("plain values and whole documents", () => {
    expect(parseJsonl("1\n[2]\n", "f")).toEqual([1, [2]]);
    expect(parseJson('{"x": [1]}', "f.json")).toEqual({ x: [1] });
    expect(() => parseJson('{"x": ', "f.json")).toThrow(/^f\.json(:\d+:\d+)?: not valid JSON/);
  });
});

describe("csv", () => {
  test("quotes, doubled quotes, embedded newlines and commas, CRLF, BOM", () => {
    const text = '\ufeffq,a,b\r\n"What, exactly?","say ""hi""","line1\nline2"\r\nplain,1,2\r\n';
    expect(parseCsvObjects(text, "t.csv")).toEqual([
      { q: "What, exactly?", a: 'say "hi"', b: "line1\nline2" },
      { q: "plain", a: "1", b: "2" },
    ]);
    // MMLU's data.tar CSVs have no header row.
    expect(parseCsvRecords("x,A,B,C,D,A\n", "t.csv")).toEqual([["x", "A", "B", "C", "D", "A"]]);
  });
  test("an unterminated quote names the line it opened on", () => {
    expect(() => parseCsvRecords('a,b\n1,2\n"open,3\nmore\n', "t.csv")).toThrow('t.csv:3: a quoted field is never closed');
  });
  test("a record with the wrong number of fields", () => {
    expect(() => parseCsvObjects("a,b\n1,2,3\n", "t.csv")).toThrow("t.csv: record 2: has 3 fields, the header has 2");
  });
});

describe("tar", () => {
  test("write then read: names over 100 bytes (pax), empty and block-sized files, same bytes every time", () => {
    const long = `${"d/".repeat(60)}file.csv`;
    const entries = [
      { path: "data/test/a.csv", data: enc.encode("1,2\n") },
      { path: long, data: enc.encode("x".repeat(512)) },
      { path: "empty", data: new Uint8Array() },
    ];
    const tar = writeTar(entries);
    expect(tar.length % 512).toBe(0);
    expect(writeTar(entries)).toEqual(tar);
    expect(readTar(tar, "a.tar").map((e) => [e.path, dec.decode(e.data)])).toEqual(entries.map((e) => [e.path, dec.decode(e.data)]));
  });
  test("truncated or not a tar", () => {
    const tar = writeTar([{ path: "a.csv", data: enc.encode("x".repeat(2000)) }]);
    expect(() => readTar(tar.subarray(0, 1024), "a.tar")).toThrow("a.tar: the tar archive is truncated");
    expect(() => readTar(enc.encode("x".repeat(1024)), "a.tar")).toThrow("a.tar: not a tar archive");
  });
});

describe("zip and gzip", () => {
  test("stored and deflated entries", () => {
    const zip = zipOf([
      { path: "dir/a.jsonl", data: enc.encode('{"a": 1}\n'), deflate: false },
      { path: "b.csv", data: enc.encode("q,a\n".repeat(100)), deflate: true },
    ]);
    expect(readZip(zip, "s.zip").map((e) => [e.path, dec.decode(e.data)])).toEqual([
      ["dir/a.jsonl", '{"a": 1}\n'],
      ["b.csv", "q,a\n".repeat(100)],
    ]);
    expect(() => readZip(zip.subarray(0, zip.length - 30), "s.zip")).toThrow("s.zip: not a zip archive, or a truncated one");
  });
  test("names: CP437 unless the entry flags UTF-8 (Python's zipfile)", () => {
    const zip = zipOf([{ path: "Smith’s.txt", data: enc.encode("x"), deflate: false }]);
    expect(readZip(zip, "s.zip")[0]!.path).toBe("SmithΓÇÖs.txt");
    // Set general-purpose bit 11 in the central directory entry: the name reads as UTF-8.
    const cd = zip.length - 22 - (46 + enc.encode("Smith’s.txt").length);
    const flagged = new Uint8Array(zip);
    new DataView(flagged.buffer).setUint16(cd + 8, 0x800, true);
    expect(readZip(flagged, "s.zip")[0]!.path).toBe("Smith’s.txt");
  });
  test("gzip round trip and a cut-off stream", () => {
    const gz = new Uint8Array(gzipSync(enc.encode("hello\n".repeat(50))));
    expect(dec.decode(gunzip(gz, "x.jsonl.gz"))).toBe("hello\n".repeat(50));
    expect(() => gunzip(gz.subarray(0, gz.length - 10), "x.jsonl.gz")).toThrow("x.jsonl.gz: not a complete gzip stream");
  });
});

describe("pickled str (LiveCodeBench private tests)", () => {
  test.each([1, 2, 3, 4, 5])("protocol %i gives the string", (p) => {
    expect(decodeCompressedPickledStr(PICKLED_STR[p]!, "row 1")).toBe(PICKLED_VALUE);
  });
  test.each([
    ["a dict", PICKLED_DICT],
    ["a GLOBAL/REDUCE call", PICKLED_REDUCE],
    ["protocol 0 text", PICKLED_STR[0]!],
  ])("refuses %s", (_, b64) => {
    expect(() => decodeCompressedPickledStr(b64, "row 7")).toThrow(/^row 7: refused pickle: opcode 0x[0-9a-f]{2} at byte \d+; only a pickled str is accepted$/);
  });
  test("not zlib", () => {
    expect(() => decodeCompressedPickledStr("aGVsbG8=", "row 2")).toThrow("row 2: not a complete zlib stream");
  });
});

describe("parquet", () => {
  test("snappy pages, list and int64 columns", async () => {
    const rows = await readParquet(mmluProParquet(), "m.parquet");
    expect(rows[1]).toEqual({ question_id: 1, question: "Pick the noble gas.", options: ["O", "N", "Ar"], answer: "C", category: "chemistry" });
  });
  test("gzip pages (hyparquet-compressors)", async () => {
    expect((await readParquet(gpqaParquet(), "g.parquet"))[0]!.Question).toBe("What is 2+2?");
  });
  test("a truncated file", async () => {
    const p = mmluProParquet();
    await expect(readParquet(p.subarray(0, p.length - 20), "m.parquet")).rejects.toThrow("m.parquet: not a parquet file, or a truncated one");
  });
});
