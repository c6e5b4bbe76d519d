/** The sbatch protocol of spec submit.md §9.5–§9.6, parsed and run through a real bash. */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSbatchOutput, sbatchProgram } from "../../src/submit/slurm.ts";
import { localConnection } from "../../src/submit/ssh.ts";
import { parseStatus } from "../../src/submit/status.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("parseSbatchOutput", () => {
  test.each([
    ["plain id", "__GYM_JOB:a:0:12345 ", { jobId: "12345", error: null }],
    ["federated id", "__GYM_JOB:a:0:777;cluster2", { jobId: "777", error: null }],
    ["warning before the id", "__GYM_JOB:a:0:sbatch: warning: something 4242", { jobId: "4242", error: null }],
    ["rc 0 without id", "__GYM_JOB:a:0:", { jobId: null, error: "sbatch exited 0 with no output" }],
    ["rc 0 with junk", "__GYM_JOB:a:0:what", { jobId: null, error: "what" }],
    ["failure with message", "__GYM_JOB:a:1:sbatch: error: Invalid account [x] ", { jobId: null, error: "sbatch: error: Invalid account [x]" }],
    ["failure without message", "__GYM_JOB:a:3:", { jobId: null, error: "sbatch exited 3" }],
    ["no marker", "noise", { jobId: null, error: "sbatch produced no result for this benchmark" }],
  ] as const)("%s", (_n, out, want) => {
    expect(parseSbatchOutput(out, ["a"]).a).toEqual(want as never);
  });

  test("a failure in the middle does not shift later ids (matched by name)", async () => {
    await using dir = await tempDir("gym-sbatch-");
    const fake = join(dir.path, "sbatch");
    writeFileSync(fake, '#!/bin/bash\ncase "$2" in *bad*) echo "sbatch: error: Batch job submission failed:\n  line two" >&2; exit 1;; esac\necho $(( 100 + ${#2} ))\necho "SECRET_SEEN=${MY_FWD:-}" >> ' + join(dir.path, "seen") + "\n");
    chmodSync(fake, 0o755);
    const names = ["one", "bad", "three33"];
    const program = `export PATH=${dir.path}:$PATH\n${sbatchProgram("/r", names, { MY_FWD: "it's s3cret" })}`;
    const r = await localConnection().run(program, "sbatch");
    const res = parseSbatchOutput(r.stdout, names);
    expect(res.one).toEqual({ jobId: String(100 + "/r/one/job.sh".length), error: null });
    expect(res.bad!.jobId).toBeNull();
    expect(res.bad!.error).toBe("sbatch: error: Batch job submission failed:   line two");
    expect(res.three33).toEqual({ jobId: String(100 + "/r/three33/job.sh".length), error: null });
    // forward_env values reach sbatch's environment through stdin, exactly.
    expect(await Bun.file(join(dir.path, "seen")).text()).toContain("SECRET_SEEN=it's s3cret");
    expect(program).toContain("unset SBATCH_EXPORT");
  });
});

describe("parseStatus", () => {
  test("squeue wins, chain and progress are read", () => {
    const s = parseStatus("5", "CHAIN=5 6 \nPROGRESS={\"done\": 3, \"failed\": 1, \"in_flight\": 2, \"total\": 10}\nJOB=6\nSTATE=RUNNING\nSCONTROL=JobState=RUNNING ExitCode=0:0 \n");
    expect(s).toEqual({ job_id: "6", state: "RUNNING", exit_code: "0:0", chain: ["5", "6"], progress: { done: 3, failed: 1, in_flight: 2, total: 10 } });
  });
  test("sacct, then scontrol, then unknown", () => {
    expect(parseStatus("5", "JOB=5\nSACCT=COMPLETED|0:0\n").state).toBe("COMPLETED");
    expect(parseStatus("5", "JOB=5\nSCONTROL=JobState=FAILED ExitCode=75:0 \n")).toMatchObject({ state: "FAILED", exit_code: "75:0" });
    expect(parseStatus("5", "JOB=5\n")).toMatchObject({ state: "unknown", exit_code: null, progress: null, chain: [] });
  });
});
