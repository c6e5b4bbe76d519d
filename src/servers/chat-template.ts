/**
 * Client-side chat-template rendering for vllm_model's `use_completions_api` +
 * `render_chat_template` mode (upstream: HF `AutoTokenizer.apply_chat_template(tokenize=False,
 * add_generation_prompt=True, tools=…, **chat_template_kwargs)`). The template comes from a
 * local `tokenizer_config.json` (its `chat_template`) or a `chat_template.jinja` beside it; it
 * is rendered with @huggingface/jinja, the Jinja subset HF maintains for exactly these templates.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { GymError } from "../errors.ts";

type Obj = Record<string, unknown>;

/** A loaded chat template plus the special tokens HF exposes to it (`bos_token`, `eos_token`, …). */
export interface ChatTemplate {
  /** Where the template was read from (for error messages). */
  source: string;
  /** Render a conversation into a prompt string (always with the generation prompt, as upstream). */
  render(messages: Obj[], tools: Obj[] | null, kwargs: Obj): string;
}

function tokenText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as Obj).content === "string") return (v as Obj).content as string;
  return undefined;
}

/** The template text for this call: a single string, or HF's named list (`tool_use` when tools are given, else `default`). */
function pickTemplate(raw: unknown, hasTools: boolean): string | undefined {
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) return undefined;
  const named = new Map<string, string>();
  for (const t of raw) if (t && typeof t === "object" && typeof (t as Obj).name === "string" && typeof (t as Obj).template === "string") named.set((t as Obj).name as string, (t as Obj).template as string);
  return (hasTools ? named.get("tool_use") : undefined) ?? named.get("default");
}

/**
 * Load the chat template of the tokenizer at `where` (a directory holding `tokenizer_config.json`,
 * or the path of that JSON file). Fails with a GymError naming the server, the path and the fix.
 */
export function loadChatTemplate(where: string, serverName: string, configKey: string): ChatTemplate {
  const fix = `point ${serverName}.${configKey} at a local tokenizer directory (one holding tokenizer_config.json with a chat_template, e.g. from \`huggingface-cli download <model> tokenizer_config.json --local-dir DIR\`), or set render_chat_template: false`;
  const isDir = existsSync(where) && statSync(where).isDirectory();
  const configPath = isDir ? join(where, "tokenizer_config.json") : where;
  if (!existsSync(configPath)) {
    throw new GymError(`${serverName}: render_chat_template is true but ${configPath} does not exist (${configKey}: ${where}); gym renders chat templates from a local tokenizer_config.json and cannot download one`, { code: "E_CONFIG", hint: fix });
  }
  let cfg: Obj;
  try {
    cfg = JSON.parse(readFileSync(configPath, "utf8")) as Obj;
  } catch (e) {
    throw new GymError(`${serverName}: ${configPath} is not valid JSON: ${(e as Error).message}`, { code: "E_CONFIG", hint: fix });
  }
  const dir = isDir ? where : join(configPath, "..");
  const jinjaFile = join(dir, "chat_template.jinja");
  // transformers prefers a standalone chat_template.jinja over the config field.
  const raw = existsSync(jinjaFile) ? readFileSync(jinjaFile, "utf8") : cfg.chat_template;
  const source = existsSync(jinjaFile) ? jinjaFile : configPath;
  if (pickTemplate(raw, false) === undefined && pickTemplate(raw, true) === undefined) {
    throw new GymError(`${serverName}: the tokenizer at ${configPath} has no chat_template configured`, { code: "E_CONFIG", hint: `point ${serverName}.${configKey} at a model whose tokenizer ships a chat template, or set render_chat_template: false` });
  }
  const special: Obj = {};
  for (const [k, v] of Object.entries(cfg)) {
    const t = k.endsWith("_token") ? tokenText(v) : undefined;
    if (t !== undefined) special[k] = t;
  }
  const compiled = new Map<string, Template>();
  const compile = (text: string): Template => {
    let t = compiled.get(text);
    if (!t) {
      try {
        t = new Template(text);
      } catch (e) {
        throw new GymError(`${serverName}: the chat template in ${source} does not parse: ${(e as Error).message}`, { code: "E_CONFIG", hint: fix });
      }
      compiled.set(text, t);
    }
    return t;
  };
  // Parse at load so a broken template fails at server start, not on the first request.
  for (const hasTools of [false, true]) {
    const text = pickTemplate(raw, hasTools);
    if (text !== undefined) compile(text);
  }
  return {
    source,
    render(messages, tools, kwargs) {
      const text = pickTemplate(raw, tools !== null && tools.length > 0);
      if (text === undefined) throw new Error("chat template vanished after load");
      // Same precedence as HF: kwargs can override the special tokens, never the conversation.
      return compile(text).render({ ...special, ...kwargs, messages, tools, add_generation_prompt: true });
    },
  };
}
