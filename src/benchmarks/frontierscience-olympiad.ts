/**
 * FrontierScience Olympiad and Research (upstream benchmarks/frontierscience_olympiad/ and
 * frontierscience_research/prepare.py, after NeMo Skills): openai/frontierscience's JSONL files.
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

/**
 * One FrontierScience track: `<track>/test.jsonl`, chemistry/biology/physics rows only, `id` =
 * `<track>-<index in the file>`. Olympiad answers lose surrounding backticks; research answers
 * are the 10-point rubric, and its rows end with the 7.0 / 10.0 scoring fields.
 */
function frontierscience(track: "olympiad" | "research"): BenchmarkPreparer {
  return {
    name: `frontierscience_${track}`,
    server: "frontierscience_judge",
    sources: [{ kind: "hf-file", repo: "openai/frontierscience", path: `${track}/test.jsonl` }],
    prepare(files) {
      const lines: string[] = [];
      for (const file of files[0]!) {
        parseJsonl(new TextDecoder().decode(file.bytes), file.name).forEach((raw, idx) => {
          const entry = (raw ?? {}) as Record<string, unknown>;
          const subject = text(entry, "subject").toLowerCase();
          if (!SUBJECTS.has(subject)) return;
          const answer = track === "olympiad" ? text(entry, "answer").replace(BACKTICKS.re, "") : text(entry, "answer");
          const line = pyDumps({ id: `${track}-${idx}`, question: "problem" in entry ? entry.problem : "", expected_answer: pyStrip(answer), subject, task_group_id: text(entry, "task_group_id") }, false);
          // Python writes the floats 7.0 / 10.0 (pyDumps cannot tell them from ints); they are the last keys.
          lines.push(track === "olympiad" ? line : `${line.slice(0, -1)}, "scoring_threshold": 7.0, "scoring_max_points": 10.0}`);
        });
      }
      return lines;
    },
  };
}

/** The FrontierScience Olympiad preparer. */
export const benchmark: BenchmarkPreparer = frontierscience("olympiad");

/** The FrontierScience Research preparer. */
export const researchBenchmark: BenchmarkPreparer = frontierscience("research");
