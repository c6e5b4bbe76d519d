/**
 * Test preload: isolate HOME/XDG in a temp dir, clear API keys and gym variables that a
 * developer's shell may carry, and mark the process as under test (no colours, no TTY bars).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const home = mkdtempSync(join(tmpdir(), "gym-test-home-"));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, ".config");
process.env.XDG_CACHE_HOME = join(home, ".cache");
process.env.GYM_TESTING = "1";
process.env.NO_COLOR = "1";
for (const k of Object.keys(process.env)) {
  if (/API_KEY|_TOKEN$|^NEMO_GYM_|^WANDB_|^MLFLOW_|^HF_/.test(k)) delete process.env[k];
}
