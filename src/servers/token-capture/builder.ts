/**
 * Trainable trajectories from a frozen capture (upstream `token_id_capture/builder.py`). Pure.
 *
 * `perRequest`: one sequence per call. `prefixMerging`: a call's parent is the earlier call whose
 * prompt + generation is the longest prefix of its prompt (a trie makes this linear); identical
 * candidate parents quarantine the subtree; retry siblings (same parent, same prompt) keep the one
 * a later call extends, else the smallest id with all of them reported unresolved. Entries are
 * ordered by prompt length then id, so the result does not depend on capture order. One chain is
 * delivered per rollout: the one whose root completed first (`created_at`, then id).
 */
import { pyError } from "../py-error.ts";
import { pyRound } from "../../util/py-round.ts";
import type { TokenEntry } from "./records.ts";

type Obj = Record<string, unknown>;

/** One call in a chain; `interstitial` are the prompt tokens added since the parent (mask 0). */
export interface ChainLink {
  entry: TokenEntry;
  interstitial: number[];
}

/** A root-to-leaf sequence of calls. */
export interface Chain {
  chainId: string;
  links: ChainLink[];
  rootPrompt: number[];
}

/** What a build kept, dropped or could not resolve (the consumer turns these into `_ng_token_capture` metrics). */
export interface BuildNotes {
  builder: string;
  roots: number;
  chains: number;
  generatedTokensCaptured: number;
  generatedTokensDelivered: number;
  deliveredFraction: number;
  unresolvedRetries: string[];
  emptyGenerationCalls: string[];
}

/** Chains, quarantined call ids and notes. */
export interface BuildOutput {
  chains: Chain[];
  quarantined: string[];
  notes: BuildNotes;
}

function notes(builder: string, over: Partial<BuildNotes> = {}): BuildNotes {
  return { builder, roots: 0, chains: 0, generatedTokensCaptured: 0, generatedTokensDelivered: 0, deliveredFraction: 0, unresolvedRetries: [], emptyGenerationCalls: [], ...over };
}

/** Python's default string order (code points), which `sorted` uses on call ids. */
function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byPromptThenId(a: TokenEntry, b: TokenEntry): number {
  return a.prompt_token_ids.length - b.prompt_token_ids.length || cmpStr(a.model_call_id, b.model_call_id);
}

/** Require one log probability per generated token in every link (a ValueError otherwise). */
export function validateChain(chain: Chain): void {
  for (const link of chain.links) {
    const g = link.entry.generation_token_ids.length;
    const l = link.entry.generation_log_probs.length;
    if (g !== l) throw pyError("ValueError", `log-prob/token length mismatch on ${link.entry.model_call_id}: ${l} vs ${g}`);
  }
}

/** One chain per call, no relationships inferred. */
export function perRequest(entries: TokenEntry[]): BuildOutput {
  const ordered = [...entries].sort(byPromptThenId);
  const chains = ordered.map((e, i) => ({ chainId: `req-${i}`, rootPrompt: [...e.prompt_token_ids], links: [{ entry: e, interstitial: [] }] }));
  return { chains, quarantined: [], notes: notes("per_request", { chains: chains.length }) };
}

interface Node {
  entry: TokenEntry;
  cumulative: number[];
  parent: Node | null;
  children: Node[];
  quarantined: boolean;
}

interface TrieNode {
  children: Map<number, TrieNode>;
  candidates: Node[];
}

function trieNode(): TrieNode {
  return { children: new Map(), candidates: [] };
}

/** Chain calls by token-prefix relationships (the delivered chain is `main`, others `branch-N`). */
export function prefixMerging(all: TokenEntry[]): BuildOutput {
  // A call that generated nothing carries no signal and would pose as the parent of its own retry.
  const emptyGeneration = all.filter((e) => e.generation_token_ids.length === 0).map((e) => e.model_call_id);
  const entries = all.filter((e) => e.generation_token_ids.length > 0);
  if (entries.length === 0) return { chains: [], quarantined: [], notes: notes("prefix_merging", { emptyGenerationCalls: emptyGeneration }) };

  const ordered = [...entries].sort(byPromptThenId);
  const nodes: Node[] = [];
  const roots: Node[] = [];
  const quarantined: string[] = [];
  const trie = trieNode();
  for (const entry of ordered) {
    const prompt = entry.prompt_token_ids;
    const node: Node = { entry, cumulative: [...prompt, ...entry.generation_token_ids], parent: null, children: [], quarantined: false };
    let best: Node[] = [];
    let cur = trie;
    for (const t of prompt) {
      const next = cur.children.get(t);
      if (next === undefined) break;
      cur = next;
      if (cur.candidates.length > 0) best = cur.candidates;
    }
    if (best.length > 0) {
      const parent = best[0]!;
      node.parent = parent;
      if (best.length > 1) {
        node.quarantined = true;
        quarantined.push(entry.model_call_id);
      }
      parent.children.push(node);
    } else roots.push(node);
    nodes.push(node);
    let at = trie;
    for (const t of node.cumulative) {
      let next = at.children.get(t);
      if (next === undefined) at.children.set(t, (next = trieNode()));
      at = next;
    }
    at.candidates.push(node);
  }

  // Retry siblings: same parent (all roots are siblings of each other) and the same prompt.
  const unresolved: string[] = [];
  const ROOTS = {};
  const byParent = new Map<object, Node[]>();
  for (const n of nodes) {
    const key = n.parent ?? ROOTS;
    const group = byParent.get(key);
    if (group) group.push(n);
    else byParent.set(key, [n]);
  }
  for (const group of byParent.values()) {
    const byPrompt = new Map<string, Node[]>();
    for (const n of group) {
      const k = n.entry.prompt_token_ids.join(",");
      const g = byPrompt.get(k);
      if (g) g.push(n);
      else byPrompt.set(k, [n]);
    }
    for (const retry of byPrompt.values()) {
      if (retry.length < 2) continue;
      const extended = retry.filter((n) => n.children.some((c) => !c.quarantined));
      let keep: Set<Node>;
      if (extended.length > 0) keep = new Set(extended);
      else {
        keep = new Set([retry.reduce((a, b) => (cmpStr(b.entry.model_call_id, a.entry.model_call_id) < 0 ? b : a))]);
        unresolved.push(...retry.map((n) => n.entry.model_call_id));
      }
      for (const n of retry) {
        if (!keep.has(n) && !n.quarantined) {
          n.quarantined = true;
          quarantined.push(n.entry.model_call_id);
        }
      }
    }
  }

  // Root-to-leaf chains, iteratively (rollouts can be thousands of calls deep).
  const chains: Chain[] = [];
  for (const leaf of nodes) {
    if (leaf.children.length > 0) continue;
    const path: Node[] = [];
    for (let cur: Node | null = leaf; cur !== null; cur = cur.parent) path.push(cur);
    path.reverse();
    if (path.some((n) => n.quarantined)) continue;
    const root = path[0]!;
    const chain: Chain = { chainId: "", rootPrompt: [...root.entry.prompt_token_ids], links: [] };
    let prev = root.entry.prompt_token_ids.length;
    path.forEach((n, step) => {
      chain.links.push({ entry: n.entry, interstitial: step === 0 ? [] : n.entry.prompt_token_ids.slice(prev) });
      prev = n.entry.prompt_token_ids.length + n.entry.generation_token_ids.length;
    });
    chains.push(chain);
  }

  // Deliver the chain whose root completed first (ties: call id); the rest are reported as branches.
  let main: Chain | undefined;
  for (const c of chains) {
    if (main === undefined) main = c;
    else {
      const a = c.links[0]!.entry;
      const b = main.links[0]!.entry;
      if (a.created_at < b.created_at || (a.created_at === b.created_at && cmpStr(a.model_call_id, b.model_call_id) < 0)) main = c;
    }
  }
  let branch = 0;
  for (const c of chains) c.chainId = c === main ? "main" : `branch-${branch++}`;

  const delivered = main ? main.links.reduce((s, l) => s + l.entry.generation_token_ids.length, 0) : 0;
  const captured = entries.reduce((s, e) => s + e.generation_token_ids.length, 0);
  return {
    chains,
    quarantined,
    notes: notes("prefix_merging", {
      roots: roots.length,
      chains: chains.length,
      generatedTokensCaptured: captured,
      generatedTokensDelivered: delivered,
      deliveredFraction: captured ? pyRound(delivered / captured, 4) : 0,
      unresolvedRetries: unresolved,
      emptyGenerationCalls: emptyGeneration,
    }),
  };
}

const BUILDERS: Record<string, (e: TokenEntry[]) => BuildOutput> = { per_request: perRequest, prefix_merging: prefixMerging };

/** Chain frozen entries with the named strategy (`prefix_merging` or `per_request`). */
export function runBuilder(entries: TokenEntry[], builder = "prefix_merging"): BuildOutput {
  const fn = BUILDERS[builder];
  if (!fn) throw pyError("ValueError", `unknown builder '${builder}'; known: [${Object.keys(BUILDERS).sort().map((b) => `'${b}'`).join(", ")}]`);
  return fn(entries);
}

/**
 * A chain as Responses output items with contiguous prompts: each call's captured content items,
 * the token arrays restored on the item that carried them (else the last item; a token-only
 * message when the call kept no content), its prompt the whole sequence so far.
 */
export function projectChainToOutputItems(chain: Chain): Obj[] {
  const items: Obj[] = [];
  let cumulative = [...chain.rootPrompt];
  chain.links.forEach((link, step) => {
    if (step > 0) cumulative = [...cumulative, ...link.interstitial];
    const e = link.entry;
    const content = (e.output_items ?? []).map((i) => ({ ...i }));
    const idx = e.token_item_index;
    let generated: Obj[] =
      idx !== null && idx >= 0 && idx < content.length
        ? [content[idx]!]
        : content.filter((i) => i.generation_token_ids !== undefined && i.generation_token_ids !== null); // records that kept arrays inline
    if (generated.length === 0 && content.length > 0) generated = content.slice(-1);
    const tokens = (): Obj => ({
      prompt_token_ids: [...cumulative],
      generation_token_ids: [...e.generation_token_ids],
      generation_log_probs: [...e.generation_log_probs],
      ...(e.routed_experts !== null && e.routed_experts !== undefined ? { routed_experts: e.routed_experts } : {}),
    });
    if (content.length > 0) {
      for (const item of generated) Object.assign(item, tokens());
      items.push(...content);
    } else items.push({ type: "message", ...tokens() });
    cumulative = [...cumulative, ...e.generation_token_ids];
  });
  return items;
}

/** The main chain as a Responses object (`proj-<rollout_id>`) with usage counted from the token-bearing items. */
export function projectMainChainResponse(rolloutId: string, out: BuildOutput, model = ""): Obj {
  if (out.chains.length === 0) throw pyError("ValueError", "capture produced no safe trainable chain");
  if (out.notes.builder === "per_request" && out.chains.length !== 1) throw pyError("ValueError", "per_request produced multiple trajectories for a single-response delivery");
  const main = out.chains.find((c) => c.chainId === "main") ?? out.chains[0]!;
  const output = projectChainToOutputItems(main);
  if (!output.some((i) => Array.isArray(i.generation_token_ids) && i.generation_token_ids.length > 0)) throw pyError("ValueError", "capture produced no trainable generated tokens");
  const generated = output.filter((i) => i.generation_token_ids !== undefined && i.generation_token_ids !== null);
  const nIn = generated.length > 0 ? (generated[0]!.prompt_token_ids as number[]).length : 0;
  const nOut = generated.reduce((s, i) => s + (i.generation_token_ids as number[]).length, 0);
  return { id: `proj-${rolloutId}`, model, object: "response", output, usage: { input_tokens: nIn, output_tokens: nOut } };
}

/** Require every generated item's prompt to extend all tokens before it (an AssertionError otherwise). */
export function assertPrefixContiguity(response: Obj): void {
  let seen: number[] = [];
  for (const item of Array.isArray(response.output) ? (response.output as unknown[]) : []) {
    if (item === null || typeof item !== "object") continue;
    const it = item as Obj;
    if (it.generation_token_ids === undefined || it.generation_token_ids === null) continue;
    const prompt = Array.isArray(it.prompt_token_ids) ? (it.prompt_token_ids as number[]) : [];
    if (prompt.length < seen.length || seen.some((t, i) => prompt[i] !== t)) {
      throw pyError("AssertionError", "projection is not prefix-contiguous: an output item's prompt_token_ids does not extend the tokens seen so far");
    }
    seen = [...prompt, ...(it.generation_token_ids as number[])];
  }
}
