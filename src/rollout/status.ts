/**
 * Machine-readable progress: `<output>.status.json` rewritten every second (atomically, so a
 * reader never sees half a file) and, with `--status-port`, `GET /status` on 127.0.0.1.
 */
import { renameSync, writeFileSync } from "node:fs";
import { RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import type { Progress } from "./progress.ts";

/** Writes the status file on a timer and serves it over HTTP when asked. */
export class StatusPublisher {
  private timer: ReturnType<typeof setInterval> | undefined;
  private server: ReturnType<typeof Bun.serve> | undefined;

  constructor(
    private readonly progress: Progress,
    private readonly path: string,
    private readonly extra: () => Record<string, unknown> = () => ({}),
  ) {}

  /** Start the 1 s writer and, when `port` is given (0 = any free port), the HTTP endpoint. Returns the bound port. */
  start(port?: number, host = "127.0.0.1"): number | undefined {
    this.write();
    this.timer = setInterval(() => this.write(), 1000);
    this.timer.unref?.();
    if (port === undefined) return undefined;
    try {
      this.server = this.serve(port, host);
    } catch (e) {
      if (this.timer) clearInterval(this.timer);
      throw new RuntimeError(`cannot serve /status on ${host}:${port}: ${(e as Error).message}`, { hint: "pick another --status-port (0 picks a free one)", cause: e });
    }
    log.info(`status: http://${host}:${this.server.port}/status`);
    return this.server.port;
  }

  private serve(port: number, host: string): ReturnType<typeof Bun.serve> {
    return Bun.serve({
      hostname: host,
      port,
      fetch: (req) => {
        const url = new URL(req.url);
        if (req.method === "GET" && url.pathname === "/status") return Response.json(this.progress.snapshot(this.extra()));
        return Response.json({ detail: "Not Found" }, { status: 404 });
      },
    });
  }

  /** Write the status file now. */
  write(): void {
    const tmp = `${this.path}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, `${JSON.stringify(this.progress.snapshot(this.extra()))}\n`);
      renameSync(tmp, this.path);
    } catch (e) {
      log.debug(`status file ${this.path}: ${(e as Error).message}`);
    }
  }

  /** Final write and stop. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.write();
    await this.server?.stop(true);
  }
}
