/**
 * In-process concurrency limits for outbound calls (runtime.md §2.4 spec default): Bun's fetch
 * has no per-host limit, so the shared client enforces the total and per-host limits itself.
 */

/** A counting semaphore; `limit <= 0` means unlimited. */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(readonly limit: number) {}

  /** Wait for a slot; the returned function releases it (call exactly once). */
  async acquire(): Promise<() => void> {
    if (this.limit > 0 && this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // Hand the slot straight to the next waiter so `active` never dips below the queue.
      if (next) next();
      else this.active--;
    };
  }

  /** Slots in use. */
  get inUse(): number {
    return this.active;
  }
}

/** A total limit plus one semaphore per host. */
export class HostLimiter {
  private readonly total: Semaphore;
  private readonly perHost = new Map<string, Semaphore>();
  constructor(
    totalLimit: number,
    private readonly perHostLimit: number,
  ) {
    this.total = new Semaphore(totalLimit);
  }

  /** Wait for a slot for `host` (per-host first, then total); returns the release function. */
  async acquire(host: string): Promise<() => void> {
    let sem = this.perHost.get(host);
    if (!sem) this.perHost.set(host, (sem = new Semaphore(this.perHostLimit)));
    const releaseHost = await sem.acquire();
    const releaseTotal = await this.total.acquire();
    return () => {
      releaseTotal();
      releaseHost();
    };
  }
}
