/**
 * gym's command model on top of citty. citty gives the definitions, lazy sub-commands and
 * usage rendering; gym parses argv itself because the upstream CLI needs what citty lacks:
 * repeatable flags (`--config a --config b`), unknown-flag errors with a did-you-mean (D11),
 * `--no-serve` as a flag of its own, and Hydra override tokens mixed with positionals.
 */
import { defineCommand, renderUsage, type ArgDef, type CommandDef } from "citty";

/** A flag or positional of a gym command (citty's ArgDef plus repeatability). */
export type GymArgDef = ArgDef & {
  /** The flag may be given several times; its value is then a list in command-line order. */
  repeatable?: boolean;
};

/** What a command's `run` receives in `ctx.data`. */
export interface GymRunData {
  /** Command path, e.g. `["eval", "run"]`. */
  path: string[];
  /** Raw Hydra override tokens (`+a=1`, `b=2`, `~c`), in command-line order. */
  overrides: string[];
  /** `-v/--verbose` was given anywhere. */
  verbose: boolean;
}

/** Parsed values of a command's flags and positionals. */
export type ParsedFlags = Record<string, string | boolean | string[] | undefined>;

/** The context handed to a gym command's `run`. */
export interface GymContext {
  args: ParsedFlags;
  data: GymRunData;
}

/** What a group's help shows about one subcommand (its `meta` minus the name). */
export interface SubCommandMeta {
  description: string;
  hidden?: boolean;
}

/** A gym command: citty definition with gym's argument and run shapes. */
export interface GymCommand {
  meta: { name: string; description: string; hidden?: boolean };
  args?: Record<string, GymArgDef>;
  /** Lines shown under EXAMPLES in `--help`. */
  examples?: string[];
  /** Extra sections appended to `--help` (e.g. a file layout), as written. */
  notes?: string;
  subCommands?: Record<string, () => Promise<GymCommand>>;
  /**
   * Copies of the subcommands' descriptions, so a group's `--help` need not import every
   * subcommand module (and all they import) to list them; a name missing here is loaded.
   */
  subCommandMeta?: Record<string, SubCommandMeta>;
  /** Returns the exit code (0 when undefined). */
  run?: (ctx: GymContext) => Promise<number | void>;
}

/** Define a gym command (identity function that fixes the type). */
export function defineGymCommand(cmd: GymCommand): GymCommand {
  return cmd;
}

/**
 * citty right-aligns the first column and pads the second with trailing spaces; flags read
 * better left-aligned, so re-flow each two-column block (column 0 never holds a double space).
 */
function leftAlignColumns(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let block: [string, string][] = [];
  const flush = () => {
    const width = Math.max(0, ...block.map(([a]) => a.length));
    for (const [a, b] of block) out.push(`  ${a.padEnd(width)}  ${b}`.trimEnd());
    block = [];
  };
  for (const line of lines) {
    const m = /^ {2,}(\S(?:\S| (?! ))*) {2,}(.*?)\s*$/.exec(line);
    if (m) block.push([m[1]!, m[2]!]);
    else {
      flush();
      out.push(line.trimEnd());
    }
  }
  flush();
  return out.join("\n");
}

/** What citty lists under COMMANDS: the copied meta where the group has it, else the loader. */
function helpSubCommands(cmd: GymCommand): Record<string, unknown> | undefined {
  if (!cmd.subCommands) return undefined;
  const meta = cmd.subCommandMeta ?? {};
  // Keep the loaders' order: it is the order help lists the commands in.
  return Object.fromEntries(Object.entries(cmd.subCommands).map(([name, load]) => [name, meta[name] ? { meta: meta[name] } : load]));
}

/**
 * Whether stdout is a terminal, from its file type: a terminal is a character device, a pipe or a
 * file is not (`gym --help | less` gets plain text). /dev/null is a character device too, and gets
 * colours no one sees. Bun's own stat: node:tty (~5 ms to load in the binary) and node:fs
 * (~1.5 ms) stay unloaded on the help path.
 */
async function stdoutIsTerminal(): Promise<boolean> {
  try {
    return (await Bun.stdout.stat()).isCharacterDevice();
  } catch {
    return false;
  }
}

/** Render `--help` text for a command, via citty, plus gym's examples section. */
export async function renderHelp(cmd: GymCommand, path: string[]): Promise<string> {
  const def = defineCommand({
    meta: { name: ["gym", ...path].join(" "), description: cmd.meta.description },
    args: cmd.args as CommandDef["args"],
    subCommands: helpSubCommands(cmd) as CommandDef["subCommands"],
  });
  let text = leftAlignColumns(await renderUsage(def));
  // citty colours whenever NO_COLOR/CI are unset; `gym --help | less` should get plain text.
  // Not process.stdout.isTTY (that getter builds the whole Node stream) nor node:tty's isatty
  // (loading node:tty alone cost ~5 ms of a ~10 ms `gym --help` in the binary): see stdoutIsTerminal.
  if (!(await stdoutIsTerminal())) text = text.replace(/\x1b\[[0-9;]*m/g, "");
  if (cmd.args && Object.values(cmd.args).some((a) => a.type !== "positional")) {
    text += "\n\nOverrides: any `+key=value`, `++key=value`, `key=value` or `~key` token is applied to the merged config.";
  }
  if (cmd.examples && cmd.examples.length > 0) {
    text += `\n\nEXAMPLES\n\n${cmd.examples.map((e) => `  ${e}`).join("\n")}`;
  }
  if (cmd.notes) text += `\n\n${cmd.notes.trimEnd()}`;
  return text;
}
