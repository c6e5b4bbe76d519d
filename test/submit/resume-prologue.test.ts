/**
 * The resumable-chain prologue (spec submit.md §10, D30) run by a real bash against fake
 * scontrol/sacct/sbatch: every predecessor state, retry and walltime limits, the drain marker,
 * and a requeued restart.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resumePrologue } from "../../src/submit/render/resume.ts";
import { tempDir } from "../helpers/tmp.ts";

interface Case {
  name: string;
  prev?: string;
  scontrol?: string;
  sacct?: string;
  files?: Record<string, string>;
  resumable?: true | { max_retries: number; max_walltime: string | null };
  code: number;
  worked: boolean;
  successor: boolean;
  after?: Record<string, string | null>;
  /** Lines the prologue must print, and must not. */
  says?: string[];
  never?: string[];
}

const sc = (state: string, exit = "0:0", run = "01:00:00") => `JobId=100 JobName=gym-b\n   JobState=${state} Reason=None Dependency=(null)\n   RunTime=${run} TimeLimit=02:00:00\n   ExitCode=${exit} DerivedExitCode=0:0`;

const cases: Case[] = [
  { name: "first job: chain starts, successor queued", code: 0, worked: true, successor: true, after: { ".gym_job_chain": "200\n" } },
  { name: "predecessor completed: stop", prev: "100", scontrol: sc("COMPLETED"), code: 0, worked: false, successor: false },
  { name: "predecessor cancelled: stop chain", prev: "100", scontrol: sc("CANCELLED"), code: 0, worked: false, successor: false },
  { name: "timeout: resume, walltime accumulated", prev: "100", scontrol: sc("TIMEOUT", "0:15", "1-01:00:05"), files: { ".gym_accumulated_walltime": "10\n" }, code: 0, worked: true, successor: true, after: { ".gym_accumulated_walltime": "90015\n" } },
  { name: "timeout past max_walltime: stop", prev: "100", scontrol: sc("TIMEOUT", "0:15", "02:00:00"), resumable: { max_retries: 3, max_walltime: "03:00:00" }, files: { ".gym_accumulated_walltime": "3600" }, code: 0, worked: false, successor: false },
  { name: "failure: infra retry counted", prev: "100", scontrol: sc("FAILED", "1:0"), files: { ".gym_infra_retries": "1" }, code: 0, worked: true, successor: true, after: { ".gym_infra_retries": "2\n" } },
  { name: "failure over the retry limit: exit 1", prev: "100", scontrol: sc("OUT_OF_MEMORY", "0:125"), resumable: { max_retries: 1, max_walltime: null }, files: { ".gym_infra_retries": "1" }, code: 1, worked: false, successor: false },
  { name: "D30 drained marker: resume without a retry, marker removed", prev: "100", scontrol: sc("FAILED", "75:0"), files: { ".gym_drained": "" }, code: 0, worked: true, successor: true, after: { ".gym_drained": null, ".gym_infra_retries": null } },
  {
    name: "D30 drain with progress: one line for the predecessor (drained, not also 'ended TIMEOUT')",
    prev: "100", scontrol: sc("FAILED", "75:0"), files: { ".gym_drained": '{"drained_at":1,"done":7,"total":9,"new_rows":3}\n' },
    code: 0, worked: true, successor: true, after: { ".gym_drained": null, ".gym_infra_retries": null },
    says: ["Predecessor 100 drained for walltime. Resuming."], never: ["ended"],
  },
  {
    name: "D37 drain with no progress counts as a retry",
    prev: "100", scontrol: sc("FAILED", "75:0"), files: { ".gym_drained": '{"drained_at":1,"done":0,"total":9,"new_rows":0}\n' },
    code: 0, worked: true, successor: true, after: { ".gym_drained": null, ".gym_infra_retries": "1\n" },
    says: ["without finishing a rollout. Retry 1 of 3"], never: ["ended"],
  },
  {
    name: "D37 drains with no progress stop the chain after max_retries, with a message",
    prev: "100", scontrol: sc("FAILED", "75:0"), resumable: { max_retries: 2, max_walltime: null },
    files: { ".gym_drained": '{"drained_at":1,"done":0,"total":9,"new_rows":0}\n', ".gym_infra_retries": "2" },
    code: 1, worked: false, successor: false, says: ["Retry limit (2) reached. Stopping chain", "drain_margin_seconds"],
  },
  { name: "D30 drain still honours max_walltime", prev: "100", scontrol: sc("FAILED", "75:0", "02:00:00"), resumable: { max_retries: 3, max_walltime: "03:00:00" }, files: { ".gym_drained": '{"new_rows":5}', ".gym_accumulated_walltime": "3600" }, code: 0, worked: false, successor: false },
  { name: "D30 exit 75 without the marker counts as drained", prev: "100", scontrol: sc("FAILED", "75:0"), resumable: { max_retries: 0, max_walltime: null }, code: 0, worked: true, successor: true },
  { name: "sacct answers when scontrol forgot the job", prev: "100", sacct: "PREEMPTED", code: 0, worked: true, successor: true },
  { name: "requeued restart skips the chain step", prev: "100", scontrol: sc("COMPLETED"), files: { ".gym_job_chain": "100\n200\n" }, code: 0, worked: true, successor: false, after: { ".gym_job_chain": "100\n200\n" } },
];

describe("resume prologue under bash", () => {
  test.each(cases)("$name", async (c) => {
    await using dir = await tempDir("gym-prologue-");
    const bin = join(dir.path, "bin");
    const bench = join(dir.path, "bench");
    mkdirSync(bin);
    mkdirSync(bench);
    writeFileSync(join(bin, "scontrol"), `#!/bin/bash\n[ -f ${dir.path}/scontrol.txt ] && cat ${dir.path}/scontrol.txt\nexit 0\n`);
    writeFileSync(join(bin, "sacct"), `#!/bin/bash\ncase "$*" in *"-o State"*) [ -f ${dir.path}/sacct.txt ] && cat ${dir.path}/sacct.txt ;; *ExitCode*) echo 0:0 ;; *ElapsedRaw*) echo 42 ;; esac\n`);
    writeFileSync(join(bin, "sbatch"), `#!/bin/bash\necho "$*" >> ${dir.path}/sbatch.log\necho 201\n`);
    for (const f of ["scontrol", "sacct", "sbatch"]) chmodSync(join(bin, f), 0o755);
    if (c.scontrol) writeFileSync(join(dir.path, "scontrol.txt"), c.scontrol);
    if (c.sacct) writeFileSync(join(dir.path, "sacct.txt"), c.sacct);
    for (const [f, t] of Object.entries(c.files ?? {})) writeFileSync(join(bench, f), t);
    writeFileSync(join(bench, "job.sh"), `#!/bin/bash\n${resumePrologue(c.resumable ?? true)}\necho WORK_RAN\n`);
    const p = Bun.spawnSync(["bash", join(bench, "job.sh"), ...(c.prev ? [c.prev] : [])], {
      cwd: bench,
      env: { PATH: `${bin}:/usr/bin:/bin`, SLURM_JOB_ID: "200" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = p.stdout.toString();
    expect(`${p.exitCode}\n${out}${p.stderr.toString()}`).toStartWith(`${c.code}\n`);
    expect(out.includes("WORK_RAN")).toBe(c.worked);
    const log = existsSync(join(dir.path, "sbatch.log")) ? readFileSync(join(dir.path, "sbatch.log"), "utf8") : "";
    if (c.successor) expect(log).toBe(`--dependency=afternotok:200 --kill-on-invalid-dep=yes ${bench}/job.sh 200\n`);
    else expect(log).toBe("");
    for (const line of c.says ?? []) expect(out).toContain(line);
    for (const line of c.never ?? []) expect(out).not.toContain(line);
    for (const [f, want] of Object.entries(c.after ?? {})) {
      const path = join(bench, f);
      if (want === null) expect(existsSync(path)).toBe(false);
      else expect(readFileSync(path, "utf8")).toBe(want);
    }
  });
});
