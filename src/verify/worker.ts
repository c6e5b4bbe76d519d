/**
 * The one worker entry of the verifier pool (components/_worker-pool.ts): the server posts
 * `{id, task, …}` and gets back `{id, …result}` or `{id, error}`. One entry serves every CPU-bound
 * verifier so a process needs a single pool; listed in build.ts so the compiled binary carries it.
 */
import { evaluateInstructions, type GradingMode } from "./ifeval/evaluate.ts";
import { libraryVerify } from "./math/math-metric.ts";

declare const self: Worker;

type Msg = Record<string, unknown> & { id: number; task: string };

/** What each task computes (pure functions of the message). */
const TASKS: Record<string, (m: Msg) => object> = {
  math: (m) => libraryVerify(m.expected as string, m.generated as string),
  ifeval: (m) => evaluateInstructions(m.ids as unknown[], m.kwargs as unknown[], m.text as string, m.mode as GradingMode),
};

self.onmessage = (ev: MessageEvent<Msg>) => {
  const { id, task } = ev.data;
  try {
    const fn = TASKS[task];
    if (!fn) throw new Error(`unknown verifier task '${task}'`);
    postMessage({ id, ...fn(ev.data) });
  } catch (e) {
    postMessage({ id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
};
