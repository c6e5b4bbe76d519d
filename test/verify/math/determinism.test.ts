// Verdicts never depend on time or load (D40): the same vector in-process three times, and in a fresh
// process while two CPU-hog processes compete for the cores.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { allVerdicts } from "./_verdicts.ts";

test("verdicts identical across 3 runs and under 2 CPU hogs", async () => {
  const first = await allVerdicts();
  expect(await allVerdicts()).toEqual(first);
  expect(await allVerdicts()).toEqual(first);
  const hogs = [0, 1].map(() => Bun.spawn([process.execPath, "-e", "for(;;){}"], { stdout: "ignore", stderr: "ignore" }));
  try {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "_verdicts.ts")], { stdout: "pipe", stderr: "pipe" });
    const [text, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(text)).toEqual(first);
  } finally {
    for (const h of hogs) h.kill();
    await Promise.all(hogs.map((h) => h.exited));
  }
  // The symbolic pairs decide as mathematics says (the last nine entries).
  expect(first.slice(-9)).toEqual([1, 1, 1, 1, 1, 1, 0, 1, 1]);
}, 120_000);
