/**
 * `gym eval reverify` of upstream's recorded workplace_assistant example rollouts reproduces every
 * recorded reward. Upstream recorded them on other prompts than today's example.jsonl and kept no
 * ground_truth, so the gold actions are restored here from the WorkBench dataset the prompts come
 * from: "Delete my last email from kofi" is verbatim in WorkBench's email answers (email 00000259);
 * the other four follow WorkBench's templates for the same wording ("Delete {name} from the crm" →
 * delete that customer's id; "Add {name} as a new lead … assign them to {first name}" → add_customer
 * with status Lead; "… bar chart of {metric} since {date}" → create_plot from that date to today;
 * "haven't responded to a proposal … in N weeks" → one status update per matching customer, none
 * here). The test checks each restored gold against the shipped CSVs itself, from the raw text.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const SERVER = join(import.meta.dir, "..", "..", "assets", "resources_servers", "workplace_assistant");
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const call = (name: string, args: Row) => ({ name, arguments: JSON.stringify(args) });

/** [prompt, category, gold actions] for each recorded rollout, in file order. */
const GOLD: [string, string, Row[]][] = [
  ["Create a bar chart of total visits since November 30", "workplace_assistant_analytics", [
    call("analytics_create_plot", { time_min: "2023-11-30", time_max: "2023-11-30", value_to_plot: "total_visits", plot_type: "bar" }),
  ]],
  ["We need to move all customers that haven't responded to a proposal for the consulting product in 3 weeks to lost. Can you update the CRM?", "workplace_assistant_customer_relationship_manager", []],
  ["Delete Casey Wilson from the crm", "workplace_assistant_customer_relationship_manager", [call("customer_relationship_manager_delete_customer", { customer_id: "00000014" })]],
  ["Add Dakota Thomas as a new lead in the crm and assign them to Nadia", "workplace_assistant_customer_relationship_manager", [
    call("customer_relationship_manager_add_customer", { customer_name: "Dakota Thomas", assigned_to_email: "nadia.moreau@atlas.com", status: "Lead" }),
  ]],
  ["Delete my last email from kofi", "workplace_assistant_email", [call("email_delete_email", { email_id: "00000259" })]],
];

/** The CRM rows as plain field lists (the CRM file has no quoted commas). */
function crmRows(): Row[] {
  const [head, ...rest] = readFileSync(join(SERVER, "csv_data", "processed", "customer_relationship_manager_data.csv"), "utf8").trim().split("\n");
  const cols = head!.split(",");
  return rest.map((l) => Object.fromEntries(l.split(",").map((v, i) => [cols[i], v])));
}

describe("workplace_assistant: reverify of upstream's recorded example rollouts", () => {
  test("the restored gold actions agree with the shipped tables", () => {
    const crm = crmRows();
    expect(crm.filter((r) => r.customer_name === "Casey Wilson").map((r) => r.customer_id)).toEqual(["00000014"]);
    // Consulting proposals last contacted more than 3 weeks before 2023-11-30: none, so the gold changes nothing.
    expect(crm.filter((r) => r.product_interest === "Consulting" && r.status === "Proposal" && r.last_contact_date < "2023-11-09")).toEqual([]);
    const directory = readFileSync(join(SERVER, "csv_data", "raw", "email_addresses.csv"), "utf8").split("\n");
    expect(directory.filter((a) => a.startsWith("nadia"))).toEqual(["nadia.moreau@atlas.com"]);
    const emails = readFileSync(join(SERVER, "csv_data", "processed", "emails.csv"), "utf8");
    const kofi = [...emails.matchAll(/^(\d{8}),inbox,kofi\.mensah@atlas\.com,[^\n]*?,(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),/gm)].sort((a, b) => (a[2]! < b[2]! ? 1 : -1));
    expect(kofi[0]![1]).toBe("00000259");
  });

  test("gym eval reverify reproduces every recorded reward", async () => {
    await using dir = await tempDir();
    const recs = lines(join(SERVER, "data", "example_rollouts.jsonl"));
    expect(recs.length).toBe(GOLD.length);
    const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "workplace_assistant_simple_agent" } });
    const inputs = recs.map((r, i) => {
      const [prompt, category, gold] = GOLD[i]!;
      expect(r.responses_create_params.input.find((m: Row) => m.role === "user").content).toBe(prompt);
      return { responses_create_params: r.responses_create_params, ground_truth: gold, category, environment_name: "workplace_assistant", id: i, ...stamp(i) };
    });
    const rollouts = join(dir.path, "rollouts.jsonl");
    const inputsPath = join(dir.path, "inputs.jsonl");
    writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
    writeFileSync(inputsPath, inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "reverify", "--force", "--resources-server", "workplace_assistant", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputsPath, "-o", out], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    recs.forEach((rec, i) => {
      const got = now.get(i)!;
      expect([i, got.reward]).toEqual([i, rec.reward]);
      if (got.reward === rec.reward) agree++;
      expect(got.ground_truth).toEqual(GOLD[i]![2]);
    });
    process.stderr.write(`reverify workplace_assistant/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded\n`);
  }, 120_000);
});
