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
  // Shown by `gym dataset --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    upload: { description: "Upload a JSONL dataset to Hugging Face (or GitLab)" },
    download: { description: "Download a dataset from Hugging Face (or GitLab)" },
    rm: { description: "Delete a dataset from GitLab" },
    migrate: { description: "Move a dataset from GitLab to Hugging Face" },
    render: { description: "Render prompts into a JSONL dataset" },
    collate: { description: "Collect, validate and merge the datasets of a config" },
  },
});
