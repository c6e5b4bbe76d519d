/**
 * `gym env resolve`: print the merged config as YAML on stdout, interpolations resolved and
 * secrets masked (cli-config §8.1, D6, D10). Unset ports are shown as candidates that were free
 * when the command ran (spec default of §8.1); nothing stays bound.
 */
import { maskUrlSecretsDeep } from "../util/url-secrets.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { resolveInterpolations } from "../config/interpolate.ts";
import { redactSecrets } from "../config/redact.ts";
import { serializeConfigDict } from "../config/serialize.ts";
import { mark } from "../config/stage-timer.ts";
import type { ConfigDict, ResolvedConfig } from "../config/types.ts";
import { ConfigError } from "../errors.ts";
import { setVerbose } from "../log.ts";
import { defineGymCommand, type GymContext } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorArgs, selectorFlags } from "./_flags.ts";

/** True when `port` can be bound on `host` right now (the probe is closed at once). */
function canBind(port: number, host: string): boolean {
  try {
    const probe = Bun.listen({ hostname: host, port, exclusive: true, socket: { data() {} } });
    probe.stop(true);
    return true;
  } catch {
    return false;
  }
}

/**
 * Fill each unset server port with a distinct candidate from [port_range_low, port_range_high]
 * that could be bound when checked (upstream's choice rule); a busy candidate is replaced.
 */
async function previewPorts(cfg: ResolvedConfig): Promise<void> {
  const low = typeof cfg.dict.port_range_low === "number" ? cfg.dict.port_range_low : 10001;
  const high = typeof cfg.dict.port_range_high === "number" ? cfg.dict.port_range_high : 20000;
  const taken = new Set(Array.isArray(cfg.dict.disallowed_ports) ? (cfg.dict.disallowed_ports as number[]) : []);
  const disallowedAtStart = [...taken];
  let pending = cfg.servers.filter((s) => !s.leaf.port);
  for (let attempt = 0; attempt < 50 && pending.length > 0; attempt++) {
    const tries = pending.map((s) => {
      let p = low + Math.floor(Math.random() * (high - low + 1));
      for (let guard = 0; taken.has(p) && guard < 1000; guard++) p = low + Math.floor(Math.random() * (high - low + 1));
      taken.add(p);
      const host = typeof s.leaf.host === "string" && !s.leaf.host.includes("${") ? s.leaf.host : "127.0.0.1";
      return { s, p, ok: canBind(p, host) };
    });
    const next: typeof pending = [];
    for (const t of tries) {
      if (t.ok) t.s.leaf.port = t.p;
      else next.push(t.s);
    }
    pending = next;
  }
  if (pending.length > 0) {
    throw new ConfigError(`Unable to find an open port that doesn't conflict with disallowed ports [${disallowedAtStart.join(", ")}] after 50 attempts`);
  }
  const ports = cfg.servers.map((s) => s.leaf.port).filter((p): p is number => typeof p === "number");
  cfg.dict.disallowed_ports = [...new Set([...disallowedAtStart, ...ports])];
}

/**
 * Write all of `text` to stdout before returning. Bun.write, not process.stdout: creating the
 * Node stream costs a cold process ~3 ms, and its write may still be pending when the CLI exits
 * (a piped config over 64 KiB came out cut). A reader that stops early (`| head`) is not an error.
 */
async function writeStdout(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "EPIPE") throw err;
  }
}

/** The YAML `gym env resolve` prints for a resolved config: masked first, then interpolated. */
export function renderResolved(dict: ConfigDict): string {
  // D39: credentials inside URL values (`http://user:pw@host/v1`, `?api_key=`) are masked like secret keys.
  return serializeConfigDict(maskUrlSecretsDeep(resolveInterpolations(redactSecrets(dict))));
}

/** Overrides of a resolve-like command: `+verbose=true` first, then policy flags, then raw tokens. */
export function commandOverrides(ctx: GymContext): string[] {
  return [...(ctx.data.verbose ? ["+verbose=true"] : []), ...flagsToOverrides(ctx.args, policyOverrides), ...ctx.data.overrides];
}

/** The `gym env resolve` command. */
export default defineGymCommand({
  meta: { name: "resolve", description: "Print the merged config (interpolations resolved, secrets masked)" },
  args: { ...selectorFlags, ...policyFlags },
  examples: [
    "gym env resolve --resources-server example_single_tool_call --model-type openai_model +policy_base_url=http://127.0.0.1:8000/v1 +policy_api_key=sk-x +policy_model_name=m",
    "gym env resolve --config my.yaml --search-dir ./plugins",
  ],
  async run(ctx) {
    const cfg = await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides: commandOverrides(ctx) });
    if (cfg.dict.verbose === true) setVerbose(true);
    await previewPorts(cfg);
    mark("env resolve: port preview");
    const text = (() => {
      try {
        return renderResolved(cfg.dict);
      } catch (err) {
        if (err instanceof ConfigError && !err.location && err.key && cfg.locate) {
          const location = cfg.locate(err.key.replace(/\[(\d+)\]/g, ".$1").split("."));
          if (location) throw new ConfigError(err.message, { key: err.key, location, hint: err.hint, code: err.code });
        }
        throw err;
      }
    })();
    mark("env resolve: render (redact, interpolate, serialise)");
    await writeStdout(text);
    mark("env resolve: write");
    return 0;
  },
});
