/**
 * The sbatch protocol (spec submit.md §9.5, §9.6): one shell program that exports the forwarded
 * secrets (sent over stdin, never written), queues every benchmark with `sbatch --parsable`, and
 * prints one `__GYM_JOB:` marker line each; results are matched by name.
 */
import { q } from "./render/shell.ts";

/**
 * Build the remote submit program. `secrets` maps variable names to values. A benchmark in `merges`
 * (sharded) also queues its `aggregate.sh` after the job array, reported on a `__GYM_MERGE:` line.
 */
export function sbatchProgram(runDir: string, benchmarks: string[], secrets: Record<string, string>, merges: string[] = []): string {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(secrets)) lines.push(`export ${k}=${q(v)}`);
  lines.push("unset SBATCH_EXPORT");
  for (const b of benchmarks) {
    const script = q(`${runDir}/${b}/job.sh`);
    lines.push(`out=$(sbatch --parsable ${script} 2>&1); rc=$?; out=$(echo "$out" | tr '\\n' ' '); echo "__GYM_JOB:${b}:$rc:$out"`);
    if (merges.includes(b)) {
      const merge = q(`${runDir}/${b}/aggregate.sh`);
      lines.push(`if [ "$rc" = 0 ]; then jid=$(echo "$out" | awk '{print $NF}'); jid=\${jid%%;*}; m=$(sbatch --parsable --dependency="afterany:$jid" ${merge} 2>&1); mrc=$?; m=$(echo "$m" | tr '\\n' ' '); echo "__GYM_MERGE:${b}:$mrc:$m"; fi`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Per-benchmark outcome of the sbatch program. */
export type SbatchResult = { jobId: string; error: null } | { jobId: null; error: string };

/** Parse the marker lines of the program's output. */
export function parseSbatchOutput(output: string, benchmarks: string[]): Record<string, SbatchResult> {
  const found = new Map<string, SbatchResult>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("__GYM_JOB:")) continue;
    const rest = line.slice("__GYM_JOB:".length);
    const i1 = rest.indexOf(":");
    const i2 = rest.indexOf(":", i1 + 1);
    if (i1 < 0 || i2 < 0) continue;
    const name = rest.slice(0, i1);
    const rc = rest.slice(i1 + 1, i2);
    const payload = rest.slice(i2 + 1).trim();
    if (rc === "0") {
      const last = payload.split(/\s+/).pop() ?? "";
      const m = /^(\d+)(;\S+)?$/.exec(last);
      found.set(name, m ? { jobId: m[1]!, error: null } : { jobId: null, error: payload || "sbatch exited 0 with no output" });
    } else found.set(name, { jobId: null, error: payload || `sbatch exited ${rc}` });
  }
  const out: Record<string, SbatchResult> = {};
  for (const b of benchmarks) out[b] = found.get(b) ?? { jobId: null, error: "sbatch produced no result for this benchmark" };
  return out;
}

/** The merge job id of each sharded benchmark from `__GYM_MERGE:` lines (absent when it failed). */
export function parseMergeOutput(output: string): Record<string, SbatchResult> {
  const merges = output.split("\n").filter((l) => l.startsWith("__GYM_MERGE:")).map((l) => `__GYM_JOB:${l.slice("__GYM_MERGE:".length)}`);
  const names = merges.map((l) => l.slice("__GYM_JOB:".length).split(":")[0]!);
  return parseSbatchOutput(merges.join("\n"), names);
}
