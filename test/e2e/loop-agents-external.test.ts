/**
 * The ported loop agents in a real `gym eval run`: upstream's own configs from an upstream-shaped
 * checkout (`--search-dir`), the agent built in, the resources server external (a stdlib Python
 * stand-in speaking the protocol, launched by gym as upstream's server would be), the policy the
 * offline scripted_model. A verify that fails for one row is a typed failure; the run completes.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { writeTree } from "../config/_write.ts";

setDefaultTimeout(120_000);
const FIX = join(import.meta.dir, "..", "fixtures");
const SCRIPTED = "This is a scripted answer from scripted_model.";

/** An upstream-shaped checkout with one resources server: its config (unchanged), the stand-in app.py and example rows. */
function checkout(root: string, server: string, configFile: string, rows: object[]): void {
  writeTree(root, {
    [`resources_servers/${server}/configs/${configFile}`]: readFileSync(join(FIX, "upstream-agent-configs", configFile), "utf8"),
    [`resources_servers/${server}/data/example.jsonl`]: rows.map((r) => JSON.stringify(r)).join("\n") + "\n",
  });
  copyFileSync(join(FIX, "loop-agents", "fake_resources_server.py"), join(root, "resources_servers", server, "app.py"));
}

describe("loop agents against an external resources server", () => {
  test("critpt_agent: two turns per row through upstream's critpt.yaml; a failing verify is a typed failure", async () => {
    await using gym = await tempDir();
    await using work = await tempDir();
    checkout(gym.path, "critpt", "critpt.yaml", [
      { responses_create_params: { input: [{ role: "user", content: "Compute x." }] }, problem_id: "p1", problem: "Compute x.", code_template: "def answer():\n    return ???", expect: SCRIPTED, uuid: "p1" },
      { responses_create_params: { input: [{ role: "user", content: "Compute y." }] }, problem_id: "p2", problem: "Compute y.", code_template: "def answer():\n    return ???", expect: "never said", uuid: "p2" },
      { responses_create_params: { input: [{ role: "user", content: "Compute z." }] }, problem_id: "p3", problem: "Compute z.", code_template: "def answer():\n    return ???", expect: "FAIL_VERIFY", uuid: "p3" },
    ]);
    const r = await runGym(["eval", "run", "--config", join(gym.path, "resources_servers/critpt/configs/critpt.yaml"), "--search-dir", gym.path, "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0"], { cwd: work.path });
    expect(r.code).toBe(0);
    const rows = readJsonl(join(work.path, "out", "r.jsonl"));
    expect(rows.map((x) => [x.problem_id, x.reward]).sort()).toEqual([["p1", 1.0], ["p2", 0.0]]);
    // The scored answer is turn 2's; its request carried turn 1's answer and the filled template.
    for (const x of rows) expect(x.response.output.at(-1).content[0].text).toBe(SCRIPTED);
    const failures = readJsonl(join(work.path, "out", "r_failures.jsonl"));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ _ng_task_index: 2, _ng_failure_class: "agent_run_error", _ng_failure_type: "ClientResponseError", _ng_failure_http_status: 500 });
    expect(JSON.stringify(failures[0])).toContain("the scoring API is down");
    expect(r.stderr).not.toContain("Traceback");
  });

  test("finance_agent: upstream's finance_sec_search.yaml profile, the done tool ends the loop", async () => {
    await using gym = await tempDir();
    await using work = await tempDir();
    const tool = { type: "function", name: "submit_final_result", description: "Submit the answer", parameters: { type: "object", properties: { final_result: { type: "string" } }, required: ["final_result"] }, strict: false };
    checkout(gym.path, "finance_sec_search", "finance_sec_search.yaml", [
      { responses_create_params: { input: [{ role: "user", content: "What was revenue?" }], tools: [tool] }, expect: "", question_id: "q1" },
      { responses_create_params: { input: [{ role: "user", content: "What was profit?" }] }, expect: "never said", question_id: "q2" },
    ]);
    const r = await runGym(["eval", "run", "--config", join(gym.path, "resources_servers/finance_sec_search/configs/finance_sec_search.yaml"), "--search-dir", gym.path, "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0"], { cwd: work.path });
    expect(r.code).toBe(0);
    const rows = new Map(readJsonl(join(work.path, "out", "r.jsonl")).map((x) => [x.question_id, x]));
    const q1 = rows.get("q1")!;
    expect(q1.reward).toBe(1.0);
    expect(q1.response.metadata).toMatchObject({ stop_reason: "done_tool", steps: "1" });
    // No tools offered: prose every turn, nudged with "Continue." until the shipped max_steps (50).
    const q2 = rows.get("q2")!;
    expect(q2.reward).toBe(0.0);
    expect(q2.response.metadata).toMatchObject({ stop_reason: "max_turns", steps: "50" });
    expect(q2.response.output.filter((o: any) => o.role === "user").every((o: any) => o.content === "Continue.")).toBe(true);
  });
});
