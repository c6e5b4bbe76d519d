/** The `gym eval` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym eval`: Run evaluations. */
export default defineGymCommand({
  meta: { name: "eval", description: "Run evaluations." },
  subCommands: {
    "run": async () => (await import("./eval-run.ts")).default,
    "prepare": async () => (await import("./eval-prepare.ts")).default,
    "aggregate": async () => (await import("./eval-aggregate.ts")).default,
    "reverify": async () => (await import("./eval-reverify.ts")).default,
    "profile": async () => (await import("./eval-profile.ts")).default,
    "submit": async () => (await import("./eval-submit.ts")).default,
    "status": async () => (await import("./eval-status.ts")).default,
    "view": async () => (await import("./eval-view.ts")).default,
  },
  // Shown by `gym eval --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    run: { description: "Collect rewarded rollouts from a JSONL dataset" },
    prepare: { description: "Prepare benchmark data" },
    aggregate: { description: "Aggregate metrics over rollout shards" },
    reverify: { description: "Recompute rewards from stored rollouts without calling the policy" },
    profile: { description: "Reward profile of stored rollouts" },
    submit: { description: "Render and submit a Slurm job from a submit config" },
    status: { description: "Show the state of a submitted run" },
    view: { description: "Browse rollouts: summary, filtered list, trajectories, compare two runs" },
  },
});
