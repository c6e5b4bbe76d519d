/** The `gym dataset` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym dataset`: Manage datasets. */
export default defineGymCommand({
  meta: { name: "dataset", description: "Manage datasets." },
  subCommands: {
    "upload": async () => (await import("./dataset-upload.ts")).default,
    "download": async () => (await import("./dataset-download.ts")).default,
    "rm": async () => (await import("./dataset-rm.ts")).default,
    "migrate": async () => (await import("./dataset-migrate.ts")).default,
    "render": async () => (await import("./dataset-render.ts")).default,
    "collate": async () => (await import("./dataset-collate.ts")).default,
  },
});
