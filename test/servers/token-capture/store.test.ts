/**
 * Token records and the file store (upstream test_token_id_capture.py: extractor, record, store,
 * intents, freeze/drop, sweep, recovery, concurrency), plus gym's bound on a rollout's size and a
 * cross-process writer race over flock.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenCapture } from "../../../src/servers/token-capture/capture.ts";
import { canonicalJson, extractTokenFields, newTokenEntry, stripTokenFields, tokenEntry, type TokenEntry } from "../../../src/servers/token-capture/records.ts";
import { TokenCaptureStore, TokenStoreFullError, validateRolloutId } from "../../../src/servers/token-capture/store.ts";
import { tempDir } from "../../helpers/tmp.ts";

type Obj = Record<string, any>;
const PTOKS = [1, 2, 3];
const GTOKS = [4, 5];
const LPS = [-0.1, -0.2];
const entry = (over: Partial<TokenEntry> = {}): TokenEntry => newTokenEntry({ rollout_id: "r0", model_call_id: "c0", prompt_token_ids: PTOKS, generation_token_ids: GTOKS, generation_log_probs: LPS, ...over });

describe("records", () => {
  test.each([
    ["a Responses output item", { output: [{ type: "message", prompt_token_ids: PTOKS, generation_token_ids: GTOKS, generation_log_probs: LPS }] }, { prompt_token_ids: PTOKS, generation_token_ids: GTOKS, generation_log_probs: LPS, routed_experts: null }],
    ["a chat message", { choices: [{ message: { prompt_token_ids: [1], generation_token_ids: [7], generation_log_probs: [-0.3] } }] }, { prompt_token_ids: [1], generation_token_ids: [7], generation_log_probs: [-0.3], routed_experts: null }],
    ["no carrier", { output: [{ type: "message" }] }, null],
    ["an empty payload", {}, null],
  ] as const)("extractTokenFields: %s", (_n, payload, want) => {
    expect(extractTokenFields(payload as Obj)).toEqual(want as never);
  });

  test.each([
    ["partial metadata", { output: [{ type: "message", generation_token_ids: GTOKS, generation_log_probs: LPS }] }, "partial token metadata is missing: prompt_token_ids"],
    ["two carriers", { output: [{ prompt_token_ids: PTOKS, generation_token_ids: GTOKS, generation_log_probs: LPS }, { prompt_token_ids: PTOKS, generation_token_ids: GTOKS, generation_log_probs: LPS }] }, "multiple response items carry token metadata"],
  ] as const)("extractTokenFields refuses %s", (_n, payload, msg) => {
    expect(() => extractTokenFields(payload as Obj)).toThrow(msg);
  });

  test("stripTokenFields keeps content, drops the arrays and names the carrier", () => {
    const { items, tokenItemIndex } = stripTokenFields([{ type: "message", content: "x" }, { type: "function_call", generation_token_ids: [1], prompt_token_ids: [0], generation_log_probs: [-1], routed_experts: [[1]] }]);
    expect(items).toEqual([{ type: "message", content: "x" }, { type: "function_call" }]);
    expect(tokenItemIndex).toBe(1);
  });

  test.each([
    ["mismatched generation arrays", { generation_log_probs: [-0.1] }, "same length"],
    ["a newer schema_version", { schema_version: 2 }, "schema_version 2"],
    ["a carrier index outside output_items", { token_item_index: 0 }, "token_item_index 0 is outside output_items of length 0"],
    ["a non-integer token id", { prompt_token_ids: [1.5] }, "prompt_token_ids"],
  ] as const)("a record with %s is a ValidationError", (_n, over, msg) => {
    let err: Error | undefined;
    try {
      tokenEntry({ ...entry(), ...over });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.name).toBe("ValidationError");
    expect(err?.message).toContain(msg);
  });

  test("an older record takes the defaults; records carry schema_version 1", () => {
    const old = tokenEntry({ rollout_id: "r", model_call_id: "c", prompt_token_ids: [1], generation_token_ids: [], generation_log_probs: [] });
    expect(old).toMatchObject({ schema_version: 1, model: "", output_items: [], token_item_index: null, created_at: 0, routed_experts: null });
    expect(tokenEntry({ ...old, schema_version: 0 }).schema_version).toBe(0);
  });

  test.each(["", "../escape", "a/b", "nul\u0000", "spa ce", "é"])("an unsafe rollout id %p is rejected", (bad) => {
    expect(() => validateRolloutId(bad)).toThrow("Invalid rollout id");
  });
});

describe("TokenCaptureStore", () => {
  test("round trip, in file order; a missing rollout reads as empty", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry({ rollout_id: "t0-r0", model_call_id: "abc" }));
    await s.put(entry({ rollout_id: "t0-r0", model_call_id: "def" }));
    expect((await s.readEntries("t0-r0")).map((e) => e.model_call_id)).toEqual(["abc", "def"]);
    expect(await s.readEntries("missing")).toEqual([]);
  });

  test("put is idempotent; a reused call id with another payload fails closed and marks the rollout", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry());
    await s.put(entry());
    expect(await s.readEntries("r0")).toEqual([entry()]);
    await expect(s.put(entry({ generation_token_ids: [8, 9] }))).rejects.toThrow("reused with a different payload");
    expect(await s.isIncomplete("r0")).toBe(true);
    expect(await s.readEntries("r0")).toEqual([entry()]);
  });

  test("the state index (upstream's file) tracks every line without rescanning: indexed_size = file size, one digest per call", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    for (const id of ["c0", "c1", "c2"]) await s.put(entry({ model_call_id: id }));
    const state = JSON.parse(readFileSync(s.statePathFor("r0"), "utf8"));
    expect(state.indexed_size).toBe(readFileSync(s.pathFor("r0")).length);
    expect(Object.keys(state.entry_digests).sort()).toEqual(["c0", "c1", "c2"]);
    expect(state.version).toBe(3);
    // Lines are canonical JSON (sorted keys), the bytes upstream's reader and digest expect.
    expect(readFileSync(s.pathFor("r0"), "utf8").split("\n")[0]).toBe(canonicalJson(entry()));
  });

  test("a durable line the index never saw (crash between the two) is recovered on the next put", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    const payload = `${canonicalJson(entry())}\n`;
    writeFileSync(s.pathFor("r0"), payload);
    await s.put(entry());
    expect(await s.readEntries("r0")).toEqual([entry()]);
    const state = JSON.parse(readFileSync(s.statePathFor("r0"), "utf8"));
    expect(state.indexed_size).toBe(Buffer.byteLength(payload));
    expect(Object.keys(state.entry_digests)).toEqual(["c0"]);
  });

  test("a torn last line (never acknowledged) is cut off; a bad line before more content is corruption", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry({ model_call_id: "c1" }));
    const good = readFileSync(s.pathFor("r0"), "utf8");
    writeFileSync(s.pathFor("r0"), `${good}{"rollout_id":"r0","model_ca`);
    const snap = await s.freeze("r0");
    expect(snap.entries.map((e) => e.model_call_id)).toEqual(["c1"]);
    expect(readFileSync(s.pathFor("r0"), "utf8")).toBe(good);

    const s2 = new TokenCaptureStore(join(d.path, "b"));
    await s2.put(entry({ model_call_id: "c1" }));
    writeFileSync(s2.pathFor("r0"), `${readFileSync(s2.pathFor("r0"), "utf8")}{broken\n${canonicalJson(entry({ model_call_id: "c3" }))}\n`);
    await expect(s2.freeze("r0")).rejects.toThrow();
  });

  test("state that lags the durable tail is rebuilt from it at freeze", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry({ rollout_id: "lag", model_call_id: "c1" }));
    const after1 = readFileSync(s.statePathFor("lag"));
    await s.put(entry({ rollout_id: "lag", model_call_id: "c2" }));
    writeFileSync(s.statePathFor("lag"), after1);
    const snap = await s.freeze("lag");
    expect(new Set(snap.entries.map((e) => e.model_call_id))).toEqual(new Set(["c1", "c2"]));
    expect(snap.incomplete).toBe(false);
  });

  test("a dispatched call without an entry leaves the snapshot incomplete; a committed one satisfies its intent", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.beginCall("lost", "c1");
    expect(await s.freeze("lost")).toMatchObject({ entries: [], incomplete: true });
    await s.beginCall("complete", "c1");
    await s.put(entry({ rollout_id: "complete", model_call_id: "c1" }));
    const snap = await s.freeze("complete");
    expect(snap.entries.map((e) => e.model_call_id)).toEqual(["c1"]);
    expect(snap.incomplete).toBe(false);
  });

  test("freeze is idempotent and final; drop retires only the exact snapshot; a retired rollout refuses writes until deleted", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry());
    const snap = await s.freeze("r0");
    expect(snap.entries).toEqual([entry()]);
    expect(await s.freeze("r0")).toEqual(snap);
    await expect(s.put(entry({ model_call_id: "late" }))).rejects.toThrow("already frozen");
    await expect(s.beginCall("r0", "late")).rejects.toThrow("already frozen");
    await s.markIncomplete("r0", "late");
    expect(await s.drop("r0", { snapshotId: snap.snapshot_id, version: snap.version })).toBe(false);
    const updated = await s.freeze("r0");
    expect(updated.incomplete).toBe(true);
    expect(updated.snapshot_id).toBe(snap.snapshot_id);
    expect(await s.drop("r0", { snapshotId: updated.snapshot_id, version: updated.version })).toBe(true);
    expect(await s.readEntries("r0")).toEqual([]);
    const state = JSON.parse(readFileSync(s.statePathFor("r0"), "utf8"));
    expect(state).toMatchObject({ retired: true, frozen: true, indexed_size: 0, entry_digests: {} });
    await expect(s.freeze("r0")).rejects.toThrow("retired");
    await expect(s.put(entry({ model_call_id: "late-after-drop" }))).rejects.toThrow("retired");
    await s.delete("r0");
    await s.put(entry({ model_call_id: "replacement" }));
    expect((await s.readEntries("r0")).map((e) => e.model_call_id)).toEqual(["replacement"]);
  });

  test("delete removes records and the marker, and is idempotent", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    await s.put(entry({ rollout_id: "gone-0", model_call_id: "c" }));
    await s.markIncomplete("gone-0", "c");
    expect(existsSync(s.pathFor("gone-0")) && (await s.isIncomplete("gone-0"))).toBe(true);
    await s.delete("gone-0");
    expect(existsSync(s.pathFor("gone-0"))).toBe(false);
    expect(await s.isIncomplete("gone-0")).toBe(false);
    await s.delete("gone-0");
  });

  test("sweepRetired removes only old retired tombstones", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    for (const id of ["old", "recent", "live"]) await s.put(entry({ rollout_id: id, model_call_id: `${id}-c1` }));
    for (const id of ["old", "recent"]) {
      const snap = await s.freeze(id);
      expect(await s.drop(id, { snapshotId: snap.snapshot_id, version: snap.version })).toBe(true);
    }
    const old = Date.now() / 1000 - 3600;
    utimesSync(s.statePathFor("old"), old, old);
    expect(await s.sweepRetired(600)).toBe(1);
    expect(existsSync(s.statePathFor("old"))).toBe(false);
    expect(existsSync(s.statePathFor("recent"))).toBe(true);
    expect(existsSync(s.pathFor("live"))).toBe(true);
  });

  test("a newer record in the store fails the read instead of being skipped", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    writeFileSync(s.pathFor("r0"), `${JSON.stringify({ ...entry(), schema_version: 99 })}\n`);
    await expect(s.freeze("r0")).rejects.toThrow("schema_version 99");
  });

  test("32 concurrent puts to one rollout stay whole", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    const all = Array.from({ length: 32 }, (_v, i) => entry({ model_call_id: `call-${i}`, prompt_token_ids: Array.from({ length: 200 }, (_x, k) => k), generation_token_ids: Array(64).fill(i), generation_log_probs: Array(64).fill(-0.1) }));
    await Promise.all(all.map((e) => s.put(e)));
    const read = await s.readEntries("r0");
    expect(read.length).toBe(32);
    expect(new Set(read.map((e) => e.model_call_id)).size).toBe(32);
    expect((await s.freeze("r0")).incomplete).toBe(false);
  });

  test("writers in three processes share one rollout through flock: every line whole, the index complete", async () => {
    await using d = await tempDir();
    const script = join(d.path, "writer.ts");
    const src = join(import.meta.dir, "..", "..", "..", "src", "servers", "token-capture");
    writeFileSync(script, `import { TokenCaptureStore } from ${JSON.stringify(join(src, "store.ts"))};
import { newTokenEntry } from ${JSON.stringify(join(src, "records.ts"))};
const s = new TokenCaptureStore(process.argv[2]);
const w = process.argv[3];
await Promise.all(Array.from({ length: 20 }, (_v, i) => s.put(newTokenEntry({ rollout_id: "shared", model_call_id: w + "-" + i, prompt_token_ids: Array.from({ length: 500 }, (_x, k) => k), generation_token_ids: [i], generation_log_probs: [-0.5] }))));
`);
    const store = join(d.path, "store");
    new TokenCaptureStore(store);
    const procs = ["a", "b", "c"].map((w) => Bun.spawn([process.execPath, script, store, w], { stdout: "ignore", stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual([0, 0, 0]);
    const s = new TokenCaptureStore(store);
    const read = await s.readEntries("shared");
    expect(read.length).toBe(60);
    const state = JSON.parse(readFileSync(s.statePathFor("shared"), "utf8"));
    expect(Object.keys(state.entry_digests).length).toBe(60);
    expect(state.indexed_size).toBe(readFileSync(s.pathFor("shared")).length);
  }, 60_000);
});

describe("bounded store and capture failures", () => {
  test("a rollout past maxRolloutBytes refuses the call (TokenStoreFullError) and the capture marks it incomplete", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path, { maxRolloutBytes: 600 });
    await s.put(entry({ model_call_id: "c1" }));
    await expect(s.put(entry({ model_call_id: "c2", prompt_token_ids: Array(300).fill(7) }))).rejects.toBeInstanceOf(TokenStoreFullError);
    const capture = new TokenCapture(s, "policy");
    const c = { rolloutId: "r0", modelCallId: "c3", sink: s, committed: false };
    await capture.capture(c, { model: "m", output: [{ type: "message", content: [], prompt_token_ids: Array(300).fill(7), generation_token_ids: [1], generation_log_probs: [-1] }] });
    expect(c.committed).toBe(false);
    const snap = await s.freeze("r0");
    expect(snap.entries.map((e) => e.model_call_id)).toEqual(["c1"]);
    expect(snap.incomplete).toBe(true);
    expect(readFileSync(s.incompletePathFor("r0"), "utf8")).toBe("c3\n");
  });

  test.each([
    ["token-less answer", { output: [{ type: "message" }] }],
    ["a non-object answer", "text"],
    ["partial token fields", { output: [{ type: "message", generation_token_ids: [1], generation_log_probs: [-1] }] }],
    ["mismatched log probs", { output: [{ type: "message", prompt_token_ids: [1], generation_token_ids: [1, 2], generation_log_probs: [-1] }] }],
  ] as const)("%s marks the rollout incomplete without throwing", async (_n, response) => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    const c = { rolloutId: "r1", modelCallId: "cx", sink: s, committed: false };
    await new TokenCapture(s, "policy").capture(c, response);
    expect(await s.isIncomplete("r1")).toBe(true);
    expect(await s.readEntries("r1")).toEqual([]);
  });

  test("a call already committed by another path is not marked when its answer has no ids", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    const tc = new TokenCapture(s, "policy");
    const c = { rolloutId: "cm0-r0", modelCallId: "c1", sink: s, committed: false };
    await tc.commit(c, entry({ rollout_id: "cm0-r0", model_call_id: "c1" }));
    expect(c.committed).toBe(true);
    await tc.capture(c, { output: [{ type: "message" }] });
    expect(await s.isIncomplete("cm0-r0")).toBe(false);
  });

  test("an entry whose identity does not match the call in flight is refused and marks the rollout", async () => {
    await using d = await tempDir();
    const s = new TokenCaptureStore(d.path);
    const c = { rolloutId: "id0", modelCallId: "c1", sink: s, committed: false };
    await new TokenCapture(s, "policy").commit(c, entry({ rollout_id: "id0", model_call_id: "other" }));
    expect(await s.readEntries("id0")).toEqual([]);
    expect(await s.isIncomplete("id0")).toBe(true);
  });
});

describe("a store written by upstream's Python TokenCaptureStore (python-store/, recorded once)", () => {
  test("gym's store freezes it (its state index and the dangling intent included) and builds the trajectory", async () => {
    await using d = await tempDir();
    const { cpSync } = await import("node:fs");
    cpSync(join(import.meta.dir, "..", "..", "fixtures", "token-capture", "python-store"), d.path, { recursive: true });
    const s = new TokenCaptureStore(d.path);
    const snap = await s.freeze("py-0");
    expect(snap.entries.map((e) => [e.model_call_id, e.generation_log_probs])).toEqual([["a1", [-0.1, 0]], ["a2", [-1]]]);
    // a3 was dispatched and never recorded: the snapshot is incomplete, as upstream's freeze says.
    expect(snap.incomplete).toBe(true);
    // The version continues upstream's count (2 puts) with the freeze.
    expect(snap.version).toBe(3);
    const { trajectoriesFromSource } = await import("../../../src/servers/token-capture/consumer.ts");
    const built = await trajectoriesFromSource("py-0", s);
    expect(built.rebuilt_response!.output).toEqual([
      { type: "function_call", name: "f", arguments: "{}", prompt_token_ids: [1, 2, 3], generation_token_ids: [10, 11], generation_log_probs: [-0.1, 0] },
      { type: "message", prompt_token_ids: [1, 2, 3, 10, 11, 4], generation_token_ids: [12], generation_log_probs: [-1] },
    ]);
    expect(built.mask_sample).toBe(true);
    expect(built.metrics.capture_incomplete).toBe(true);
  });
});
