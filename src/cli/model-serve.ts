/**
 * `gym model serve NAME --port N [+key=value …]` (D26, cli-config §2.4): host one built-in model
 * server on its own as an OpenAI-compatible endpoint (`/v1/responses`, `/v1/chat/completions`,
 * `/v1/models` for scripted_model). Overrides set fields of the model's leaf config. Prints the
 * base URL on stdout; Ctrl+C stops it.
 */
import "../components/index.ts";
import { builtinKeys, findBuiltin } from "../components/registry.ts";
import { applyOverride, parseOverride } from "../config/overrides.ts";
import { UsageError } from "../errors.ts";
import { log } from "../log.ts";
import { serveApp } from "../runtime/http/http.ts";
import { closestMatch } from "../util/similar.ts";
import { defineGymCommand } from "./_command.ts";

const MODEL_PREFIX = "responses_api_models/";

/** The `gym model serve` command. */
export default defineGymCommand({
  meta: { name: "serve", description: "Serve a built-in model as an OpenAI-compatible endpoint" },
  args: {
    name: { type: "positional", required: true, description: "Built-in model implementation, e.g. scripted_model" },
    port: { type: "string", valueHint: "N", description: "Port to listen on (0 picks a free one; default 8000)" },
    host: { type: "string", valueHint: "addr", description: "Address to bind (default 127.0.0.1)" },
  },
  examples: [
    "gym model serve scripted_model --port 8000",
    "gym model serve scripted_model --port 8000 +replay_jsonl_fpath=results/rollouts.jsonl",
  ],
  async run(ctx) {
    const name = String(ctx.args.name);
    const models = builtinKeys().filter((k) => k.startsWith(MODEL_PREFIX)).map((k) => k.slice(MODEL_PREFIX.length));
    const comp = await findBuiltin("responses_api_models", name);
    if (!comp) {
      const near = closestMatch(name, models);
      throw new UsageError(`'${name}' is not a built-in model.${near ? ` Did you mean \`${near}\`?` : ""}`, { hint: `built-in models: ${models.join(", ")}` });
    }
    const portText = ctx.args.port === undefined ? "8000" : String(ctx.args.port);
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--port must be an integer between 0 and 65535, got '${portText}'`);
    const host = ctx.args.host === undefined ? "127.0.0.1" : String(ctx.args.host);

    // Overrides address the model's own fields (`+replay_jsonl_fpath=…`), not the global config.
    const leaf: Record<string, unknown> = { entrypoint: "app.py" };
    for (const token of ctx.data.overrides) applyOverride(leaf, parseOverride(token));
    const config = { ...leaf, host, port, name };
    const app = await comp.create({ instanceName: name, config, globalConfig: { [name]: { responses_api_models: { [name]: config } } } });
    const server = serveApp(app, { host, port });
    const shownHost = host.includes(":") ? `[${host}]` : host;
    const base = `http://${shownHost}:${server.port}/v1`;
    log.info(`serving ${name} at ${base} (Ctrl+C stops it)`);
    console.log(base);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        void Promise.resolve(server.stop(true)).then(() => app.close?.()).finally(resolve);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    return 0;
  },
});
