/**
 * IFEval checks per CPU-second: every one of the 54 instruction ids over real 1–2 KB answers (the
 * GPT-4 responses of google-research IFEval, test/fixtures/ifeval/gpt4-responses.json), language
 * detection measured separately (first call = profile load, then per call), plus determinism (100 runs,
 * one verdict) and bad input (empty text, 1 MB text). Prints figures and ratios; asserts nothing on time.
 *   bun scripts/bench-ifeval.ts [cpu-seconds-per-id=0.1]
 */
import { join } from "node:path";
import { checkOne } from "../src/verify/ifeval/evaluate.ts";
import { detectProbabilities } from "../src/verify/ifeval/langdetect.ts";
import { countSentences } from "../src/verify/ifeval/punkt.ts";
import { instructionIds } from "../src/verify/ifeval/registry.ts";

const perId = Number(process.argv[2] ?? 0.1);
// Baseline: upstream's stack (verifiable-instructions on CPython 3.11, nltk 3.8, langdetect 1.0.9) over
// the same corpus, kwargs and method, measured once on the 2-core dev machine (Dec 2026).
const PYTHON_MIX_PER_CPU_S = 5523;
const PYTHON_LANGDETECT_PER_CPU_S = 242;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// Kwargs that make every id do its full work (no early exit on a bad argument).
const KWARGS: Record<string, unknown> = {
  "keywords:existence": { keywords: ["data", "model"] },
  "keywords:frequency": { keyword: "the", frequency: 3, relation: "at least" },
  "keywords:forbidden_words": { forbidden_words: ["foo", "bar"] },
  "keywords:letter_frequency": { letter: "e", let_frequency: 10, let_relation: "at least" },
  "language:response_language": { language: "en" },
  "length_constraints:number_sentences": { num_sentences: 5, relation: "at least" },
  "length_constraints:number_paragraphs": { num_paragraphs: 3 },
  "length_constraints:number_words": { num_words: 200, relation: "at least" },
  "length_constraints:nth_paragraph_first_word": { num_paragraphs: 3, nth_paragraph: 2, first_word: "the" },
  "detectable_content:number_placeholders": { num_placeholders: 2 },
  "detectable_content:postscript": { postscript_marker: "P.S." },
  "detectable_format:number_bullet_lists": { num_bullets: 3 },
  "detectable_format:number_highlighted_sections": { num_highlights: 2 },
  "detectable_format:multiple_sections": { section_spliter: "Section", num_sections: 2 },
  "combination:repeat_prompt": { prompt_to_repeat: "Write an essay" },
  "startend:end_checker": { end_phrase: "Any other questions?" },
  "change_case:capital_word_frequency": { capital_frequency: 3, capital_relation: "at least" },
  "copy:repeat_phrase": { phrase: "The early bird catches the worm", small_n: 2 },
  "copy:copy": { prompt_to_repeat: "Copy this" },
  "new:copy_span_idx": { prompt_to_repeat: "The quick brown fox jumps", n_start: 4, n_end: 9 },
  "keywords:word_once": { keyword: "data" },
  "keywords:word_count_different_numbers": { keyword: "the", frequency: 2, relation: "less than" },
  "keywords:exclude_word_harder": { keyword: "the" },
  "first_word:first_word_sent": { first_word: "the" },
  "first_word:first_word_answer": { first_word: "the" },
  "last_word:last_word_sent": { last_word: "end" },
  "last_word:last_word_answer": { last_word: "end" },
  "copy:copying_simple": { prompt_to_repeat: "Repeat me" },
  "copy:copying_multiple": { prompt_to_repeat: "Repeat me", N: 2 },
  "count:lowercase_counting": { N: 50 },
  "letters:letter_counting": { N: 100, relation: "at least" },
  "letters:letter_counting2": { letter: "a", let_frequency: 5, let_relation: "at least" },
  "count:counting_composition": { n_sent: 2, n_words: 5 },
  "count:count_increment_word": { keyword1: "data", keyword2: "the" },
  "keywords:keyword_specific_position": { keyword: "the", n: 2, m: 1 },
};

const fixture = join(import.meta.dir, "..", "test", "fixtures", "ifeval", "gpt4-responses.json");
const rows = (await Bun.file(fixture).json()) as { response: string }[];
const answers = rows.map((r) => r.response).filter((t) => t.length >= 1000 && t.length <= 2000);
const meanLen = answers.reduce((a, t) => a + t.length, 0) / answers.length;
console.log(`corpus: ${answers.length} answers of 1–2 KB (mean ${meanLen.toFixed(0)} chars) from ${rows.length} IFEval GPT-4 responses`);

// Language detection first: the first call parses the profiles.
let t0 = performance.now();
let c0 = cpu();
detectProbabilities("warm up the language profiles");
console.log(`langdetect profile load (once per process): ${(performance.now() - t0).toFixed(0)} ms wall, ${((cpu() - c0) * 1000).toFixed(0)} ms CPU`);
t0 = performance.now();
countSentences("Warm up. Done.");
console.log(`punkt parameter load (once per process): ${(performance.now() - t0).toFixed(1)} ms`);

const lang = (() => {
  c0 = cpu();
  let n = 0;
  while (cpu() - c0 < 1.0) for (const a of answers) (detectProbabilities(a), n++);
  return n / (cpu() - c0);
})();
console.log(`langdetect: ${lang.toFixed(0)} detections per CPU-second (${(1000 / lang).toFixed(2)} ms each); Python langdetect ${PYTHON_LANGDETECT_PER_CPU_S}/CPU-s → ×${(lang / PYTHON_LANGDETECT_PER_CPU_S).toFixed(1)}`);

// Every id, built once per answer as the server does per row.
const perIdRate: [string, number][] = [];
let totalChecks = 0;
let totalCpu = 0;
for (const id of instructionIds()) {
  const kw = KWARGS[id] ?? null;
  let n = 0;
  c0 = cpu();
  while (cpu() - c0 < perId) for (const a of answers) (checkOne(id, kw, a), n++);
  const used = cpu() - c0;
  perIdRate.push([id, n / used]);
  totalChecks += n;
  totalCpu += used;
}
perIdRate.sort((a, b) => a[1] - b[1]);
const harmonic = perIdRate.length / perIdRate.reduce((a, [, r]) => a + 1 / r, 0);
console.log(`all 54 ids, equal mix: ${harmonic.toFixed(0)} checks per CPU-second (${totalChecks} checks in ${totalCpu.toFixed(1)} CPU-s); upstream Python ${PYTHON_MIX_PER_CPU_S}/CPU-s → ×${(harmonic / PYTHON_MIX_PER_CPU_S).toFixed(1)}`);
console.log("slowest ids (checks per CPU-second, ratio to the equal mix):");
for (const [id, r] of perIdRate.slice(0, 8)) console.log(`  ${id.padEnd(42)} ${r.toFixed(0).padStart(8)}  ×${(r / harmonic).toFixed(2)}`);
console.log(`fastest: ${perIdRate.at(-1)![0]} ${perIdRate.at(-1)![1].toFixed(0)}/CPU-s; langdetect vs the mix: ×${(lang / harmonic).toFixed(2)}`);

// Determinism: 100 runs of every id on one answer give one verdict each.
const sample = answers[0]!;
let unstable = 0;
for (const id of instructionIds()) {
  const first = checkOne(id, KWARGS[id] ?? null, sample).ok;
  for (let i = 0; i < 99; i++) if (checkOne(id, KWARGS[id] ?? null, sample).ok !== first) unstable++;
}
console.log(`determinism: 54 ids × 100 runs, ${unstable} verdict changes`);

// Bad input: empty text and a 1 MB answer through every id.
const para = "The quick brown fox jumps over the lazy dog. Mr. Smith paid $3.50, didn't he? ";
const big = para.repeat(Math.ceil(1_000_000 / para.length));
let errors = 0;
for (const id of instructionIds()) if (checkOne(id, KWARGS[id] ?? null, "").error) errors++;
console.log(`empty answer: 54 ids checked, ${errors} raised (as upstream would)`);
const w = performance.now();
c0 = cpu();
for (const id of instructionIds()) checkOne(id, KWARGS[id] ?? null, big);
console.log(`1 MB answer: all 54 ids in ${((cpu() - c0)).toFixed(1)} CPU-s (${((performance.now() - w) / 1000).toFixed(1)} s wall)`);

