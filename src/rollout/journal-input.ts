/**
 * D38: the journal remembers which input it was made from. A fresh run records the input's
 * sha256 in `<output>.journal.json`; `--resume` recomputes it and refuses a different file, so a
 * resumed run never mixes the pairs of two datasets under one set of task indices.
 */
import { existsSync, readFileSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import type { RolloutPaths } from "./paths.ts";

/** What `<output>.journal.json` holds. */
export interface JournalInput {
  input: string;
  input_sha256: string;
  input_bytes: number;
}

/** sha256 (hex) and size of a file, streamed. */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = new Bun.CryptoHasher("sha256");
  let bytes = 0;
  for await (const chunk of Bun.file(path).stream()) {
    h.update(chunk);
    bytes += chunk.byteLength;
  }
  return { sha256: h.digest("hex"), bytes };
}

/** Record the input of a fresh run (atomically). */
export async function recordJournalInput(paths: RolloutPaths, input: string): Promise<void> {
  const d = await fileDigest(input);
  const body: JournalInput = { input, input_sha256: d.sha256, input_bytes: d.bytes };
  writeFileAtomic(paths.journal, `${JSON.stringify(body, null, 2)}\n`);
}

/** On resume: fail when `input` is not the file the journal was made from. */
export async function checkJournalInput(paths: RolloutPaths, input: string): Promise<void> {
  if (!existsSync(paths.journal)) {
    log.warn(`resume: ${paths.journal} is missing (a run from an older gym?); cannot check that ${input} is the input the journal was made from`);
    return;
  }
  let recorded: JournalInput;
  try {
    recorded = JSON.parse(readFileSync(paths.journal, "utf8")) as JournalInput;
  } catch (e) {
    log.warn(`resume: ${paths.journal} is unreadable (${(e as Error).message}); cannot check the input`);
    return;
  }
  if (!input || !existsSync(input)) {
    log.warn(`resume: the input ${input || "(none given)"} does not exist; continuing from the materialized inputs of ${recorded.input}`);
    return;
  }
  const now = await fileDigest(input);
  if (now.sha256 === recorded.input_sha256) return;
  throw new ConfigError(
    `--resume with a different input: ${paths.output} was collected from ${recorded.input} (sha256 ${recorded.input_sha256.slice(0, 12)}…, ${recorded.input_bytes} bytes), but the input now is ${input} (sha256 ${now.sha256.slice(0, 12)}…, ${now.bytes} bytes)`,
    {
      key: "input_jsonl_fpath",
      hint: `resume with -i ${recorded.input} (unchanged), or start a new run with another -o/--output (or --overwrite to replace these results)`,
    },
  );
}
