/**
 * FrontierScience Olympiad (upstream benchmarks/frontierscience_olympiad/prepare.py, after NeMo
 * Skills): `olympiad/test.jsonl` of openai/frontierscience, chemistry/biology/physics rows only,
 * `id` = `olympiad-<index in the file>`, answers with surrounding backticks removed.
 */
import { parseJsonl } from "../dataset/formats/jsonl.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyRegex } from "../util/py-regex.ts";
import { pyStr } from "../util/py-str-of.ts";
import { pyStrip } from "../util/py-str.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SUBJECTS = new Set(["chemistry", "biology", "physics"]);
const BACKTICKS = pyRegex("^`+|`+$");

/** `entry.get(key, "") or ""` as a string. */
function text(entry: Record<string, unknown>, key: string): string {
  const v = entry[key];
  return v ? pyStr(v) : "";
}

/** The FrontierScience Olympiad preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "frontierscience_olympiad",
  server: "frontierscience_judge",
  sources: [{ kind: "hf-file", repo: "openai/frontierscience", path: "olympiad/test.jsonl" }],
  prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      parseJsonl(new TextDecoder().decode(file.bytes), file.name).forEach((raw, idx) => {
        const entry = (raw ?? {}) as Record<string, unknown>;
        const subject = text(entry, "subject").toLowerCase();
        if (!SUBJECTS.has(subject)) return;
        lines.push(
          pyDumps(
            {
              id: `olympiad-${idx}`,
              question: "problem" in entry ? entry.problem : "",
              expected_answer: pyStrip(text(entry, "answer").replace(BACKTICKS.re, "")),
              subject,
              task_group_id: text(entry, "task_group_id"),
            },
            false,
          ),
        );
      });
    }
    return lines;
  },
};
