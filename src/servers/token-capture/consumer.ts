/**
 * A rollout's frozen capture → one trajectory (upstream `token_id_capture/consumer.py`): freeze
 * through a TokenSource, build, project the main chain, check contiguity. Never throws: anything
 * unsafe (no records, a lost call, ambiguity, a malformed record) becomes a masked build whose
 * `error`/`metrics` say why. Single-response delivery refuses `per_request`.
 */
import { log } from "../../log.ts";
import { pyRound } from "../../util/py-round.ts";
import { assertPrefixContiguity, projectMainChainResponse, runBuilder, validateChain } from "./builder.ts";
import type { TokenEntry } from "./records.ts";
import type { TokenSource } from "./store.ts";

type Obj = Record<string, unknown>;

/** One rollout's build (upstream's dict, keys as upstream names them). */
export interface CaptureBuild {
  rollout_id: string;
  builder: string;
  rebuilt_response: Obj | null;
  mask_sample: boolean;
  error?: string;
  metrics: Obj;
  unresolved_retries?: string[];
  /** The frozen snapshot this build consumed (what `drop` must name to retire it). */
  _capture_snapshot?: { snapshot_id: string; version: number };
  /** The rollout already carried token ids; the capture was frozen only so it can be retired. */
  _redundant_capture?: boolean;
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** A masked build that delivers nothing. */
export function failedBuild(rolloutId: string, builder: string, error: string, nCalls = 0): CaptureBuild {
  return { rollout_id: rolloutId, builder, rebuilt_response: null, mask_sample: true, error, metrics: { n_calls: nCalls } };
}

/** Build, project and check one rollout's entries (masked on any failure). */
export function assemble(rolloutId: string, entries: TokenEntry[], builder: string, model: string): CaptureBuild {
  if (builder === "per_request") return failedBuild(rolloutId, builder, "per_request returns multiple trajectories and is not supported by single-response delivery", entries.length);
  let out;
  let response;
  try {
    out = runBuilder(entries, builder);
    for (const c of out.chains) validateChain(c);
    response = projectMainChainResponse(rolloutId, out, model);
    assertPrefixContiguity(response);
  } catch (e) {
    log.warn(`Could not build a trajectory for rollout ${rolloutId} from ${entries.length} captured call(s): ${(e as Error).message}`);
    return failedBuild(rolloutId, builder, errorText(e), entries.length);
  }
  const n = out.notes;
  const metrics: Obj = {
    n_calls: entries.length,
    chains: n.chains,
    roots: n.roots,
    quarantined_calls: out.quarantined.length,
    quarantined_fraction: entries.length ? pyRound(out.quarantined.length / entries.length, 4) : 0,
    delivered_fraction: n.deliveredFraction,
    generated_tokens_captured: n.generatedTokensCaptured,
    generated_tokens_delivered: n.generatedTokensDelivered,
    empty_generation_calls: n.emptyGenerationCalls.length,
  };
  return {
    rollout_id: rolloutId,
    builder,
    rebuilt_response: response,
    metrics,
    // A retried final call leaves two plausible generations; a second root or chain is a side path.
    mask_sample: n.unresolvedRetries.length > 0 || n.roots !== 1 || n.chains !== 1,
    unresolved_retries: [...n.unresolvedRetries],
  };
}

/** Freeze a rollout through `source` and build it; the snapshot identity rides along for retirement. */
export async function trajectoriesFromSource(rolloutId: string, source: TokenSource, opts: { builder?: string; model?: string } = {}): Promise<CaptureBuild> {
  const builder = opts.builder ?? "prefix_merging";
  let snapshot;
  try {
    snapshot = await source.freeze(rolloutId);
  } catch (e) {
    log.warn(`Could not freeze token capture for rollout ${rolloutId}: ${(e as Error).message}`);
    return failedBuild(rolloutId, builder, errorText(e));
  }
  const built = snapshot.entries.length === 0 ? failedBuild(rolloutId, builder, "capture contains no token records") : assemble(rolloutId, snapshot.entries, builder, opts.model ?? "");
  if (snapshot.incomplete) {
    built.mask_sample = true;
    built.metrics.capture_incomplete = true;
  }
  built._capture_snapshot = { snapshot_id: snapshot.snapshot_id, version: snapshot.version };
  return built;
}
