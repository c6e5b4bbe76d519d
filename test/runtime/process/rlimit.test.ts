import { expect, test, setDefaultTimeout } from "bun:test";
import { join } from "node:path";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

test("a server process raises a low soft open-files limit toward 65535 (capped by the hard limit)", async () => {
  const mod = join(import.meta.dir, "..", "..", "..", "src", "runtime", "process", "rlimit.ts");
  const script = `import { raiseFdLimit } from ${JSON.stringify(mod)}; console.log(JSON.stringify(raiseFdLimit()));`;
  const proc = Bun.spawn(["bash", "-c", `ulimit -Sn 256 && exec "${process.execPath}" -e '${script}'`], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  const r = JSON.parse(out) as { soft: number; hard: number };
  expect(r.soft).toBe(Math.min(65535, r.hard));
  expect(r.soft).toBeGreaterThan(256);
});
