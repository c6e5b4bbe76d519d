/** `gym model serve scripted_model` as a real child process: prints its URL, answers the openai client, stops on SIGINT. */
import { expect, test } from "bun:test";
import OpenAI from "openai";
import { GYM_MAIN, runGym } from "../helpers/tmp.ts";

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!.trim();
}

test("serves an OpenAI-compatible endpoint until SIGINT", async () => {
  const proc = Bun.spawn([process.execPath, GYM_MAIN, "model", "serve", "scripted_model", "--port", "0", "+model=demo-model"], { stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  try {
    const base = await Promise.race([firstLine(proc.stdout), Bun.sleep(20_000).then(() => "")]);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: base, apiKey: "x", maxRetries: 0, timeout: 10_000 });
    const r = await client.responses.create({ model: "m", input: "hi", tools: [{ type: "function", name: "ping", strict: false, parameters: { type: "object", properties: {} } }] });
    expect(r.model).toBe("demo-model");
    expect(r.output[0]!.type).toBe("function_call");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    proc.kill("SIGKILL");
  }
});

test("unknown model and bad port are usage errors (exit 2)", async () => {
  const bad = await runGym(["model", "serve", "scripted_modle", "--port", "0"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("Did you mean `scripted_model`");
  const port = await runGym(["model", "serve", "scripted_model", "--port", "http"]);
  expect(port.code).toBe(2);
  expect(port.stderr).toContain("--port");
});
