/** What a built-in benchmark preparer declares and receives (components §3.9, issue 12). */

/** Where one source file comes from. `gated` sources need `hf_token`. */
export type SourceSpec =
  /** A plain URL (GitHub raw, Berkeley tar, OpenAI blob CSV); `file` is its name under `--data-dir DIR/<benchmark>/`. */
  | { kind: "url"; url: string; file: string }
  /** One file of a Hugging Face dataset repo via `/resolve/<revision>/<path>`; stored under its repo path. */
  | { kind: "hf-file"; repo: string; path: string; revision?: string; gated?: boolean }
  /**
   * The Hub's parquet conversion of one config/split (`/api/datasets/<repo>/parquet/<config>/<split>`, always of
   * the main branch); stored as `<config>/<split>/<n>.parquet`.
   */
  | { kind: "hf-parquet"; repo: string; config: string; split: string; gated?: boolean }
  /**
   * The parquet conversion of `split` in every config the Hub lists for the repo (`datasets`'
   * `get_dataset_config_names`, in the dataset card's order): stored as `configs.json` (the list)
   * followed by each config's `<config>/<split>/<n>.parquet`.
   */
  | { kind: "hf-parquet-configs"; repo: string; split: string; gated?: boolean };

/** One fetched source file: its name under the benchmark's data folder, and its bytes. */
export interface SourceFile {
  name: string;
  bytes: Uint8Array;
}

/** A built-in benchmark's preparation: pure, from source bytes to JSONL lines. */
export interface BenchmarkPreparer {
  /** Registry key: the folder under `benchmarks/` (the `prepare_script`'s folder). */
  name: string;
  /** The resources server implementation that scores it (catalog column). */
  server: string;
  /**
   * Set when gym cannot prepare this benchmark itself (it needs a Python tool or a gated model
   * tokenizer): what is needed and how to get the file; `gym eval prepare` stops with it before
   * downloading anything, and `sources` is empty.
   */
  unsupported?: string;
  /** Every file the preparation reads, in the order `prepare` receives them. */
  sources: SourceSpec[];
  /**
   * Turn the fetched files (one list per source) into output lines (no trailing newline), or lines plus
   * side files the benchmark's server reads (e.g. evalplus' expected outputs), written under the output root.
   */
  prepare(files: SourceFile[][]): Promise<string[] | PreparedOutput> | string[] | PreparedOutput;
}

/** A preparation with side files: `extra` paths are relative to the output root (`<root>/<path>`). */
export interface PreparedOutput {
  lines: string[];
  extra: { path: string; bytes: Uint8Array }[];
}

/** Where an `hf-parquet-configs` source keeps its config list (a JSON array of names). */
export const CONFIGS_FILE = "configs.json";

/** The local name(s) a source is stored under (hf-parquet: a folder of numbered files). */
export function sourceName(s: SourceSpec): string {
  if (s.kind === "url") return s.file;
  if (s.kind === "hf-file") return s.path;
  if (s.kind === "hf-parquet-configs") return CONFIGS_FILE;
  return `${s.config}/${s.split}`;
}

/** Where a source is fetched from, for listings and messages. */
export function sourceLabel(s: SourceSpec): string {
  if (s.kind === "url") return s.url;
  if (s.kind === "hf-parquet") return `hf:${s.repo} ${s.config}/${s.split} (parquet)`;
  if (s.kind === "hf-parquet-configs") return `hf:${s.repo} <every config>/${s.split} (parquet)`;
  return `hf:${s.repo}${s.revision && s.revision !== "main" ? `@${s.revision}` : ""}/${s.path}`;
}
