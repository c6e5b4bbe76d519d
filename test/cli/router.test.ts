import { describe, expect, test } from "bun:test";
import { route } from "../../src/cli/root.ts";
import { classifyProgram } from "../../src/cli/legacy.ts";
import { UsageError } from "../../src/errors.ts";
import { runGym } from "../helpers/tmp.ts";

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
