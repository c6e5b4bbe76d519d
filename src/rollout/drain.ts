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
  /** p95 as last sorted for `shouldDrain`, the records since, and when (ms, performance clock). */
  private cachedP95 = 0;
  private sinceSort = 0;
  private sortedAt = Number.NEGATIVE_INFINITY;

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
    this.sinceSort++;
  }

  /** p95 of the recent durations, in seconds (0 before any finished). */
  p95Seconds(): number {
    if (this.durations.length === 0) return 0;
    // A typed copy sorts numerically in native code (no comparator calls).
    const s = Float64Array.from(this.durations).sort();
    return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]! / 1000;
  }

  /** Seconds left in the allocation (Infinity without an end time). */
  secondsLeft(nowEpoch = Date.now() / 1000): number {
    return this.endTime === undefined ? Number.POSITIVE_INFINITY : this.endTime - nowEpoch;
  }

  /** True when no new rollout should be admitted. */
  shouldDrain(nowEpoch = Date.now() / 1000): boolean {
    if (this.endTime === undefined) return false;
    return this.secondsLeft(nowEpoch) < this.admissionP95() + this.marginSeconds;
  }

  /**
   * The p95 the admission check uses. It runs once per admitted rollout, and sorting the 2,048-sample
   * window each time cost more than the rollout's whole driver work: a small window is sorted on
   * every change, a full one after 64 new samples or a second, which a p95 of 2,048 barely notices.
   */
  private admissionP95(): number {
    if (this.sinceSort > 0) {
      const now = performance.now();
      if (this.durations.length < 256 || this.sinceSort >= 64 || now - this.sortedAt >= 1000) {
        this.cachedP95 = this.p95Seconds();
        this.sinceSort = 0;
        this.sortedAt = now;
      }
    }
    return this.cachedP95;
  }

  /** Milliseconds in-flight rollouts may still run before they must be abandoned (a few seconds before the end). */
  graceMs(nowEpoch = Date.now() / 1000): number {
    return Math.max(0, (this.secondsLeft(nowEpoch) - Math.min(10, this.marginSeconds / 2)) * 1000);
  }
}
