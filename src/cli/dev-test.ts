/**
 * `gym dev test`: run gym's own test suite from a source checkout (upstream runs `pytest --cov=.
 * --durations=10` in its repo and exits with its code; cli-config §12 item 13 leaves gym's form
 * open). gym runs `bun test` in the checkout root and exits with its code. The compiled binary
 * carries Bun's test runner too (BUN_BE_BUN=1), so no separate Bun install is needed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { processEnvCopy } from "../env.ts";
import { UsageError } from "../errors.ts";
import { selfCommand } from "../runtime/process/spawn.ts";
import { defineGymCommand } from "./_command.ts";

/** The nearest directory at or above `start` whose package.json names the package `gym`. */
export function checkoutRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: unknown }).name === "gym") return dir;
      } catch {
        // not a readable package.json: keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The `gym dev test` command. */
export default defineGymCommand({
  meta: { name: "test", description: "Run gym's own test suite (bun test) from a source checkout" },
  args: {
    filter: { type: "positional", required: false, description: "Only test files whose path contains this" },
    coverage: { type: "boolean", description: "Report coverage (as upstream's --cov)" },
  },
  examples: ["gym dev test", "gym dev test test/config", "gym dev test --coverage"],
  async run(ctx) {
    const root = checkoutRoot(process.cwd());
    if (!root) {
      throw new UsageError(`gym dev test: error: no gym source checkout at or above ${process.cwd()} (a package.json named "gym")`, {
        hint: "run it inside a clone of the gym repository; to test a resources server use `gym env test --resources-server NAME`",
      });
    }
    const self = selfCommand();
    const env = processEnvCopy();
    // Inside the compiled binary, BUN_BE_BUN makes it act as the bun CLI; from source execPath is bun.
    if (self.length === 1) env.BUN_BE_BUN = "1";
    const argv = [process.execPath, "test", ...(ctx.args.coverage === true ? ["--coverage"] : []), ...(typeof ctx.args.filter === "string" ? [ctx.args.filter] : [])];
    process.stderr.write(`Running \`bun ${argv.slice(1).join(" ")}\` in ${root}\n`);
    const proc = Bun.spawn(argv, { cwd: root, env, stdin: "inherit", stdout: "inherit", stderr: "inherit" });
    return await proc.exited;
  },
});
