/**
 * JSONL writers of the rollout journal: an appender that writes each record as one `write` of a
 * whole line (D22: a kill can tear at most the last line), and the repair of such a torn last line.
 * Reading is util/jsonl.ts.
 */
import { closeSync, existsSync, fstatSync, fsync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";

/** An append-only JSONL file; each `append` is one `write(2)` of complete lines. */
export class JsonlAppender {
  private fd: number;
  /** Lines appended through this handle. */
  count = 0;
  /** Lines queued by `appendSoon`, written together at the end of this event-loop turn. */
  private queued = "";
  private waiters: (() => void)[] = [];
  private scheduled = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, "a");
  }

  /** Append one record; returns once the line is in the kernel (survives kill -9 of this process). */
  append(record: unknown): void {
    this.appendLine(JSON.stringify(record));
  }

  /** Append one pre-serialised line (no newline inside). */
  appendLine(line: string): void {
    this.writeText(`${line}\n`);
    this.count++;
  }

  /**
   * Append one record (or its ready-made `line`, no newline inside) with the others queued in this event-loop turn: one `write(2)` for all of
   * them, then every caller's promise resolves. The line is in the kernel when the promise
   * resolves, so a caller that counts the record only after awaiting keeps D22 (a kill -9 before
   * the write loses only records nothing has counted yet).
   */
  appendSoon(record: unknown, line?: string): Promise<void> {
    this.queued += `${line ?? JSON.stringify(record)}\n`;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.waiters.push(resolve);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushQueued());
    }
    return promise;
  }

  /** Write what `appendSoon` queued and resolve its callers. */
  private flushQueued(): void {
    this.scheduled = false;
    const text = this.queued;
    const waiters = this.waiters;
    this.queued = "";
    this.waiters = [];
    if (text !== "" && this.fd >= 0) this.writeText(text);
    this.count += waiters.length;
    for (const w of waiters) w();
  }

  private writeText(text: string): void {
    // The string goes to write(2) as is (no Buffer copy per record); a regular file takes it whole.
    const written = writeSync(this.fd, text);
    // A short write (disk full) is finished from a byte copy; the length check is cheap for ASCII.
    if (written !== text.length || written !== Buffer.byteLength(text)) {
      const bytes = Buffer.from(text);
      let off = written;
      while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
    }
  }

  /** Write anything queued, then fsync the file (off the event loop): the lines survive a power loss, not only a kill. */
  async sync(): Promise<void> {
    if (this.queued !== "") this.flushQueued();
    if (this.fd < 0) return;
    const fd = this.fd;
    await new Promise<void>((resolve, reject) => fsync(fd, (e) => (e ? reject(e) : resolve())));
  }

  /** Write anything still queued, then close the file descriptor. */
  close(): void {
    if (this.queued !== "") this.flushQueued();
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** A buffered JSONL writer for files that are renamed into place afterwards (no per-line durability needed). */
export class BufferedJsonlWriter {
  private fd: number;
  private buf: string[] = [];
  private size = 0;
  /** Lines written. */
  count = 0;

  constructor(readonly path: string, private readonly flushAt = 1 << 20) {
    this.fd = openSync(path, "w");
  }

  /** Queue one record. */
  append(record: unknown): void {
    const line = `${JSON.stringify(record)}\n`;
    this.buf.push(line);
    this.size += line.length;
    this.count++;
    if (this.size >= this.flushAt) this.flush();
  }

  /** Write what is queued. */
  flush(): void {
    if (this.buf.length === 0) return;
    const bytes = Buffer.from(this.buf.join(""));
    this.buf = [];
    this.size = 0;
    let off = 0;
    while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
  }

  /** Flush and close. */
  close(): void {
    if (this.fd < 0) return;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * Make a JSONL file end on a line boundary (runtime §11.7 step 1): a last line without a
 * newline is kept (newline added) when it parses as JSON, dropped otherwise. Returns what it did.
 */
export function repairTornTail(path: string): "ok" | "terminated" | "dropped" | "missing" {
  if (!existsSync(path)) return "missing";
  const fd = openSync(path, "r+");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return "ok";
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return "ok";
    // Walk back in blocks to the previous newline; the torn tail is at most one record long.
    let pos = size;
    let tailStart = 0;
    const block = Buffer.alloc(65536);
    outer: while (pos > 0) {
      const len = Math.min(block.length, pos);
      pos -= len;
      readSync(fd, block, 0, len, pos);
      for (let i = len - 1; i >= 0; i--) {
        if (block[i] === 0x0a) {
          tailStart = pos + i + 1;
          break outer;
        }
      }
    }
    const tail = Buffer.alloc(size - tailStart);
    readSync(fd, tail, 0, tail.length, tailStart);
    let valid = false;
    try {
      const v = JSON.parse(tail.toString("utf8"));
      valid = v !== null && typeof v === "object";
    } catch {
      valid = false;
    }
    if (valid) {
      writeSync(fd, Buffer.from("\n"), 0, 1, size);
      return "terminated";
    }
    ftruncateSync(fd, tailStart);
    return "dropped";
  } finally {
    closeSync(fd);
  }
}
