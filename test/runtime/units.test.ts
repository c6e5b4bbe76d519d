import { describe, expect, test } from "bun:test";
import { ConfigError, RuntimeError } from "../../src/errors.ts";
import { pythonJsonError } from "../../src/runtime/http/json-error.ts";
import { bindInRange, portRangeFromConfig } from "../../src/runtime/process/ports.ts";
import { clientOf, parseAddress, proxySettingsFromConfig } from "../../src/runtime/http/proxy-headers.ts";
import { pyBytesRepr, pyExceptionRepr, pyStrRepr } from "../../src/util/py-repr.ts";
import { rolloutIdFromBody } from "../../src/runtime/http/rollout-context.ts";

describe("Python reprs", () => {
  test("str repr picks quotes and escapes like Python", () => {
    expect(pyStrRepr("bad")).toBe("'bad'");
    expect(pyStrRepr("it's")).toBe(`"it's"`);
    expect(pyStrRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pyStrRepr("a\nb\t\\")).toBe("'a\\nb\\t\\\\'");
    expect(pyStrRepr("é\u0001")).toBe("'é\\x01'");
  });
  test("bytes repr escapes non-ASCII as \\x", () => {
    expect(pyBytesRepr(new TextEncoder().encode('{"a":"é"}'))).toBe(`b'{"a":"\\xc3\\xa9"}'`);
    expect(pyBytesRepr(new TextEncoder().encode("it's"))).toBe(`b"it's"`);
  });
  test("exception repr", () => {
    expect(pyExceptionRepr(new TypeError("x"))).toBe("TypeError('x')");
    expect(pyExceptionRepr(new Error(""))).toBe("Error()");
  });
});

describe("Python JSON decode errors", () => {
  test.each([
    ["", 0, "Expecting value"],
    ["  x", 2, "Expecting value"],
    ['{"a" 1}', 5, "Expecting ':' delimiter"],
    ["[1 2]", 3, "Expecting ',' delimiter"],
    ['{"a": 1} x', 9, "Extra data"],
    ['"abc', 0, "Unterminated string starting at"],
    ["{1: 2}", 1, "Expecting property name enclosed in double quotes"],
  ])("%j → %i %s", (text, pos, msg) => {
    expect(pythonJsonError(text)).toEqual({ pos, msg });
  });
  test("valid JSON has no error; very deep nesting does not crash", () => {
    expect(pythonJsonError('{"a": [1, 2.5e3, "x", null, true]}')).toBeUndefined();
    expect(pythonJsonError("[".repeat(200_000))).toEqual(expect.objectContaining({ msg: expect.any(String) }));
  });
});

describe("ports", () => {
  test("range from config excludes the head port and claimed ports", () => {
    const r = portRangeFromConfig({ port_range_low: 100, port_range_high: 200, disallowed_ports: [150], head_server: { port: 11000 } });
    expect(r).toEqual({ low: 100, high: 200, disallowed: new Set([150, 11000]) });
  });
  test("binding retries taken candidates and fails with upstream's message after 50", () => {
    const taken = new Set<number>();
    const got = bindInRange({ low: 1, high: 3, disallowed: new Set([2]) }, (p) => {
      if (taken.size === 0) {
        taken.add(p);
        throw Object.assign(new Error("in use"), { code: "EADDRINUSE" });
      }
      return p;
    });
    expect([1, 3]).toContain(got.port);
    expect(taken.has(got.port)).toBe(false);
    const err = (() => {
      try {
        bindInRange({ low: 5, high: 6, disallowed: new Set([9]) }, () => {
          throw Object.assign(new Error("x"), { code: "EADDRINUSE" });
        });
      } catch (e) {
        return e as RuntimeError;
      }
    })()!;
    expect(err).toBeInstanceOf(RuntimeError);
    expect(err.message).toBe("Unable to find an open port that doesn't conflict with disallowed ports [9] after 50 attempts");
  });
});

describe("proxy headers (D18)", () => {
  const bad = (allow: unknown) => {
    try {
      proxySettingsFromConfig({ uvicorn_proxy_headers: true, uvicorn_forwarded_allow_ips: allow });
      return undefined;
    } catch (e) {
      return (e as ConfigError).message;
    }
  };
  test("enabling requires a non-empty allow-list", () => {
    expect(bad([])).toContain("requires a non-empty uvicorn_forwarded_allow_ips");
    expect(bad(undefined)).toContain("requires a non-empty");
  });
  test("wildcards, prefix-0 networks, IPv6 ranges covering all mapped IPv4, and non-addresses are refused", () => {
    for (const e of ["*", "0.0.0.0/0", "::/0", "::/64", "::ffff:0:0/96", "not-an-ip", "10.0.0.1/33"]) expect(bad([e])).toContain(`entry '${e}' is not allowed`);
    expect(bad(["10.0.0.0/8", "::1", "fd00::/8"])).toBeUndefined();
    expect(proxySettingsFromConfig({ uvicorn_proxy_headers: false, uvicorn_forwarded_allow_ips: ["*"] }).enabled).toBe(false);
  });
  test("addresses parse, including IPv4-mapped IPv6 peers", () => {
    expect(parseAddress("::ffff:127.0.0.1")).toEqual({ v6: false, value: 0x7f000001n });
    expect(parseAddress("::1")).toEqual({ v6: true, value: 1n });
    expect(parseAddress("1.2.3")).toBeUndefined();
  });
  test("forwarded client from a trusted proxy chain; scheme from X-Forwarded-Proto", () => {
    const s = proxySettingsFromConfig({ uvicorn_proxy_headers: true, uvicorn_forwarded_allow_ips: ["10.0.0.0/8"] });
    const req = new Request("http://x/", { headers: { "x-forwarded-for": "203.0.113.7, 10.1.2.3", "x-forwarded-proto": "https" } });
    expect(clientOf(req, "::ffff:10.0.0.1", s)).toEqual({ address: "203.0.113.7", scheme: "https" });
    expect(clientOf(req, "192.168.1.1", s)).toEqual({ address: "192.168.1.1", scheme: "http" });
  });
});

describe("rollout ids", () => {
  test("from _ng_rollout_id, else task-rollout with -a<attempt> after the first attempt", () => {
    expect(rolloutIdFromBody({ _ng_rollout_id: "abc" })).toBe("abc");
    expect(rolloutIdFromBody({ _ng_task_index: 3, _ng_rollout_index: 0 })).toBe("3-0");
    expect(rolloutIdFromBody({ _ng_task_index: 3, _ng_rollout_index: 0, _ng_attempt_index: 1 })).toBe("3-0-a1");
    expect(rolloutIdFromBody({ _ng_rollout_id: "../x" })).toBeUndefined();
    expect(rolloutIdFromBody({})).toBeUndefined();
  });
});
