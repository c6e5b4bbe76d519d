/**
 * In-process concurrency limits for outbound calls (runtime.md §2.4 spec default): Bun's fetch
 * has no per-host limit, so the shared client enforces the total and per-host limits itself.
 * Waits for a slot are the pool's queue metric (§14, pool-metrics.ts).
 */
import { poolMetrics, type QueueConstraint } from "./pool-metrics.ts";

/** A counting semaphore; `limit <= 0` means unlimited. */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(readonly limit: number) {}

  /** Wait for a slot; the returned function releases it (call exactly once). An abort of `signal` leaves the queue and rejects with its reason. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    return this.tryAcquire() ?? (await this.queue(signal));
  }

  /** A slot now, without awaiting, or undefined when all are taken (the hot path: no promise per call). */
  tryAcquire(): (() => void) | undefined {
    if (this.limit > 0 && (this.active >= this.limit || this.waiters.length > 0)) return undefined;
    this.active++;
    return this.releaser();
  }

  private async queue(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      if (!signal) {
        this.waiters.push(resolve);
        return;
      }
      const onAbort = () => {
        const at = this.waiters.indexOf(granted);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason);
      };
      const granted = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(granted);
    });
    return this.releaser();
  }

  private releaser(): () => void {
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

  /** Callers waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
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

  /** Wait for a slot for `host` (per-host first, then total); returns the release function. An abort of `signal` gives up the wait. */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    return this.tryAcquire(host) ?? (await this.queue(host, signal));
  }

  /** A slot for `host` now, or undefined when it would have to wait (then call `acquire`). */
  tryAcquire(host: string): (() => void) | undefined {
    const sem = this.semFor(host);
    const releaseHost = sem.tryAcquire();
    if (!releaseHost) return undefined;
    // No total limit (HttpClient limits per destination): one slot, no combined release to build.
    if (this.total.limit <= 0) return releaseHost;
    const releaseTotal = this.total.tryAcquire();
    if (!releaseTotal) {
      releaseHost();
      return undefined;
    }
    return () => {
      releaseTotal();
      releaseHost();
    };
  }

  /** Requests waiting for a slot of `host` (for tests and status lines). */
  waiting(host: string): number {
    return this.perHost.get(host)?.queued ?? 0;
  }

  private semFor(host: string): Semaphore {
    let sem = this.perHost.get(host);
    if (!sem) this.perHost.set(host, (sem = new Semaphore(this.perHostLimit)));
    return sem;
  }

  private async queue(host: string, signal?: AbortSignal): Promise<() => void> {
    const sem = this.semFor(host);
    // Which limit made this request wait: its host's, else the process-wide one.
    const constraint: QueueConstraint = sem.limit > 0 && (sem.inUse >= sem.limit || sem.queued > 0) ? "per_host" : this.total.limit > 0 ? "total" : "unknown";
    const started = poolMetrics.enabled ? performance.now() : 0;
    let releaseHost: (() => void) | undefined;
    try {
      releaseHost = await sem.acquire(signal);
      const releaseTotal = await this.total.acquire(signal);
      if (poolMetrics.enabled) poolMetrics.queued(host, performance.now() - started, constraint, "ok");
      const held = releaseHost;
      return () => {
        releaseTotal();
        held();
      };
    } catch (e) {
      // The caller gave up while queued (its request was cancelled or timed out).
      releaseHost?.();
      if (poolMetrics.enabled) poolMetrics.queued(host, performance.now() - started, constraint, "abandoned");
      throw e;
    }
  }
}
