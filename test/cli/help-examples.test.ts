/**
 * Every command's `--help` exits 0, and every example it prints runs as printed: it parses with
 * gym's argv parser, the components it names exist among the built-ins (a `my…` name stands for
 * the user's own), and the catalog examples (`gym list …`, `gym search …`) find something.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgv } from "../../src/cli/_argv.ts";
import type { GymCommand } from "../../src/cli/_command.ts";
import { rootCommand, route } from "../../src/cli/root.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets");

interface Node {
  path: string[];
  cmd: GymCommand;
}

async function walkTree(cmd: GymCommand, path: string[] = []): Promise<Node[]> {
  const out: Node[] = [{ path, cmd }];
  for (const [name, load] of Object.entries(cmd.subCommands ?? {})) {
    if (name === "internal") continue;
    out.push(...(await walkTree(await load(), [...path, name])));
  }
  return out;
}

/** Split a printed command line into argv the way a POSIX shell would (quotes only). */
function shellSplit(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  let cur: string | undefined;
  let last = 0;
  for (const m of line.matchAll(re)) {
    const piece = m[1] ?? m[2] ?? m[3] ?? "";
    const glued = m.index === last && cur !== undefined;
    if (glued) cur += piece;
    else {
      if (cur !== undefined) out.push(cur);
      cur = piece;
    }
    last = m.index + m[0].length;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** The help text of a node, as `gym <path> --help` prints it, and that command's exit code. */
async function helpOf(path: string[]): Promise<{ code: number; text: string }> {
  let text = "";
  try {
    const code = await route([...path, "--help"], { out: (t) => void (text += `${t}\n`), err: (t) => void (text += `${t}\n`) });
    return { code, text };
  } catch (err) {
    // main() turns a thrown usage error into exit 2.
    return { code: 2, text: `${text}${String(err)}` };
  }
}

/** Example command lines under EXAMPLES in a help text. */
function examplesIn(help: string): string[] {
  const at = help.indexOf("\nEXAMPLES\n");
  if (at < 0) return [];
  return help
    .slice(at + 10)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("gym "));
}

/** Walk the tree by tokens like the router: the leaf command and the tokens left for its parser. */
async function leafOf(argv: string[]): Promise<{ cmd: GymCommand; path: string[]; rest: string[] }> {
  let cmd = rootCommand;
  const path: string[] = [];
  let rest = argv;
  while (cmd.subCommands) {
    const idx = rest.findIndex((t) => !t.startsWith("-"));
    if (idx < 0) break;
    const load = cmd.subCommands[rest[idx]!];
    if (!load) throw new Error(`no command '${rest[idx]}' under 'gym ${path.join(" ")}'`);
    path.push(rest[idx]!);
    cmd = await load();
    rest = [...rest.slice(0, idx), ...rest.slice(idx + 1)];
  }
  return { cmd, path, rest };
}

const SELECTOR_DIRS: Record<string, (name: string) => string> = {
  "resources-server": (n) => `resources_servers/${n}/configs/${n}.yaml`,
  "model-type": (n) => `responses_api_models/${n}/configs/${n}.yaml`,
  "agent-type": (n) => `responses_api_agents/${n}`,
  benchmark: (n) => `benchmarks/${n}/config.yaml`,
  environment: (n) => `environments/${n}/config.yaml`,
  "reuse-verifier": (n) => `resources_servers/${n}`,
};

/** Names that stand for the user's own component, which need not exist. */
const isPlaceholder = (name: string) => /^my[_-]/.test(name);

const nodes = await walkTree(rootCommand);
const helps = await Promise.all(nodes.map(async (n) => ({ ...n, ...(await helpOf(n.path)) })));
const examples = helps.flatMap((h) => examplesIn(h.text).map((line) => ({ from: ["gym", ...h.path].join(" "), line })));

describe("help of every command", () => {
  test("the tree has commands and examples", () => {
    expect(nodes.length).toBeGreaterThan(30);
    expect(examples.length).toBeGreaterThan(30);
  });

  test.each(helps.map((h) => [["gym", ...h.path, "--help"].join(" "), h] as const))("%s exits 0", (_name, h) => {
    expect({ code: h.code, usage: h.text.includes("USAGE") }).toEqual({ code: 0, usage: true });
  });

  test("--search-dir says it replaces NEMO_GYM_EXTRA_ROOTS wherever it is offered", () => {
    const withFlag = helps.filter((h) => h.text.includes("--search-dir="));
    expect(withFlag.length).toBeGreaterThan(5);
    for (const h of withFlag) expect({ cmd: h.path.join(" "), says: h.text.includes("NEMO_GYM_EXTRA_ROOTS is ignored") }).toEqual({ cmd: h.path.join(" "), says: true });
  });
});

describe("every example in help runs as printed", () => {
  test.each(examples.map((e) => [e.line, e] as const))("%s", async (_line, e) => {
    const argv = shellSplit(e.line).slice(1);
    const { cmd, path, rest } = await leafOf(argv);
    expect(cmd.subCommands).toBeUndefined();
    const parsed = parseArgv(rest, cmd.args ?? {}, ["gym", ...path].join(" "));
    for (const [flag, where] of Object.entries(SELECTOR_DIRS)) {
      const name = parsed.flags[flag];
      if (typeof name !== "string" || isPlaceholder(name)) continue;
      expect({ flag, name, exists: existsSync(join(ASSETS, where(name))) }).toEqual({ flag, name, exists: true });
    }
    if (path[0] === "model" && path[1] === "serve") expect(existsSync(join(ASSETS, "responses_api_models", String(parsed.flags.name)))).toBe(true);
  });

  // Catalog commands read only the embedded root here, so they can be run as printed.
  const catalog = examples.filter((e) => /^gym (list|search)\b/.test(e.line) && !e.line.includes("--search-dir"));
  test.each(catalog.map((e) => [e.line, e] as const))("runs: %s", async (_line, e) => {
    await using dir = await tempDir();
    const r = await runGym(shellSplit(e.line).slice(1), { cwd: dir.path, env: { NEMO_GYM_EXTRA_ROOTS: undefined } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    // An example that names something finds it.
    if (e.line.startsWith("gym search")) expect(r.stdout).not.toMatch(/^No .* match/);
  });
});
