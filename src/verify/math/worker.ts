/**
 * Worker entry for math verification: the server posts {id, expected, generated} and gets back
 * {id, reward, extracted_answer} (or {id, error}). Listed as a build entrypoint in build.ts so the
 * compiled binary carries it.
 */
import { libraryVerify } from "./math-metric.ts";

declare const self: Worker;

self.onmessage = (ev: MessageEvent<{ id: number; expected: string; generated: string }>) => {
  const { id, expected, generated } = ev.data;
  try {
    postMessage({ id, ...libraryVerify(expected, generated) });
  } catch (e) {
    postMessage({ id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
};
