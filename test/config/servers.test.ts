import { describe, expect, test } from "bun:test";
import { ServerLeaf } from "../../src/config/schema.ts";
import { datasetProblems, quickLeafOk } from "../../src/config/servers.ts";
import type { ServerType } from "../../src/config/types.ts";
import { check } from "../../src/config/validate.ts";

function schemaProblems(type: ServerType, leaf: Record<string, unknown>): number {
  const extra = type === "resources_servers" && leaf.domain === undefined ? 1 : 0;
  return check(ServerLeaf, leaf).length + extra + datasetProblems(leaf.datasets, []).length;
}

describe("the hand-written fast check never accepts what the schemas reject", () => {
  const values: Record<string, unknown[]> = {
    entrypoint: [undefined, "app.py", 3],
    host: [undefined, null, "h", 1],
    port: [undefined, null, 8000, 1.5, "80"],
    num_workers: [undefined, null, 0, 2, 2.5],
    domain: [undefined, "math", "mathz", null],
  };
  const datasets: unknown[] = [
    undefined,
    null,
    [],
    [{ name: "a", type: "example", jsonl_fpath: "a.jsonl" }],
    [{ name: "a", type: "train", jsonl_fpath: "a.jsonl" }],
    [{ name: "a", type: "train", jsonl_fpath: "a.jsonl", license: "MIT" }],
    [{ name: "a", type: "train", jsonl_fpath: "a.jsonl", license: "Nope" }],
    [{ name: "a", type: "benchmark", jsonl_fpath: "a.jsonl" }],
    [{ name: "a", type: "benchmark", jsonl_fpath: "a.jsonl", prepare_script: "p.py", prompt_config: 3 }],
    [{ name: "a", type: "example", jsonl_fpath: "a.jsonl", num_repeats: 0 }],
    [{ name: "a", type: "example", jsonl_fpath: "a.jsonl", gitlab_identifier: { x: 1 } }],
    [{ name: 1, type: "example", jsonl_fpath: "a.jsonl" }],
    ["not a map"],
  ];
  test("over a grid of leaves", () => {
    let accepted = 0;
    for (const type of ["resources_servers", "responses_api_agents"] as ServerType[])
      for (const entrypoint of values.entrypoint!)
        for (const host of values.host!)
          for (const port of values.port!)
            for (const num_workers of values.num_workers!)
              for (const domain of values.domain!)
                for (const ds of datasets) {
                  const leaf: Record<string, unknown> = {};
                  for (const [k, v] of Object.entries({ entrypoint, host, port, num_workers, domain, datasets: ds })) if (v !== undefined) leaf[k] = v;
                  if (quickLeafOk(type, leaf)) {
                    accepted++;
                    expect(schemaProblems(type, leaf)).toBe(0);
                  }
                }
    expect(accepted).toBeGreaterThan(100);
  });
});
