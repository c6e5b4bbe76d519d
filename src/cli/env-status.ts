/** `gym env status [--json]`: ask the head server for its servers and probe each one (runtime.md §3.1). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { headAddress } from "../runtime/http/server-client.ts";
import { envStatus, formatStatus } from "../runtime/process/status.ts";
import { defineGymCommand } from "./_command.ts";
import { jsonFlag, selectorArgs } from "./_flags.ts";

/** The `gym env status` command. */
export default defineGymCommand({
  meta: { name: "status", description: "Show the servers of a running environment" },
  args: { ...jsonFlag },
  examples: ["gym env status", "gym env status --json ++head_server.port=11001"],
  async run(ctx) {
    // The head address comes from env.yaml and overrides, like every other command's config.
    const cfg = await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides: ctx.data.overrides, offline: true });
    const status = await envStatus(headAddress(cfg.dict));
    process.stdout.write(ctx.args.json === true ? `${JSON.stringify(status)}\n` : formatStatus(status));
    return status.servers.every((s) => s.status === "success") ? 0 : 1;
  },
});
