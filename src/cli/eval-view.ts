/** `gym eval view`: look at rollouts in a browser — served on loopback, or as one offline HTML file. */
import { hostname } from "node:os";
import { UsageError } from "../errors.ts";
import { viewRollouts } from "../view/view.ts";
import { defineGymCommand } from "./_command.ts";

function intFlag(v: unknown, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`gym eval view: --${name} must be an integer ≥ ${min}, got '${String(v)}'`);
  return n;
}

/** The `gym eval view` command. */
export default defineGymCommand({
  meta: { name: "view", description: "Browse rollouts: summary, filtered list, trajectories, compare two runs" },
  args: {
    rollouts: { type: "positional", required: false, description: "Rollouts JSONL written by gym eval run (its _failures.jsonl and _aggregate_metrics.json beside it are read too)" },
    baseline: { type: "positional", required: false, description: "A second rollouts file to compare against (tasks that flipped, side by side)" },
    host: { type: "string", valueHint: "addr", description: "Address to bind (default 127.0.0.1: only this machine; use an ssh tunnel from your laptop)" },
    port: { type: "string", valueHint: "N", description: "Port to serve on (default 0: any free port; the URL is printed)" },
    out: { type: "string", alias: "o", valueHint: "report.html", description: "Write one self-contained HTML file instead of serving (opens from disk, no network)" },
    "max-rows": { type: "string", valueHint: "N", description: "With --out: embed only the first N rows (default: refuse runs over 50,000 rows)" },
    open: { type: "boolean", description: "Open the page in the default browser (xdg-open / open)" },
  },
  examples: [
    "gym eval view results/rollouts.jsonl",
    "gym eval view results/rollouts.jsonl --out report.html",
    "gym eval view new/rollouts.jsonl old/rollouts.jsonl --port 8080",
  ],
  async run(ctx) {
    const a = ctx.args;
    if (typeof a.rollouts !== "string" || a.rollouts === "") throw new UsageError("gym eval view: error: the following arguments are required: ROLLOUTS", { hint: "gym eval view results/rollouts.jsonl" });
    const host = typeof a.host === "string" ? a.host : "127.0.0.1";
    const port = intFlag(a.port, "port", 0) ?? 0;
    const maxRows = intFlag(a["max-rows"], "max-rows", 1);
    const stop = new Promise<void>((resolve) => {
      for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, () => resolve());
    });
    const res = await viewRollouts({
      rollouts: a.rollouts,
      baseline: typeof a.baseline === "string" ? a.baseline : undefined,
      host,
      port,
      out: typeof a.out === "string" ? a.out : undefined,
      maxRows,
      until: stop,
      onListening: (url) => {
        process.stdout.write(`${url}\n`);
        const p = new URL(url).port;
        process.stderr.write(`Serving on ${url} (Ctrl+C stops). From your laptop: ssh -N -L ${p}:127.0.0.1:${p} ${hostname()}  then open http://127.0.0.1:${p}/\n`);
        if (a.open === true) {
          const opener = process.platform === "darwin" ? "open" : "xdg-open";
          try {
            Bun.spawn([opener, url], { stdout: "ignore", stderr: "ignore" });
          } catch {
            process.stderr.write(`--open: ${opener} is not available; open the URL yourself\n`);
          }
        }
      },
    });
    if (res.out) process.stderr.write(`Wrote ${res.out} (${(res.bytes! / 1024).toFixed(0)} KiB); open it in any browser, no server needed.\n`);
    return 0;
  },
});
