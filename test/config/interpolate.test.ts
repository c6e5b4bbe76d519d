import { describe, expect, test } from "bun:test";
import { hasInterpolation, resolveAt, resolveInterpolations } from "../../src/config/interpolate.ts";
import { ConfigError, EXIT_USAGE } from "../../src/errors.ts";

const noEnv = () => undefined;
const envOf = (vars: Record<string, string>) => (n: string) => vars[n];

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("references", () => {
  test("absolute reference keeps the referenced type", () => {
    const out = resolveInterpolations({ a: { b: 7, f: 1.5, t: true, n: null, l: [1, 2] }, i: "${a.b}", fl: "${a.f}", bo: "${a.t}", nu: "${a.n}", li: "${a.l}" }, { env: noEnv });
    expect(out.i).toBe(7);
    expect(out.fl).toBe(1.5);
    expect(out.bo).toBe(true);
    expect(out.nu).toBeNull();
    expect(out.li).toEqual([1, 2]);
  });

  test("a whole-value map reference is a resolved deep copy", () => {
    const src = { base: { port: 1, url: "${.port}" }, copy: "${base}" };
    const out = resolveInterpolations(src, { env: noEnv });
    expect(out.copy).toEqual({ port: 1, url: 1 });
    (out.copy as { port: number }).port = 99;
    expect((out.base as { port: number }).port).toBe(1);
    expect(src.copy).toBe("${base}"); // input untouched
  });

  test("string concatenation yields a string with Python str() pieces", () => {
    const out = resolveInterpolations({ host: "h", port: 8000, on: true, none: null, url: "http://${host}:${port}/v1", flag: "x=${on} y=${none}" }, { env: noEnv });
    expect(out.url).toBe("http://h:8000/v1");
    expect(out.flag).toBe("x=True y=None");
  });

  test("relative references: ${.x} is a sibling, ${..x} the parent's sibling", () => {
    const out = resolveInterpolations({ top: 1, a: { x: 2, sib: "${.x}", up: "${..top}", b: { deep: "${..x}", deeper: "${...top}" } } }, { env: noEnv });
    expect(out.a).toEqual({ x: 2, sib: 2, up: 1, b: { deep: 2, deeper: 1 } });
  });

  test("relative references inside lists resolve against the list's parent", () => {
    const out = resolveInterpolations({ a: { v: 3, l: ["${..v}"] } }, { env: noEnv });
    expect(out.a).toEqual({ v: 3, l: [3] });
  });

  test("nested ${a.${b}} builds the key from the inner value", () => {
    const out = resolveInterpolations({ which: "beta", models: { alpha: 1, beta: 2 }, pick: "${models.${which}}" }, { env: noEnv });
    expect(out.pick).toBe(2);
  });

  test("list indices by dot or bracket", () => {
    const out = resolveInterpolations({ l: [10, { x: 20 }], a: "${l.0}", b: "${l[1].x}" }, { env: noEnv });
    expect(out.a).toBe(10);
    expect(out.b).toBe(20);
  });

  test("chains resolve through intermediate interpolations", () => {
    const out = resolveInterpolations({ a: "${b}", b: "${c}", c: { d: 5 }, e: "${a.d}" }, { env: noEnv });
    expect(out.a).toEqual({ d: 5 });
    expect(out.e).toBe(5);
  });
});

describe("escapes", () => {
  test("\\${…} stays literal; \\\\${…} is a backslash then the value; other backslashes untouched", () => {
    const out = resolveInterpolations({ x: 1, lit: "\\${x}", bs: "\\\\${x}", win: "C:\\dir\\file", mixed: "a\\${x}b${x}" }, { env: noEnv });
    expect(out.lit).toBe("${x}");
    expect(out.bs).toBe("\\1");
    expect(out.win).toBe("C:\\dir\\file");
    expect(out.mixed).toBe("a${x}b1");
  });
});

describe("oc.env", () => {
  test("reads the variable (always a string)", () => {
    const out = resolveInterpolations({ h: "${oc.env:HOME}", p: "${oc.env:PORT}", u: "/x/${oc.env:USER}" }, { env: envOf({ HOME: "/home/u", PORT: "80", USER: "me" }) });
    expect(out).toEqual({ h: "/home/u", p: "80", u: "/x/me" });
  });

  test("defaults are str(default) as OmegaConf returns them; null stays null", () => {
    const out = resolveInterpolations(
      {
        b: "${oc.env:UNSET,false}",
        i: "${oc.env:UNSET,3306}",
        f: "${oc.env:UNSET,1.0}",
        s: "${oc.env:UNSET,password}",
        n: "${oc.env:UNSET,null}",
        q: "${oc.env:UNSET,'a,b'}",
        e: "${oc.env:UNSET,}",
        url: "${oc.env:UNSET,http://localhost:8000/v1}",
        nested: "${oc.env:UNSET,${fallback}}",
        fallback: "fb",
      },
      { env: noEnv },
    );
    expect(out.b).toBe("False");
    expect(out.i).toBe("3306");
    expect(out.f).toBe("1.0");
    expect(out.s).toBe("password");
    expect(out.n).toBeNull();
    expect(out.q).toBe("a,b");
    expect(out.e).toBe("");
    expect(out.url).toBe("http://localhost:8000/v1");
    expect(out.nested).toBe("fb");
  });

  test("a set variable wins over the default", () => {
    expect(resolveInterpolations({ v: "${oc.env:X,dflt}" }, { env: envOf({ X: "set" }) }).v).toBe("set");
  });

  test("an unset variable without default is a ConfigError naming it and the key", () => {
    const e = errorOf(() => resolveInterpolations({ a: { k: "${oc.env:NOT_THERE}" } }, { env: noEnv }));
    expect(e.message).toContain("Environment variable 'NOT_THERE' not found");
    expect(e.message).toContain("a.k");
    expect(e.exitCode).toBe(EXIT_USAGE);
  });

  test("defaults to the process environment (env.ts)", () => {
    process.env.GYM_INTERP_TEST_VAR = "from-process";
    try {
      expect(resolveInterpolations({ v: "${oc.env:GYM_INTERP_TEST_VAR}" }).v).toBe("from-process");
    } finally {
      delete process.env.GYM_INTERP_TEST_VAR;
    }
  });
});

describe("oc.select and oc.decode", () => {
  test("oc.select returns the value or the (nested) default", () => {
    const out = resolveInterpolations(
      { policy_base_url: "http://p", judge: "${oc.select:judge_base_url,${policy_base_url}}", have: "${oc.select:policy_base_url,x}", none: "${oc.select:nope}", key: "${oc.select:tavily_api_key,${oc.env:TAVILY_API_KEY,null}}" },
      { env: noEnv },
    );
    expect(out.judge).toBe("http://p");
    expect(out.have).toBe("http://p");
    expect(out.none).toBeNull();
    expect(out.key).toBeNull();
  });

  test("oc.select treats ??? as missing", () => {
    expect(resolveInterpolations({ a: "???", b: "${oc.select:a,d}" }, { env: noEnv }).b).toBe("d");
  });

  test("oc.decode parses a string into a typed value", () => {
    const out = resolveInterpolations({ p: "${oc.decode:${oc.env:PORT,8080}}", l: "${oc.decode:'[1, 2]'}" }, { env: noEnv });
    expect(out.p).toBe(8080);
    expect(out.l).toEqual([1, 2]);
  });

  test("inherit_from / copy resolve to their own text (the directive pass handles them)", () => {
    const out = resolveInterpolations({ x: 1, a: "${inherit_from:x}", b: "${copy:x}" }, { env: noEnv });
    expect(out.a).toBe("${inherit_from:x}");
    expect(out.b).toBe("${copy:x}");
  });

  test("an unknown resolver is a ConfigError", () => {
    expect(errorOf(() => resolveInterpolations({ a: "${nope:1}" }, { env: noEnv })).message).toContain("Unsupported interpolation type nope");
  });
});

describe("errors", () => {
  test("a missing key names the holder and the reference", () => {
    const e = errorOf(() => resolveInterpolations({ server: { url: "${x.y}" } }, { env: noEnv }));
    expect(e.message).toContain("Config value 'server.url' references 'x.y'");
    expect(e.message).toContain("interpolation key 'x.y' not found");
    expect(e.hint).toContain("++x.y=<value>");
    expect(e.key).toBe("server.url");
  });

  test("a reference to ??? is reported as unset", () => {
    expect(errorOf(() => resolveInterpolations({ a: "???", b: "${a}" }, { env: noEnv })).message).toContain("still unset ('???')");
  });

  test("cycles are detected, direct and indirect", () => {
    expect(errorOf(() => resolveInterpolations({ a: "${a}" }, { env: noEnv })).message).toContain("interpolation cycle: a -> a");
    const e = errorOf(() => resolveInterpolations({ a: "${b}", b: { c: "${a}" } }, { env: noEnv }));
    expect(e.message).toContain("interpolation cycle");
    expect(e.message).toContain("b.c");
  });

  test("malformed interpolation is a ConfigError", () => {
    expect(errorOf(() => resolveInterpolations({ a: "${oops" }, { env: noEnv })).message).toContain("malformed interpolation");
  });

  test("relative reference above the root fails", () => {
    expect(errorOf(() => resolveInterpolations({ a: "${...x}" }, { env: noEnv })).message).toContain("references '...x'");
  });
});

describe("laziness", () => {
  test("resolveAt touches only the requested subtree", () => {
    const dict = { good: { url: "http://${host}" }, host: "h", bad: "${does.not.exist}", env_bad: "${oc.env:NOPE}" };
    expect(resolveAt(dict, ["good"], { env: noEnv })).toEqual({ url: "http://h" });
    expect(resolveAt(dict, ["good", "url"], { env: noEnv })).toBe("http://h");
    expect(resolveAt(dict, ["missing"], { env: noEnv })).toBeUndefined();
    expect(() => resolveAt(dict, ["bad"], { env: noEnv })).toThrow(ConfigError);
    expect(() => resolveInterpolations(dict, { env: noEnv })).toThrow(ConfigError);
  });

  test("resolveAt follows a path through a node that is itself an interpolation", () => {
    const dict = { base: { x: { y: "${leaf}" } }, alias: "${base}", leaf: 4 };
    expect(resolveAt(dict, ["alias", "x", "y"], { env: noEnv })).toBe(4);
    expect(resolveAt(dict, ["alias", "nope"], { env: noEnv })).toBeUndefined();
  });

  test("oc.select does not evaluate an unused default", () => {
    expect(resolveInterpolations({ a: 1, b: "${oc.select:a,${missing}}" }, { env: noEnv }).b).toBe(1);
  });

  test("values without ${ are returned as they are", () => {
    const src = { a: [1, { b: "plain" }], c: "x$y{z}" };
    expect(resolveInterpolations(src, { env: noEnv })).toEqual(src);
  });
});

describe("hasInterpolation", () => {
  test.each([
    ["${a}", true],
    ["x ${a} y", true],
    ["\\${a}", true],
    ["plain", false],
    ["$notinterp", false],
    [5, false],
    [null, false],
    [["a", "${b}"], true],
    [{ a: { b: "${c}" } }, true],
    [{ a: { b: "c" } }, false],
  ])("%p → %p", (v, expected) => {
    expect(hasInterpolation(v)).toBe(expected);
  });
});
