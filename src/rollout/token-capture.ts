/**
 * Training-token capture, the collector's side (upstream `delivery.py` + its use in
 * `rollout_collection.py`): clear a participating rollout's stale records before dispatch, and
 * after it finishes freeze its capture, rebuild `response.output` from the captured token ids
 * (`_ng_token_capture` metrics, top-level `mask_sample` when unsafe), and retire the frozen
 * snapshot only after the record is fsync'd (D22: a crash before that keeps the evidence; a
 * resumed run re-dispatches the rollout, whose stale records are cleared first).
 */
import { configAccess } from "../config/access.ts";
import type { ConfigDict } from "../config/types.ts";
import { log } from "../log.ts";
import { trajectoriesFromSource, type CaptureBuild } from "../servers/token-capture/consumer.ts";
import { TokenCaptureStore } from "../servers/token-capture/store.ts";
import { MaskTally, tokenCaptureSettings, type TokenCaptureSettings } from "../servers/token-capture-settings.ts";

type Obj = Record<string, unknown>;

/** The per-record health key upstream writes. */
export const TOKEN_CAPTURE_KEY = "_ng_token_capture";
/** The top-level key a trainer reads to exclude a rollout from the loss. */
export const MASK_SAMPLE_KEY = "mask_sample";
const ROLLOUT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Whether any output item already carries generated token ids (the policy's own samples win over a rebuild). */
export function rolloutCarriesTokenIds(record: Obj): boolean {
  const response = record.response;
  if (!isObj(response) || !Array.isArray(response.output)) return false;
  return response.output.some((i) => isObj(i) && Array.isArray(i.generation_token_ids) && i.generation_token_ids.length > 0);
}

/** Whether a build consumed a frozen snapshot that may be retired once the record is durable. */
export function captureBuildCanRetire(built: CaptureBuild | undefined): boolean {
  if (built === undefined || built.mask_sample) return false;
  return built.rebuilt_response !== null || built._redundant_capture === true;
}

function unusable(record: Obj, error: string, message: string): CaptureBuild {
  log.warn(message);
  const metrics = { n_calls: 0, error };
  record[MASK_SAMPLE_KEY] = true;
  record[TOKEN_CAPTURE_KEY] = metrics;
  return { rollout_id: "", builder: "", rebuilt_response: null, mask_sample: true, error, metrics };
}

/** The collector's token-capture duties for one run. */
export class TokenCaptureCollector {
  readonly tally: MaskTally;

  constructor(
    readonly settings: TokenCaptureSettings,
    private readonly agentLeaves: Map<string, Obj[]>,
    /** The file store (also the source); undefined when no directory is configured. */
    readonly store: TokenCaptureStore | undefined,
  ) {
    this.tally = new MaskTally(settings);
  }

  /** Whether rows of this agent take part (upstream `token_id_capture_enabled_for_agent`). */
  participates(agent: string): boolean {
    if (!this.settings.enabled) return false;
    if (this.settings.allAgents) return true;
    return (this.agentLeaves.get(agent) ?? []).some((leaf) => leaf.token_id_capture === true);
  }

  /** Remove stale records of a rollout id about to be dispatched (ids are deterministic; appending to an old attempt would merge two). */
  async clear(rolloutId: string): Promise<void> {
    if (!this.store || !ROLLOUT_ID.test(rolloutId)) return;
    await this.store.delete(rolloutId);
  }

  /**
   * Freeze a finished rollout's capture and rebuild its `response.output` in place (reward and
   * every other field untouched). Never throws; undefined when this run does not rebuild.
   */
  async finalize(record: Obj, rolloutId: string): Promise<CaptureBuild | undefined> {
    const source = this.settings.rebuildResponse ? this.store : undefined;
    if (!source) return undefined;
    if (!ROLLOUT_ID.test(rolloutId)) {
      const error = `malformed rollout id: _ng_rollout_id must be a string of letters, digits, dots, dashes or underscores starting with a letter or digit; got ${JSON.stringify(rolloutId)}`;
      return unusable(record, error, `a rollout result carries a malformed id (${rolloutId}), so its recorded token ids could not be looked up and it will be token-less.`);
    }
    if (rolloutCarriesTokenIds(record)) {
      // Frozen anyway so the redundant capture can be retired like any other.
      try {
        const snap = await source.freeze(rolloutId);
        return { rollout_id: rolloutId, builder: "", rebuilt_response: null, mask_sample: false, metrics: {}, _redundant_capture: true, _capture_snapshot: { snapshot_id: snap.snapshot_id, version: snap.version } };
      } catch (e) {
        log.warn(`could not freeze redundant records for rollout ${rolloutId}: ${(e as Error).message}`);
        return undefined;
      }
    }
    const response = isObj(record.response) ? record.response : undefined;
    const built = await trajectoriesFromSource(rolloutId, source, { model: typeof response?.model === "string" ? response.model : "" });
    if (built.rebuilt_response !== null) {
      if (response) response.output = built.rebuilt_response.output;
      else record.response = built.rebuilt_response;
    }
    const metrics: Obj = { ...built.metrics };
    if (built.error) metrics.error = built.error;
    if (built.mask_sample) {
      record[MASK_SAMPLE_KEY] = true;
      log.warn(`rollout ${rolloutId} was captured incompletely or ambiguously (${JSON.stringify(metrics)}); it is marked for masking rather than trained on.`);
    }
    record[TOKEN_CAPTURE_KEY] = metrics;
    return built;
  }

  /** Count a finalized build toward `max_mask_fraction`; throws the RuntimeError that stops the run. */
  count(built: CaptureBuild): void {
    const reasons: string[] = [];
    if (built.mask_sample) {
      if (built.metrics.capture_incomplete) reasons.push("capture_incomplete");
      const err = built.error ?? built.metrics.error;
      if (err) reasons.push(String(err));
    }
    this.tally.record(built.mask_sample, reasons);
  }

  /** Retire the frozen snapshot after the record is durable; masked or failed builds keep their evidence. */
  async retire(rolloutId: string, built: CaptureBuild | undefined): Promise<boolean> {
    if (!this.store || !captureBuildCanRetire(built)) return false;
    const snap = built!._capture_snapshot;
    if (!snap) return false;
    try {
      return await this.store.drop(rolloutId, { snapshotId: snap.snapshot_id, version: snap.version });
    } catch (e) {
      log.warn(`could not retire the records for rollout ${rolloutId}: ${(e as Error).message}`);
      return false;
    }
  }
}

/** The run's collector side from the merged config, or undefined when `token_id_capture` is off. */
export function tokenCaptureCollectorFrom(dict: ConfigDict): TokenCaptureCollector | undefined {
  const access = configAccess({ dict });
  const settings = tokenCaptureSettings({ token_id_capture: access.read("token_id_capture"), model_call_capture_dir: access.read("model_call_capture_dir") });
  if (!settings.enabled) return undefined;
  const leaves = new Map<string, Obj[]>();
  for (const [name, top] of Object.entries(dict)) {
    if (!isObj(top) || !isObj(top.responses_api_agents)) continue;
    leaves.set(name, Object.values(top.responses_api_agents).filter(isObj));
  }
  return new TokenCaptureCollector(settings, leaves, settings.dir === null ? undefined : new TokenCaptureStore(settings.dir));
}
