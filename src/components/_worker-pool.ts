/**
 * The verifier worker pool: one pool of Bun workers per server process for CPU-heavy verification
 * (math, instruction following, …), so a server keeps answering while it scores. Every verifier of
 * the process shares it (`verifierPool`), sized by the instance's `verifier_workers` key (default:
 * cores − 1, at least 1). A job that crashes its worker or overruns its wall-clock guard rejects with
 * a WorkerJobError and the worker is replaced; the guard protects the server only and never decides
 * a verdict (D40). Its load (size, busy workers, queue depth, totals) is served at
 * `GET /_gym/verifier_pool` by every server that uses it (`poolStatusRoute`).
 *
 * Built-in verification scales two ways: more workers here (up to the cores of the node), and more
 * resources-server processes (`num_workers`, or several instances behind one name). Upstream's
 * `ray_head_node_address` is only passed through to external servers; gym embeds no Ray.
 */
import { ConfigError } from "../errors.ts";
import type { Route } from "../runtime/http/http-types.ts";
import { addMetricProvider } from "../runtime/http/metric-providers.ts";

/** Why a job failed in the pool. */
export type WorkerFailure = "reported" | "crash" | "overrun" | "closed";

/** A job failed in its worker (crash, overrun or an error the worker reported). */
export class WorkerJobError extends Error {
  override name = "WorkerJobError";
  constructor(
    message: string,
    /** `reported`: the task threw (a verdict the caller may recompute inline for the exact error). */
    readonly failure: WorkerFailure = "reported",
  ) {
    super(message);
  }
}

interface Pending<R> {
  id: number;
  msg: Record<string, unknown>;
  guardMs: number;
  /** When a worker took the job (performance.now()). */
  startedAt?: number;
  resolve(r: R): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  job: Pending<Record<string, unknown>> | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** Pool settings. */
export interface WorkerPoolOptions {
  /** Builds one worker (the caller knows its entry file). */
  spawn(): Worker;
  size: number;
  /** Default wall-clock guard per job, in ms (a job may pass its own). */
  guardMs: number;
}

/** The pool's load, as `GET /_gym/verifier_pool` serves it. */
export interface PoolStats {
  size: number;
  /** Workers running now (started lazily, up to `size`). */
  workers: number;
  busy: number;
  queued: number;
  completed: number;
  failed: number;
}

/** A pool of workers answering `{id, …}` messages with `{id, …result}` or `{id, error}`. */
export class WorkerPool<R extends Record<string, unknown> = Record<string, unknown>> {
  private slots: Slot[] = [];
  private queue: Pending<Record<string, unknown>>[] = [];
  private nextId = 1;
  private closed = false;
  private completed = 0;
  private failed = 0;

  constructor(private readonly opts: WorkerPoolOptions) {}

  /** Runs one job; resolves with the worker's answer (minus `id`). */
  run<T extends Record<string, unknown> = R>(msg: Record<string, unknown>, opts: { guardMs?: number } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new WorkerJobError("worker pool is closed", "closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, msg, guardMs: opts.guardMs ?? this.opts.guardMs, resolve: resolve as (r: Record<string, unknown>) => void, reject });
      this.pump();
    });
  }

  /** Size, busy workers, queue depth and totals right now. */
  stats(): PoolStats {
    return { size: this.opts.size, workers: this.slots.length, busy: this.slots.filter((s) => s.job !== null).length, queued: this.queue.length, completed: this.completed, failed: this.failed };
  }

  /** Stops every worker; queued jobs reject. */
  close(): void {
    this.closed = true;
    for (const s of this.slots) {
      if (s.timer) clearTimeout(s.timer);
      s.job?.reject(new WorkerJobError("worker pool closed", "closed"));
      s.worker.terminate();
    }
    this.slots = [];
    for (const p of this.queue.splice(0)) p.reject(new WorkerJobError("worker pool closed", "closed"));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.opts.size) slot = this.addSlot();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      job.startedAt = performance.now();
      slot.timer = setTimeout(() => this.fail(slot!, new WorkerJobError(`verification overran its ${job.guardMs / 1000} s guard`, "overrun")), job.guardMs);
      slot.worker.postMessage({ ...job.msg, id: job.id });
    }
  }

  private addSlot(): Slot {
    const worker = this.opts.spawn();
    // An idle pool must not keep a process alive on its own (the server's socket does that).
    (worker as Worker & { unref?: () => void }).unref?.();
    const slot: Slot = { worker, job: null, timer: null };
    slot.worker.onmessage = (ev: MessageEvent<Record<string, unknown>>) => {
      const job = slot.job;
      if (!job || ev.data.id !== job.id) return;
      if (slot.timer) clearTimeout(slot.timer);
      slot.job = null;
      slot.timer = null;
      const { id: _id, error, ...rest } = ev.data;
      // An answer that came after the guard is still an overrun: timers fire no sooner than 1 ms, and a
      // warm worker can beat a sub-millisecond guard's timer, which must not turn the budget into a race.
      if (performance.now() - (job.startedAt ?? 0) > job.guardMs) {
        this.failed++;
        job.reject(new WorkerJobError(`verification overran its ${job.guardMs / 1000} s guard`, "overrun"));
      } else if (typeof error === "string") {
        this.failed++;
        job.reject(new WorkerJobError(error, "reported"));
      } else {
        this.completed++;
        job.resolve(rest);
      }
      this.pump();
    };
    slot.worker.onerror = (ev: ErrorEvent) => this.fail(slot, new WorkerJobError(`verification worker crashed: ${ev.message}`, "crash"));
    this.slots.push(slot);
    return slot;
  }

  // The worker is stuck or dead: reject its job, replace it, carry on with the queue.
  private fail(slot: Slot, err: WorkerJobError): void {
    if (slot.timer) clearTimeout(slot.timer);
    const job = slot.job;
    slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    if (job) this.failed++;
    job?.reject(err);
    if (!this.closed) this.pump();
  }
}

/** The verifier worker entry; a literal path so `bun build` (build.ts lists it) embeds it in the binary. */
export function spawnVerifierWorker(): Worker {
  // The binary embeds build entrypoints under their path from the entrypoints' common root (src/), and its
  // own module URL is the binary's, so a path relative to this file would leave `$bunfs`.
  if (import.meta.url.includes("$bunfs") || import.meta.url.includes("~BUN")) return new Worker("./verify/worker.ts");
  return new Worker(new URL("../verify/worker.ts", import.meta.url).href);
}

/** Default pool size: one worker per core but one, which stays with the server's event loop (at least 1). */
export function defaultPoolSize(): number {
  const cores = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 1 : 1;
  return Math.max(1, cores - 1);
}

/** `verifier_workers` of an instance's leaf: a positive integer, or the default. */
export function poolSizeOf(instanceName: string, config: Record<string, unknown>): number {
  const raw = config.verifier_workers;
  if (raw === undefined || raw === null) return defaultPoolSize();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${instanceName}: verifier_workers must be a positive integer (workers of the verifier pool), got ${JSON.stringify(raw)}`, { key: "verifier_workers", hint: "omit it for cores − 1" });
  return n;
}

let shared: WorkerPool | null = null;
let users = 0;

/**
 * The process's verifier pool (created on first use with `size`; later callers share it). Each
 * caller gets a `release` for its server's close(); the last release stops the workers.
 */
export function verifierPool(size: number): { pool: WorkerPool; release: () => void } {
  if (!shared) {
    shared = new WorkerPool({ spawn: spawnVerifierWorker, size, guardMs: 30_000 });
    unwatch = watchPoolMetrics(shared);
  }
  const pool = shared;
  users++;
  let released = false;
  return {
    pool,
    release: () => {
      if (released) return;
      released = true;
      if (--users === 0 && shared === pool) {
        pool.close();
        unwatch?.();
        unwatch = undefined;
        shared = null;
      }
    },
  };
}

let unwatch: (() => void) | undefined;

/**
 * Report a pool's load to the server process's OTLP push (a provider handed to runtime/, which
 * never imports components/): gauges `gym.verifier_pool.workers` (configured size),
 * `.busy_workers`, `.queue_depth`, and the counter `gym.verifier_pool.jobs` by `outcome`
 * (completed | failed). Returns the removal.
 */
export function watchPoolMetrics(pool: WorkerPool): () => void {
  return addMetricProvider(() => {
    const s = pool.stats();
    return [
      { name: "gym.verifier_pool.workers", unit: "{worker}", kind: "gauge", value: s.size },
      { name: "gym.verifier_pool.busy_workers", unit: "{worker}", kind: "gauge", value: s.busy },
      { name: "gym.verifier_pool.queue_depth", unit: "{job}", kind: "gauge", value: s.queued },
      { name: "gym.verifier_pool.jobs", unit: "{job}", kind: "counter", value: s.completed, attributes: { outcome: "completed" } },
      { name: "gym.verifier_pool.jobs", unit: "{job}", kind: "counter", value: s.failed, attributes: { outcome: "failed" } },
    ];
  });
}

/** `GET /_gym/verifier_pool`: the pool's load, for `gym env status` and operators. */
export function poolStatusRoute(pool: WorkerPool): Route {
  return { method: "GET", path: "/_gym/verifier_pool", handler: () => pool.stats() };
}
