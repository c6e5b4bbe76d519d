import { describe, expect, test } from "bun:test";
import { compileRoutes } from "../../../src/runtime/http/router.ts";
import type { Route } from "../../../src/runtime/http/http-types.ts";

const route = (method: string, path: string): Route => ({ method, path, handler: () => path }) as Route;

describe("compileRoutes", () => {
  test("literal routes match exactly; parameters decode; 405 lists the methods; misses are none", () => {
    const match = compileRoutes([route("POST", "/verify"), route("GET", "/items/:id"), route("GET", "/verify")]);
    const hit = match("POST", "/verify");
    expect(hit.kind === "found" && hit.route.path).toBe("/verify");
    const get = match("GET", "/verify");
    expect(get.kind === "found" && get.route.method).toBe("GET");
    const item = match("GET", "/items/a%20b");
    expect(item.kind === "found" && item.params).toEqual({ id: "a b" });
    expect(match("DELETE", "/verify")).toEqual({ kind: "method", allowed: ["POST", "GET"] });
    expect(match("POST", "/nope")).toEqual({ kind: "none" });
  });

  test("an earlier parameter route still wins over a later literal route of the same depth", () => {
    const match = compileRoutes([route("POST", "/:tool"), route("POST", "/verify"), route("POST", "/a/b")]);
    const verify = match("POST", "/verify");
    expect(verify.kind === "found" && [verify.route.path, verify.params]).toEqual(["/:tool", { tool: "verify" }]);
    const deeper = match("POST", "/a/b");
    expect(deeper.kind === "found" && deeper.route.path).toBe("/a/b");
  });

  test("each match gets its own params object", () => {
    const match = compileRoutes([route("POST", "/verify")]);
    const a = match("POST", "/verify");
    const b = match("POST", "/verify");
    if (a.kind !== "found" || b.kind !== "found") throw new Error("expected matches");
    a.params.x = "1";
    expect(b.params).toEqual({});
  });
});
