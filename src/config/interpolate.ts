/**
 * OmegaConf 2.3 interpolation over a plain config dict (spec cli-config §4.5): lazy,
 * root-relative lookups, type-preserving whole-value references, string concatenation,
 * `oc.env` / `oc.select` / `oc.decode`, escapes, and cycle detection.
 */
import { ConfigError } from "../errors.ts";
import { envVar } from "../env.ts";
import type { ConfigDict } from "./types.ts";
import { InterpSyntaxError, parseElement, parseInterpolated, typedLiteral, type Elem, type Inter, type Part } from "./_interp-parse.ts";
import { child, deepCopy, getAt, isMap } from "./_override-tree.ts";
import { pyStr } from "../util/py-str-of.ts";

/** Options of the resolver. */
export interface InterpolateOptions {
  /** Environment lookup for `${oc.env:…}` (defaults to the process environment). */
  env?: (name: string) => string | undefined;
}

/** True when `v` (or anything inside it) is a string containing `${` (OmegaConf's test). */
export function hasInterpolation(v: unknown): boolean {
  if (typeof v === "string") return v.includes("${");
  if (Array.isArray(v)) return v.some(hasInterpolation);
  if (isMap(v)) return Object.values(v).some(hasInterpolation);
  return false;
}

/** A dotted display path; list indices print as `[i]` like OmegaConf's full keys. */
function showPath(path: string[]): string {
  let out = "";
  for (const seg of path) out += /^[0-9]+$/.test(seg) && out !== "" ? `[${seg}]` : out === "" ? seg : `.${seg}`;
  return out;
}

/** Split an interpolation key (`a.b[0].c`, `..x`) into leading-dot count and segments. */
function splitKey(key: string): { dots: number; segs: string[] } {
  let dots = 0;
  while (key[dots] === ".") dots++;
  const segs = key
    .slice(dots)
    .replace(/\[([^\]]*)\]/g, ".$1")
    .split(".")
    .filter((s) => s !== "");
  return { dots, segs };
}

class Resolver {
  private readonly memo = new Map<string, unknown>();
  private readonly active: string[] = [];
  // Config trees repeat the same strings (`${policy_base_url}` in every model block): parse each once.
  private readonly parsed = new Map<string, Part[]>();

  constructor(
    private readonly root: ConfigDict,
    private readonly env: (name: string) => string | undefined,
  ) {}

  /**
   * The fully resolved (deep) value of the node at `path`. Containers are rebuilt fresh on every
   * call; only interpolation results are memoized, and handed out as copies after first use.
   */
  valueAt(path: string[]): unknown {
    return this.build(getAt(this.root, path).value, [...path]);
  }

  /**
   * The resolved copy of `raw`, the node at `stack` (a path the walk pushes to and pops from, so
   * a large tree costs no per-node path array; interpolated leaves take their own copy).
   */
  private build(raw: unknown, stack: string[]): unknown {
    if (Array.isArray(raw)) {
      const out: unknown[] = new Array(raw.length);
      for (let i = 0; i < raw.length; i++) {
        stack.push(String(i));
        out[i] = this.build(raw[i], stack);
        stack.pop();
      }
      return out;
    }
    if (isMap(raw)) {
      const m: Record<string, unknown> = {};
      for (const k of Object.keys(raw)) {
        stack.push(k);
        m[k] = this.build(raw[k], stack);
        stack.pop();
      }
      return m;
    }
    if (typeof raw !== "string" || !raw.includes("${")) return raw;
    return this.interpolated(raw, [...stack]);
  }

  /** The memoized value of the interpolated string `raw` at `path`, with cycle detection. */
  private interpolated(raw: string, path: string[]): unknown {
    const id = JSON.stringify(path);
    if (this.memo.has(id)) return deepCopy(this.memo.get(id));
    if (this.active.includes(id)) {
      const chain = [...this.active.slice(this.active.indexOf(id)), id].map((p) => showPath(JSON.parse(p) as string[]));
      throw new ConfigError(`interpolation cycle: ${chain.join(" -> ")}`, {
        key: showPath(path),
        code: "E_CONFIG_INTERPOLATION",
        hint: "break the loop by giving one of these keys a concrete value",
      });
    }
    this.active.push(id);
    let out: unknown;
    try {
      out = this.evalString(raw, path);
    } finally {
      this.active.pop();
    }
    this.memo.set(id, out);
    return deepCopy(out);
  }

  private evalString(s: string, holder: string[]): unknown {
    let parts: Part[];
    try {
      parts = this.parsed.get(s) ?? parseInterpolated(s);
      this.parsed.set(s, parts);
    } catch (e) {
      if (e instanceof InterpSyntaxError) {
        throw new ConfigError(`Config value '${showPath(holder)}' has a malformed interpolation: ${e.message}`, {
          key: showPath(holder),
          code: "E_CONFIG_INTERPOLATION",
          hint: "escape a literal '${' as '\\${'",
        });
      }
      throw e;
    }
    return this.evalText(parts, holder, true);
  }

  /** A text: a lone interpolation keeps its type (when `keepType`), otherwise a concatenated string. */
  private evalText(parts: Part[], holder: string[], keepType: boolean): unknown {
    if (keepType && parts.length === 1 && parts[0]!.t === "inter") return this.evalInter(parts[0]!.inter, holder);
    return parts.map((p) => (p.t === "str" ? p.s : pyStr(this.evalInter(p.inter, holder)))).join("");
  }

  private keyText(parts: Part[], holder: string[]): string {
    return parts.map((p) => (p.t === "str" ? p.s : pyStr(this.evalInter(p.inter, holder)))).join("");
  }

  private evalInter(inter: Inter, holder: string[]): unknown {
    if (inter.t === "node") return this.lookup(this.keyText(inter.key, holder), holder, inter.raw, false).value;
    const name = this.keyText(inter.name, holder);
    switch (name) {
      case "oc.env":
        return this.ocEnv(inter, holder);
      case "oc.select":
        return this.ocSelect(inter, holder);
      case "oc.decode": {
        if (inter.args.length !== 1) throw this.resolverError(holder, inter, "oc.decode takes exactly one argument");
        const v = this.evalElem(inter.args[0]!, holder);
        if (v === null) return null;
        if (typeof v !== "string") throw this.resolverError(holder, inter, `oc.decode can only take strings or None as input, got ${pyStr(v)}`);
        try {
          return this.evalElem(parseElement(v), holder);
        } catch (e) {
          if (e instanceof InterpSyntaxError) throw this.resolverError(holder, inter, e.message);
          throw e;
        }
      }
      case "inherit_from":
      case "copy":
        // gym's directive resolvers resolve to their own text; the directive pass acts on them (§4.6).
        return inter.raw;
      default:
        throw new ConfigError(`Unsupported interpolation type ${name} in '${showPath(holder)}': ${inter.raw}`, {
          key: showPath(holder),
          code: "E_CONFIG_INTERPOLATION",
          hint: "gym supports oc.env, oc.select, oc.decode and the inherit_from/copy directives",
        });
    }
  }

  private resolverError(holder: string[], inter: Inter, msg: string): ConfigError {
    return new ConfigError(`Config value '${showPath(holder)}' could not resolve ${inter.raw}: ${msg}`, {
      key: showPath(holder),
      code: "E_CONFIG_INTERPOLATION",
    });
  }

  private ocEnv(inter: Extract<Inter, { t: "resolver" }>, holder: string[]): unknown {
    const [keyArg, defArg, ...extra] = inter.args;
    if (keyArg === undefined || extra.length > 0) throw this.resolverError(holder, inter, "oc.env takes a variable name and an optional default");
    const name = this.evalElem(keyArg, holder);
    if (typeof name !== "string") throw this.resolverError(holder, inter, `the variable name must be a string, got ${pyStr(name)}`);
    const v = this.env(name);
    if (v !== undefined) return v;
    if (defArg === undefined) {
      throw new ConfigError(`Environment variable '${name}' not found (needed by '${showPath(holder)}': ${inter.raw})`, {
        key: showPath(holder),
        code: "E_CONFIG_INTERPOLATION",
        hint: `export ${name}=<value>, or give a default: \${oc.env:${name},<default>}`,
      });
    }
    // OmegaConf returns the default as str(default), except null which stays None.
    const d = this.evalElem(defArg, holder);
    if (d === null) return null;
    if (typeof d === "number" && defArg.t === "prim" && isFloatLiteral(defArg)) return pyFloatStr(d);
    return pyStr(d);
  }

  private ocSelect(inter: Extract<Inter, { t: "resolver" }>, holder: string[]): unknown {
    const [keyArg, defArg, ...extra] = inter.args;
    if (keyArg === undefined || extra.length > 0) throw this.resolverError(holder, inter, "oc.select takes a key and an optional default");
    const key = this.evalElem(keyArg, holder);
    if (typeof key !== "string") throw this.resolverError(holder, inter, `the key must be a string, got ${pyStr(key)}`);
    const hit = this.lookup(key, holder, inter.raw, true);
    if (hit.found) return hit.value;
    // The default is evaluated only when needed (OmegaConf evaluates it eagerly; lazy is strictly more forgiving).
    return defArg === undefined ? null : this.evalElem(defArg, holder);
  }

  private evalElem(e: Elem, holder: string[]): unknown {
    switch (e.t) {
      case "quoted":
        return this.evalText(e.parts, holder, false);
      case "list":
        return e.items.map((x) => this.evalElem(x, holder));
      case "dict": {
        const out: Record<string, unknown> = {};
        for (const [k, v] of e.entries) out[k] = this.evalElem(v, holder);
        return out;
      }
      case "prim": {
        if (e.parts.length === 1 && e.parts[0]!.t === "inter") return this.evalInter(e.parts[0]!.inter, holder);
        if (e.parts.every((p) => p.t === "str")) {
          const text = e.parts.map((p) => (p as { s: string }).s).join("");
          return e.escaped ? text : typedLiteral(text);
        }
        return this.evalText(e.parts, holder, false);
      }
    }
  }

  /**
   * Find `key` (absolute, or relative to the holder's parent with leading dots). With `soft`,
   * a missing key or `???` reports `found: false` instead of throwing (oc.select).
   */
  private lookup(key: string, holder: string[], ref: string, soft: boolean): { found: boolean; value: unknown } {
    const { dots, segs } = splitKey(key);
    let base: string[] = [];
    if (dots > 0) {
      const parent = holder.slice(0, -1);
      const up = dots - 1;
      if (up > parent.length) {
        if (soft) return { found: false, value: undefined };
        throw this.notFound(holder, key, ref);
      }
      base = parent.slice(0, parent.length - up);
    }
    const path = [...base];
    let node: unknown = getAt(this.root, base).value;
    for (let i = 0; i < segs.length; i++) {
      // An intermediate node that is itself an interpolation is resolved before walking on.
      if (typeof node === "string" && node.includes("${")) {
        node = this.valueAt(path);
        const rest = getAt(node, segs.slice(i));
        if (!rest.found || rest.value === "???") {
          if (soft) return { found: false, value: undefined };
          throw rest.found ? this.missing(holder, key) : this.notFound(holder, key, ref);
        }
        return { found: true, value: rest.value };
      }
      const c = child(node, segs[i]!);
      if (!c.found) {
        if (soft) return { found: false, value: undefined };
        throw this.notFound(holder, key, ref);
      }
      node = c.value;
      path.push(segs[i]!);
    }
    if (node === "???") {
      if (soft) return { found: false, value: undefined };
      throw this.missing(holder, key);
    }
    return { found: true, value: this.valueAt(path) };
  }

  private notFound(holder: string[], key: string, ref: string): ConfigError {
    const where = showPath(holder);
    return new ConfigError(`Config value '${where}' references '${key}', which is not set after merging (${ref}: interpolation key '${key}' not found).`, {
      key: where,
      code: "E_CONFIG_INTERPOLATION",
      hint: `Provide it via a CLI override, in env.yaml, or in a config you pass via config_paths. For example, on the command line: ++${key.replace(/^\.+/, "")}=<value>`,
    });
  }

  private missing(holder: string[], key: string): ConfigError {
    const where = showPath(holder);
    return new ConfigError(`Config value '${where}' references '${key}', which is still unset ('???') after merging.`, {
      key: where,
      code: "E_CONFIG_INTERPOLATION",
      hint: `Provide it via a CLI override, in env.yaml, or in a config you pass via config_paths. For example, on the command line: ++${key.replace(/^\.+/, "")}=<value>`,
    });
  }
}

function isFloatLiteral(e: Extract<Elem, { t: "prim" }>): boolean {
  const text = e.parts.map((p) => (p.t === "str" ? p.s : "")).join("");
  return e.parts.every((p) => p.t === "str") && !/^[+-]?[0-9_]+$/.test(text);
}

/** Python `str(float)`: integral values keep a trailing `.0`. */
function pyFloatStr(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return n.toFixed(1);
  return pyStr(n);
}

function makeResolver(dict: ConfigDict, opts?: InterpolateOptions): Resolver {
  return new Resolver(dict, opts?.env ?? envVar);
}

/** A deep copy of `dict` with every `${…}` resolved; throws ConfigError on the first failure. */
export function resolveInterpolations(dict: ConfigDict, opts?: InterpolateOptions): ConfigDict {
  return makeResolver(dict, opts).valueAt([]) as ConfigDict;
}

/**
 * The resolved value at `path` (a deep copy), touching only what that subtree references;
 * undefined when the path does not exist.
 */
export function resolveAt(dict: ConfigDict, path: string[], opts?: InterpolateOptions): unknown {
  const r = makeResolver(dict, opts);
  if (getAt(dict, path).found) return r.valueAt(path);
  // The path may run through a node that is itself an interpolation (`a: ${b}` read as `a.x`).
  let node: unknown = dict;
  for (let i = 0; i < path.length; i++) {
    if (typeof node === "string" && node.includes("${")) {
      const rest = getAt(r.valueAt(path.slice(0, i)), path.slice(i));
      return rest.found ? rest.value : undefined;
    }
    const c = child(node, path[i]!);
    if (!c.found) return undefined;
    node = c.value;
  }
  return undefined;
}
