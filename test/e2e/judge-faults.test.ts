/**
 * Judge faults end to end: `gym eval run` on equivalence_llm_judge whose judge is an openai_model
 * in front of a local OpenAI-style endpoint. A 500 or an invalid-JSON answer makes the row a typed
 * `judge_failed` failure (failures file, out of the metrics); prose without a label is an ordinary
 * wrong answer; the run completes; `--resume` re-runs only the failed rows.
 * (A judge that times out is covered over a real socket in test/components/equivalence-llm-judge.test.ts:
 * here every hop shares one deadline, so the outer hop would time out first.)
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

let healthy = false;
/** The row's gold answer in a judge prompt (the template's own few-shot examples come first). */
const goldOf = (prompt: string) => /GOLD:\n(\S+)/.exec(prompt.slice(prompt.lastIndexOf("===== Inputs =====")))?.[1] ?? "";
const prompts: string[] = [];
const endpoint = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    if (req.method !== "POST") return Response.json({ object: "list", data: [{ id: "judge", object: "model" }] });
    const body = (await req.json()) as { input: { content: string }[] };
    const prompt = body.input.at(-1)!.content;
    prompts.push(prompt);
    const gold = goldOf(prompt);
    if (!healthy && gold === "e500") return new Response("upstream exploded", { status: 500 });
    if (!healthy && gold === "badjson") return new Response("<html>bad gateway</html>", { status: 200, headers: { "content-type": "text/html" } });
    const text = gold === "prose" ? "They look about the same to me." : "[[A=B]] they are equivalent";
    return Response.json({
      id: "resp_j", created_at: 1, model: "judge", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], status: "completed",
      output: [{ id: "msg_j", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
    });
  },
});

describe("judge faults in a run", () => {
  test("500 and invalid JSON → judge_failed rows, prose → wrong answer; --resume retries only the failed rows", async () => {
    await using dir = await tempDir();
    const input = join(dir.path, "in.jsonl");
    const golds = ["ok", "e500", "prose", "badjson", "ok"];
    writeFileSync(input, golds.map((g, i) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: `question ${i}?` }] }, expected_answer: g })).join("\n") + "\n");
    const out = join(dir.path, "out", "r.jsonl");
    const args = [
      "eval", "run", "--resources-server", "equivalence_llm_judge", "--model-type", "scripted_model", "+head_server.port=0",
      `equivalence_llm_judge_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${input}}]`,
      "--split", "validation", "-o", out, "--concurrency", "2",
      `++judge_model={responses_api_models: {openai_model: {entrypoint: app.py, openai_base_url: "http://127.0.0.1:${endpoint.port}/v1", openai_api_key: dummy, openai_model: judge}}}`,
      "++equivalence_llm_judge.resources_servers.equivalence_llm_judge.judge_model_server.name=judge_model",
    ];
    healthy = false;
    const first = await runGym(args, { cwd: dir.path });
    expect(first.stderr).toContain("Finished rollout collection!");
    // The end-of-run summary names why: the judge's error, not an empty message.
    expect(first.stderr).toMatch(/first error of each type:\n {2}verifier: \S/);
    const ok = readJsonl(out);

    const failed = readJsonl(out.replace(/\.jsonl$/, "_failures.jsonl"));
    expect(ok.map((r) => r._ng_task_index).sort()).toEqual([0, 2, 4]);
    expect(ok.find((r) => r._ng_task_index === 2)!.reward).toBe(0); // prose: a wrong answer, not a failure
    expect(ok.find((r) => r._ng_task_index === 0)!.reward).toBe(1);
    expect(failed.map((r) => r._ng_task_index).sort()).toEqual([1, 3]);
    for (const f of failed) {
      expect(f._ng_failure_class).toBe("judge_failed");
      expect(f._ng_failure_category).toBe("verifier");
      expect(String(f._ng_failure_judge_error)).not.toBe("");
    }
    // The aggregate metrics count only the three scored rows.
    const agg = JSON.parse(await Bun.file(out.replace(/\.jsonl$/, "_aggregate_metrics.json")).text());
    expect(agg[0].agent_metrics["mean/reward"]).toBeCloseTo(2 / 3, 10);

    healthy = true;
    prompts.length = 0;
    const again = await runGym([...args, "--resume"], { cwd: dir.path });
    expect(again.stderr).toContain("Finished rollout collection!");
    expect(prompts.map(goldOf).sort()).toEqual(["badjson", "e500"]);
    const all = readJsonl(out);
    expect(all.map((r) => r._ng_task_index).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(all.filter((r) => r._ng_task_index === 1 || r._ng_task_index === 3).every((r) => r.reward === 1)).toBe(true);
  }, 120_000);
});
