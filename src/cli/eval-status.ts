/** `gym eval status`: show the Slurm state, chain and progress of a submitted run (D32). */
import { homedir } from "node:os";
import { join } from "node:path";
import { readEnv } from "../env.ts";
import { UsageError } from "../errors.ts";
import { readRecord, runStatus } from "../submit/status.ts";
import { isLocalHost, localConnection, sshConnection } from "../submit/ssh.ts";
import { defineGymCommand } from "./_command.ts";

/** The `gym eval status` command. */
export default defineGymCommand({
  meta: { name: "status", description: "Show the state of a submitted run" },
  args: {
    run_dir: { type: "positional", required: false, description: "Run directory printed by gym eval submit" },
    json: { type: "boolean", description: "Print JSON: {gym_job_id, run_dir, benchmarks: {...}}" },
  },
  examples: ["gym eval status /lustre/me/evals/gym-job-20260101T000000Z-abcdef --json"],
  async run(ctx) {
    const dir = ctx.args.run_dir;
    if (typeof dir !== "string" || dir === "") throw new UsageError("gym eval status: error: the following arguments are required: RUN_DIR");
    const env = readEnv();
    const rec = readRecord(dir, env.xdgCacheHome ?? join(homedir(), ".cache"));
    const conn = isLocalHost(rec.hostname) ? localConnection() : await sshConnection(rec.hostname!);
    try {
      const st = await runStatus(rec, conn);
      if (ctx.args.json === true) process.stdout.write(`${JSON.stringify(st, null, 2)}\n`);
      else {
        const lines = [`${st.gym_job_id}  ${st.run_dir}`];
        for (const [name, b] of Object.entries(st.benchmarks)) {
          const p = b.progress ? `  ${b.progress.done}/${b.progress.total ?? "?"} done, ${b.progress.failed} failed, ${b.progress.in_flight} in flight` : "";
          lines.push(`${name}: job ${b.job_id ?? "-"} ${b.state}${b.exit_code ? ` (exit ${b.exit_code})` : ""}${b.chain.length > 1 ? ` chain ${b.chain.join(",")}` : ""}${p}`);
        }
        process.stdout.write(`${lines.join("\n")}\n`);
      }
    } finally {
      await conn.close();
    }
    return 0;
  },
});
