/**
 * genrm_compare over real sockets: genrm_compare → our genrm_model (which turns `metadata` into the
 * response_1/response_2/principle roles) → a loopback endpoint speaking the OpenAI chat API as a
 * GenRM would. Rollouts of one group are held until the group is complete and get rewards relative
 * to it; upstream's tests/test_app.py cases as data; faults and bad input.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { aggregateScores, type PairMeta, type Triple } from "../../src/verify/judge/genrm.ts";
import { postJson, startStack } from "../servers/_stack.ts";

type Obj = Record<string, any>;
/** A candidate's text is "q<N>" (the GenRM scores it N) or a fault marker. */
const scoreOf = (text: string) => Number(/^q(\d)/.exec(text)?.[1] ?? 3);
const calls: { messages: Obj[] }[] = [];
let waiters: { n: number; resolve: () => void }[] = [];
const untilCalls = (n: number) => new Promise<void>((resolve) => (calls.length >= n ? resolve() : waiters.push({ n, resolve })));

const genrmEndpoint = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Obj;
    calls.push({ messages: body.messages });
    for (const w of waiters.filter((w) => calls.length >= w.n)) w.resolve();
    waiters = waiters.filter((w) => calls.length < w.n);
    const r1 = body.messages.find((m: Obj) => m.role === "response_1")?.content ?? "";
    const r2 = body.messages.find((m: Obj) => m.role === "response_2")?.content ?? "";
    if ([r1, r2].includes("e500")) return new Response("GenRM exploded", { status: 500 });
    if ([r1, r2].includes("html")) return new Response("<html>bad gateway</html>", { status: 200, headers: { "content-type": "text/html" } });
    const [a, b] = [scoreOf(r1), scoreOf(r2)];
    const content = [r1, r2].includes("prose") ? "Response 1 reads better to me." : `Let me compare.\n\`\`\`json\n{"score_1": ${a}, "score_2": ${b}, "ranking": ${a > b ? 2 : a < b ? 5 : 3}}\n\`\`\``;
    return Response.json({ id: "c", object: "chat.completion", created: 1, model: "genrm", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  },
});
afterAll(() => genrmEndpoint.stop(true));

const leaf = (extra: Obj = {}) => ({
  genrm_model_server: { type: "responses_api_models", name: "genrm_model" },
  genrm_responses_create_params: { input: [], max_output_tokens: 1024, temperature: 0.6, top_p: 0.95 },
  num_rollouts_per_prompt: 4,
  comparison_strategy: "circular",
  genrm_parse_retries: 1,
  genrm_parse_retry_sleep_s: 0,
  ...extra,
});
const stack = (extra: Obj = {}) =>
  startStack([
    { name: "genrm_model", serverType: "responses_api_models", impl: "genrm_model", leaf: { base_url: `http://127.0.0.1:${genrmEndpoint.port}/v1`, api_key: "dummy", model: "genrm", uses_reasoning_parser: false, supports_principle_role: true } },
    { name: "genrm_compare", serverType: "resources_servers", impl: "genrm_compare", leaf: leaf(extra) },
  ]);
const answer = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
const row = (task: number, text: string, extra: Obj = {}) => ({ responses_create_params: { input: [{ role: "user", content: `prompt ${task}` }] }, response: answer(text), _ng_task_index: task, _ng_rollout_index: 0, ...extra });
const opts = { aggregatorMethod: "simple_tiebreaker", defaultScore: 3, reasoningBonus: 0, answerBonus: 0, topPercentile: 0.2, reasoningLengthPenalty: 0, answerLengthPenalty: 0, stylePenalty: 0 };
/** The rewards upstream's aggregation gives a group whose GenRM scores each text by its number. */
const expected = (texts: string[], pairs: [number, number][]) => {
  const results = pairs.map(([i, j]) => {
    const [a, b] = [scoreOf(texts[i]!), scoreOf(texts[j]!)];
    return [a, b, a > b ? 2 : a < b ? 5 : 3] as Triple;
  });
  return aggregateScores(results, pairs.map(([i, j]) => [i, j, 0] as PairMeta), texts.map(answer), opts).rewards;
};

describe("genrm_compare /verify over a rollout group", () => {
  test("members wait for the group; each arrival is compared with those present; rewards are relative", async () => {
    await using s = await stack();
    const texts = ["q5 best", "q2 weak", "q4 good", "q4 also good"];
    const start = calls.length;
    const settled: number[] = [];
    const first = texts.slice(0, 3).map((t, k) => postJson(`${s.url.genrm_compare}/verify`, row(0, t)).then((r) => (settled.push(k), r)));
    // Three arrivals of a circular group of 4 start the comparisons (0,1) and (1,2) only …
    await untilCalls(start + 2);
    await Bun.sleep(50); // give a wrongly early answer a chance to arrive before we look
    expect(settled).toEqual([]);
    // Concurrent requests may arrive in any order: the GenRM's calls tell the arrival order (pair (0,1), then (1,2)).
    const text = (c: { messages: Obj[] }, role: string) => c.messages.find((m) => m.role === role)!.content as string;
    const order = [text(calls[start]!, "response_1"), text(calls[start]!, "response_2"), text(calls[start + 1]!, "response_2")];
    expect(text(calls[start + 1]!, "response_1")).toBe(order[1]!);
    expect([...order].sort()).toEqual(texts.slice(0, 3).sort());
    // … the fourth brings (2,3) and (3,0), and completes the group.
    const last = postJson(`${s.url.genrm_compare}/verify`, row(0, texts[3]!));
    const all = await Promise.all([...first, last]);
    expect(calls.length - start).toBe(4);
    const arrived = [...order, texts[3]!];
    const want = expected(arrived, [[0, 1], [1, 2], [2, 3], [3, 0]]);
    all.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.json.response.output[0].content[0].text).toBe(texts[i]);
      expect(r.json.reward).toBeCloseTo(want[arrived.indexOf(texts[i]!)]!, 12);
    });
    expect(all[0]!.json.reward).toBeGreaterThan(all[1]!.json.reward);
    // The GenRM saw the conversation plus the two answers as its own roles.
    const roles = calls.slice(start).map((c) => c.messages.map((m) => m.role));
    for (const r of roles) expect(r).toEqual(["user", "response_1", "response_2"]);
  });

  test("groups are keyed by task: two tasks' rollouts interleave without mixing", async () => {
    await using s = await stack({ num_rollouts_per_prompt: 2 });
    const rs = await Promise.all([row(1, "q5"), row(2, "q1"), row(1, "q1"), row(2, "q5")].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    // circular over 2: (0,1) and (1,0), both compare the same two answers.
    expect(rs.map((r) => r.json.reward)).toEqual([5, 1, 1, 5]);
    // Without a task index, prompt_id separates rows whose prompt text is the same.
    const noTask = (id: string, text: string) => { const { _ng_task_index: _t, _ng_rollout_index: _r, ...rest } = row(9, text, { prompt_id: id }); return rest; };
    const ps = await Promise.all([noTask("a", "q5"), noTask("b", "q2"), noTask("a", "q1"), noTask("b", "q4")].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    expect(ps.map((r) => r.json.reward)).toEqual([5, 2, 1, 4]);
  });

  test("num_rollouts_per_prompt 1 gives default_score without calling the GenRM", async () => {
    await using s = await stack({ num_rollouts_per_prompt: 1, default_score: 2.5 });
    const before = calls.length;
    const r = await postJson(`${s.url.genrm_compare}/verify`, row(3, "q5"));
    expect(r.json.reward).toBe(2.5);
    expect(calls.length).toBe(before);
  });

  test("principle goes in metadata (→ the principle role) when use_principle is on, default text otherwise", async () => {
    await using s = await stack({ num_rollouts_per_prompt: 2, use_principle: true });
    const before = calls.length;
    await Promise.all([row(4, "q4", { principle: "Be concise." }), row(4, "q3", { principle: "Be concise." })].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    const c = calls[before]!;
    expect(c.messages.map((m) => m.role)).toEqual(["user", "principle", "response_1", "response_2"]);
    expect(c.messages[1]!.content).toBe("Be concise.");
    await Promise.all([row(5, "q4"), row(5, "q3")].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    expect(calls.at(-1)!.messages[1]!.content).toStartWith("Please act as an impartial judge");
  });

  test.each([
    ["HTTP 500 from the GenRM", "e500"],
    ["a body that is not JSON", "html"],
  ])("%s fails the whole group as judge_failed (never neutral rewards)", async (_n, fault) => {
    await using s = await stack({ num_rollouts_per_prompt: 2 });
    const rs = await Promise.all([row(6, "q4"), row(6, fault)].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    for (const r of rs) {
      expect(r.status).toBe(200);
      expect(r.json._ng_failure_class).toBe("judge_failed");
      expect(r.json._ng_failure_judge_error).toContain("genrm_model");
    }
  });

  test("prose without scores is retried genrm_parse_retries times, then scored neutral", async () => {
    await using s = await stack({ num_rollouts_per_prompt: 2, default_score: 3, default_ranking: 3.5 });
    const before = calls.length;
    const rs = await Promise.all([row(7, "q5"), row(7, "prose")].map((b) => postJson(`${s.url.genrm_compare}/verify`, b)));
    expect(calls.length - before).toBe(4); // 2 pairs × (1 + 1 retry)
    expect(rs.map((r) => r.json.reward)).toEqual([3, 3]);
  });

  test("bad input: a non-integer task index is a 422", async () => {
    await using s = await stack();
    const r = await postJson(`${s.url.genrm_compare}/verify`, { ...row(0, "q1"), _ng_task_index: "zero" });
    expect(r.status).toBe(422);
  });
});

describe("genrm_compare /compare (batch)", () => {
  test("all_pairs over 3 responses: rewards, per-pair results in order, metrics", async () => {
    await using s = await stack({ comparison_strategy: "all_pairs" });
    const texts = ["q2", "q5", "q3"];
    const r = await postJson(`${s.url.genrm_compare}/compare`, { conversation_history: [{ role: "user", content: "What is 2+2?" }], response_objs: texts.map(answer) });
    expect(r.status).toBe(200);
    const want = expected(texts, [[0, 1], [0, 2], [1, 2]]);
    r.json.rewards.forEach((v: number, i: number) => expect(v).toBeCloseTo(want[i]!, 12));
    expect(r.json.comparison_results.map((c: Obj) => [c.response_i, c.response_j, c.judge_idx, c.score_1, c.score_2])).toEqual([[0, 1, 0, 2, 5], [0, 2, 0, 2, 3], [1, 2, 0, 5, 3]]);
    expect(r.json.metrics.tiebreak_usage_rate).toBe(0);
  });

  test("one response → [default_score] with no results (upstream test_single_response_returns_default)", async () => {
    await using s = await stack({ default_score: 3 });
    const r = await postJson(`${s.url.genrm_compare}/compare`, { conversation_history: [], response_objs: [answer("q1")] });
    expect(r.json).toEqual({ rewards: [3], comparison_results: null, metrics: null });
  });

  test("a failing GenRM is a 502 naming the model server; a bad body is a 422", async () => {
    await using s = await stack();
    const r = await postJson(`${s.url.genrm_compare}/compare`, { conversation_history: [{ role: "user", content: "x" }], response_objs: [answer("q1"), answer("e500")] });
    expect(r.status).toBe(502);
    expect(r.text).toContain("genrm_model");
    expect((await postJson(`${s.url.genrm_compare}/compare`, { response_objs: "nope" })).status).toBe(422);
  });
});

describe("genrm_compare config", () => {
  test.each([
    ["comparison_strategy: random", { comparison_strategy: "random" }, "comparison_strategy"],
    ["aggregator_method: elo", { aggregator_method: "elo" }, "aggregator_method"],
    ["num_judges_per_comparison: 0", { num_judges_per_comparison: 0 }, "num_judges_per_comparison"],
  ])("%s is a config error at start", async (_n, extra, key) => {
    await expect(stack(extra)).rejects.toThrow(key);
  });
});
