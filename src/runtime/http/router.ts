/** Route matching for the HTTP layer: exact segments and `:name` parameters, no regex routes. */
import type { Route } from "./http-types.ts";

/** A route split into segments once, at startup. */
interface Compiled {
  route: Route;
  segments: string[];
}

/** Outcome of matching a request against the routes. */
export type Match =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method"; allowed: string[] }
  | { kind: "none" };

function split(path: string): string[] {
  return path.split("/").slice(1);
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(":")) {
      if (a === "") return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        params[p.slice(1)] = a;
      }
    } else if (p !== a) return undefined;
  }
  return params;
}

/** Build a matcher over a route list; earlier routes win on overlap. */
export function compileRoutes(routes: Route[]): (method: string, path: string) => Match {
  const compiled: Compiled[] = routes.map((route) => ({ route, segments: split(route.path) }));
  // Literal routes answer from a map (the hot path: one lookup, no split). A literal route stays
  // out of it when an earlier parameter route of the same depth could claim its path first.
  // Method → path → route: a lookup without building a "METHOD path" string per request.
  const exact = new Map<string, Map<string, Route>>();
  compiled.forEach((c, i) => {
    if (c.segments.some((seg) => seg.startsWith(":"))) return;
    const shadowed = compiled.slice(0, i).some((e) => e.segments.length === c.segments.length && e.segments.some((seg) => seg.startsWith(":")));
    let byPath = exact.get(c.route.method);
    if (!byPath) exact.set(c.route.method, (byPath = new Map()));
    if (!shadowed && !byPath.has(c.route.path)) byPath.set(c.route.path, c.route);
  });
  return (method, path) => {
    const hit = exact.get(method)?.get(path);
    // Handlers may write to params: each request gets its own (empty) object.
    if (hit) return { kind: "found", route: hit, params: {} };
    const actual = split(path);
    const allowed: string[] = [];
    for (const c of compiled) {
      const params = matchSegments(c.segments, actual);
      if (!params) continue;
      if (c.route.method === method) return { kind: "found", route: c.route, params };
      allowed.push(c.route.method);
    }
    return allowed.length > 0 ? { kind: "method", allowed } : { kind: "none" };
  };
}
