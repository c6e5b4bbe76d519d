/** Helpers every built-in factory uses: the outbound clients of its process and leaf-config readers. */
import { ServerClient } from "../runtime/http/client.ts";
import { innerClientFrom, type InnerClient } from "../servers/inner-client.ts";
import type { HttpClient } from "../runtime/http/client.ts";
import type { ComponentContext } from "./registry.ts";
import { ConfigError } from "../errors.ts";

/** The clients of one hosted instance: by server name (gym servers) and raw HTTP (external endpoints). */
export function clientsFor(ctx: ComponentContext): { inner: InnerClient; http: HttpClient } {
  const workers = typeof ctx.config.num_workers === "number" ? ctx.config.num_workers : 1;
  const sc = new ServerClient(ctx.globalConfig, { workers, serverName: ctx.instanceName });
  return { inner: innerClientFrom(sc), http: sc.http };
}

/** The `name` of a `{type, name}` server reference in the leaf, or a clear error naming the key. */
export function refName(ctx: Pick<ComponentContext, "instanceName" | "config">, key: string): string {
  const v = ctx.config[key] as { name?: unknown } | undefined;
  if (!v || typeof v.name !== "string" || v.name === "" || v.name === "???") {
    throw new ConfigError(`${ctx.instanceName}: ${key}.name is not set`, { key: `${key}.name`, hint: `point it at a server instance, e.g. +${ctx.instanceName}.<type>.<impl>.${key}.name=<instance>` });
  }
  return v.name;
}

/** A string leaf key (empty/absent → undefined). */
export function str(ctx: Pick<ComponentContext, "config">, key: string): string | undefined {
  const v = ctx.config[key];
  return v === undefined || v === null || v === "" ? undefined : String(v);
}

/** A boolean leaf key with a default (accepts "true"/"false" strings from env interpolation). */
export function bool(ctx: Pick<ComponentContext, "config">, key: string, fallback: boolean): boolean {
  const v = ctx.config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v === "string") return v.toLowerCase() === "true";
  return v === true;
}

/** An object leaf key (null/absent → undefined). */
export function obj(ctx: Pick<ComponentContext, "config">, key: string): Record<string, unknown> | undefined {
  const v = ctx.config[key];
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
