import { describe, expect, test } from "bun:test";
import { WalltimeDrain } from "../../src/rollout/drain.ts";

describe("WalltimeDrain admission", () => {
  test("a full window still follows a shift in durations: admission stops once slow rollouts dominate", () => {
    const end = 10_000;
    const d = new WalltimeDrain(end, 10);
    for (let i = 0; i < 4096; i++) d.record(1_000); // p95 1 s
    const now = end - 60; // 60 s left: 1 s + 10 s margin fits, 100 s + 10 s does not
    expect(d.shouldDrain(now)).toBe(false);
    let admittedAfterShift = 0;
    for (let i = 0; i < 2048; i++) {
      d.record(100_000);
      if (!d.shouldDrain(now)) admittedAfterShift++;
    }
    // The exact p95 turns once slow samples pass 5 % of the 2,048 window (~103 of them); the
    // admission check may lag it by up to 64 samples, never more.
    expect(d.p95Seconds()).toBe(100);
    expect(d.shouldDrain(now)).toBe(true);
    expect(admittedAfterShift).toBeGreaterThanOrEqual(100);
    expect(admittedAfterShift).toBeLessThanOrEqual(103 + 64);
  });

  test("the p95 is exact for small windows (every sample counts)", () => {
    const d = new WalltimeDrain(1_000, 0);
    d.record(5_000);
    expect(d.shouldDrain(1_000 - 6)).toBe(false);
    d.record(50_000);
    d.record(50_000);
    expect(d.p95Seconds()).toBe(50);
    expect(d.shouldDrain(1_000 - 6)).toBe(true);
  });
});
