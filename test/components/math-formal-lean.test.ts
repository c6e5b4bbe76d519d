/**
 * math_formal_lean over real sockets with a local HTTP server speaking the NeMo-Skills sandbox's
 * `POST /execute` (the request upstream's Lean4SandboxClient sends, the `{process_status, stdout,
 * stderr}` it reads): upstream's tests/test_app.py verify cases as data, the typed failures of a
 * sandbox that is down, hangs or answers garbage, and `gym eval reverify` of upstream's recorded
 * rollouts with the sandbox answering, for each recorded file, the compiler output recorded with it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers", "math_formal_lean");
type Obj = Record<string, any>;

// The local sandbox: answers by generated_code from `byCode`, else the next queued answer; "hang" never answers.
const seen: Obj[] = [];
const queue: (Obj | string)[] = [];
const byCode = new Map<string, Obj>();

const sandbox = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/execute") return new Response("not found", { status: 404 });
    const body = (await req.json()) as Obj;
    seen.push({ contentType: req.headers.get("content-type"), body });
    const a = byCode.get(body.generated_code) ?? queue.shift() ?? { process_status: "completed", stdout: "", stderr: "" };
    if (a === "html") return new Response("<html>oops</html>", { status: 200 });
    return Response.json(a);
  },
});
afterAll(() => sandbox.stop(true));

const resp = (text: string) => ({
  id: "test_response_id", created_at: 1234567890, model: "test_model", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [],
  output: [{ id: "test_msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
});
const req = (text: string, extra: Obj = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Prove True" }] },
  response: resp(text),
  header: "import Mathlib\n\n",
  formal_statement: "theorem test : True := by\n",
  ...extra,
});
const leaf = (extra: Obj = {}) => ({ sandbox_host: "127.0.0.1", sandbox_port: sandbox.port, compilation_timeout: 0.5, ...extra });
const ok = { process_status: "completed", stdout: "", stderr: "" };

describe("math_formal_lean server", () => {
  test("upstream's test_app.py verify cases; the request the sandbox sees", async () => {
    await using s = await startStack([{ name: "mfl", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf() }]);
    const v = async (r: unknown) => (await postJson(`${s.url.mfl}/verify`, r)).json;
    seen.length = 0;
    // [answer, sandbox answer, extra request fields, expected fields]
    const cases: [string, Obj | null, Obj, Obj][] = [
      ["Here's the proof:\n```lean4\ntheorem test : True := by\n  trivial\n```", ok, {}, { reward: 1, proof_status: "completed", needs_correction: false, correction_prompt: null, error_feedback: null, turn_index: 0 }],
      ["```lean4\ntheorem test : True := by\n  wrong_tactic\n```", { process_status: "error", stdout: "", stderr: "type mismatch" }, {}, { reward: 0, proof_status: "error", needs_correction: true }],
      // Upstream scores a sandbox timeout 0; D40 makes it a typed failure instead (no wall clock decides a verdict).
      ["simp", { process_status: "timeout", stdout: "", stderr: "Client timed out" }, {}, { reward: 0, _ng_failure_class: "judge_failed" }],
      ["sorry", { process_status: "completed", stdout: "warning: declaration uses 'sorry'", stderr: "" }, {}, { reward: 0, proof_status: "has_sorry" }],
      ["", null, {}, { reward: 0, proof_status: "empty_generation", predicted_proof: "", compiler_output: null, needs_correction: true, error_feedback: "Empty generation received. Please provide a valid Lean 4 proof." }],
      [" \n\t", null, {}, { reward: 0, proof_status: "empty_generation" }],
      ["wrong_tactic", { process_status: "error", stdout: "some output", stderr: "error: unknown identifier 'wrong_tactic'", extra: 1 }, {}, { compiler_output: { process_status: "error", stdout: "some output", stderr: "error: unknown identifier 'wrong_tactic'" } }],
      ["simp", ok, { turn_index: 1 }, { reward: 1, turn_index: 1, needs_correction: false }],
      ["wrong_tactic", { process_status: "error", stdout: "", stderr: "type mismatch" }, { turn_index: 2 }, { reward: 0, turn_index: 2, needs_correction: true }],
    ];
    for (const [text, answer, extra, want] of cases) {
      const before = seen.length;
      if (answer) queue.push(answer);
      const got = await v(req(text, extra));
      expect(got).toMatchObject(want);
      expect(seen.length - before).toBe(answer ? 1 : 0);
      // The row's own fields come back (extra=allow), informal_prefix/name default to null (a typed failure echoes the request only).
      if (got._ng_failure_class === undefined) expect(got).toMatchObject({ header: "import Mathlib\n\n", formal_statement: "theorem test : True := by\n", informal_prefix: null, name: null });
    }
    expect(seen[0]).toEqual({ contentType: "application/json", body: { generated_code: "import Mathlib\n\ntheorem test : True := by\n  trivial", language: "lean4", timeout: 0.5, max_output_characters: 1000 } });
    // Failure with a structured error: feedback shows the code, the prompt quotes the raw answer.
    queue.push({ process_status: "error", stdout: "", stderr: "/lean4/my_project/file.lean:4:2: error: unknown identifier 'wrong'" });
    const f = await v(req("```lean4\ntheorem test : True := by\n  wrong\n```"));
    expect(f.error_feedback).toContain("  <error>wrong</error>");
    expect(f.error_feedback).toContain("Error Message: unknown identifier 'wrong'");
    expect(f.correction_prompt).toContain("Here is a proof attempt for the following theorem in Lean4.\n\n```lean4\ntheorem test : True := by\n  wrong\n```");
  });

  test("the header and formal statement are assembled around the proof; leaf options change the build", async () => {
    await using s = await startStack([
      { name: "a", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf() },
      { name: "b", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf({ restate_formal_statement: false, extract_code_mode: "first", max_output_characters: 50, refinement_prompt_template: "FIX {proof_attempt} // {error_message}" }) },
    ]);
    seen.length = 0;
    const text = "```lean4\ntheorem test (n : Nat) : n + 0 = n := by\n  simp\n```";
    await postJson(`${s.url.a}/verify`, req(text, { header: "import Mathlib\nimport Aesop\n\n", formal_statement: "theorem test (n : Nat) : n + 0 = n := by\n" }));
    expect(seen[0]!.body.generated_code).toBe("import Mathlib\nimport Aesop\n\ntheorem test (n : Nat) : n + 0 = n := by\n  simp");
    queue.push({ process_status: "failed", stdout: "", stderr: "" });
    const b = (await postJson(`${s.url.b}/verify`, req("```lean4\nA\n```\n```lean4\nB\n```"))).json;
    expect(seen[1]!.body).toMatchObject({ generated_code: "import Mathlib\n\nA", max_output_characters: 50 });
    expect(b.correction_prompt).toBe("FIX ```lean4\nA\n```\n```lean4\nB\n``` // The proof failed but no specific error message was captured.");
  });

  test("a sandbox that is down, hangs or answers garbage is a typed judge_failed row, never a reward", async () => {
    // A sandbox of its own: the circuit breaker these failures open (per host:port) must not touch the shared one.
    let mode: unknown;
    const bad = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(r) {
        if (new URL(r.url).pathname !== "/execute") return new Response("not found", { status: 404 });
        if (mode === "hang") return new Promise<Response>(() => {});
        if (mode === "502") return new Response("bad gateway", { status: 502 });
        if (mode === "html") return new Response("<html>oops</html>", { status: 200 });
        if (mode === "500json") return Response.json({ detail: "boom" }, { status: 500 });
        return Response.json(mode);
      },
    });
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const downPort = gone.port;
    gone.stop(true);
    try {
      await using s = await startStack([
        { name: "up", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf({ sandbox_port: bad.port }) },
        // 127.0.0.2: nothing a later test starts on 127.0.0.1 can reuse this host:port's open breaker.
        { name: "down", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf({ sandbox_host: "127.0.0.2", sandbox_port: downPort }) },
      ]);
      const failed = (got: Obj) => {
        expect(got._ng_failure_class).toBe("judge_failed");
        expect(got._ng_failure_judge_error).toContain("/execute");
        // The model's answer is kept for a later reverify.
        expect(got.response.output[0].content[0].text).toBe("simp");
      };
      for (const m of ["html", "500json", { process_status: "completed" }, [1, 2], { process_status: 1, stdout: "", stderr: "" }, "502", "hang"]) {
        mode = m;
        const r = await postJson(`${s.url.up}/verify`, req("simp"));
        expect(r.status).toBe(200);
        failed(r.json);
        if (m === "hang") expect(r.json._ng_failure_judge_error).toContain("did not answer");
      }
      const down = (await postJson(`${s.url.down}/verify`, req("simp"))).json;
      failed(down);
      expect(down._ng_failure_judge_error).toContain(`127.0.0.2:${downPort}`);
    } finally {
      bad.stop(true);
    }
  }, 60_000);

  test("bad input: a verify body without the task's header / formal_statement is a 422; a bad port is a config error", async () => {
    await using s = await startStack([{ name: "mfl", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf() }]);
    const { header: _h, ...noHeader } = req("simp");
    expect((await postJson(`${s.url.mfl}/verify`, noHeader)).status).toBe(422);
    expect((await postJson(`${s.url.mfl}/verify`, req("simp", { turn_index: "x" }))).status).toBe(422);
    await expect(startStack([{ name: "bad", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf({ sandbox_port: "nope" }) }])).rejects.toThrow("sandbox_port must be a positive number");
  });
});

test("gym eval reverify of upstream's recorded rollouts: the sandbox answers each recorded file with its recorded compiler output", async () => {
  await using dir = await tempDir();
  const lines = (p: string): Obj[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const recs: Obj[] = lines(join(ASSETS, "data", "example_rollouts.jsonl")).map((r, i) => ({ ...r, agent_ref: { name: "math_formal_lean_simple_agent" }, _ng_task_index: i, _ng_rollout_index: 0 }));
  // The recordings hold neither header nor formal_statement: pair each with its example row by prompt.
  const byPrompt = new Map(lines(join(ASSETS, "data", "example.jsonl")).map((r) => [r.responses_create_params.input[0].content, r]));
  const inputs = recs.map((r) => {
    const row = byPrompt.get(r.responses_create_params.input[0].content);
    if (!row) throw new Error(`rollout ${r._ng_task_index} has no example row with its prompt`);
    return { ...row, _ng_task_index: r._ng_task_index, _ng_rollout_index: 0, agent_ref: r.agent_ref };
  });
  byCode.clear();
  for (const r of recs) byCode.set(r.predicted_proof, r.compiler_output);
  // Any file the recordings do not name gets a garbage answer, so a different assembly cannot pass.
  queue.length = 0;
  for (let i = 0; i < 20; i++) queue.push("html");
  const rollouts = join(dir.path, "rollouts.jsonl");
  const inputsPath = join(dir.path, "inputs.jsonl");
  writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(inputsPath, inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym([
    "eval", "reverify", "--force", "--resources-server", "math_formal_lean", "--model-type", "scripted_model", "+head_server.port=0",
    `++math_formal_lean.resources_servers.math_formal_lean.sandbox_port=${sandbox.port}`, "--rollouts", rollouts, "--inputs", inputsPath, "-o", out,
  ], { cwd: dir.path });
  expect(r.stderr).toContain("0 failed");
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  let agree = 0;
  for (const rec of recs) {
    const got = now.get(rec._ng_task_index)!;
    expect([got.reward, got.proof_status, got.predicted_proof, got.compiler_output]).toEqual([rec.reward, rec.proof_status, rec.predicted_proof, rec.compiler_output]);
    agree++;
  }
  byCode.clear();
  queue.length = 0;
  process.stderr.write(`reverify math_formal_lean/example_rollouts.jsonl: ${agree}/${recs.length} rewards, statuses and assembled files as recorded\n`);
  expect(agree).toBe(5);
}, 120_000);

test("math_formal_lean_multi_turn: proof_refinement_agent retries with the server's correction prompt until the sandbox accepts", async () => {
  const texts = ["```lean4\ntheorem test : True := by\n  bad\n```", "```lean4\ntheorem test : True := by\n  trivial\n```"];
  const modelInputs: Obj[] = [];
  const model = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      modelInputs.push(((await r.json()) as Obj).input);
      const text = texts.shift() ?? "none";
      return Response.json({ id: "r", object: "response", created_at: 1, model: "m", output: [{ id: "m1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [] });
    },
  });
  try {
    byCode.clear();
    byCode.set("import Mathlib\n\ntheorem test : True := by\n  bad", { process_status: "error", stdout: "", stderr: "/lean4/my_project/x.lean:4:2: error: unknown tactic" });
    byCode.set("import Mathlib\n\ntheorem test : True := by\n  trivial", ok);
    await using s = await startStack(
      [
        { name: "math_formal_lean", serverType: "resources_servers", impl: "math_formal_lean", leaf: leaf() },
        { name: "agent", serverType: "responses_api_agents", impl: "proof_refinement_agent", leaf: { resources_server: { type: "resources_servers", name: "math_formal_lean" }, model_server: { type: "responses_api_models", name: "policy" }, max_correction_turns: 2, include_all_attempts: true } },
      ],
      { policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } } },
    );
    const { response: _r, ...row } = req("");
    const r = await postJson(`${s.url.agent}/run`, row);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reward: 1, proof_status: "completed", total_turns: 2, turn_index: 1 });
    expect(r.json.all_attempts).toHaveLength(2);
    // The second model call got only the server's correction prompt, quoting the feedback.
    expect(JSON.stringify(modelInputs[1])).toContain("Here is a proof attempt for the following theorem in Lean4.");
    expect(JSON.stringify(modelInputs[1])).toContain("<error>bad</error>");
  } finally {
    byCode.clear();
    model.stop(true);
  }
});
