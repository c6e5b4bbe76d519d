/** The one error formatter: GymErrors print what/where/fix once; usage messages never stutter `error:`. */
import { describe, expect, test } from "bun:test";
import { ConfigError, formatError, UsageError } from "../src/errors.ts";

describe("formatError", () => {
  test("an argparse-style usage message prints `error:` once", () => {
    const out = formatError(new UsageError("gym: error: unrecognized arguments: --nope", { hint: "did you mean --no-serve?" }));
    expect(out).toBe("gym: error: unrecognized arguments: --nope\nhint: did you mean --no-serve?");
    expect(out.match(/error:/g)).toHaveLength(1);
  });

  test("other GymErrors get the `error:` prefix and their hint; no bug note", () => {
    const out = formatError(new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH" }));
    expect(out.split("\n")[0]).toBe("error: output_jsonl_fpath is required");
    expect(out).toContain("hint: pass -o/--output PATH");
    expect(out).not.toContain("bug in gym");
  });

  test("a plain Error reads as a bug in gym", () => {
    expect(formatError(new Error("boom"))).toContain("this is a bug in gym");
  });
});
