/**
 * CodeRunner (D27): runs model-written Python against tests in the host `python3`, sandboxed. One warm
 * "zygote" interpreter per runner (inside `unshare` user+net+pid namespaces where the machine allows,
 * with a scrubbed environment) forks a child per run, so a run costs a fork, not a Python start-up. Each
 * child: a fresh temp dir (deleted after), address-space / CPU / file-size limits, the reliability guard,
 * its own session killed at the global budget `(t+1)·n+5` s. At most `maxConcurrent` runs at once; the
 * rest queue (`stats()`). A dead zygote fails its runs as "died" (all tests -1, as upstream's global
 * failure) and is started again on the next run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import DRIVER from "./driver.py" with { type: "text" };
import EVALPLUS from "./evalplus.py" with { type: "text" };
import NVARC from "./nvarc.py" with { type: "text" };
import ZYGOTE from "./zygote.py" with { type: "text" };
import { pythonHost, type PythonHost } from "./python.ts";

/** One program and its tests (LiveCodeBench `input_output` shape). */
export interface CodeJob {
  code: string;
  inputs: string[];
  outputs: string[];
  /** Call-based tests when set, stdio otherwise. */
  fnName: string | null;
  /** Per-test limit in whole seconds (the reference runner's alarm). */
  timeoutSecs: number;
}

/** What a run produced: LiveCodeBench's per-test results and metadata. */
export interface CodeRunResult {
  /** Per test: true pass, false/-2 wrong, -3 time limit, -4 error; `-1` for all when the run died. */
  result: (number | boolean)[];
  metadata: Record<string, unknown> | null;
  /** The global budget ran out (or the answer was too large) and the run was killed. */
  killed: boolean;
  elapsedMs: number;
}

/** Limits of every run. */
export interface RunnerLimits {
  maxConcurrent: number;
  /** RLIMIT_AS; upstream's guard is 4 GiB. */
  memoryBytes: number;
  /** RLIMIT_FSIZE: the largest file a program may write. */
  fileBytes: number;
}

const DEFAULTS: RunnerLimits = { maxConcurrent: 8, memoryBytes: 4 * 1024 ** 3, fileBytes: 64 * 1024 ** 2 };
const SAFE_PATH = "/usr/local/bin:/usr/bin:/bin";
const SOURCE = `${DRIVER}\n${EVALPLUS}\n${NVARC}\n${ZYGOTE}`;

type Answer = { id: number; result?: (number | boolean)[]; metadata?: Record<string, unknown> | null; killed?: boolean; died?: boolean; progress?: string; [k: string]: unknown };

/** What a raw job's child answered: its own fields, or killed (budget/answer cap) / died, with the progress bytes it wrote. */
export interface RawAnswer {
  answer: Record<string, unknown> | null;
  killed: boolean;
  died: boolean;
  /** The "1"/"0" bytes the child wrote before its answer (one per finished test). */
  progress: string;
  elapsedMs: number;
}

/** The zygote process and the runs waiting for its answers. */
class Zygote {
  readonly proc: ReturnType<typeof Bun.spawn>;
  readonly waiting = new Map<number, (a: Answer) => void>();
  /** Every run's directory lives under this one, so a killed zygote leaves nothing behind. */
  readonly root = mkdtempSync(join(tmpdir(), "gym-code-"));
  alive = true;
  private readonly cleanup = () => rmSync(this.root, { recursive: true, force: true });

  constructor(host: PythonHost) {
    process.once("exit", this.cleanup);
    this.proc = Bun.spawn([...host.wrapper, host.python, "-I", "-c", SOURCE], {
      cwd: tmpdir(),
      // Built from nothing: programs must never see the server's keys, tokens, proxies or NEMO_GYM_*.
      env: { PATH: SAFE_PATH, HOME: tmpdir(), TMPDIR: tmpdir(), LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    void this.read();
  }

  private async read(): Promise<void> {
    const dec = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of this.proc.stdout as ReadableStream<Uint8Array>) {
        buf += dec.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          try {
            const a = JSON.parse(line) as Answer;
            this.waiting.get(a.id)?.(a);
            this.waiting.delete(a.id);
          } catch {
            /* not ours: the zygote prints only answers */
          }
        }
      }
    } finally {
      this.kill();
    }
  }

  send(payload: Record<string, unknown>): void {
    const stdin = this.proc.stdin as import("bun").FileSink;
    stdin.write(`${JSON.stringify(payload)}\n`);
    void stdin.flush();
  }

  /** Kill the zygote (its namespace, and every child in it, goes with it) and fail what still waits. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    this.proc.kill("SIGKILL");
    // The namespace dies with the wrapper; its children may still be exiting, so remove their dirs after it.
    void this.proc.exited.then(() => {
      this.cleanup();
      process.off("exit", this.cleanup);
    });
    for (const [id, done] of this.waiting) done({ id, died: true });
    this.waiting.clear();
  }
}

/** Runs programs with bounded concurrency on one warm zygote; `check()` resolves python3 once. */
export class CodeRunner {
  readonly limits: RunnerLimits;
  private running = 0;
  private completed = 0;
  private nextId = 1;
  private readonly queue: (() => void)[] = [];
  private readonly host: () => Promise<PythonHost>;
  private zygote: Zygote | undefined;

  constructor(limits: Partial<RunnerLimits> = {}, pathEnv?: string) {
    this.limits = { ...DEFAULTS, ...limits };
    this.host = () => pythonHost(pathEnv);
  }

  /** Resolve python3 and the isolation mode now (server start), so a missing python3 is said at once. */
  async check(): Promise<PythonHost> {
    return await this.host();
  }

  /** Runs in flight, runs waiting for a slot, runs finished. */
  stats(): { running: number; queued: number; completed: number } {
    return { running: this.running, queued: this.queue.length, completed: this.completed };
  }

  /** PID of the current zygote (its wrapper), if one runs: tests check it is gone after `close()`. */
  zygotePid(): number | undefined {
    return this.zygote?.alive ? this.zygote.proc.pid : undefined;
  }

  /** The directory the current zygote's runs live under, if one runs (removed when it ends). */
  zygoteRoot(): string | undefined {
    return this.zygote?.alive ? this.zygote.root : undefined;
  }

  /** Stop the zygote (a later run starts a new one). */
  close(): void {
    this.zygote?.kill();
    this.zygote = undefined;
  }

  /** Run one program against its tests. Rejects with PythonMissingError when there is no python3. */
  async run(job: CodeJob): Promise<CodeRunResult> {
    const n = job.inputs.length;
    const budgetSecs = (job.timeoutSecs + 1) * n + 5;
    const raw = await this.runRaw({ code: job.code, inputs: job.inputs, outputs: job.outputs, fn_name: job.fnName, timeout: job.timeoutSecs }, budgetSecs);
    const a = raw.answer;
    if (a === null || !Array.isArray(a.result)) return { result: new Array<number>(n).fill(-1), metadata: null, killed: raw.killed, elapsedMs: raw.elapsedMs };
    return { result: a.result as (number | boolean)[], metadata: (a.metadata as Record<string, unknown> | null) ?? null, killed: false, elapsedMs: raw.elapsedMs };
  }

  /**
   * Run one job of another harness kind (`payload.kind`, e.g. "evalplus") in a sandboxed child with the
   * same limits, killed after `budgetSecs`. Rejects with PythonMissingError when there is no python3.
   */
  async runRaw(payload: Record<string, unknown>, budgetSecs: number): Promise<RawAnswer> {
    const host = await this.host();
    if (this.running >= this.limits.maxConcurrent) await new Promise<void>((r) => this.queue.push(r));
    this.running++;
    try {
      return await this.runOnce(host, payload, budgetSecs);
    } finally {
      this.running--;
      this.completed++;
      this.queue.shift()?.();
    }
  }

  private async runOnce(host: PythonHost, payload: Record<string, unknown>, budgetSecs: number): Promise<RawAnswer> {
    if (!this.zygote?.alive) this.zygote = new Zygote(host);
    const z = this.zygote;
    const id = this.nextId++;
    const t0 = performance.now();
    const answer = await new Promise<Answer>((resolve) => {
      // Backstop: the zygote enforces the budget; if even it does not answer, it is replaced.
      const timer = setTimeout(() => {
        if (z.waiting.has(id)) z.kill();
      }, (budgetSecs + 10) * 1000);
      z.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      z.send({
        ...payload, id, budget: budgetSecs,
        memory_bytes: this.limits.memoryBytes, file_bytes: this.limits.fileBytes, cpu_seconds: Math.ceil(budgetSecs) + 1, tmp: z.root,
      });
    });
    const elapsedMs = performance.now() - t0;
    const progress = typeof answer.progress === "string" ? answer.progress : "";
    if (answer.killed || answer.died) return { answer: null, killed: answer.killed === true, died: answer.died === true, progress, elapsedMs };
    const { id: _id, progress: _p, ...rest } = answer;
    return { answer: rest, killed: false, died: false, progress, elapsedMs };
  }
}
