/**
 * Getting a benchmark's source files: from the network (raw URLs and the Hugging Face Hub, over
 * the hub client with its deadline and retries, plus a few whole-download retries for 5xx and
 * truncated bodies), or, air-gapped, from `--data-dir DIR/<benchmark>/<source name>`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { HubHttp, HubHttpError } from "../dataset/hf-http.ts";
import { datasetConfigNames } from "../dataset/hf-configs.ts";
import { CONFIGS_FILE, sourceLabel, sourceName, type SourceFile, type SourceSpec } from "./types.ts";

/** How sources are reached for one `gym eval prepare`. */
export interface FetchEnv {
  /** Hugging Face client (endpoint from hf_endpoint / HF_ENDPOINT, bearer hf_token on its origin only). */
  hub: HubHttp;
  /** Client for a plain URL source's origin: same deadlines and retries, never a token. */
  raw: (origin: string) => HubHttp;
  /** Whether a token is configured (gated sources need one). */
  hasToken: boolean;
  /** `benchmark_mirror_url`: fetch `https://host/path` as `<mirror>/host/path` instead. */
  mirror?: string;
  /** Air-gapped: read every file from here, never the network. */
  dataDir?: string;
}

const ATTEMPTS = 4;

function sizeOf(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

/** Problems that stop a benchmark before anything is downloaded (missing token, missing offline files). */
export function checkSources(bench: string, sources: SourceSpec[], env: FetchEnv): string[] {
  const problems: string[] = [];
  for (const s of sources) {
    if (env.dataDir) {
      const p = join(env.dataDir, bench, sourceName(s));
      if (!existsSync(p)) problems.push(`${bench}: ${p} is missing (source ${sourceLabel(s)})`);
      else if (s.kind === "hf-parquet" && parquetFiles(p).length === 0) problems.push(`${bench}: ${p} holds no *.parquet file (source ${sourceLabel(s)})`);
    } else if (s.kind !== "url" && s.gated && !env.hasToken) {
      problems.push(`${bench}: ${sourceLabel(s)} is a gated dataset; set hf_token (+hf_token=… or in env.yaml) after accepting its terms on the Hub`);
    }
  }
  return problems;
}

function parquetFiles(dir: string): string[] {
  try {
    if (!statSync(dir).isDirectory()) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith(".parquet"))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  } catch {
    return [];
  }
}

function hubPath(parts: string): string {
  return parts.split("/").map(encodeURIComponent).join("/");
}

function mirrored(url: string, mirror: string | undefined): string {
  if (!mirror) return url;
  const u = new URL(url);
  return `${mirror.replace(/\/$/, "")}/${u.host}${u.pathname}${u.search}`;
}

/** Whether a failed download is worth another try (server errors, cut-off bodies, dropped connections). */
function retryable(e: unknown): boolean {
  if (e instanceof HubHttpError) return e.status >= 500 || e.status === 429;
  return e instanceof TruncatedError || (e instanceof Error && !(e instanceof ConfigError) && !(e instanceof HubHttpError) && !(e instanceof RuntimeError));
}

class TruncatedError extends RuntimeError {
  constructor(url: string, got: number, want: number) {
    super(`download of ${url} was cut off: got ${got} of ${want} bytes`, { code: "E_TRUNCATED", hint: "the connection dropped mid-download; retry (nothing was written)" });
    this.name = "TruncatedError";
  }
}

/** GET one URL whole: checks Content-Length, retries 5xx and truncation a few times. */
async function download(http: HubHttp, url: string, bench: string, name: string): Promise<Uint8Array> {
  let last: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const res = await http.request(url);
      const want = Number(res.headers.get("content-length") ?? Number.NaN);
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await res.arrayBuffer());
      } catch (e) {
        throw Number.isFinite(want) ? new TruncatedError(http.display(url), 0, want) : e;
      }
      if (Number.isFinite(want) && !res.headers.get("content-encoding") && bytes.length !== want) throw new TruncatedError(http.display(url), bytes.length, want);
      return bytes;
    } catch (e) {
      last = e;
      if (attempt === ATTEMPTS || !retryable(e)) break;
      log.warn(`${bench}: ${name}: ${(e as Error).message.split("\n")[0]}; retrying (${attempt}/${ATTEMPTS - 1})`);
      await Bun.sleep(250 * 2 ** (attempt - 1));
    }
  }
  if (last instanceof Error && !(last instanceof RuntimeError) && !(last instanceof ConfigError)) {
    throw new RuntimeError(`${bench}: downloading ${name} from ${http.display(url)} failed: ${last.message}`, { cause: last });
  }
  if (last instanceof RuntimeError) throw new RuntimeError(`${bench}: ${name}: ${last.message}`, { hint: last.hint, code: last.code, cause: last });
  throw last;
}

function fromDataDir(env: FetchEnv, bench: string, s: SourceSpec): SourceFile[] {
  const p = join(env.dataDir!, bench, sourceName(s));
  if (s.kind === "hf-parquet") {
    const files = parquetFiles(p);
    if (files.length === 0) throw new ConfigError(`${bench}: ${p} holds no *.parquet file`, { hint: "see `gym eval prepare --help` for the --data-dir layout" });
    return files.map((f) => ({ name: `${sourceName(s)}/${f}`, bytes: new Uint8Array(readFileSync(join(p, f))) }));
  }
  if (!existsSync(p)) throw new ConfigError(`${bench}: ${p} is missing`, { hint: "see `gym eval prepare --help` for the --data-dir layout" });
  const list: SourceFile = { name: sourceName(s), bytes: new Uint8Array(readFileSync(p)) };
  if (s.kind !== "hf-parquet-configs") return [list];
  const configs = configList(list, p);
  return [list, ...configs.flatMap((config) => fromDataDir(env, bench, { kind: "hf-parquet", repo: s.repo, config, split: s.split }))];
}

/** The config names a stored `configs.json` holds. */
function configList(file: SourceFile, where: string): string[] {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(file.bytes));
  } catch {
    v = undefined;
  }
  if (!Array.isArray(v) || v.some((c) => typeof c !== "string" || c === "" || c.includes("/") || c.startsWith("."))) {
    throw new ConfigError(`${where}: not a JSON list of config names`, { hint: `write the dataset's config names, e.g. ["eng_latn", "fra_latn"]` });
  }
  return v as string[];
}

/** Fetch every file of one source, logging one progress line per file on stderr. */
export async function fetchSource(env: FetchEnv, bench: string, s: SourceSpec): Promise<SourceFile[]> {
  if (env.dataDir) {
    const files = fromDataDir(env, bench, s);
    for (const f of files) log.info(`${bench}: ${f.name} (${sizeOf(f.bytes.length)}) from ${env.dataDir}`);
    return files;
  }
  const one = async (url: string, name: string, http = env.hub): Promise<SourceFile> => {
    log.info(`${bench}: downloading ${name} from ${http.display(url)}`);
    const bytes = await download(http, url, bench, name);
    log.info(`${bench}: ${name} done (${sizeOf(bytes.length)})`);
    return { name, bytes };
  };
  if (s.kind === "url") {
    const url = mirrored(s.url, env.mirror);
    return [await one(url, s.file, env.raw(new URL(url).origin))];
  }
  if (s.kind === "hf-file") return [await one(env.hub.url(`/datasets/${s.repo}/resolve/${encodeURIComponent(s.revision ?? "main")}/${hubPath(s.path)}`), s.path)];
  if (s.kind === "hf-parquet") return fetchParquet(env, bench, s, one);
  let configs: string[];
  try {
    configs = await datasetConfigNames(env.hub, s.repo);
  } catch (e) {
    if (e instanceof RuntimeError) throw new RuntimeError(`${bench}: ${e.message}`, { hint: e.hint, code: e.code, cause: e });
    throw e;
  }
  log.info(`${bench}: ${s.repo} lists ${configs.length} config(s)`);
  const out: SourceFile[] = [{ name: CONFIGS_FILE, bytes: new TextEncoder().encode(JSON.stringify(configs)) }];
  for (const config of configs) out.push(...(await fetchParquet(env, bench, { kind: "hf-parquet", repo: s.repo, config, split: s.split, gated: s.gated }, one)));
  return out;
}

/** The Hub's parquet conversion of one config/split: its file list, then each file. */
async function fetchParquet(env: FetchEnv, bench: string, s: Extract<SourceSpec, { kind: "hf-parquet" }>, one: (url: string, name: string) => Promise<SourceFile>): Promise<SourceFile[]> {
  const listUrl = `/api/datasets/${s.repo}/parquet/${encodeURIComponent(s.config)}/${encodeURIComponent(s.split)}`;
  let urls: unknown;
  try {
    urls = await env.hub.json<unknown>(listUrl);
  } catch (e) {
    if (e instanceof RuntimeError) throw new RuntimeError(`${bench}: ${e.message}`, { hint: e.hint, code: e.code, cause: e });
    throw e;
  }
  if (!Array.isArray(urls) || urls.length === 0 || urls.some((u) => typeof u !== "string")) {
    throw new RuntimeError(`${bench}: ${env.hub.display(env.hub.url(listUrl))} did not list parquet files for ${s.config}/${s.split}`, { hint: "check the dataset's config and split names on the Hub" });
  }
  const out: SourceFile[] = [];
  for (const u of urls as string[]) out.push(await one(u, `${sourceName(s)}/${basename(new URL(u).pathname)}`));
  return out;
}
