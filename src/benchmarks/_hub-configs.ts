/**
 * Sources of kind `hf-parquet-configs` (every language/config the Hub lists for a dataset): the stored
 * config list (`configs.json`, the card's order, as `datasets.get_dataset_config_names`) and each
 * config's parquet files, read back in that order.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { CONFIGS_FILE, type SourceFile } from "./types.ts";

/** `[config, its parquet files of split]` in the stored config order. */
export function byConfig(files: SourceFile[], split: string, benchmark: string): [string, SourceFile[]][] {
  const [list, ...rest] = files;
  if (!list || list.name !== CONFIGS_FILE) throw new SourceFormatError(benchmark, `expected ${CONFIGS_FILE} first among the fetched files`);
  let configs: unknown;
  try {
    configs = JSON.parse(new TextDecoder().decode(list.bytes));
  } catch {
    configs = null;
  }
  if (!Array.isArray(configs) || !configs.every((c) => typeof c === "string")) throw new SourceFormatError(`${benchmark}/${CONFIGS_FILE}`, "must be a JSON list of config names");
  return (configs as string[]).map((c) => [c, rest.filter((f) => f.name.startsWith(`${c}/${split}/`))]);
}

/** One parquet row with where it came from (`file: row N`) for error messages. */
export interface HubRow {
  row: Record<string, unknown>;
  where: string;
}

/** Every row of a config's parquet files, in file order. */
export async function hubRows(parts: SourceFile[]): Promise<HubRow[]> {
  const out: HubRow[] = [];
  for (const file of parts) (await readParquet(file.bytes, file.name)).forEach((row, i) => out.push({ row, where: `${file.name}: row ${i + 1}` }));
  return out;
}

/** `row[key]` as Python indexes a dict: any value, but a missing key stops the preparation. */
export function column(r: HubRow, key: string): unknown {
  if (!Object.hasOwn(r.row, key)) throw new SourceFormatError(r.where, `the row has no '${key}' column`);
  return r.row[key];
}
