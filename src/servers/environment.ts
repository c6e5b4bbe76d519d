/**
 * The environment server kind's base lifecycle (runtime.md §10.2): `POST /run` with a typed
 * episode request, admission under `max_concurrent_episodes` / `queue_timeout_seconds`, the
 * episode under `default_episode_timeout_seconds`, LIFO cleanup within
 * `cleanup_timeout_seconds`, and a response carrying exactly one of `result` and `failure`.
 */
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { RequestValidationError, type RequestContext } from "../runtime/http/http-types.ts";
import { EpisodeRequest, failure, rolloutIdProblem, type EpisodeFailure, type EpisodeId, type TaskId } from "./episode-protocol.ts";
import { bodyValidator } from "./validation.ts";

type Obj = Record<string, unknown>;

/** Base limits of an environment server (leaf keys). */
export interface EpisodeLimits {
  maxConcurrentEpisodes: number | null;
  queueTimeoutSeconds: number | null;
  defaultEpisodeTimeoutSeconds: number | null;
  cleanupTimeoutSeconds: number;
}

/** Read and check the base limits from a leaf config. */
export function episodeLimitsFromLeaf(leaf: Obj, instanceName: string): EpisodeLimits {
  const num = (k: string): number | null => {
    const v = leaf[k];
    if (v === undefined || v === null) return null;
    if (typeof v !== "number" || !(v > 0)) throw new ConfigError(`server '${instanceName}': ${k} must be a positive number or null, got ${JSON.stringify(v)}`, { key: k });
    return v;
  };
  const limits: EpisodeLimits = {
    maxConcurrentEpisodes: num("max_concurrent_episodes"),
    queueTimeoutSeconds: num("queue_timeout_seconds"),
    defaultEpisodeTimeoutSeconds: num("default_episode_timeout_seconds"),
    cleanupTimeoutSeconds: num("cleanup_timeout_seconds") ?? 180,
  };
  if (limits.maxConcurrentEpisodes !== null && !Number.isInteger(limits.maxConcurrentEpisodes)) {
    throw new ConfigError(`server '${instanceName}': max_concurrent_episodes must be an integer`, { key: "max_concurrent_episodes" });
  }
  if (limits.maxConcurrentEpisodes !== null && limits.queueTimeoutSeconds === null) {
    throw new ConfigError(`server '${instanceName}': queue_timeout_seconds is required when max_concurrent_episodes is set`, {
      key: "queue_timeout_seconds",
      hint: `set ${instanceName}.environment_servers.<impl>.queue_timeout_seconds (seconds an episode may wait for a slot), or drop max_concurrent_episodes`,
    });
  }
  return limits;
}

/** A handled episode failure: the episode answers 200 with this failure record. */
export class EpisodeFailed extends Error {
  constructor(readonly record: EpisodeFailure) {
    super(record.failure_reason);
    this.name = "EpisodeFailed";
  }
}

/** Cleanup callbacks of one episode, run LIFO after it ends. */
export class Cleanup {
  private readonly fns: { name: string; fn: () => Promise<void> }[] = [];
  /** Register a callback (must be idempotent: a timed-out close may still have succeeded). */
  add(name: string, fn: () => Promise<void>): void {
    this.fns.push({ name, fn });
  }
  /** Run every callback, newest first, within `timeoutSeconds` in total; errors are logged, never thrown. */
  async run(timeoutSeconds: number, who: string): Promise<string[]> {
    const errors: string[] = [];
    const deadline = Date.now() + timeoutSeconds * 1000;
    while (this.fns.length > 0) {
      const { name, fn } = this.fns.pop()!;
      const left = deadline - Date.now();
      if (left <= 0) {
        errors.push(`${name}: cleanup_timeout_seconds (${timeoutSeconds}) exhausted before it ran`);
        continue;
      }
      let timer: Timer | undefined;
      try {
        await Promise.race([fn(), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${Math.round(left)} ms`)), left)))]);
      } catch (e) {
        errors.push(`${name}: ${(e as Error).message}`);
        log.warn(`(${who}) cleanup ${name} failed: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    }
    return errors;
  }
}

/** A counting semaphore with a wait timeout. */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(private readonly size: number) {}
  /** Acquire within `timeoutMs`; false on timeout. */
  async acquire(timeoutMs: number | null): Promise<boolean> {
    if (this.active < this.size) {
      this.active++;
      return true;
    }
    return await new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.active++;
        resolve(true);
      };
      const timer = timeoutMs === null ? undefined : setTimeout(() => {
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }
  /** Release one slot. */
  release(): void {
    this.active--;
    const next = this.waiters.shift();
    if (next) next();
  }
}

/** What a concrete environment runs for one admitted episode. */
export type EpisodeBody = (req: EpisodeRequest, cleanup: Cleanup, ctx: RequestContext) => Promise<Obj>;

const episodeValidator = bodyValidator(EpisodeRequest);

/** The `/run` handler of a native environment server around an episode body. */
export function episodeHandler(instanceName: string, limits: EpisodeLimits, body: EpisodeBody): (ctx: RequestContext) => Promise<Obj> {
  const sem = limits.maxConcurrentEpisodes === null ? undefined : new Semaphore(limits.maxConcurrentEpisodes);
  return async (ctx) => {
    const req = episodeValidator.parse(ctx.body);
    const problem = rolloutIdProblem(req.episode_id.rollout_id);
    if (problem) throw new RequestValidationError([{ type: "value_error", loc: ["body", "episode_id", "rollout_id"], msg: `Value error, ${problem}`, input: req.episode_id.rollout_id }]);
    const answer = (result: Obj | null, fail: EpisodeFailure | null) => ({ episode_id: req.episode_id as EpisodeId, task_id: req.task.task_id as TaskId, result, failure: fail });

    if (sem && !(await sem.acquire(limits.queueTimeoutSeconds === null ? null : limits.queueTimeoutSeconds * 1000))) {
      return answer(null, failure("Episode admission timed out", false, { stage: "admission" }));
    }
    const cleanup = new Cleanup();
    try {
      let timer: Timer | undefined;
      const timeoutMs = limits.defaultEpisodeTimeoutSeconds === null ? null : limits.defaultEpisodeTimeoutSeconds * 1000;
      try {
        const run = body(req, cleanup, ctx);
        const result = timeoutMs === null ? await run : await Promise.race([run, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new EpisodeFailed(failure("Episode timed out", false))), timeoutMs)))]);
        return answer(result, null);
      } catch (e) {
        if (e instanceof EpisodeFailed) return answer(null, e.record);
        if (ctx.signal.aborted) throw e;
        const err = e instanceof Error ? e : new Error(String(e));
        return answer(null, failure(`Unhandled environment server error: ${err.name}: ${err.message}`, true));
      } finally {
        clearTimeout(timer);
      }
    } finally {
      // Shielded from cancellation: the client may be gone, the sessions still need closing.
      await cleanup.run(limits.cleanupTimeoutSeconds, instanceName);
      sem?.release();
    }
  };
}
