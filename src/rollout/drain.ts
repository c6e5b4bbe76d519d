/**
 * Walltime draining (D30 + addendum): with `GYM_JOB_END_TIME` set, stop admitting rollouts once
 * the time left is below the p95 rollout duration plus a margin, so the job ends on its own
 * terms (flush, `.gym_drained`, exit 75) instead of being killed by Slurm mid-write.
 */

/** Exit status of a drained driver (EX_TEMPFAIL). */
export const EXIT_DRAINED = 75;

const WINDOW = 2048;

/** Tracks rollout durations and decides when to drain. */
export class WalltimeDrain {
  private durations: number[] = [];
  private next = 0;

  constructor(
    /** Allocation end, epoch seconds; undefined disables draining. */
    readonly endTime: number | undefined,
    /** Seconds kept in reserve beyond the p95 duration. */
    readonly marginSeconds: number,
  ) {}

  /** Record a finished rollout's duration (ms). */
  record(ms: number): void {
    if (this.durations.length < WINDOW) this.durations.push(ms);
    else this.durations[this.next++ % WINDOW] = ms;
  }

  /** p95 of the recent durations, in seconds (0 before any finished). */
  p95Seconds(): number {
    if (this.durations.length === 0) return 0;
    const s = [...this.durations].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]! / 1000;
  }

  /** Seconds left in the allocation (Infinity without an end time). */
  secondsLeft(nowEpoch = Date.now() / 1000): number {
    return this.endTime === undefined ? Number.POSITIVE_INFINITY : this.endTime - nowEpoch;
  }

  /** True when no new rollout should be admitted. */
  shouldDrain(nowEpoch = Date.now() / 1000): boolean {
    if (this.endTime === undefined) return false;
    return this.secondsLeft(nowEpoch) < this.p95Seconds() + this.marginSeconds;
  }

  /** Milliseconds in-flight rollouts may still run before they must be abandoned (a few seconds before the end). */
  graceMs(nowEpoch = Date.now() / 1000): number {
    return Math.max(0, (this.secondsLeft(nowEpoch) - Math.min(10, this.marginSeconds / 2)) * 1000);
  }
}
