/**
 * A minimal counting gate for pure layers (verify/) that cannot reach runtime/http's limiter:
 * judge calls honour `judge_endpoint_max_concurrency` with it.
 */

/** At most `limit` holders at once; `limit` undefined/null/≤0 means unlimited. */
export class Gate {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(readonly limit?: number | null) {}

  /** Run `fn` inside the gate (FIFO), releasing the slot however it ends. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const bounded = typeof this.limit === "number" && this.limit > 0;
    if (bounded) {
      if (this.active >= this.limit!) await new Promise<void>((r) => this.waiters.push(r));
      else this.active++;
    }
    try {
      return await fn();
    } finally {
      if (bounded) {
        // Hand the slot straight to the next waiter (active stays the same) or give it back.
        const next = this.waiters.shift();
        if (next) next();
        else this.active--;
      }
    }
  }

  /** Holders right now (tests observe the limit with it). */
  get inFlight(): number {
    return this.active;
  }
}
