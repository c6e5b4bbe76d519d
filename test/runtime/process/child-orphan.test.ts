/**
 * A server child whose supervisor is SIGKILLed during start-up (after the child bound its port, before
 * the final config arrived) exits on its own: it noticed the supervisor gone and stops waiting for a
 * config that can never come. Before the fix such children stayed behind as orphans, spinning on the
 * closed IPC channel (found as 8 leftovers of the "kill -9 at random points" test).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../../helpers/tmp.ts";

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "main.ts");
const DICT = `rs:\n  resources_servers:\n    example_single_tool_call:\n      entrypoint: app.py\n      domain: agent\n      host: "127.0.0.1"\n`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("a child whose supervisor dies before sending the final config exits by itself", async () => {
  await using dir = await tempDir();
  // A stand-in supervisor: starts the child with IPC, prints its pid once the child reports `bound`, then waits forever.
  const parentScript = join(dir.path, "parent.ts");
  await Bun.write(
    parentScript,
    `const child = Bun.spawn([process.execPath, ${JSON.stringify(MAIN)}, "internal", "serve"], {
  env: { ...process.env, NEMO_GYM_CONFIG_PATH: "rs", NEMO_GYM_CONFIG_DICT: ${JSON.stringify(DICT)} },
  stdio: ["ignore", "ignore", "ignore"],
  ipc(m) { if (m && m.type === "bound") console.log(String(child.pid)); },
});
setInterval(() => {}, 1000);
`,
  );
  const parent = Bun.spawn([process.execPath, parentScript], { stdout: "pipe", stderr: "ignore" });
  const reader = parent.stdout.getReader();
  const { value } = await reader.read();
  const childPid = Number(new TextDecoder().decode(value).trim());
  expect(childPid).toBeGreaterThan(0);
  expect(alive(childPid)).toBe(true);
  parent.kill("SIGKILL");
  await parent.exited;
  const deadline = Date.now() + 15_000;
  while (alive(childPid) && Date.now() < deadline) await Bun.sleep(100);
  const survived = alive(childPid);
  if (survived) process.kill(childPid, "SIGKILL"); // never leave it behind, even when the test fails
  expect(survived).toBe(false);
}, 30_000);
