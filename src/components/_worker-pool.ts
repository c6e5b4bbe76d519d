/**
 * A fixed pool of Bun workers for CPU-heavy verification, so a server keeps answering while it scores.
 * A job that crashes its worker or overruns the wall-clock guard rejects with a WorkerJobError and the
 * worker is replaced; the guard protects the server only and never decides a verdict (D40).
 */

/** A job failed in its worker (crash, overrun or an error the worker reported). */
export class WorkerJobError extends Error {
  override name = "WorkerJobError";
}

interface Pending<R> {
  id: number;
  msg: Record<string, unknown>;
  resolve(r: R): void;
  reject(e: Error): void;
}

interface Slot<R> {
  worker: Worker;
  job: Pending<R> | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** Pool settings. */
export interface WorkerPoolOptions {
  /** Builds one worker (the caller knows its entry file). */
  spawn(): Worker;
  size: number;
  /** Wall-clock guard per job, in ms. */
  guardMs: number;
}

/** A pool of workers answering `{id, …}` messages with `{id, …result}` or `{id, error}`. */
export class WorkerPool<R extends Record<string, unknown>> {
  private slots: Slot<R>[] = [];
  private queue: Pending<R>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions) {}

  /** Runs one job; resolves with the worker's answer (minus `id`). */
  run(msg: Record<string, unknown>): Promise<R> {
    if (this.closed) return Promise.reject(new WorkerJobError("worker pool is closed"));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, msg, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker; queued jobs reject. */
  close(): void {
    this.closed = true;
    for (const s of this.slots) {
      if (s.timer) clearTimeout(s.timer);
      s.job?.reject(new WorkerJobError("worker pool closed"));
      s.worker.terminate();
    }
    this.slots = [];
    for (const p of this.queue.splice(0)) p.reject(new WorkerJobError("worker pool closed"));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.opts.size) slot = this.addSlot();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => this.fail(slot!, new WorkerJobError(`verification overran its ${this.opts.guardMs / 1000} s guard`)), this.opts.guardMs);
      slot.worker.postMessage({ ...job.msg, id: job.id });
    }
  }

  private addSlot(): Slot<R> {
    const worker = this.opts.spawn();
    // An idle pool must not keep a process alive on its own (the server's socket does that).
    (worker as Worker & { unref?: () => void }).unref?.();
    const slot: Slot<R> = { worker, job: null, timer: null };
    slot.worker.onmessage = (ev: MessageEvent<Record<string, unknown>>) => {
      const job = slot.job;
      if (!job || ev.data.id !== job.id) return;
      if (slot.timer) clearTimeout(slot.timer);
      slot.job = null;
      slot.timer = null;
      const { id: _id, error, ...rest } = ev.data;
      if (typeof error === "string") job.reject(new WorkerJobError(error));
      else job.resolve(rest as R);
      this.pump();
    };
    slot.worker.onerror = (ev: ErrorEvent) => this.fail(slot, new WorkerJobError(`verification worker crashed: ${ev.message}`));
    this.slots.push(slot);
    return slot;
  }

  // The worker is stuck or dead: reject its job, replace it, carry on with the queue.
  private fail(slot: Slot<R>, err: WorkerJobError): void {
    if (slot.timer) clearTimeout(slot.timer);
    const job = slot.job;
    slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    job?.reject(err);
    if (!this.closed) this.pump();
  }
}
