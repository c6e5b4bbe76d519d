/**
 * The math benchmarks on math_with_judge (issue 13): `gym eval prepare` of each over the local
 * source server gives the lines upstream's prepare.py writes (json.dumps facts: key order, ASCII
 * escapes or not, Python `str()` of int64 / double answers), and the acceptance run: `gym eval run
 * --benchmark hmmt_feb25 --model-type scripted_model` with a replay of right and wrong answers
 * scores exactly those rows.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { MATH_JSONL } from "../fixtures/benchmarks/math-files.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

function env(dir: string) {
  return { XDG_CACHE_HOME: join(dir, "cache"), HF_ENDPOINT: srv.url };
}

// (Plain literals where a line holds non-ASCII text: Bun escapes it inside String.raw.)
// The lines CPython's json.dumps writes for the fixture rows (ensure_ascii as each prepare.py has it).
const EXPECTED: Record<keyof typeof MATH_JSONL, string[]> = {
  hendrycks_math: [
    String.raw`{"solution": "It is $\\boxed{2}$.", "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/1.json", "expected_answer": "2", "question": "What is $1+1$?"}`,
    String.raw`{"idx": 7, "level": 3, "expected_answer": "\\frac{1}{2}", "question": "Find $\\frac{x}{2}$ when $x=1$ \u2014 quickly."}`,
    String.raw`{"solution": "none", "question": "No answer here?"}`,
  ],
  aime24: [String.raw`{"question": "Find $x$ if $2x=14$.", "expected_answer": "7"}`, String.raw`{"question": "Compute $3\\cdot 11$.", "expected_answer": "033"}`],
  aime25: ['{"question": "How many primes are below 10?", "expected_answer": "4"}', '{"question": "What is $10^2$?", "expected_answer": "100"}'],
  aime26: ['{"question": "Half of fourteen?", "expected_answer": "7.0"}', '{"question": "A quarter?", "expected_answer": "0.25"}'],
  hmmt_feb25: [
    String.raw`{"question": "Compute $\\frac{1}{2}+\\frac{1}{3}$ \u2014 exactly.", "expected_answer": "\\frac{5}{6}"}`,
    String.raw`{"question": "Solve $x^2=2$, $x>0$.", "expected_answer": "\\sqrt{2}"}`,
  ],
  hmmt_nov25: ['{"question": "What is $2^5$?", "expected_answer": "32"}'],
  apex_shortlist: [String.raw`{"question": "Find the set of roots of $x^2-1$.", "expected_answer": "\\{-1, 1\\}"}`],
  "aime24-x": [
    '{"question": "Lösen Sie das folgende Mathematikproblem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \\\\boxed{} setzen.\\n\\nWas ist $6\\\\cdot 7$?", "problem": "Was ist $6\\\\cdot 7$?", "expected_answer": "42", "subset_for_metrics": "de", "target_language": "de"}',
    '{"question": "Resuelve el siguiente problema matemático. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \\\\boxed{}.\\n\\n¿Cuánto es $5+5$?", "problem": "¿Cuánto es $5+5$?", "expected_answer": "10", "subset_for_metrics": "es", "target_language": "es"}',
    '{"question": "Résolvez le problème mathématique suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \\\\boxed{}.\\n\\nCombien font $9-3$ ?", "problem": "Combien font $9-3$ ?", "expected_answer": "6", "subset_for_metrics": "fr", "target_language": "fr"}',
    '{"question": "以下の数学問題を解いてください。答え（答えのみ）を\\\\boxed{}の中に入れてください。\\n\\n$2+3$ はいくつですか。", "problem": "$2+3$ はいくつですか。", "expected_answer": "5", "subset_for_metrics": "ja", "target_language": "ja"}',
  ],
  "aime25-x": [
    '{"question": "Lösen Sie das folgende Mathematikproblem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \\\\boxed{} setzen.\\n\\nWas ist $8+1$?", "problem": "Was ist $8+1$?", "expected_answer": "9", "subset_for_metrics": "de", "target_language": "de"}',
    '{"question": "Resuelve el siguiente problema matemático. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \\\\boxed{}.\\n\\n¿Cuánto es $4\\\\cdot 4$?", "problem": "¿Cuánto es $4\\\\cdot 4$?", "expected_answer": "16", "subset_for_metrics": "es", "target_language": "es"}',
    '{"question": "Résolvez le problème mathématique suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \\\\boxed{}.\\n\\nCombien font $20/4$ ?", "problem": "Combien font $20/4$ ?", "expected_answer": "5", "subset_for_metrics": "fr", "target_language": "fr"}',
    '{"question": "以下の数学問題を解いてください。答え（答えのみ）を\\\\boxed{}の中に入れてください。\\n\\n$7\\\\times 3$ は？", "problem": "$7\\\\times 3$ は？", "expected_answer": "21", "subset_for_metrics": "ja", "target_language": "ja"}',
  ],
};

test("gym eval prepare: each math benchmark writes upstream's lines", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "out");
  const names = Object.keys(MATH_JSONL);
  const r = await runGym(["eval", "prepare", ...names.flatMap((n) => ["--benchmark", n]), "--output-dir", out, `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: env(dir.path) });
  expect(r.stderr).not.toContain("error:");
  expect(r.code).toBe(0);
  for (const [name, rel] of Object.entries(MATH_JSONL)) {
    const got = readFileSync(join(out, rel), "utf8").trimEnd().split("\n");
    expect({ name, got }).toEqual({ name, got: EXPECTED[name as keyof typeof MATH_JSONL] });
  }
}, 120_000);

test("a math benchmark row without its problem names file and row; nothing is written (exit 1)", async () => {
  await using dir = await tempDir();
  const path = "/api/datasets/MathArena/hmmt_nov_2025/parquet/default/train/0.parquet";
  const keep = srv.files.get(path)!;
  // A parquet file whose rows have `question` instead of `problem`.
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  srv.files.set(path, new Uint8Array(parquetWriteBuffer({ columnData: [{ name: "question", data: ["q"], type: "STRING" }, { name: "answer", data: ["1"], type: "STRING" }] })));
  try {
    const out = join(dir.path, "out");
    const r = await runGym(["eval", "prepare", "--benchmark", "hmmt_nov25", "--output-dir", out, `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: env(dir.path) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("row 1");
    expect(r.stderr).toContain("'problem' is missing");
    expect(() => readFileSync(join(out, MATH_JSONL.hmmt_nov25))).toThrow();
  } finally {
    srv.files.set(path, keep);
  }
}, 60_000);

test("hmmt_feb25 on math_with_judge: replayed right answers score 1.0, wrong ones 0.0", async () => {
  await using dir = await tempDir();
  const e = env(dir.path);
  // The config's num_repeats (4) applies: 2 tasks × 4 rollouts.
  const base = ["eval", "run", "--benchmark", "hmmt_feb25", "--model-type", "scripted_model", "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`];
  const first = await runGym([...base, "-o", join(dir.path, "first", "rollouts.jsonl")], { cwd: dir.path, env: e });
  expect(first.stderr).not.toContain("error:");
  expect(first.code).toBe(0);
  const rows = readJsonl(join(dir.path, "first", "rollouts.jsonl")).sort((a, b) => a._ng_task_index - b._ng_task_index);
  expect(rows.map((r) => r.expected_answer)).toEqual([...Array(4).fill("\\frac{5}{6}"), ...Array(4).fill("\\sqrt{2}")]);
  // Task 0 gets an equivalent right answer written differently; task 1 a wrong one.
  const answers = ["Adding, $\\frac12+\\frac13 = \\boxed{\\dfrac{5}{6}}$.", "So $x = \\boxed{2}$."];
  const replay = join(dir.path, "replay.jsonl");
  writeFileSync(
    replay,
    rows
      .map((r) =>
        JSON.stringify({
          responses_create_params: r.responses_create_params,
          response: { ...r.response, output: [{ id: `m${r._ng_task_index}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answers[r._ng_task_index], annotations: [] }] }] },
        }),
      )
      .join("\n") + "\n",
  );
  const second = await runGym([...base, `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${replay}`, "-o", join(dir.path, "second", "rollouts.jsonl")], { cwd: dir.path, env: e });
  expect(second.code).toBe(0);
  const scored = readJsonl(join(dir.path, "second", "rollouts.jsonl")).sort((a, b) => a._ng_task_index - b._ng_task_index);
  expect(scored.map((r) => [r._ng_task_index, r.reward, r.library_reward])).toEqual([...Array(4).fill([0, 1, 1]), ...Array(4).fill([1, 0, 0])]);
}, 180_000);
