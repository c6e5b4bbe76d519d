/**
 * Upstream components gym does not build in (components.md §2; D13): how to name them and the one-line
 * recipe to run upstream's Python server as an external server, so selecting one is a clear error with
 * a way forward, never a crash or a silent skip.
 */
import { UPSTREAM_CATALOG, type UpstreamComponent } from "./upstream-catalog.gen.ts";

/** The kinds an upstream component can be, with how users call them. */
export const UPSTREAM_KINDS = {
  resources_servers: "resources server",
  responses_api_agents: "agent",
  responses_api_models: "model server",
  environments: "environment",
} as const;

/** One of the upstream component kinds. */
export type UpstreamKind = keyof typeof UPSTREAM_KINDS;

/** The upstream component of that kind and name, if upstream ships one. */
export function upstreamComponent(kind: UpstreamKind, name: string): UpstreamComponent | undefined {
  return Object.hasOwn(UPSTREAM_CATALOG[kind] ?? {}, name) ? UPSTREAM_CATALOG[kind]![name] : undefined;
}

/** Every upstream component name of a kind. */
export function upstreamNames(kind: UpstreamKind): string[] {
  return Object.keys(UPSTREAM_CATALOG[kind] ?? {}).sort();
}

/** The one-line recipe: clone upstream, give the server dir a venv (D13 runs `<dir>/.venv/bin/python`), add the clone as a root. */
export function externalRecipe(kind: UpstreamKind, name: string): string {
  const dir = kind === "environments" ? `Gym/environments/${name}` : `Gym/${kind}/${name}`;
  const venv = kind === "environments" ? "give each server it names a venv the same way" : `(cd ${dir} && uv venv && uv pip install -r requirements.txt)`;
  return `git clone https://github.com/NVIDIA-NeMo/Gym && ${venv} && add \`--search-dir Gym\` to your gym command (gym then starts it as an external server)`;
}

/** The sentence gym says when a selected upstream component is not built in. */
export function notBuiltInMessage(kind: UpstreamKind, name: string, c: UpstreamComponent): string {
  const rating = c.port === "no" ? "it needs a container, sandbox or GPU service, so gym runs it only as upstream's Python server" : `port rating: ${c.port}; not built into this gym yet`;
  return `\`${name}\` is an upstream NeMo Gym ${UPSTREAM_KINDS[kind]} that gym does not build in (${rating}). external: run upstream's Python server: ${externalRecipe(kind, name)}`;
}

/** The sentence for an upstream config file of a component gym builds in but does not ship that config of. */
export function configNotShippedMessage(rel: string, name: string): string {
  return `\`${rel}\` is an upstream config of \`${name}\`, which gym builds in, but gym does not ship this config: copy it from https://github.com/NVIDIA-NeMo/Gym/blob/main/${rel} into a directory passed with --search-dir (same relative path)`;
}

/** For a missing config path `<kind>/<name>/configs/<file>` (or `environments/<name>/config.yaml`), the upstream component it names. */
export function upstreamForPath(rel: string): { kind: UpstreamKind; name: string; component: UpstreamComponent } | undefined {
  const parts = rel.replace(/\\/g, "/").replace(/^\.\//, "").split("/");
  const kind = parts[0] as UpstreamKind;
  if (!(kind in UPSTREAM_KINDS) || parts.length < 3) return undefined;
  const component = upstreamComponent(kind, parts[1]!);
  // Only a config upstream really ships counts: a typo in a built-in's config name keeps the usual error.
  if (!component || !component.configs.includes(parts[parts.length - 1]!)) return undefined;
  return { kind, name: parts[1]!, component };
}
