/**
 * structured_outputs as tables: every verify / coerce / metrics call of upstream's tests, outcomes
 * computed once by upstream's app.py (CPython, openapi-schema-validator). Rewards and error types
 * are compared for every case; error texts where they are ours to reproduce (tool-call, empty,
 * XML/CSV parse), not jsonschema's or PyYAML's / tomllib's wording.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeStructuredOutputs } from "../../src/components/resources/structured-outputs.ts";
import { coerceCsvTypes, coerceXmlTypes, structuredOutputsMetrics } from "../../src/verify/structured/structured-outputs.ts";

type Case = { fn: string; args?: any[]; body?: any; config?: any; out: any };
const CASES = (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "library", "structured-outputs.json"), "utf8")) as { cases: Case[] }).cases;
const foreignText = (m: string | null) => m !== null && /^(ValidationError|JSONDecodeError|ScannerError|ParserError|ComposerError|TOMLDecodeError): /.test(m);

describe("structured_outputs (outcomes from upstream's app.py)", () => {
  test("verify: reward, error type, echoed fields", () => {
    const cases = CASES.filter((c) => c.fn === "verify");
    for (const c of cases) {
      const got = gradeStructuredOutputs(c.body, c.config?.xml_coerce_types ?? true);
      const want = { ...c.out };
      if (foreignText(want.error_message)) {
        expect([c.body.schema_type, String(got.error_message).split(":")[0]]).toEqual([c.body.schema_type, want.error_message.split(":")[0] === "ScannerError" || want.error_message.startsWith("ParserError") ? "YAMLError" : want.error_message.split(":")[0]]);
        delete want.error_message;
        delete got.error_message;
      }
      expect([c.body.schema_type, c.body.response_mode, got]).toEqual([c.body.schema_type, c.body.response_mode, want]);
    }
    process.stderr.write(`structured_outputs verify: ${cases.length}/${cases.length} as upstream (reward, error type)\n`);
  });

  test("coerce_xml_types / coerce_csv_types / compute_metrics", () => {
    for (const c of CASES.filter((c) => c.fn === "coerce_xml_types")) expect(coerceXmlTypes(c.args![0], c.args![1])).toEqual(c.out);
    for (const c of CASES.filter((c) => c.fn === "coerce_csv_types")) expect(coerceCsvTypes(c.args![0], c.args![1])).toEqual(c.out);
    for (const c of CASES.filter((c) => c.fn === "compute_metrics")) expect(structuredOutputsMetrics(c.args![0])).toEqual(c.out);
  });
});
