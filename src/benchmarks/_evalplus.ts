/**
 * HumanEval+ / MBPP+ preparation (upstream benchmarks/human_eval and benchmarks/mbpp, Skills' transform):
 * rows `{question: prompt with 4 spaces → \t, entry_point, canonical_solution, verifier_metadata: {task_id}}`
 * from the evalplus release file, plus what the evalplus server reads: the release itself and the expected
 * outputs of every canonical solution, computed here once with the server's CodeRunner (upstream recomputes
 * them at every server start) and written to `<output root>/evalplus/`.
 */
import { createHash } from "node:crypto";
import { gunzip } from "../dataset/formats/gzip.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { readEnv } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { computeGroundTruth, EvalplusHarnessError, EVALPLUS_RELEASES, EXPECTED_FORMAT, parseRelease, releaseStem, type EvalplusDataset } from "../verify/code/evalplus.ts";
import { CodeRunner } from "../verify/code/runner.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The folder under the output root the evalplus server reads (`<prepared root>/evalplus`). */
export const EVALPLUS_DIR = "evalplus";

/** A preparer for one evalplus dataset. */
export function evalplusPreparer(name: string, dataset: EvalplusDataset): BenchmarkPreparer {
  const rel = EVALPLUS_RELEASES[dataset];
  const file = `${rel.name}.jsonl.gz`;
  return {
    name,
    server: "evalplus",
    sources: [{ kind: "url", url: `https://github.com/evalplus/${rel.name.toLowerCase()}_release/releases/download/${rel.version}/${file}`, file }],
    async prepare(files) {
      const src = files[0]![0]!;
      const release = gunzip(src.bytes, src.name);
      let tasks;
      try {
        tasks = parseRelease(new TextDecoder().decode(release), src.name);
      } catch (e) {
        if (e instanceof EvalplusHarnessError) throw new SourceFormatError(src.name, e.message);
        throw e;
      }
      if (tasks.length !== rel.count) {
        // Upstream's check: another count means the data set moved and parity with Skills is gone.
        throw new SourceFormatError(src.name, `expected ${rel.count} ${rel.name} problems, got ${tasks.length}`);
      }
      const lines = tasks.map((t) => {
        const row = JSON.parse(t.raw) as Record<string, unknown>;
        return pyDumps({ question: t.prompt.replaceAll("    ", "\t"), entry_point: t.entryPoint, canonical_solution: row.canonical_solution, verifier_metadata: { task_id: t.taskId } });
      });
      const runner = new CodeRunner({ maxConcurrent: 4 }, readEnv().path);
      const t0 = performance.now();
      let truth;
      try {
        truth = await computeGroundTruth(runner, dataset, tasks);
      } catch (e) {
        if (e instanceof EvalplusHarnessError) throw new RuntimeError(`${name}: computing the expected outputs failed: ${e.message}`);
        throw e;
      } finally {
        runner.close();
      }
      log.info(`${name}: expected outputs of ${Object.keys(truth).length} canonical solutions computed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const stem = releaseStem(dataset);
      const expected = { format: EXPECTED_FORMAT, source_sha256: createHash("sha256").update(release).digest("hex"), tasks: truth };
      return {
        lines,
        extra: [
          { path: `${EVALPLUS_DIR}/${stem}.jsonl`, bytes: release },
          { path: `${EVALPLUS_DIR}/${stem}.expected.json`, bytes: new TextEncoder().encode(JSON.stringify(expected)) },
        ],
      };
    },
  };
}
