/** `gym eval submit`: render and submit one Slurm job per benchmark from a submit config. */
import { UsageError } from "../errors.ts";
import { setVerbose } from "../log.ts";
import { runSubmit } from "../submit/submit.ts";
import { defineGymCommand } from "./_command.ts";

/** The `gym eval submit` command. */
export default defineGymCommand({
  meta: { name: "submit", description: "Render and submit a Slurm job from a submit config" },
  args: {
    config: { type: "string", alias: "c", description: "Submit-config YAML path (required)" },
    "dry-run": { type: "boolean", description: "Validate and print the sbatch scripts; stage and queue nothing" },
    "resolve-only": { type: "boolean", description: "Print the validated config (policy keys injected) and stop" },
    json: { type: "boolean", description: "Print the submission record (or, with --resolve-only, the config) as JSON" },
  },
  examples: [
    "gym eval submit -c submit.yaml --dry-run",
    "gym eval submit -c submit.yaml job.output_path=/lustre/me/evals",
    "gym eval submit -c submit.yaml --resolve-only --json",
  ],
  async run(ctx) {
    if (ctx.data.verbose) setVerbose(true);
    const config = ctx.args.config;
    if (typeof config !== "string" || config === "") {
      throw new UsageError("gym eval submit: error: the following arguments are required: --config/-c", { hint: "pass the submit YAML: gym eval submit -c submit.yaml" });
    }
    return runSubmit({
      configPath: config,
      overrides: ctx.data.overrides,
      dryRun: ctx.args["dry-run"] === true,
      resolveOnly: ctx.args["resolve-only"] === true,
      json: ctx.args.json === true,
      out: (t) => process.stdout.write(t),
      warn: (t) => process.stderr.write(`warning: ${t}\n`),
      error: (t) => process.stderr.write(`error: ${t}\n`),
    });
  },
});
