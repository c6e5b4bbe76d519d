/**
 * The ambient rollout id (runtime.md §14): a server that received `/ng-rollout/<id>/…` handles
 * the request with that id in context, so its own ServerClient calls carry the same prefix.
 */
import type { AsyncLocalStorage } from "node:async_hooks";

// Created on first use: a static node:async_hooks import is hoisted into the binary's start-up,
// and most commands never handle a rollout.
let lazyStore: AsyncLocalStorage<string> | undefined;
function store(): AsyncLocalStorage<string> {
  return (lazyStore ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<string>());
}

/** Run `fn` with `rolloutId` as the ambient rollout id (no-op wrapper when undefined). */
export function withRolloutId<T>(rolloutId: string | undefined, fn: () => T): T {
  return rolloutId === undefined ? fn() : store().run(rolloutId, fn);
}

/** The ambient rollout id, if any. */
export function currentRolloutId(): string | undefined {
  return store().getStore();
}

const ROLLOUT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The rollout id of a `/verify` body: `_ng_rollout_id`, else `<task>-<rollout>[-a<attempt>]`; undefined when absent or malformed. */
export function rolloutIdFromBody(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  let id: string | undefined;
  if (typeof b._ng_rollout_id === "string" && b._ng_rollout_id !== "") id = b._ng_rollout_id;
  else if (b._ng_task_index !== undefined && b._ng_task_index !== null && b._ng_rollout_index !== undefined && b._ng_rollout_index !== null) {
    id = `${b._ng_task_index}-${b._ng_rollout_index}`;
    const attempt = Number(b._ng_attempt_index ?? 0);
    if (attempt > 0) id += `-a${attempt}`;
  }
  return id !== undefined && ROLLOUT_ID.test(id) ? id : undefined;
}
