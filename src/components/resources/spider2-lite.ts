/**
 * resources_servers/spider2_lite: Spider 2.0-Lite (local SQLite tasks) by execution. The answer's SQL
 * (verify/rules/sql/extract.ts) runs on `<spider2_lite_dir>/sqlite/<db_id>.sqlite`, read-only in the SQL
 * runner processes under `sql_execution_timeout_s`, and is compared by column vectors
 * (verify/rules/sql/compare.ts) with the gold query's rows (`gold_sql`) or the recorded alternatives
 * (`gold_result`, read with Python's int/float distinction, which its ordering depends on).
 */
import Type from "typebox";
import { RuntimeError } from "../../errors.ts";
import { log } from "../../log.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { jsonLoadsTyped } from "../../util/py-json-typed.ts";
import { spiderMultiMatch } from "../../verify/rules/sql/compare.ts";
import { spiderExtractSql } from "../../verify/rules/sql/extract.ts";
import { sqlValueOfJson, type SqlRow } from "../../verify/rules/sql/values.ts";
import { outputText } from "../../verify/response-text.ts";
import type { BuiltinComponent } from "../registry.ts";
import { hasSqliteFile, locateDatabases, safeDbId, sqlPool, sqlSettings, type SqlDataLayout } from "./_sql-data.ts";
import { join } from "node:path";

type Obj = Record<string, unknown>;
const CLASS_NAME = "Spider2LiteResourcesServer";
const GDRIVE_FILE_ID = "1coEVsCZq-Xvj9p2TnhBFoFTsY-UoYGmG";
const GDRIVE_URL = `https://drive.usercontent.google.com/download?id=${GDRIVE_FILE_ID}&export=download&authuser=0&confirm=t`;

/** Upstream's layout: the Drive archive's *.sqlite files, flattened into `<dir>/sqlite/`. */
export const SPIDER2_LAYOUT: SqlDataLayout = {
  dirKey: "spider2_lite_dir",
  defaultDir: "resources_servers/spider2_lite/.spider2_lite",
  subdir: "sqlite",
  present: hasSqliteFile,
  dbFile: (dbDir, dbId) => join(dbDir, `${dbId}.sqlite`),
  fetchCommand: (dir) => `mkdir -p '${dir}/sqlite' && curl -fL -A Mozilla/5.0 -o '${dir}/spider2_lite_sqlite.zip' '${GDRIVE_URL}' && unzip -q -o -j '${dir}/spider2_lite_sqlite.zip' '*.sqlite' -d '${dir}/sqlite'`,
};

// The fields upstream drops from its answer (the rest of the request is echoed).
const NOT_ECHOED = new Set(["gold_result", "ignore_order", "condition_cols"]);

/** `gold_result` as Python read it: ints and floats kept apart (from the raw body when there is one). */
function goldSets(body: Obj, raw: string | undefined): SqlRow[][] {
  let gold = body.gold_result as unknown[][][];
  if (raw !== undefined) {
    try {
      gold = (jsonLoadsTyped(raw) as Obj).gold_result as unknown[][][];
    } catch {
      // The body was parsed once already; fall back to its (JSON.parse) reading.
    }
  }
  return gold.map((set) => set.map((row) => row.map(sqlValueOfJson)));
}

/** The spider2_lite component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "spider2_lite",
  className: CLASS_NAME,
  checkConfig(ctx) {
    sqlSettings(ctx, SPIDER2_LAYOUT);
  },
  async create(ctx) {
    const settings = sqlSettings(ctx, SPIDER2_LAYOUT);
    let dbDir: string | RuntimeError;
    try {
      dbDir = await locateDatabases(ctx.instanceName, settings, SPIDER2_LAYOUT);
    } catch (e) {
      if (!(e instanceof RuntimeError)) throw e;
      dbDir = e;
      log.error(`${ctx.instanceName}: ${e.message} — every /verify will fail as a verifier error; ${e.hint}`);
    }
    const pool = sqlPool(settings);
    const nullable = (t: ReturnType<typeof Type.String>) => Type.Optional(Type.Union([t, Type.Null()]));
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        uuid: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
        instance_id: nullable(Type.String()),
        db_id: Type.String(),
        question: Type.String(),
        gold_sql: nullable(Type.String()),
        gold_result: Type.Optional(Type.Union([Type.Array(Type.Array(Type.Array(Type.Unknown()))), Type.Null()])),
        ignore_order: Type.Optional(Type.Boolean()),
        condition_cols: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      async verify(body, call) {
        if (dbDir instanceof RuntimeError) throw dbDir;
        const generated = outputText(body.response);
        const echo: Obj = { uuid: null, instance_id: null, metadata: null };
        for (const [k, v] of Object.entries(body)) if (!NOT_ECHOED.has(k)) echo[k] = v;
        const answer = (match: boolean, extracted: string | null, failure: string): Obj & { reward: number } => ({
          ...echo,
          reward: match ? 1.0 : 0.0,
          model_output: generated,
          execution_match: match,
          gold_sql: body.gold_sql ?? null,
          extracted_sql: extracted,
          failure_reason: failure,
        });
        const extracted = generated ? spiderExtractSql(generated) : null;
        if (!extracted) return answer(false, null, "no_sql_extracted");
        const dbId = body.db_id as string;
        const dbFile = safeDbId(dbId) ? SPIDER2_LAYOUT.dbFile(dbDir, dbId) : "";
        const run = (sql: string) => (dbFile ? pool.run(dbFile, sql, settings.timeoutS) : Promise.resolve({ ok: false as const }));
        const ignoreOrder = body.ignore_order === undefined ? true : (body.ignore_order as boolean);
        const cols = (body.condition_cols ?? null) as unknown[] | null;
        let match = false;
        if (typeof body.gold_sql === "string" && body.gold_sql !== "") {
          const gold = await run(body.gold_sql);
          if (!gold.ok) return answer(false, extracted, "execution_error");
          const pred = await run(extracted);
          if (!pred.ok) return answer(false, extracted, "execution_error");
          match = spiderMultiMatch([gold.rows], pred.rows, cols ?? [], ignoreOrder);
        } else if (Array.isArray(body.gold_result) && body.gold_result.length > 0) {
          const pred = await run(extracted);
          if (!pred.ok) return answer(false, extracted, "execution_error");
          match = spiderMultiMatch(goldSets(body, call.ctx.rawBody), pred.rows, cols, ignoreOrder);
        } else {
          throw new HttpError(422, "verifier_metadata must contain either 'gold_sql' or 'gold_result'");
        }
        return answer(match, extracted, match ? "none" : "execution_error");
      },
    });
    return { ...app, close: () => pool.close() };
  },
};
