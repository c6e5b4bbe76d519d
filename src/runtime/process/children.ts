/**
 * One spawned server process as the supervisor sees it: its output pumped into a ServerLog, its
 * IPC messages (built-ins report `bound`, `serving`, `error`), and its exit. External servers run
 * in their own process group so the whole tree can be signalled at once.
 */
import type { Subprocess } from "bun";
import type { ChildMessage, ParentMessage } from "./child.ts";
import type { ServerLog } from "./logs.ts";
import type { SpawnSpec } from "./spawn.ts";

/** A running (or finished) server process. */
export class ChildProcess {
  readonly proc: Subprocess;
  readonly startTime = Date.now() / 1000;
  exitCode: number | null = null;
  signalCode: string | null = null;
  /** Resolves with the port a built-in reports once it holds it. */
  readonly bound: Promise<number>;
  /** Resolves when a built-in has built its app. */
  readonly serving: Promise<void>;
  /** Resolves when the process has exited and its output is drained. */
  readonly done: Promise<void>;
  /** True once a built-in reported that its app is built. */
  isServing = false;
  /** The `error` message a built-in sent before exiting, if any. */
  reportedError: string | undefined;

  constructor(
    readonly name: string,
    readonly worker: number,
    spec: SpawnSpec,
    readonly log: ServerLog,
    readonly external: boolean,
  ) {
    const bound = Promise.withResolvers<number>();
    const serving = Promise.withResolvers<void>();
    this.bound = bound.promise;
    this.serving = serving.promise;
    // Nobody may await these (e.g. the child dies first); keep unhandled rejections quiet.
    this.bound.catch(() => {});
    this.serving.catch(() => {});
    this.proc = Bun.spawn(spec.argv, {
      cwd: spec.cwd,
      env: spec.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: external,
      ...(external
        ? {}
        : {
            serialization: "json" as const,
            ipc: (message: unknown) => {
              const m = message as ChildMessage;
              if (m?.type === "bound") bound.resolve(m.port);
              else if (m?.type === "serving") {
                this.isServing = true;
                serving.resolve();
              }
              else if (m?.type === "error") this.reportedError = m.message;
            },
          }),
    });
    const pumps = Promise.all([log.pump(this.proc.stdout as ReadableStream<Uint8Array>), log.pump(this.proc.stderr as ReadableStream<Uint8Array>)]);
    this.done = this.proc.exited.then(async (code) => {
      this.exitCode = code;
      this.signalCode = this.proc.signalCode === null ? null : String(this.proc.signalCode);
      const why = new Error(this.reportedError ?? `process exited with ${this.describeExit()}`);
      bound.reject(why);
      serving.reject(why);
      // Output of a dead process is short; do not hang on a grandchild holding the pipe.
      await Promise.race([pumps, Bun.sleep(500)]);
    });
  }

  /** Process id. */
  get pid(): number {
    return this.proc.pid;
  }

  /** Still running. */
  get alive(): boolean {
    return this.exitCode === null && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** `code N` or `signal S`. */
  describeExit(): string {
    const sig = this.signalCode ?? this.proc.signalCode;
    return sig ? `signal ${sig}` : `code ${this.exitCode ?? this.proc.exitCode}`;
  }

  /** Send the initial config to a built-in started with `--config-via-ipc`. */
  sendInitialConfig(yaml: string): void {
    const msg: ParentMessage = { type: "init", yaml };
    this.proc.send(msg);
  }

  /** Send the final config to a built-in. */
  sendConfig(yaml: string): void {
    if (this.external || !this.alive) return;
    const msg: ParentMessage = { type: "config", yaml };
    try {
      this.proc.send(msg);
    } catch {
      // The child died in between; its exit is reported by the supervisor.
    }
  }

  /** SIGKILL whatever is left of an external server's process group (no-op when empty). */
  killGroup(): void {
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      // No such group left.
    }
  }

  /** Signal the process (its whole group for external servers). */
  signal(sig: "SIGINT" | "SIGKILL" | "SIGTERM"): void {
    if (!this.alive) return;
    try {
      if (this.external) process.kill(-this.pid, sig);
      else this.proc.kill(sig);
    } catch {
      try {
        this.proc.kill(sig);
      } catch {
        // Already gone.
      }
    }
  }
}
