/**
 * The example-data checks of a resources server (cli-config §6.6, components §1.4, upstream
 * `_validate_data_single`): `data/example.jsonl` has 5 lines, `data/example_metrics.json` says
 * `"Number of examples": 5`, no `data/*conflict*` files, `data/example_rollouts.jsonl` has 5 lines.
 * Each failure carries the gym command that fixes it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fail, pass, type Check } from "./check.ts";

/** Upstream counts lines the way Python iterates a file: every `\n`, plus a last unterminated line. */
function lineCount(path: string): number {
  const text = readFileSync(path, "utf8");
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}

/** The four data checks of the server `name` in `dir`. */
export function dataChecks(dir: string, name: string): Check[] {
  const out: Check[] = [];
  const data = join(dir, "data");
  const example = join(data, "example.jsonl");
  const rel = `resources_servers/${name}`;

  if (!existsSync(example)) {
    out.push(fail("example data", `no ${example}`, `add 5 example rows there (usually the first 5 rows of your train dataset)`));
  } else {
    const n = lineCount(example);
    out.push(n === 5 ? pass("example data", `${example}: 5 rows`) : fail("example data", `Expected 5 examples at ${example} but got ${n}.`, "keep exactly 5 rows"));
  }

  const metrics = join(data, "example_metrics.json");
  const collate = `gym dataset collate --resources-server ${name} --mode example_validation --output-dir results/${name}_collate`;
  if (!existsSync(metrics)) {
    out.push(fail("example metrics", `no ${metrics}: the example data was never validated`, `run \`${collate}\` (its config needs an agent with a dataset of type example at ${rel}/data/example.jsonl)`));
  } else {
    let count: unknown;
    try {
      count = (JSON.parse(readFileSync(metrics, "utf8")) as Record<string, unknown>)["Number of examples"];
    } catch (e) {
      count = `unreadable (${(e as Error).message})`;
    }
    out.push(
      count === 5
        ? pass("example metrics", `${metrics}: "Number of examples": 5`)
        : fail("example metrics", `Expected 5 examples in the metrics at ${metrics}, but got ${typeof count === "string" ? count : JSON.stringify(count ?? null)}`, `re-run \`${collate}\``),
    );
  }

  const conflicts = existsSync(data) ? readdirSync(data).filter((f) => f.includes("conflict")).map((f) => join(data, f)) : [];
  out.push(
    conflicts.length === 0
      ? pass("no conflicts", `no *conflict* files in ${data}`)
      : fail("no conflicts", `Found ${conflicts.length} conflicting paths:\n- ${conflicts.join("\n- ")}`, "compare each with the file it shadows, keep the right one, delete the *conflict* file"),
  );

  const rollouts = join(data, "example_rollouts.jsonl");
  if (!existsSync(rollouts)) {
    out.push(
      fail(
        "example rollouts",
        `no ${rollouts}: run the example data through your agent and keep the 5 rollouts`,
        `run \`gym eval run --resources-server ${name} --model-type <model> --split example -o results/${name}_example/rollouts.jsonl\`, then copy that file to ${rollouts}`,
      ),
    );
  } else {
    const n = lineCount(rollouts);
    out.push(n === 5 ? pass("example rollouts", `${rollouts}: 5 rollouts`) : fail("example rollouts", `Expected 5 example rollouts in ${rollouts}, but got ${n}`, "keep exactly one rollout per example row"));
  }
  return out;
}
