/**
 * Server cross-references (cli-config §6.5): a first-level leaf field shaped
 * `{type: <server type>, name: <id>}` must name a validated instance of that same type.
 */
import { ConfigError } from "../errors.ts";
import { similarity } from "../util/similar.ts";
import type { LocNode } from "./yaml-locations.ts";
import { locationOf } from "./yaml-locations.ts";
import { isPlainMap } from "./merge.ts";
import { SERVER_TYPES, type ServerInstance, type ServerType } from "./types.ts";

/** A `{type, name}` server reference found in a leaf. */
export interface ServerRef {
  field: string;
  type: ServerType;
  name: string;
}

/** The first-level server references of a leaf. */
export function serverRefs(leaf: Record<string, unknown>): ServerRef[] {
  const out: ServerRef[] = [];
  for (const [field, v] of Object.entries(leaf)) {
    if (!isPlainMap(v) || typeof v.name !== "string") continue;
    if (!(SERVER_TYPES as readonly string[]).includes(v.type as string)) continue;
    out.push({ field, type: v.type as ServerType, name: v.name });
  }
  return out;
}

function suggestions(name: string, candidates: string[]): string[] {
  return candidates
    .map((c) => ({ c, r: similarity(name, c) }))
    .filter((x) => x.r >= 0.6)
    .sort((a, b) => b.r - a.r)
    .slice(0, 3)
    .map((x) => x.c);
}

/** Throw ServerRefNotFoundError for the first reference to an undefined instance. */
export function checkCrossRefs(instances: ServerInstance[], locs?: LocNode): void {
  const byType = new Map<string, string[]>();
  for (const i of instances) {
    const list = byType.get(i.serverType);
    if (list) list.push(i.name);
    else byType.set(i.serverType, [i.name]);
  }
  for (const inst of instances) {
    for (const ref of serverRefs(inst.leaf)) {
      const names = byType.get(ref.type) ?? [];
      if (names.includes(ref.name)) continue;
      const near = suggestions(ref.name, names);
      const tail = near.length
        ? `Did you mean: ${near.map((n) => `'${n}'`).join(", ")}?`
        : `Available ${ref.type}: ${names.length ? names.map((n) => `'${n}'`).join(", ") : "(none)"}`;
      throw new ConfigError(
        `In server instance '${inst.name}', field '${ref.field}' references ${ref.type}/'${ref.name}', which is not defined in the merged config.\n${tail}`,
        {
          code: "E_SERVER_REF_NOT_FOUND",
          key: [inst.name, inst.serverType, inst.implementation, ref.field, "name"].join("."),
          location: locationOf(locs, [inst.name, inst.serverType, inst.implementation, ref.field, "name"]),
          hint: `define a ${ref.type} instance named '${ref.name}' (e.g. add its config with --config) or fix the name`,
        },
      );
    }
  }
}
