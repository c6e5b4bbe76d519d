/**
 * The trajectory builder against upstream's: every case of builder-cases.json (upstream's
 * test_trajectory_builder.py cases plus retry/routed-expert/validation cases) was run once through
 * upstream's own `run_builder` + `_assemble` (record-upstream.py); gym's answers must equal them.
 */
import { describe, expect, test } from "bun:test";
import cases from "../../fixtures/token-capture/builder-cases.json";
import upstream from "../../fixtures/token-capture/builder-upstream.json";
import { assertPrefixContiguity, perRequest, prefixMerging, projectChainToOutputItems, projectMainChainResponse, runBuilder } from "../../../src/servers/token-capture/builder.ts";
import { assemble } from "../../../src/servers/token-capture/consumer.ts";
import { newTokenEntry, type TokenEntry } from "../../../src/servers/token-capture/records.ts";

type Obj = Record<string, any>;

/** An entry as upstream's tests build it (rollout t0-r0, model m); a malformed one is built unchecked, as upstream's test mutates a valid one. */
function entry(raw: Obj): TokenEntry {
  const full = { rollout_id: "t0-r0", model: "m", ...raw } as Obj;
  try {
    return newTokenEntry(full as never);
  } catch {
    return { schema_version: 1, routed_experts: null, output_items: [], token_item_index: null, created_at: 0, ...full } as unknown as TokenEntry;
  }
}

function snakeNotes(n: Obj): Obj {
  return {
    builder: n.builder, roots: n.roots, chains: n.chains,
    generated_tokens_captured: n.generatedTokensCaptured, generated_tokens_delivered: n.generatedTokensDelivered,
    delivered_fraction: n.deliveredFraction, unresolved_retries: n.unresolvedRetries, empty_generation_calls: n.emptyGenerationCalls,
  };
}

describe("trajectory builder: agreement with upstream's run_builder/_assemble", () => {
  expect(cases.length).toBe(upstream.length);
  (cases as Obj[]).forEach((c, i) => {
    test(c.name, () => {
      const want = (upstream as Obj[])[i]!;
      expect(want.name).toBe(c.name);
      const entries = (c.entries as Obj[]).map(entry);
      const builder = (c.builder as string | undefined) ?? "prefix_merging";
      const out = runBuilder(entries, builder);
      expect(out.chains.map((ch) => ({ chain_id: ch.chainId, calls: ch.links.map((l) => l.entry.model_call_id), interstitials: ch.links.map((l) => l.interstitial), root_prompt: ch.rootPrompt }))).toEqual(want.chains);
      expect(out.quarantined).toEqual(want.quarantined);
      expect(snakeNotes(out.notes)).toEqual(want.notes);
      expect(JSON.parse(JSON.stringify(assemble("t0-r0", entries, builder, "m")))).toEqual(want.assembled);
    });
  });
});

// Upstream's facts that are not a single table row.
const APPEND = (cases as Obj[])[0]!.entries.map(entry) as TokenEntry[];

describe("trajectory builder: properties from upstream's tests", () => {
  test("a thousand-turn rollout chains without recursion and delivers everything", () => {
    const entries: TokenEntry[] = [];
    const prompt = [1];
    for (let turn = 0; turn < 1100; turn++) {
      const gen = [10_000 + turn];
      entries.push(entry({ model_call_id: `call-${String(turn).padStart(4, "0")}`, prompt_token_ids: [...prompt], generation_token_ids: gen, generation_log_probs: [-0.1] }));
      prompt.push(...gen, 20_000 + turn);
    }
    const out = prefixMerging(entries);
    expect(out.chains.length).toBe(1);
    expect(out.chains[0]!.links.length).toBe(1100);
    expect(out.notes.deliveredFraction).toBe(1);
  });

  test("any capture order gives the same projection", () => {
    const a = projectMainChainResponse("t0-r0", prefixMerging(APPEND), "m");
    for (const order of [[2, 0, 1], [1, 2, 0], [2, 1, 0]]) expect(projectMainChainResponse("t0-r0", prefixMerging(order.map((k) => APPEND[k]!)), "m").output).toEqual(a.output as never);
  });

  test("per_request and prefix_merging mark the same sampled tokens", () => {
    const merged = (projectMainChainResponse("t0-r0", prefixMerging(APPEND), "m").output as Obj[]).flatMap((i) => i.generation_token_ids ?? []).sort();
    const per = perRequest(APPEND).chains.flatMap((ch) => projectChainToOutputItems(ch)).flatMap((i) => (i.generation_token_ids as number[]) ?? []).sort();
    expect(merged).toEqual([10, 11, 12, 13, 14]);
    expect(per).toEqual([10, 11, 12, 13, 14]);
  });

  test.each([
    ["a gap in the prompt", [{ type: "message", prompt_token_ids: [1, 2, 3], generation_token_ids: [10] }, { type: "message", prompt_token_ids: [1, 2, 3, 99], generation_token_ids: [11] }], true],
    ["a prompt shorter than what was seen", [{ prompt_token_ids: [1, 2], generation_token_ids: [3] }, { prompt_token_ids: [1, 2], generation_token_ids: [4] }], true],
    ["a contiguous pair", [{ prompt_token_ids: [1], generation_token_ids: [2] }, { prompt_token_ids: [1, 2, 3], generation_token_ids: [4] }], false],
  ] as const)("the contiguity check: %s", (_n, output, throws) => {
    const run = () => assertPrefixContiguity({ output: output as unknown as Obj[] });
    if (throws) expect(run).toThrow(/not prefix-contiguous/);
    else expect(run).not.toThrow();
  });

  test("an unknown builder names the known ones", () => {
    expect(() => runBuilder(APPEND, "greedy")).toThrow("unknown builder 'greedy'; known: ['per_request', 'prefix_merging']");
  });
});
