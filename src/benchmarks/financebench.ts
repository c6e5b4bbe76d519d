/**
 * FinanceBench (upstream benchmarks/financebench/prepare.py): open-book financial Q&A; the
 * evidence pages joined into `context` (`[Evidence i]` blocks, full page preferred), uuid5 of
 * `financebench/<id>`, missing question type / reasoning as "unknown".
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { pyStr } from "../util/py-str-of.ts";
import type { BenchmarkPreparer } from "./types.ts";

type Obj = Record<string, unknown>;

/** `_join_evidence`: each entry's full page (else its excerpt), numbered from 1, empty ones skipped. */
export function joinEvidence(evidence: unknown): string {
  if (!Array.isArray(evidence) || evidence.length === 0) return "";
  const parts: string[] = [];
  evidence.forEach((ev, i) => {
    const text = ev && typeof ev === "object" && !Array.isArray(ev) ? (ev as Obj).evidence_text_full_page || (ev as Obj).evidence_text || "" : typeof ev === "string" ? ev : "";
    if (text) parts.push(`[Evidence ${i + 1}]\n${pyStr(text)}`);
  });
  return parts.join("\n\n");
}

/** `dict.get(key, default)`: the default only when the key is absent. */
function get(row: Obj, key: string, fallback: unknown): unknown {
  return key in row ? row[key] : fallback;
}

/** The FinanceBench preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "financebench",
  server: "equivalence_llm_judge",
  sources: [{ kind: "hf-parquet", repo: "PatronusAI/financebench", config: "default", split: "train" }],
  async prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      for (const item of await readParquet(file.bytes, file.name)) {
        const id = item.financebench_id;
        lines.push(
          pyDumps(
            {
              uuid: uuid5(NAMESPACE_URL, `financebench/${pyStr(id)}`),
              question: item.question,
              expected_answer: item.answer,
              context: joinEvidence(get(item, "evidence", [])),
              financebench_id: id,
              company: get(item, "company", ""),
              doc_name: get(item, "doc_name", ""),
              question_type: item.question_type || "unknown",
              question_reasoning: item.question_reasoning || "unknown",
            },
            false,
          ),
        );
      }
    }
    return lines;
  },
};
