import { describe, expect, test } from "bun:test";
import { ranCommand, rootCommand, route } from "../../src/cli/root.ts";
import { renderHelp, type GymCommand } from "../../src/cli/_command.ts";
import { classifyProgram } from "../../src/cli/legacy.ts";
import { UsageError } from "../../src/errors.ts";
import { runGym } from "../helpers/tmp.ts";
import { join } from "node:path";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe("router", () => {
  test("no command prints help and exits 1", async () => {
    const c = capture();
    expect(await route([], c.io)).toBe(1);
    expect(c.out.join("")).toContain("USAGE");
  });

  test("--help exits 0 at every level", async () => {
    const c = capture();
    expect(await route(["--help"], c.io)).toBe(0);
    expect(await route(["eval", "--help"], c.io)).toBe(0);
    expect(c.out.join("")).toContain("submit");
  });

  test("group without action prints the group's help and exits 1", async () => {
    const c = capture();
    expect(await route(["env"], c.io)).toBe(1);
    expect(c.out.join("")).toContain("resolve");
  });

  test("mistyped group is an invalid choice with a did-you-mean", async () => {
    const c = capture();
    const err = await route(["evl"], c.io).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain("invalid choice: 'evl'");
    expect(err.hint).toBe("Did you mean `eval`?");
    expect(err.exitCode).toBe(2);
  });

  test("--version --json prints one JSON object", async () => {
    const c = capture();
    expect(await route(["--version", "--json"], c.io)).toBe(0);
    expect(JSON.parse(c.out.join("")).name).toBe("gym");
  });
});

/** Every command with subcommands, with its path, walking the real tree (imports every module). */
async function groups(): Promise<[string[], GymCommand][]> {
  const out: [string[], GymCommand][] = [];
  const walk = async (cmd: GymCommand, path: string[]) => {
    if (!cmd.subCommands) return;
    out.push([path, cmd]);
    for (const [name, load] of Object.entries(cmd.subCommands)) await walk(await load(), [...path, name]);
  };
  await walk(rootCommand, []);
  return out;
}

describe("group help without importing subcommands", () => {
  test("every group's subCommandMeta names exactly its subcommands, with their own description and hidden flag", async () => {
    const all = await groups();
    expect(all.length).toBeGreaterThan(5);
    for (const [path, cmd] of all) {
      const where = ["gym", ...path].join(" ");
      expect({ where, names: Object.keys(cmd.subCommandMeta ?? {}) }).toEqual({ where, names: Object.keys(cmd.subCommands!) });
      for (const [name, load] of Object.entries(cmd.subCommands!)) {
        const { description, hidden } = (await load()).meta;
        const copy = cmd.subCommandMeta![name]!;
        expect({ where, name, description: copy.description, hidden: copy.hidden === true }).toEqual({ where, name, description, hidden: hidden === true });
      }
    }
  });

  test("help rendered from the copies is identical to help rendered from the loaded modules", async () => {
    for (const [path, cmd] of await groups()) {
      const { subCommandMeta: _unused, ...loaded } = cmd;
      expect(await renderHelp(cmd, path)).toBe(await renderHelp(loaded, path));
    }
  });

  test("renderHelp loads only the subcommands the group has no copy for, and honours hidden", async () => {
    const loaded: string[] = [];
    const leaf = (name: string, description: string): (() => Promise<GymCommand>) => async () => {
      loaded.push(name);
      return { meta: { name, description } };
    };
    const group: GymCommand = {
      meta: { name: "grp", description: "A group." },
      subCommands: { alpha: leaf("alpha", "from module A"), beta: leaf("beta", "from module B"), gamma: leaf("gamma", "from module G") },
      subCommandMeta: { alpha: { description: "copied A" }, gamma: { description: "copied G", hidden: true } },
    };
    const text = await renderHelp(group, ["grp"]);
    expect(loaded).toEqual(["beta"]);
    expect(text).toContain("copied A");
    expect(text).toContain("from module B");
    expect(text).not.toContain("gamma");
    // The listing keeps the loaders' order.
    expect(text.indexOf("alpha")).toBeLessThan(text.indexOf("beta"));
  });
});

describe("router output", () => {
  test("help and version printed by a real process are complete and end in a newline", async () => {
    const env = await rootCommand.subCommands!.env!();
    const expected = (await renderHelp(env, ["env"])).replace(/\x1b\[[0-9;]*m/g, "");
    const [help, version] = await Promise.all([runGym(["env", "--help"]), runGym(["--version", "--json"])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(`${expected}\n`);
    expect(version.code).toBe(0);
    expect(version.stdout.endsWith("}\n")).toBe(true);
    expect(JSON.parse(version.stdout).name).toBe("gym");
  });

  test("ranCommand() stays false through help and version, and turns true once a command runs", () => {
    // A fresh process: the flag is module state, and other test files run commands in this one.
    const root = join(import.meta.dir, "..", "..", "src", "cli", "root.ts");
    const script = `
      import { ranCommand, route } from ${JSON.stringify(root)};
      const io = { out: () => {}, err: () => {} };
      await route(["--help"], io); await route(["--version"], io); await route(["eval", "run", "--help"], io);
      const before = ranCommand();
      await route(["search"], io).catch(() => undefined); // no QUERY: fails inside its run
      console.log(JSON.stringify([before, ranCommand()]));`;
    const p = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(p.stderr.toString()).toBe("");
    expect(JSON.parse(p.stdout.toString())).toEqual([false, true]);
  });
});

describe("legacy aliases", () => {
  test("ng_ and nemo_gym_ prefixes map to gym tokens", () => {
    expect(classifyProgram("/usr/bin/ng_collect_rollouts")).toEqual({ kind: "legacy", alias: "ng_collect_rollouts", tokens: ["eval", "run", "--no-serve"] });
    expect(classifyProgram("nemo_gym_dump_config")).toEqual({ kind: "legacy", alias: "nemo_gym_dump_config", tokens: ["env", "resolve"] });
    expect(classifyProgram("ng_bogus").kind).toBe("unknown-legacy");
    expect(classifyProgram("gym").kind).toBe("gym");
  });

  test("a symlinked alias prints the deprecation line on stderr", async () => {
    const r = await runGym(["--help"]);
    expect(r.code).toBe(0);
  });
});
