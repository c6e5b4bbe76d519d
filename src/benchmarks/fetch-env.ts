/** The FetchEnv of a command from its resolved top-level keys (hf_token, hf_endpoint / HF_ENDPOINT, benchmark_mirror_url). */
import { resolve } from "node:path";
import { readEnv } from "../env.ts";
import { HubHttp } from "../dataset/hf-http.ts";
import { hfEndpoint } from "../dataset/hf-upload.ts";
import type { Keys } from "../dataset/upload-keys.ts";
import type { FetchEnv } from "./fetch-sources.ts";

/** Build the source clients; `dataDir` switches to offline reads. */
export function fetchEnvFromKeys(keys: Keys, dataDir?: string): FetchEnv {
  return {
    hub: new HubHttp(hfEndpoint(keys, readEnv().hfEndpoint), keys.str("hf_token"), "Hugging Face", keys),
    // Plain URL sources never see the token.
    raw: (origin: string) => new HubHttp(origin, undefined, "download", keys),
    hasToken: keys.str("hf_token") !== undefined,
    mirror: keys.str("benchmark_mirror_url"),
    dataDir: dataDir ? resolve(dataDir) : undefined,
  };
}
