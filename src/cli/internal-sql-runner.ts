/** `gym internal sql-runner`: the SQL verifiers' child process (verify/sql-runner.ts), spawned by their servers. */
import { serveSqlRunner } from "../verify/sql-runner.ts";
import { defineGymCommand } from "./_command.ts";

/** The SQL runner's child-process entry. */
export default defineGymCommand({
  meta: { name: "sql-runner", description: "Run read-only SQLite queries for the SQL verifiers (child process entry)", hidden: true },
  run() {
    serveSqlRunner();
    // Stay up until the parent disconnects (serveSqlRunner exits then).
    return new Promise<void>(() => {});
  },
});
