/** Serve-mode `gym eval run` must not fail because another gym holds the head port (parallel runs on one node). */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

test("head port taken: eval run listens elsewhere, warns, and completes", async () => {
  await using dir = await tempDir();
  // Stands in for another environment's head server on the configured head port.
  const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("other gym") });
  try {
    const r = await runGym(
      ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", `+head_server.port=${other.port}`],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`head port ${other.port} is in use`);
    const out = join(dir.path, "out", "r.jsonl");
    expect(existsSync(out)).toBe(true);
    expect(readFileSync(out, "utf8").trim().split("\n").length).toBe(5);
    // The other server was left alone.
    expect(await (await fetch(`http://127.0.0.1:${other.port}/`)).text()).toBe("other gym");
  } finally {
    other.stop(true);
  }
}, 60_000);
