/** User-caused conditions are GymErrors (key / where / fix), not "a bug in gym" (issue 10). */
import { describe, expect, test } from "bun:test";
import { ConfigError, formatError, GymError } from "../src/errors.ts";
import { episodeLimitsFromLeaf } from "../src/servers/environment.ts";
import { computeAggregateMetrics } from "../src/verify/aggregate-metrics.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("user errors", () => {
  test("overlapping shards (a duplicate rollout key) name the fix and are not reported as a bug", () => {
    const row = { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 };
    const err = thrown(() => computeAggregateMetrics([row, { ...row }]));
    expect(err).toBeInstanceOf(ConfigError);
    expect(formatError(err)).toContain("must not overlap");
    expect(formatError(err)).not.toContain("bug in gym");
  });

  test("max_concurrent_episodes without queue_timeout_seconds names the key", () => {
    const err = thrown(() => episodeLimitsFromLeaf({ max_concurrent_episodes: 4 }, "env"));
    expect(err).toBeInstanceOf(GymError);
    expect((err as ConfigError).key).toBe("queue_timeout_seconds");
  });
});
