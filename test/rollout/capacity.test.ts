import { describe, expect, test } from "bun:test";
import { fdBudgetWarning } from "../../src/rollout/capacity.ts";
import { fdCapPerHost } from "../../src/runtime/http/http-fd-budget.ts";

describe("fdBudgetWarning", () => {
  test("no warning while the agent's 4 sockets per rollout and the driver's 1 fit", () => {
    expect(fdBudgetWarning(100, { soft: 20000, hard: 20000 })).toBeUndefined();
    expect(fdBudgetWarning(fdCapPerHost(20000), { soft: 20000, hard: 20000 })).toBeUndefined();
    expect(fdBudgetWarning(fdCapPerHost(20000) + 1, { soft: 20000, hard: 20000 })).toContain("agent server");
  });

  test("8,192 in flight under a 20,000 limit: the agent's need is counted (4 per rollout) and the queueing cap named", () => {
    const w = fdBudgetWarning(8192, { soft: 20000, hard: 20000 })!;
    expect(w).toContain(`need about ${4 * 8192 + 1000} open files in the agent server`);
    expect(w).toContain(`at most ${fdCapPerHost(20000)}`);
    expect(w).toContain("raise the hard open-file limit");
    expect(w).not.toContain("The driver holds");
  });

  test("a low soft limit that the servers raise: only the driver is short, and ulimit -n is the fix", () => {
    const w = fdBudgetWarning(3000, { soft: 1024, hard: 65535 })!;
    expect(w).not.toContain("agent server");
    expect(w).toContain("The driver holds one socket per rollout");
    expect(w).toContain("ulimit -n 3064");
    expect(w).toContain("at most 960");
  });

  test("servers raise their soft limit to the hard one: only the hard limit counts for the agent", () => {
    expect(fdBudgetWarning(6000, { soft: 24000, hard: 24000 })).toContain("raise the hard open-file limit to at least 25200");
    expect(fdBudgetWarning(6000, { soft: 20000, hard: 30000 })).toBeUndefined();
    expect(fdBudgetWarning(20000, { soft: 65535, hard: 1_000_000 })).toContain("spread the rollouts over several agent servers");
  });
});
