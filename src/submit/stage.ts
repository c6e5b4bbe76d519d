/**
 * Staging (spec submit.md §9.2, D23): a temp tree with, per benchmark, `logs/`, `artifacts/`, `job.sh` (0600: the one file that may hold baked host: values,
 * D28) and `otel/collector.yaml`. Modes travel with the copy. The gym binary is not in the tree:
 * binary-cache.ts places it once per content digest and links it into the run dir.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** One benchmark's staged files. */
export interface StagedBenchmark {
  name: string;
  script: string;
  collectorYaml: string | null;
  /** `aggregate.sh`, the merge job of a sharded benchmark (issue 20). */
  aggregateScript?: string;
}

/** True when this process is the compiled gym binary (not `bun src/main.ts`). */
export function isCompiledBinary(): boolean {
  const a1 = process.argv[1] ?? "";
  return a1.startsWith("/$bunfs/") || a1.startsWith("B:/~BUN/") || import.meta.dir.includes("$bunfs");
}

/** Write the staged `gym`: a copy of this binary, or (from source) a launcher script. */
export function stageGymBinary(target: string): void {
  if (isCompiledBinary()) {
    copyFileSync(process.execPath, target);
  } else {
    // Running from source (`bun src/main.ts`): stage a launcher that runs this same source tree
    // with this same bun, so the job runs exactly the code that rendered it.
    const main = resolve(import.meta.dir, "..", "main.ts");
    const q = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;
    writeFileSync(target, `#!/bin/sh\n# gym launcher staged by \`gym eval submit\` run from source.\nexec ${q(process.execPath)} ${q(main)} "$@"\n`);
  }
  chmodSync(target, 0o755);
}

/** Stage everything into a fresh temp dir; returns its path. */
export function stageRun(benchmarks: StagedBenchmark[]): string {
  const dir = mkdtempSync(join(tmpdir(), "gym-submit-"));
  chmodSync(dir, 0o755);
  for (const b of benchmarks) {
    const bd = join(dir, b.name);
    for (const sub of ["", "logs", "artifacts"]) mkdirSync(join(bd, sub), { recursive: true, mode: 0o755 });
    writeFileSync(join(bd, "job.sh"), b.script, { mode: 0o600 });
    chmodSync(join(bd, "job.sh"), 0o600);
    if (b.aggregateScript !== undefined) writeFileSync(join(bd, "aggregate.sh"), b.aggregateScript, { mode: 0o600 });
    if (b.collectorYaml !== null) {
      mkdirSync(join(bd, "otel"), { recursive: true, mode: 0o755 });
      writeFileSync(join(bd, "otel", "collector.yaml"), b.collectorYaml);
    }
  }
  return dir;
}
