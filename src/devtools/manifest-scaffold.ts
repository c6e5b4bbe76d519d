/**
 * `gym env init --environment | --benchmark NAME` (upstream `environment/scaffold.py`): a
 * manifest-backed workload skeleton — manifest.yaml, config.yaml, README and sample data under
 * `environments/NAME/` or `benchmarks/NAME/` (benchmarks add source data, prompt.yaml and a
 * prepare.py), plus a new scorer under `resources_servers/NAME/` with its verifier fixture unless
 * `--reuse-verifier` names one that already exports a fixture, and the extension point of the
 * profile (a custom agent, or a rollout driver). Non-destructive: an identical rerun writes nothing,
 * and any file that would change aborts the whole write set before anything is written.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { stringify, parse } from "yaml";
import { EnvironmentManifest } from "../config/manifest.ts";
import { check } from "../config/validate.ts";
import { ConfigError } from "../errors.ts";
import type { WorkloadPlan } from "./init-plan.ts";
import { appPy } from "./scaffold-app.ts";

/** A scaffold request that cannot be completed safely (exit 2). */
export class ScaffoldError extends ConfigError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_SCAFFOLD", hint });
    this.name = "ScaffoldError";
  }
}

/** What the scaffold did. */
export interface WorkloadScaffoldResult {
  assetDir: string;
  created: string[];
  existing: string[];
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/;
const PY_KEYWORDS = new Set("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "));
const TODO = "TODO";

interface Reused {
  selector: string;
  configRef: string;
  resourceInstance: string;
  agentInstance: string | null;
}

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function checkName(name: string, pythonModule: boolean): void {
  if (!NAME.test(name) || PY_KEYWORDS.has(name)) throw new ScaffoldError("name must be one lowercase path segment containing letters, digits, '.', '_' or '-'", `got '${name}'`);
  if (pythonModule && !/^[a-z_][a-z0-9_]*$/.test(name)) throw new ScaffoldError("a scaffold that creates Python components requires a lowercase Python identifier", `got '${name}'; use letters, digits and '_'`);
}

function serverEntries(raw: Obj, type: string): [string, string, Obj][] {
  const out: [string, string, Obj][] = [];
  for (const [inst, v] of Object.entries(raw)) {
    const impls = isMap(v) ? v[type] : undefined;
    if (!isMap(impls)) continue;
    for (const [impl, cfg] of Object.entries(impls)) {
      if (!isMap(cfg)) throw new ScaffoldError(`${type} config for '${impl}' is not a mapping`);
      out.push([inst, impl, cfg]);
    }
  }
  return out;
}

/** A reusable verifier: one resources server of that name, no model server, at most one simple_agent on it, and a fixture. */
function resolveReused(selector: string, roots: string[]): Reused {
  if (!NAME.test(selector) || PY_KEYWORDS.has(selector)) throw new ScaffoldError("reuse_verifier must be a canonical resources-server name", `got '${selector}'`);
  const configRef = `resources_servers/${selector}/configs/${selector}.yaml`;
  const candidates = [...new Set(roots.map((r) => join(r, configRef)))];
  const configPath = candidates.find((c) => existsSync(c));
  if (!configPath) throw new ScaffoldError(`reuse_verifier '${selector}' was not found. Looked in:\n${candidates.map((c) => `  - ${c}`).join("\n")}`, "`gym list resources-servers` shows the servers you can reuse");
  let raw: unknown;
  try {
    raw = parse(readFileSync(configPath, "utf8"));
  } catch (e) {
    throw new ScaffoldError(`could not read reused verifier config ${configPath}: ${(e as Error).message}`);
  }
  if (!isMap(raw)) throw new ScaffoldError(`reused verifier config ${configPath} is not a mapping`);
  const resources = serverEntries(raw, "resources_servers");
  if (resources.length !== 1 || resources[0]![1] !== selector) throw new ScaffoldError(`reused verifier '${selector}' config must define exactly one resources-server instance of that type (${configPath})`);
  if (serverEntries(raw, "responses_api_models").length) throw new ScaffoldError(`reused verifier '${selector}' config may not bundle a model server (${configPath})`);
  const [resourceInstance] = resources[0]!;
  const serverDir = dirname(dirname(configPath));
  // gym's form of upstream's VERIFIER_FIXTURE export: the cases file, or a Python entry that declares the fixture.
  const fixture = join(serverDir, "tests", "verifier_cases.jsonl");
  const entry = String(resources[0]![2].entrypoint ?? "app.py");
  const app = join(serverDir, entry);
  const declares = existsSync(app) && /^(?:VERIFIER_FIXTURE\s*[:=]|from\s+\S+\s+import\s+[^\n]*\bVERIFIER_FIXTURE\b)/m.test(readFileSync(app, "utf8"));
  if (!existsSync(fixture) && !declares) throw new ScaffoldError(`reused verifier '${selector}' must declare a VERIFIER_FIXTURE from ${app} or ship ${fixture}`, "a reused scorer brings its own scoring tests; pick one that has them, or scaffold a new scorer (omit --reuse-verifier)");
  const agents = serverEntries(raw, "responses_api_agents");
  if (agents.length > 1 || (agents.length === 1 && agents[0]![1] !== "simple_agent")) throw new ScaffoldError(`reused verifier '${selector}' config may bundle only one simple_agent (${configPath})`);
  let agentInstance: string | null = null;
  if (agents.length === 1) {
    const [inst, , cfg] = agents[0]!;
    const ref = cfg.resources_server;
    if (!isMap(ref) || ref.name !== resourceInstance) throw new ScaffoldError(`reused verifier '${selector}' simple_agent must reference resources instance '${resourceInstance}'`);
    agentInstance = inst;
  }
  return { selector, configRef, resourceInstance, agentInstance };
}

/** manifest.yaml in the contract's field order, unset fields left out. */
function manifestText(m: Obj): string {
  const problems = check(EnvironmentManifest, m);
  if (problems.length) throw new Error(`scaffold manifest is invalid: ${problems.map((p) => `${p.path.join(".")}: ${p.message}`).join("; ")}`);
  return stringify(m, { lineWidth: 0 });
}

function exampleRow(agentInstance: string): string {
  return `${JSON.stringify({ responses_create_params: { input: [{ role: "user", content: "What is 6 x 7? Reply with only the answer." }] }, expected_answer: "42", agent_ref: { type: "responses_api_agents", name: agentInstance } })}\n`;
}

function fixtureCases(): string {
  const response = (text: string) => ({ id: "fixture_response", created_at: 0, model: "fixture", object: "response", output: [{ id: "fixture_message", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] });
  const request = (text: string) => ({ responses_create_params: { input: "What is 6 x 7?" }, response: response(text), expected_answer: "42" });
  return [
    { name: "correct", kind: "full_reward", request: request("42"), expected_reward: 1.0 },
    { name: "incorrect", kind: "zero_reward", request: request("41"), expected_reward: 0.0 },
    { name: "missing response", kind: "malformed", request: { responses_create_params: { input: "missing response" }, expected_answer: "42" }, expected_error: "response" },
  ]
    .map((c) => `${JSON.stringify(c)}\n`)
    .join("");
}

const PREPARE_PY = (name: string) => `"""Prepare the ${name} benchmark: copy the source rows into data/example.jsonl (replace with your own preparation)."""

import json
from pathlib import Path

BENCHMARK_DIR = Path(__file__).parent
SOURCE_PATH = BENCHMARK_DIR / "data" / "source.jsonl"
OUTPUT_PATH = BENCHMARK_DIR / "data" / "example.jsonl"


def prepare(source: Path = SOURCE_PATH, output: Path = OUTPUT_PATH) -> Path:
    output.parent.mkdir(parents=True, exist_ok=True)
    with source.open(encoding="utf-8") as rows, output.open("w", encoding="utf-8") as out:
        for number, line in enumerate(rows, start=1):
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not isinstance(row.get("expected_answer"), str):
                raise ValueError(f"invalid source row {number}")
            out.write(json.dumps({"question": row["question"], "expected_answer": row["expected_answer"]}) + "\\n")
    return output


if __name__ == "__main__":
    prepare()
`;

const PROMPT_YAML = `user: |-
  Answer the question. Return only the final answer.

  {question}
`;

const ROLLOUT_DRIVER_PY = `"""Rollout-collection driver of this workload (integration profile external-rollout-driver).

gym runs its own collection loop; this module is the extension point an upstream (Python) NeMo Gym
install calls through rollout_collection_driver. TODO: replace the delegation with your coordination.
"""

from collections.abc import Mapping
from typing import Any


async def run_rollout_collection(rollout_collection_config: Any, _global_config_dict: Mapping[str, Any]) -> None:
    from nemo_gym.rollout_collection import RolloutCollectionHelper

    await RolloutCollectionHelper().run_from_config(rollout_collection_config)
`;

function agentApp(module: string, profile: string): string {
  const cls = module.split("_").filter(Boolean).map((p) => p[0]!.toUpperCase() + p.slice(1)).join("");
  const run = profile === "external-agent-loop"
    ? `
    async def run(self, request: Request, body: SimpleAgentRunRequest) -> SimpleAgentVerifyResponse:
        # TODO: Replace this fallback with external episode delegation.
        return await super().run(request, body)
`
    : "";
  return `"""${module}_agent: the ${profile} extension point of the ${module} workload (a NeMo Gym Python agent)."""

from fastapi import Request, Response

from nemo_gym.base_responses_api_agent import Body
from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseCreateParamsNonStreaming
from responses_api_agents.simple_agent.app import SimpleAgent, SimpleAgentRunRequest, SimpleAgentVerifyResponse


class ${cls}Agent(SimpleAgent):
    async def responses(self, request: Request, response: Response, body: NeMoGymResponseCreateParamsNonStreaming = Body()) -> NeMoGymResponse:
        # TODO: Implement the ${profile} agent behaviour${profile === "external-agent-loop" ? " (then make this raise NotImplementedError)" : ""}.
        return await super().responses(request, response, body)
${run}

if __name__ == "__main__":
    ${cls}Agent.run_webserver()
`;
}

/** Every file of the workload: absolute path → content. */
function plannedFiles(root: string, plan: WorkloadPlan, reused: Reused | null): { assetDir: string; files: Map<string, string> } {
  const { name, kind, profile } = plan;
  const parent = kind === "benchmark" ? "benchmarks" : "environments";
  const base = `${parent}/${name}`;
  const assetDir = join(root, parent, name);
  const customAgent = profile === "custom-gym-agent-loop" || profile === "external-agent-loop";
  const agentImpl = customAgent ? `${name}_agent` : "simple_agent";
  let agentInstance = `${name}_agent`;
  const resourceImpl = reused ? reused.selector : name;
  const resourceInstance = reused ? reused.resourceInstance : `${name}_resources_server`;
  if (reused && [reused.resourceInstance, reused.agentInstance].includes(agentInstance)) agentInstance = `${name}_catalog_agent`;
  if (reused && [reused.resourceInstance, reused.agentInstance].includes(agentInstance)) throw new ScaffoldError(`name '${name}' collides with instances in reused verifier '${reused.selector}'`);
  const promptPath = kind === "benchmark" ? `${base}/prompt.yaml` : undefined;
  const rolloutDriver = profile === "external-rollout-driver" ? `${parent}.${name}.rollout_driver:run_rollout_collection` : undefined;
  const dataset: Obj = { name, type: kind === "benchmark" ? "benchmark" : "example", jsonl_fpath: `${base}/data/example.jsonl` };
  if (kind === "benchmark") Object.assign(dataset, { prepare_script: `${base}/prepare.py`, prompt_config: promptPath });
  dataset.num_repeats = 1;
  const [low, high] = plan.rewardRange ?? [0, 1];
  const manifest: Obj = {
    name,
    version: "0.1.0",
    kind,
    integration_profile: profile,
    domain: "other",
    description: `${TODO}: Describe the ${name} ${kind}.`,
    modality: "text",
    licensing: "unknown",
    authors: [TODO],
    reward: { range: [low, high], higher_is_better: plan.higherIsBetter ?? true },
    determinism: "unknown",
    resources_server: resourceImpl,
    agent_server: agentImpl,
    datasets: [dataset],
    model_server: "policy_model",
  };
  if (rolloutDriver) manifest.rollout_driver = rolloutDriver;
  if (kind === "benchmark") Object.assign(manifest, { canonical_split: TODO, standard_prompt_config: promptPath });
  manifest.lifecycle = "active";

  const agentConfig: Obj = { resources_server: { type: "resources_servers", name: resourceInstance }, model_server: { type: "responses_api_models", name: "policy_model" }, datasets: [dataset] };
  const agentEntry: Obj = reused?.agentInstance
    ? { _inherit_from: reused.agentInstance, responses_api_agents: { [agentImpl]: agentConfig } }
    : { responses_api_agents: { [agentImpl]: { entrypoint: "app.py", ...agentConfig } } };
  const config: Obj = { config_paths: [reused ? reused.configRef : `resources_servers/${name}/configs/${name}.yaml`], [agentInstance]: agentEntry };
  if (rolloutDriver) config.rollout_collection_driver = rolloutDriver;

  const files = new Map<string, string>();
  const add = (rel: string, text: string) => files.set(join(root, rel), text);
  add(`${base}/__init__.py`, "");
  add(`${base}/manifest.yaml`, manifestText(manifest));
  add(`${base}/config.yaml`, stringify(config, { lineWidth: 0 }));
  add(`${base}/README.md`, `# ${name}\n\n${TODO}: Describe this ${kind} and replace the sample data.\n\n- Integration profile: \`${profile}\`\n- Scorer: \`${reused ? reused.selector : `resources_servers/${name}`}\`\n\nCheck it: \`gym env validate ${name}\`, \`gym env test ${name}\`, then \`gym env publish ${name}\` once the TODOs are gone.\n`);
  if (kind === "benchmark") {
    const source = `${JSON.stringify({ question: "What is 6 x 7?", expected_answer: "42" })}\n`;
    add(`${base}/data/source.jsonl`, source);
    add(`${base}/data/example.jsonl`, source);
    add(`${base}/prompt.yaml`, PROMPT_YAML);
    add(`${base}/prepare.py`, PREPARE_PY(name));
  } else add(`${base}/data/example.jsonl`, exampleRow(agentInstance));
  if (!reused) {
    const rs = `resources_servers/${name}`;
    add(`${rs}/__init__.py`, "");
    add(`${rs}/README.md`, `# ${name} resources server\n\n${TODO}: Document the verifier.\n\ngym runs it as an external server (\`app.py\`, Python standard library only); \`gym env test ${name}\` calls its \`verify(body)\` on the cases of tests/verifier_cases.jsonl.\n`);
    add(`${rs}/app.py`, appPy(name));
    add(`${rs}/configs/${name}.yaml`, stringify({ [resourceInstance]: { resources_servers: { [name]: { entrypoint: "app.py", domain: "other", verified: false } } } }));
    add(`${rs}/requirements.txt`, "# app.py needs only the Python standard library; add your dependencies here.\n");
    add(`${rs}/tests/__init__.py`, "");
    add(`${rs}/tests/verifier_cases.jsonl`, fixtureCases());
  }
  if (customAgent) {
    const ad = `responses_api_agents/${agentImpl}`;
    add(`${ad}/__init__.py`, "");
    add(`${ad}/README.md`, `# ${agentImpl}\n\n${TODO}: Implement the \`${profile}\` agent behavior.${profile === "external-agent-loop" ? " Replace run() with external episode delegation, then make responses() raise NotImplementedError." : ""}\n\nThis is a Python (upstream NeMo Gym) agent: gym runs it as an external server from its own .venv.\n`);
    add(`${ad}/app.py`, agentApp(name, profile));
    add(`${ad}/requirements.txt`, "nemo-gym[dev]\n");
  }
  if (rolloutDriver) add(`${base}/rollout_driver.py`, ROLLOUT_DRIVER_PY);
  return { assetDir, files };
}

/** Refuse targets that pass through a symlink below the scaffold root. */
function checkTarget(root: string, path: string): void {
  let cur = root;
  for (const part of relative(root, path).split("/")) {
    cur = join(cur, part);
    if (existsSync(cur) && lstatSync(cur).isSymbolicLink()) throw new ScaffoldError(`scaffold target traverses symlink ${cur}`);
  }
}

/** Scaffold the workload of `plan` under `root` (the cwd); `roots` are the search roots for a reused verifier. */
export function scaffoldWorkload(plan: WorkloadPlan, opts: { root: string; roots: string[] }): WorkloadScaffoldResult {
  const createsPython = plan.reuseVerifier === undefined || plan.profile !== "custom-gym-verifier";
  checkName(plan.name, createsPython);
  const root = resolve(opts.root);
  if (existsSync(root) && lstatSync(root).isSymbolicLink()) throw new ScaffoldError(`scaffold root must not be a symlink: ${root}`);
  const reused = plan.reuseVerifier !== undefined ? resolveReused(plan.reuseVerifier, [root, ...opts.roots]) : null;
  if (reused && (plan.rewardRange === undefined || plan.higherIsBetter === undefined)) throw new ScaffoldError("reuse_verifier requires reward_range and higher_is_better", "add --reward-range LOW HIGH and --higher-is-better or --lower-is-better");
  if (!reused && (plan.rewardRange !== undefined || plan.higherIsBetter !== undefined)) throw new ScaffoldError("reward_range and higher_is_better are only accepted with reuse_verifier", "a new scorer starts with the range [0, 1], higher is better; edit its manifest to change that");
  const { assetDir, files } = plannedFiles(root, plan, reused);
  const ordered = [...files.keys()].sort();
  const conflicts = new Set<string>();
  const existing: string[] = [];
  for (const path of ordered) {
    checkTarget(root, path);
    for (let d = dirname(path); d !== root && d !== dirname(d); d = dirname(d)) if (existsSync(d) && !lstatSync(d).isDirectory()) conflicts.add(d);
    if (!existsSync(path)) continue;
    if (lstatSync(path).isFile() && readFileSync(path, "utf8") === files.get(path)) existing.push(path);
    else conflicts.add(path);
  }
  if (conflicts.size) throw new ScaffoldError(`Scaffolding would overwrite existing content:\n${[...conflicts].sort().map((p) => `  - ${p}`).join("\n")}`, "move those files away or pick another name; nothing was written");
  const created: string[] = [];
  for (const path of ordered) {
    if (existing.includes(path)) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, files.get(path)!, { flag: "wx" });
    created.push(path);
  }
  return { assetDir, created, existing };
}
