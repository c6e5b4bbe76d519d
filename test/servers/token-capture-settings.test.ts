/** The `token_id_capture` block (upstream TokenIdCaptureSettings/Config cases) and the collector's masked-fraction abort. */
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/errors.ts";
import { MaskTally, tokenCaptureForAgent, tokenCaptureSettings } from "../../src/servers/token-capture-settings.ts";

type Obj = Record<string, unknown>;

describe("tokenCaptureSettings", () => {
  const ok: { name: string; global: Obj; expected: Obj }[] = [
    { name: "absent → disabled with upstream defaults", global: {}, expected: { enabled: false, allAgents: false, dir: null, rebuildResponse: true, maxMaskFraction: null, maskFractionMinSamples: 50 } },
    { name: "the global default false → disabled", global: { token_id_capture: false }, expected: { enabled: false } },
    { name: "inactive settings are not checked (a run may toggle only enabled)", global: { token_id_capture: { enabled: false, dir: "relative/dir" } }, expected: { enabled: false, dir: "relative/dir" } },
    { name: "dir falls back to model_call_capture_dir", global: { model_call_capture_dir: "/tmp/cap", token_id_capture: { enabled: true, all_agents: true } }, expected: { enabled: true, allAgents: true, dir: "/tmp/cap" } },
    { name: "its own dir wins", global: { model_call_capture_dir: "/tmp/cap", token_id_capture: { enabled: true, dir: "/tmp/tok", max_mask_fraction: 0.2, mask_fraction_min_samples: 10 } }, expected: { dir: "/tmp/tok", maxMaskFraction: 0.2, maskFractionMinSamples: 10 } },
    { name: "no dir is fine when gym does not rebuild (a framework reads)", global: { token_id_capture: { enabled: true, rebuild_response: false } }, expected: { enabled: true, dir: null, rebuildResponse: false } },
  ];
  test.each(ok)("$name", ({ global, expected }) => {
    expect(tokenCaptureSettings(global)).toMatchObject(expected);
  });

  const bad: { name: string; global: Obj; message: string; key: string }[] = [
    { name: "enabled without a directory", global: { token_id_capture: { enabled: true } }, message: "requires a directory or sink", key: "token_id_capture.dir" },
    { name: "a relative directory", global: { token_id_capture: { enabled: true, dir: "caps" } }, message: "must be an absolute path", key: "token_id_capture.dir" },
    { name: "an unknown key (typo)", global: { token_id_capture: { enabled: true, dir: "/x", max_mask_fracton: 0.1 } }, message: "unknown key(s) max_mask_fracton", key: "token_id_capture.max_mask_fracton" },
    { name: "a Python sink class", global: { token_id_capture: { enabled: true, sink: "pkg.sinks:MySink" } }, message: "names a Python class", key: "token_id_capture.sink" },
    { name: "a non-numeric max_mask_fraction", global: { token_id_capture: { enabled: true, dir: "/x", max_mask_fraction: "lots" } }, message: "must be a number or null", key: "token_id_capture.max_mask_fraction" },
    { name: "a list instead of a mapping", global: { token_id_capture: [1] }, message: "must be a mapping", key: "token_id_capture" },
  ];
  test.each(bad)("$name → ConfigError on its key", ({ global, message, key }) => {
    let err: unknown;
    try {
      tokenCaptureSettings(global);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(message);
    expect((err as ConfigError).key).toBe(key);
  });

  test("participation: all_agents, or the agent's own flag", () => {
    const on = tokenCaptureSettings({ token_id_capture: { enabled: true, dir: "/x" } });
    expect(tokenCaptureForAgent(on, { token_id_capture: true })).toBe(true);
    expect(tokenCaptureForAgent(on, {})).toBe(false);
    expect(tokenCaptureForAgent({ ...on, allAgents: true }, {})).toBe(true);
    expect(tokenCaptureForAgent({ ...on, enabled: false, allAgents: true }, { token_id_capture: true })).toBe(false);
  });
});

describe("MaskTally", () => {
  test("no abort before mask_fraction_min_samples, then upstream's message once the fraction is exceeded", () => {
    const t = new MaskTally({ maxMaskFraction: 0.25, maskFractionMinSamples: 4 });
    t.record(true, ["capture_incomplete"]);
    t.record(true, ["capture_incomplete", "unresolved_parent_calls"]);
    t.record(false);
    let err: Error | undefined;
    try {
      t.record(false);
    } catch (e) {
      err = e as Error;
    }
    expect(err?.name).toBe("RuntimeError");
    expect(err?.message).toBe("2/4 finalized rollouts (50.0%) are masked, exceeding token_id_capture.max_mask_fraction=0.25. Mask reasons: {'capture_incomplete': 2, 'unresolved_parent_calls': 1}. Aborting instead of collecting mostly token-less data.");
  });

  test("a fraction equal to the limit passes; a null limit never aborts", () => {
    const t = new MaskTally({ maxMaskFraction: 0.5, maskFractionMinSamples: 2 });
    t.record(true);
    expect(() => t.record(false)).not.toThrow();
    const never = new MaskTally({ maxMaskFraction: null, maskFractionMinSamples: 1 });
    for (let i = 0; i < 5; i++) never.record(true);
    expect(never.masked).toBe(5);
  });
});
