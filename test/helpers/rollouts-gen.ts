/** Writes synthetic rollouts files of any size for viewer tests and benchmarks (deterministic). */
import { writeFileSync } from "node:fs";

/** One synthetic rollout row: a tool call, its output, an answer, a reward and verify extras. */
export function fakeRollout(task: number, rollout: number, opts: { reward?: number; agent?: string; answer?: string } = {}): Record<string, unknown> {
  const reward = opts.reward ?? ((task * 7 + rollout) % 3 === 0 ? 1 : 0);
  return {
    responses_create_params: { input: [{ role: "user", content: `Task ${task}: what is the weather in city-${task}?` }], tools: [{ type: "function", name: "get_weather" }] },
    response: {
      id: `resp_${task}_${rollout}`,
      output: [
        { type: "reasoning", id: `rs_${task}`, summary: [{ type: "summary_text", text: `thinking about city-${task}` }] },
        { type: "function_call", call_id: `call_${task}_${rollout}`, name: "get_weather", arguments: JSON.stringify({ city: `city-${task}` }) },
        { type: "function_call_output", call_id: `call_${task}_${rollout}`, output: JSON.stringify({ city: `city-${task}`, weather_description: "cold" }) },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: opts.answer ?? `It is cold in city-${task}. Answer ${rollout}` }] },
      ],
      usage: { input_tokens: 50 + (task % 40), output_tokens: 10 + (rollout % 7), total_tokens: 60 + (task % 40) + (rollout % 7) },
    },
    reward,
    extracted_answer: `cold-${task}`,
    _ng_task_index: task,
    _ng_rollout_index: rollout,
    agent_ref: { type: "responses_api_agents", name: opts.agent ?? (task % 2 ? "agent_odd" : "agent_even") },
  };
}

/** Write `tasks × repeats` rows to `path`; `rewardOf` overrides the reward of a (task, rollout). */
export function writeRollouts(path: string, tasks: number, repeats: number, rewardOf?: (task: number, rollout: number) => number): void {
  const lines: string[] = [];
  for (let t = 0; t < tasks; t++) for (let r = 0; r < repeats; r++) lines.push(JSON.stringify(fakeRollout(t, r, rewardOf ? { reward: rewardOf(t, r) } : {})));
  writeFileSync(path, `${lines.join("\n")}\n`);
}
