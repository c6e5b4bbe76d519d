import { describe, expect, test } from "bun:test";
import { applyOverride, parseOverride } from "../../src/config/overrides.ts";
import { ConfigError, EXIT_USAGE } from "../../src/errors.ts";

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("parseOverride: forms", () => {
  test.each([
    ["+a.b=1", "add", ["a", "b"], 1],
    ["++a.b=1", "upsert", ["a", "b"], 1],
    ["a.b=1", "set", ["a", "b"], 1],
    ["~a.b", "delete", ["a", "b"], undefined],
    ["~a.b=1", "delete", ["a", "b"], 1],
    ["a=", "set", ["a"], ""],
    ["+a=", "add", ["a"], ""],
    ["a.0.b=x", "set", ["a", "0", "b"], "x"],
    ["my-key.$x=1", "set", ["my-key", "$x"], 1],
  ])("%s", (tok, kind, path, value) => {
    const op = parseOverride(tok);
    expect(op.kind).toBe(kind as never);
    expect(op.path).toEqual(path);
    expect(op.value).toEqual(value);
    expect(op.raw).toBe(tok);
  });
});

describe("parseOverride: Hydra typing", () => {
  test.each([
    ["null", null],
    ["NULL", null],
    ["true", true],
    ["True", true],
    ["FALSE", false],
    ["1024", 1024],
    ["-3", -3],
    ["+7", 7],
    ["1_000", 1000],
    ["1.0", 1],
    ["-1.5", -1.5],
    [".5", 0.5],
    ["1.", 1],
    ["1e3", 1000],
    ["2.5E-1", 0.25],
    ["inf", Infinity],
    ["-inf", -Infinity],
    ["INF", Infinity],
    ["benchmark", "benchmark"],
    ["007", "007"],
    ["1.2.3", "1.2.3"],
    ["trueish", "trueish"],
    ["infinity", "infinity"],
    ["abc-def", "abc-def"],
    ["  spaced out  ", "spaced out"],
    ["http://localhost:8000/v1", "http://localhost:8000/v1"],
    ["/abs/path/file.jsonl", "/abs/path/file.jsonl"],
    ["a+b.c$d%e*f@g?h|i\\j", "a+b.c$d%e*f@g?h|i\\j"],
    ["a\\,b", "a,b"],
    ["a\\ b", "a b"],
    ["\\(x\\)", "(x)"],
    ["'(A)'", "(A)"],
    ['"(A)"', "(A)"],
    ["'true'", "true"],
    ['"1"', "1"],
    ["'a,b'", "a,b"],
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'x\\\\'", "x\\"],
    ["'a=b'", "a=b"],
    ["''", ""],
    ["'x' ", "x"],
    ["${a.b}", "${a.b}"],
    ["${oc.env:HOME,/tmp}", "${oc.env:HOME,/tmp}"],
    ["${a.${b}}", "${a.${b}}"],
    ["http://${host}:${port}", "http://${host}:${port}"],
    ["'${x}'", "${x}"],
    ["\\${x}", "\\${x}"],
    ["[a, b]", ["a", "b"]],
    ["[-1.0,1.0]", [-1, 1]],
    ["[]", []],
    ["[1, [2, 3], {k: v}]", [1, [2, 3], { k: "v" }]],
    ["{agent_alpha: 4, _default: 1}", { agent_alpha: 4, _default: 1 }],
    ["{a: {b: [1, 'x,y']}}", { a: { b: [1, "x,y"] } }],
    ["{}", {}],
    ["{1: one, true: yes}", { "1": "one", true: "yes" }],
  ])("a=%s", (text, expected) => {
    const v = parseOverride(`a=${text}`).value;
    if (typeof expected === "number" && Number.isNaN(expected)) expect(Number.isNaN(v as number)).toBe(true);
    else expect(v).toEqual(expected);
  });

  test("nan is a float NaN", () => {
    expect(Number.isNaN(parseOverride("a=nan").value as number)).toBe(true);
  });

  test("the spec's examples", () => {
    expect(parseOverride("+limit=1024").value).toBe(1024);
    expect(parseOverride("+temperature=1.0").value).toBe(1.0);
    expect(parseOverride("+split=benchmark").value).toBe("benchmark");
    expect(parseOverride("+reward_range=[-1.0,1.0]").value).toEqual([-1.0, 1.0]);
    expect(parseOverride('+query="(A)"').value).toBe("(A)");
    expect(parseOverride("+config_paths=${my_config_paths}").value).toBe("${my_config_paths}");
  });
});

describe("parseOverride: errors", () => {
  test("a top-level comma is an ambiguous sweep", () => {
    const e = errorOf(() => parseOverride("+a=1,2"));
    expect(e.message).toContain("Ambiguous value for argument '+a=1,2'");
    expect(e.message).toContain("key=[value1,value2]");
    expect(e.message).toContain("key='value1,value2'");
    expect(e.exitCode).toBe(EXIT_USAGE);
  });

  test.each(["a=int(3)", "a=choice(1,2)", "a=range(1,3)", "a=glob(*)"])("Hydra function %s is a parse error", (tok) => {
    const e = errorOf(() => parseOverride(tok));
    expect(e.message).toStartWith(`Error parsing override '${tok}'`);
    expect(e.message).toContain("hydra.cc/docs/1.2/advanced/override_grammar/basic");
  });

  test.each(["a=[1,2", "a={a 1}", "a='open", "a=#x", "a=x=y", "a=[1]]", "a=(x)", "a={a: 1", "a=x'y'"])("syntax error %s quotes the token", (tok) => {
    const e = errorOf(() => parseOverride(tok));
    expect(e.message).toContain(`Error parsing override '${tok}'`);
  });

  test.each(["a", "+a", "++a.b"])("missing '=' in %s", (tok) => {
    expect(errorOf(() => parseOverride(tok)).message).toContain("missing '='");
  });

  test.each(["=1", "+=1", "a..b=1", "a b=1", "0=1", "a.=1", "a#=1"])("bad key %s", (tok) => {
    expect(errorOf(() => parseOverride(tok)).message).toContain(`Error parsing override '${tok}'`);
  });

  test.each(["db/mysql=x", "+group@pkg=1"])("config group syntax %s", (tok) => {
    expect(errorOf(() => parseOverride(tok)).message).toContain("looks like a config group override");
  });
});

describe("applyOverride (D4)", () => {
  const apply = (dict: Record<string, unknown>, ...toks: string[]) => {
    for (const t of toks) applyOverride(dict, parseOverride(t));
    return dict;
  };

  test("+key adds and creates intermediate maps", () => {
    expect(apply({}, "+a.b.c=1")).toEqual({ a: { b: { c: 1 } } });
    expect(apply({ a: 5 }, "+a.b=1")).toEqual({ a: { b: 1 } });
  });

  test("+key on an existing scalar errors as Hydra does", () => {
    const e = errorOf(() => apply({ a: { b: 1 } }, "+a.b=2"));
    expect(e.message).toBe(
      "Could not append to config. An item is already at 'a.b'.\nEither remove + prefix: 'a.b=2'\nOr add a second + to add or override 'a.b': '++a.b=2'",
    );
    expect(e.key).toBe("a.b");
  });

  test("+key fills a null or ??? value, and merges a map into a map", () => {
    expect(apply({ a: null }, "+a=1")).toEqual({ a: 1 });
    expect(apply({ a: "???" }, "+a=1")).toEqual({ a: 1 });
    expect(apply({ a: { x: 1, y: 2 } }, "+a={y: 3, z: 4}")).toEqual({ a: { x: 1, y: 3, z: 4 } });
    expect(apply({ a: [1, 2] }, "+a=[3]")).toEqual({ a: [3] });
  });

  test("++key upserts, merging maps", () => {
    expect(apply({}, "++a.b=1")).toEqual({ a: { b: 1 } });
    expect(apply({ a: { b: 1, c: 2 } }, "++a.b=9")).toEqual({ a: { b: 9, c: 2 } });
    expect(apply({ a: { b: 1 } }, "++a={c: 2}")).toEqual({ a: { b: 1, c: 2 } });
    expect(apply({ a: { b: 1 } }, "++a=x")).toEqual({ a: "x" });
  });

  test("bare key=value sets an existing key (scalars replace, maps merge, lists replace)", () => {
    expect(apply({ results_dir: "/r" }, "results_dir=/shared/results")).toEqual({ results_dir: "/shared/results" });
    expect(apply({ a: { b: 1, c: 2 } }, "a={b: 5}")).toEqual({ a: { b: 5, c: 2 } });
    expect(apply({ a: [1, 2, 3] }, "a=[9]")).toEqual({ a: [9] });
    expect(apply({ a: null }, "a=1")).toEqual({ a: 1 });
    expect(apply({ a: "x" }, "a=")).toEqual({ a: "" });
    expect(apply({ l: [{ x: 1 }, { x: 2 }] }, "l.1.x=7")).toEqual({ l: [{ x: 1 }, { x: 7 }] });
  });

  test("bare key=value on a missing key names the key and the + fix", () => {
    const e = errorOf(() => apply({ a: {} }, "a.b=value"));
    expect(e.message).toBe("key 'a.b' is not in the config; use +a.b=value to add it");
    expect(e.key).toBe("a.b");
    expect(e.exitCode).toBe(EXIT_USAGE);
    expect(errorOf(() => apply({ a: 1 }, "a.b=1")).message).toContain("key 'a.b' is not in the config");
    expect(errorOf(() => apply({ l: [1] }, "l.3=1")).message).toContain("key 'l.3' is not in the config");
  });

  test("an earlier token on the same command line can create the key for a later bare one", () => {
    expect(apply({}, "+a=1", "a=2")).toEqual({ a: 2 });
  });

  test("~key deletes; missing keys error", () => {
    expect(apply({ a: { b: 1, c: 2 } }, "~a.b")).toEqual({ a: { c: 2 } });
    expect(apply({ a: [1, 2, 3] }, "~a.1")).toEqual({ a: [1, 3] });
    expect(apply({ a: null, b: 1 }, "~a")).toEqual({ b: 1 });
    expect(errorOf(() => apply({}, "~a.b")).message).toBe("Could not delete from config. 'a.b' does not exist.");
  });

  test("~key=value deletes only when the value matches", () => {
    expect(apply({ a: 1, b: 2 }, "~a=1")).toEqual({ b: 2 });
    expect(apply({ a: [1, 2] }, "~a=[1,2]")).toEqual({});
    expect(apply({ a: 1 }, "~a=null")).toEqual({});
    const e = errorOf(() => apply({ a: 1 }, "~a=2"));
    expect(e.message).toBe("Could not delete from config. The value of 'a' is 1 and not 2.");
    expect(errorOf(() => apply({ a: true }, "~a=false")).message).toContain("is True and not False");
  });

  test("values are copied, not shared", () => {
    const op = parseOverride("+a={b: [1]}");
    const d1: Record<string, unknown> = {};
    const d2: Record<string, unknown> = {};
    applyOverride(d1, op);
    applyOverride(d2, op);
    ((d1.a as { b: number[] }).b as number[]).push(2);
    expect(d2).toEqual({ a: { b: [1] } });
  });
});
