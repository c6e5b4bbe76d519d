/**
 * resources_servers/bird_sql: BIRD dev text-to-SQL by execution. The last ```sql block of the answer
 * (verify/rules/sql/extract.ts) and the gold query run on `<bird_sql_dir>/dev_20240627/dev_databases/
 * <db_id>/<db_id>.sqlite`, opened read-only in the SQL runner processes under `sql_execution_timeout_s`;
 * reward 1 iff the result sets are equal as Python sets (verify/rules/sql/compare.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import Type from "typebox";
import { log } from "../../log.ts";
import { RuntimeError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type ScoreFn } from "../../verify/aggregate-metrics.ts";
import { birdResultsMatch } from "../../verify/rules/sql/compare.ts";
import { birdExtractSql, birdHasSqlBlock } from "../../verify/rules/sql/extract.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import { outputText } from "../../verify/response-text.ts";
import type { BuiltinComponent } from "../registry.ts";
import { hasSqliteFile, locateDatabases, safeDbId, sqlPool, sqlSettings, type SqlDataLayout } from "./_sql-data.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "BirdSqlResourcesServer";
/** Where upstream downloads BIRD dev (dev.json + the SQLite databases). */
export const BIRD_DEV_ZIP_URL = "https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip";

/** Upstream's layout: dev.zip holds dev_20240627/dev_databases.zip, which holds one folder per db_id. */
export const BIRD_LAYOUT: SqlDataLayout = {
  dirKey: "bird_sql_dir",
  defaultDir: "resources_servers/bird_sql/.bird_sql",
  subdir: join("dev_20240627", "dev_databases"),
  present(dbDir) {
    try {
      return readdirSync(dbDir).some((d) => hasSqliteFile(join(dbDir, d)));
    } catch {
      return false;
    }
  },
  dbFile: (dbDir, dbId) => join(dbDir, dbId, `${dbId}.sqlite`),
  fetchCommand: (dir) => `gym eval prepare --benchmark birdbench (found through the search roots when bird_sql_dir is relative), or: mkdir -p '${dir}' && curl -fL -A Mozilla/5.0 -o '${dir}/dev.zip' ${BIRD_DEV_ZIP_URL} && unzip -q -o '${dir}/dev.zip' -d '${dir}' && unzip -q -o '${dir}/dev_20240627/dev_databases.zip' -d '${dir}/dev_20240627'`,
};

/** Upstream `_score_fn`. */
export const birdScore: ScoreFn = (r) => ({ accuracy: Number(r.reward ?? 0) > 0 ? 1 : 0 });

/** Upstream compute_metrics: pass@k over `extracted_sql` plus the same per `difficulty`. */
export function birdComputeMetrics(tasks: Obj[][]): Obj {
  return { ...passMajorityMetrics(tasks, birdScore, "extracted_sql"), ...subsetMetrics(tasks, "difficulty", birdScore, "extracted_sql") };
}

/** Upstream get_key_metrics: token means, highest-k pass@1[avg] and pass@k, and each subset's pass@1[avg]. */
export function birdKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy"] }));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["accuracy"] }));
  const prefixes = new Set(Object.keys(am).filter((k) => k.includes("/pass@") && /^\p{Ll}/u.test(k)).map((k) => k.split("/pass@")[0]!));
  for (const p of prefixes) Object.assign(key, highestKMetrics(am, `${p}/pass@1[avg-of-{k}]`, { scoreNames: ["accuracy"] }));
  return key;
}

/** The bird_sql component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "bird_sql",
  className: CLASS_NAME,
  checkConfig(ctx) {
    sqlSettings(ctx, BIRD_LAYOUT);
  },
  async create(ctx) {
    const settings = sqlSettings(ctx, BIRD_LAYOUT);
    let dbDir: string | RuntimeError;
    try {
      dbDir = await locateDatabases(ctx.instanceName, settings, BIRD_LAYOUT);
    } catch (e) {
      if (!(e instanceof RuntimeError)) throw e;
      dbDir = e;
      log.error(`${ctx.instanceName}: ${e.message} — every /verify will fail as a verifier error; ${e.hint}`);
    }
    const pool = sqlPool(settings);
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        question: Type.String(),
        gt_sql: Type.String(),
        db_id: Type.String(),
        difficulty: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
      },
      reverifyMode: "stateless",
      computeMetrics: birdComputeMetrics,
      keyMetrics: birdKeyMetrics,
      async verify(body) {
        if (dbDir instanceof RuntimeError) throw dbDir;
        const generated = outputText(body.response);
        const dbId = body.db_id as string;
        const dbFile = safeDbId(dbId) ? BIRD_LAYOUT.dbFile(dbDir, dbId) : "";
        const extracted = birdExtractSql(generated);
        const hadBlock = birdHasSqlBlock(generated);
        let match = false;
        let failure: string;
        // A db_id that is a path names no database: the gold query fails, as on a missing file.
        const gold = dbFile ? await pool.run(dbFile, body.gt_sql as string, settings.timeoutS) : { ok: false as const };
        if (!gold.ok) failure = "gold_execution_error";
        else {
          const pred = await pool.run(dbFile, extracted, settings.timeoutS);
          match = pred.ok && birdResultsMatch(gold.rows, pred.rows);
          failure = match ? "none" : hadBlock ? "execution_error" : "no_sql_extracted";
        }
        return {
          ...body,
          reward: match ? 1.0 : 0.0,
          difficulty: body.difficulty ?? null,
          id: body.id ?? null,
          model_output: generated,
          execution_match: match,
          extracted_sql: extracted,
          failure_reason: failure,
          had_codeblock: hadBlock,
        };
      },
    });
    return { ...app, close: () => pool.close() };
  },
};
