/**
 * A client for the NeMo-Skills sandbox's `POST /execute` (the Lean / code execution container that
 * math_formal_lean and competitive_coding_challenges grade with). A sandbox that cannot be reached,
 * misses the deadline or answers something that is not an execution result raises a JudgeError:
 * the row becomes a typed `judge_failed` (verifier) failure that keeps the model's answer for a
 * later reverify, never a reward 0 the policy did not earn (D21, D40).
 */
import type { HttpClient } from "../../runtime/http/client.ts";
import { answerText } from "../../runtime/http/http-client.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";

/** Where the sandbox listens (upstream's `sandbox_host` / `sandbox_port`). */
export interface SandboxAddress {
  host: string;
  port: number;
}

/** `http://host:port/execute` (IPv6 literals bracketed). */
export function executeUrl(a: SandboxAddress): string {
  const host = a.host.includes(":") && !a.host.startsWith("[") ? `[${a.host}]` : a.host;
  return `http://${host}:${a.port}/execute`;
}

/** The sandbox's answer to one `/execute` call, its three string fields checked. */
export interface ExecuteResult {
  process_status: string;
  stdout: string;
  stderr: string;
  [k: string]: unknown;
}

/** POST `request` to the sandbox's `/execute` within `deadlineSeconds`; a usable result or a JudgeError naming the URL. */
export async function sandboxExecute(http: HttpClient, address: SandboxAddress, request: Record<string, unknown>, deadlineSeconds: number): Promise<ExecuteResult> {
  const url = executeUrl(address);
  let status: number;
  let text: string;
  try {
    // Connect retries stop at the same deadline: a down sandbox fails the row in bounded time.
    const a = await http.exchange(url, { method: "POST", json: request, kind: "other", timeoutSeconds: deadlineSeconds, retryBudgetSeconds: deadlineSeconds });
    status = a.status;
    text = answerText(a);
  } catch (e) {
    throw new JudgeError(`sandbox ${url} did not answer: ${e instanceof Error ? e.message : String(e)} (is the NeMo-Skills sandbox running? set sandbox_host / sandbox_port)`);
  }
  if (status < 200 || status >= 300) throw new JudgeError(`sandbox ${url} answered HTTP ${status}: ${text.slice(0, 300)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new JudgeError(`sandbox ${url} answered non-JSON: ${text.slice(0, 300)}`);
  }
  const r = body as Record<string, unknown> | null;
  if (!r || typeof r !== "object" || Array.isArray(r) || typeof r.process_status !== "string" || typeof r.stdout !== "string" || typeof r.stderr !== "string") {
    throw new JudgeError(`sandbox ${url} answered without string process_status/stdout/stderr: ${text.slice(0, 300)}`);
  }
  return r as ExecuteResult;
}
