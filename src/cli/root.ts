/**
 * The `gym` command tree and the router that walks it: group → action → argv parse → run.
 * Router rules follow spec cli-config §2.2: a missing action prints that level's help and
 * exits 1; a mistyped name is an invalid choice with a did-you-mean, exit 2.
 */
import { UsageError } from "../errors.ts";
import { setVerbose } from "../log.ts";
import { closestMatch } from "../util/similar.ts";
import { VERSION, BUILD_TARGET, GIT_SHA, UPSTREAM_COMPAT } from "../version.ts";
import { defineGymCommand, renderHelp, type GymCommand } from "./_command.ts";
import { parseArgv } from "./_argv.ts";

/** The root of the command tree. */
export const rootCommand: GymCommand = defineGymCommand({
  meta: { name: "gym", description: "NeMo Gym in one binary: run environments, collect rewarded rollouts, submit Slurm jobs." },
  examples: [
    "gym env start --resources-server example_single_tool_call --model-type scripted_model",
    "gym eval run --resources-server example_single_tool_call --model-type scripted_model -o results/rollouts.jsonl",
    "gym env resolve --resources-server example_single_tool_call --model-type openai_model +policy_base_url=http://127.0.0.1:8000/v1",
    "gym eval submit -c submit.yaml --dry-run",
  ],
  notes: [
    "GLOBAL FLAGS",
    "",
    "  -v, --verbose   Debug logging (and stack traces on errors)",
    "  --offline       Reach no host but loopback and GYM_OFFLINE_ALLOW=host,…; anything else fails at once, listing what",
    "                  would have been fetched and how to stage it (also GYM_OFFLINE=1)",
  ].join("\n"),
  subCommands: {
    list: async () => (await import("./list.ts")).default,
    dataset: async () => (await import("./dataset.ts")).default,
    env: async () => (await import("./env.ts")).default,
    eval: async () => (await import("./eval.ts")).default,
    dev: async () => (await import("./dev.ts")).default,
    model: async () => (await import("./model.ts")).default,
    search: async () => (await import("./search.ts")).default,
    internal: async () => (await import("./internal.ts")).default,
  },
  // Shown by `gym --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    list: { description: "List available components (benchmarks, environments, agents, models, resources-servers)." },
    dataset: { description: "Manage datasets." },
    env: { description: "Develop and run environments." },
    eval: { description: "Run evaluations." },
    dev: { description: "Contributor helpers." },
    model: { description: "Serve a built-in model standalone." },
    search: { description: "Search components by name, domain or description (substring or close match)" },
    internal: { description: "Internal entry points of child processes", hidden: true },
  },
});

/** Version information as printed by `gym --version [--json]`. */
export function versionInfo(): Record<string, string> {
  return { name: "gym", version: VERSION, upstream_compat: UPSTREAM_COMPAT, target: BUILD_TARGET, git_sha: GIT_SHA, bun: Bun.version };
}

/** Output sink so tests can capture what the router prints. */
export interface RouterIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

// Help and version text go out through Bun.write, not process.stdout: building that Node stream
// loads node:stream (~2 ms of a ~12 ms `gym --help`). route() awaits the writes before it returns.
let pendingOut: Promise<void> = Promise.resolve();
let commandRan = false;

const defaultIO: RouterIO = {
  out: (t) => {
    const text = t.endsWith("\n") ? t : `${t}\n`;
    // A failed write (EPIPE: `gym --help | head -1` closed the pipe) has no one left to tell.
    pendingOut = pendingOut.then(() => Bun.write(Bun.stdout, text)).then(
      () => undefined,
      () => undefined,
    );
  },
  err: (t) => process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
};

/**
 * Whether route() ran a command (rather than printing help or the version itself): only then
 * can something have written through process.stdout that main's drain must wait for.
 */
export function ranCommand(): boolean {
  return commandRan;
}

/** Route `argv` (without the program name) through the tree and run the command; returns the exit code. */
export async function route(argv: string[], io: RouterIO = defaultIO): Promise<number> {
  try {
    return await walk(argv, io);
  } finally {
    await pendingOut;
  }
}

async function walk(argv: string[], io: RouterIO): Promise<number> {
  if (argv.includes("--version") && !argv.some((t) => !t.startsWith("-"))) {
    const info = versionInfo();
    io.out(argv.includes("--json") ? JSON.stringify(info) : `gym ${info.version} (NeMo Gym ${info.upstream_compat} compatible, ${info.target}, bun ${info.bun})`);
    return 0;
  }
  let cmd = rootCommand;
  const path: string[] = [];
  let rest = argv;
  // Walk down the groups: the first non-flag token names the next level.
  while (cmd.subCommands) {
    const idx = rest.findIndex((t) => !t.startsWith("-"));
    const wantsHelp = rest.some((t) => t === "-h" || t === "--help");
    if (idx < 0) {
      if (rest.includes("-v") || rest.includes("--verbose")) setVerbose(true);
      io.out(await renderHelp(cmd, path));
      return wantsHelp ? 0 : 1;
    }
    const name = rest[idx]!;
    const names = Object.keys(cmd.subCommands).filter((n) => n !== "internal");
    const next = cmd.subCommands[name];
    if (!next) {
      const prog = ["gym", ...path].join(" ");
      const near = closestMatch(name, names);
      throw new UsageError(`${prog}: error: argument command: invalid choice: '${name}' (choose from ${names.map((n) => `'${n}'`).join(", ")})`, {
        hint: near ? `Did you mean \`${near}\`?` : `run \`${prog} --help\` to see the commands`,
      });
    }
    cmd = await next();
    path.push(name);
    rest = [...rest.slice(0, idx), ...rest.slice(idx + 1)];
  }
  const prog = ["gym", ...path].join(" ");
  const parsed = parseArgv(rest, cmd.args ?? {}, prog);
  if (parsed.verbose) setVerbose(true);
  if (parsed.help) {
    io.out(await renderHelp(cmd, path));
    return 0;
  }
  if (!cmd.run) return 1;
  commandRan = true;
  const code = await cmd.run({ args: parsed.flags, data: { path, overrides: parsed.overrides, verbose: parsed.verbose } });
  return code ?? 0;
}
