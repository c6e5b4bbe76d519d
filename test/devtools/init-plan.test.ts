import { describe, expect, test } from "bun:test";
import { initPlan } from "../../src/devtools/init-plan.ts";
import { UsageError } from "../../src/errors.ts";

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("expected a UsageError");
}

describe("gym env init rules (cli-config §2.4)", () => {
  test("--resources-server and +entrypoint give the legacy scaffold target", () => {
    expect(initPlan({ resourcesServer: "abc", overrides: [] })).toEqual({ kind: "resources_server", entrypoint: "resources_servers/abc" });
    expect(initPlan({ overrides: ["+entrypoint=resources_servers/xyz"] })).toEqual({ kind: "resources_server", entrypoint: "resources_servers/xyz" });
  });

  test("the three targets are mutually exclusive (argparse wording)", () => {
    expect(usage(() => initPlan({ resourcesServer: "a", environment: "b", overrides: [] }))).toContain("argument --environment: not allowed with argument --resources-server");
    expect(usage(() => initPlan({ environment: "a", benchmark: "b", overrides: [] }))).toContain("argument --benchmark: not allowed with argument --environment");
    expect(usage(() => initPlan({ environment: "a", higherIsBetter: true, lowerIsBetter: true, overrides: [] }))).toContain("--lower-is-better: not allowed with argument --higher-is-better");
  });

  test("a resources server and a workload from overrides together is refused", () => {
    expect(usage(() => initPlan({ resourcesServer: "a", overrides: ["+scaffold_kind=environment", '+scaffold_name="b"'] }))).toContain("select a resources server or a manifest-backed workload, not both");
  });

  test("workload options without --environment/--benchmark are refused", () => {
    const msg = "--profile, --reuse-verifier, and reward options require --environment or --benchmark";
    expect(usage(() => initPlan({ resourcesServer: "a", profile: "external-agent-loop", overrides: [] }))).toContain(msg);
    expect(usage(() => initPlan({ resourcesServer: "a", reuseVerifier: "mcqa", overrides: [] }))).toContain(msg);
    expect(usage(() => initPlan({ resourcesServer: "a", rewardRange: ["0", "1"], overrides: [] }))).toContain(msg);
    expect(usage(() => initPlan({ resourcesServer: "a", lowerIsBetter: true, overrides: [] }))).toContain(msg);
  });

  test("workload plan: profile default, floats, direction; bad values are usage errors", () => {
    expect(initPlan({ benchmark: "b1", rewardRange: ["-1", "2.5"], lowerIsBetter: true, reuseVerifier: "mcqa", overrides: [] })).toEqual({
      kind: "benchmark", name: "b1", profile: "custom-gym-verifier", reuseVerifier: "mcqa", rewardRange: [-1, 2.5], higherIsBetter: false,
    });
    expect(initPlan({ overrides: ["+scaffold_kind=environment", '+scaffold_name="e"', "+reward_range=[0,1]", "+higher_is_better=true"] })).toMatchObject({ kind: "environment", name: "e", rewardRange: [0, 1], higherIsBetter: true });
    expect(usage(() => initPlan({ environment: "e", rewardRange: ["x", "1"], overrides: [] }))).toContain("invalid float value");
    expect(usage(() => initPlan({ environment: "e", rewardRange: ["1", "0"], overrides: [] }))).toContain("LOW < HIGH");
    expect(usage(() => initPlan({ environment: "e", profile: "nope", overrides: [] }))).toContain("invalid choice: 'nope'");
  });

  test("no target at all is a usage error with an example", () => {
    expect(usage(() => initPlan({ overrides: [] }))).toContain("one of the arguments --resources-server --environment --benchmark is required");
  });
});
