/**
 * structeval as tables: every helper / verify / metrics call of upstream's tests plus extra inputs,
 * outcomes computed once by upstream's app.py (CPython, PyYAML, toml, xmltodict). Parse-error texts
 * of JSON / YAML / TOML come from different parsers: for those only the error type and the Python
 * class named (JSON) are compared; XML (expat-style) and CSV messages are compared whole.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeStructeval } from "../../src/components/resources/structeval.ts";
import { extractCode, parseContent, pathExists, rawOutputEval, structevalMetrics, tokenizePath } from "../../src/verify/structured/structeval.ts";

type Case = { fn: string; args?: any[]; body?: any; out: any };
const CASES = (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "library", "structeval.json"), "utf8")) as { cases: Case[] }).cases;
const exactMessage = (m: string | null) => m === null || !/^(JSONDecodeError|ParserError|ScannerError|ComposerError|ConstructorError|TomlDecodeError|ReaderError): /.test(m);

describe("structeval (outcomes from upstream's app.py)", () => {
  test("_tokenize_path / _path_exists / _raw_output_eval / _extract_code", () => {
    let n = 0;
    for (const c of CASES) {
      let got: unknown;
      if (c.fn === "_tokenize_path") got = tokenizePath(c.args![0]);
      else if (c.fn === "_path_exists") got = pathExists(c.args![0], c.args![1]);
      else if (c.fn === "_raw_output_eval") got = rawOutputEval(c.args![0], c.args![1]);
      else if (c.fn === "_extract_code") got = extractCode(c.args![0], c.args![1]);
      else continue;
      expect([c.fn, c.args, got]).toEqual([c.fn, c.args, c.out]);
      n++;
    }
    process.stderr.write(`structeval helpers: ${n}/${n} as upstream\n`);
  });

  test("_parse_content: parsed value, render score, error type (and message where the parser is ours)", () => {
    const cases = CASES.filter((c) => c.fn === "_parse_content");
    for (const c of cases) {
      const [parsed, render, errorType, errorMessage] = c.out as [unknown, number, string | null, string | null];
      const got = parseContent(c.args![0], c.args![1]);
      expect([c.args, got.render, got.errorType]).toEqual([c.args, render, errorType]);
      if (exactMessage(errorMessage)) expect([c.args, got.errorMessage]).toEqual([c.args, errorMessage]);
      else expect(got.errorMessage!.split(":")[0] === errorMessage!.split(":")[0] || !errorMessage!.startsWith("JSON")).toBe(true);
      if (typeof parsed === "object" && parsed !== null) expect([c.args, JSON.parse(JSON.stringify(got.parsed))]).toEqual([c.args, parsed]);
    }
    process.stderr.write(`structeval _parse_content: ${cases.length}/${cases.length} as upstream (render, error type)\n`);
  });

  test("verify and compute_metrics", () => {
    const verify = CASES.filter((c) => c.fn === "verify");
    for (const c of verify) {
      const { responses_create_params: _r, response: _s, ...got } = gradeStructeval({ responses_create_params: { input: [] }, ...c.body });
      const want = { ...c.out };
      if (!exactMessage(want.error_message)) {
        expect(String(got.error_message).length).toBeGreaterThan(0);
        delete want.error_message;
        delete (got as Record<string, unknown>).error_message;
      }
      expect([c.body.output_type, got]).toEqual([c.body.output_type, want]);
    }
    for (const c of CASES.filter((c) => c.fn === "compute_metrics")) expect(structevalMetrics(c.args![0])).toEqual(c.out);
    process.stderr.write(`structeval verify: ${verify.length}/${verify.length} as upstream\n`);
  });
});
