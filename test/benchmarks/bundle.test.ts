/** Bundles in-process: a missing entry or an unknown name is one error naming benchmark and file; a subset installs only itself. */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installBundle, writeBundle } from "../../src/benchmarks/bundle.ts";
import type { PreparedBenchmark } from "../../src/benchmarks/prepare.ts";
import { readTar, writeTar } from "../../src/dataset/formats/tar.ts";
import { tempDir } from "../helpers/tmp.ts";

const enc = new TextEncoder();

function prepared(name: string): PreparedBenchmark {
  return {
    job: { name, jsonlFpath: `benchmarks/${name}/data/${name}_benchmark.jsonl`, preparer: { name, server: "s", sources: [], prepare: () => [] } },
    path: "",
    jsonl: enc.encode(`{"q": "${name}"}\n`),
    sources: [{ name: "test.jsonl", bytes: enc.encode(`raw ${name}\n`) }],
  };
}

describe("benchmark bundles", () => {
  test("subset install, missing entry, unknown name", async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "b.tar");
    writeBundle(file, [prepared("a"), prepared("b")]);
    const out = join(dir.path, "out");
    expect(installBundle(file, out, ["b"])).toEqual([join(out, "benchmarks/b/data/b_benchmark.jsonl")]);
    expect(readFileSync(join(out, "benchmarks/b/data/b_benchmark.jsonl"), "utf8")).toBe('{"q": "b"}\n');
    expect(existsSync(join(out, "benchmarks/a"))).toBe(false);

    expect(() => installBundle(file, out, ["c"])).toThrow(`${file}: benchmark 'c' is not in the bundle (it holds: a, b)`);

    const entries = readTar(new Uint8Array(readFileSync(file)), file).filter((e) => e.path !== "sources/a/test.jsonl");
    const broken = join(dir.path, "broken.tar");
    writeFileSync(broken, writeTar(entries));
    const out2 = join(dir.path, "out2");
    expect(() => installBundle(broken, out2)).toThrow(`${broken}: benchmark 'a': entry sources/a/test.jsonl is missing`);
    // Checked whole before anything is written.
    expect(existsSync(out2)).toBe(false);

    writeFileSync(join(dir.path, "plain.tar"), writeTar([{ path: "x", data: enc.encode("x") }]));
    expect(() => installBundle(join(dir.path, "plain.tar"), out2)).toThrow("no manifest.json: not a gym benchmark bundle");
  });
});
