/** Render a fixture submit YAML the way the golden files were produced. */
import { join } from "node:path";
import { composeSubmit } from "../../src/submit/compose.ts";
import { renderScript } from "../../src/submit/render/script.ts";
import { validateSubmit } from "../../src/submit/validate.ts";
import { ID } from "./_helpers.ts";

/** Directory of the submit fixtures. */
export const FIXTURES = join(import.meta.dir, "..", "fixtures", "submit");

/** Host environment the goldens are rendered with (a fake secret for `host:`). */
export const GOLDEN_ENV: Record<string, string> = { GOLDEN_HF_TOKEN: "hf_secret_value" };

/** Render every benchmark script of fixture `<name>.yaml`, joined. */
export function renderFixture(name: string): string {
  const path = join(FIXTURES, `${name}.yaml`);
  const lookup = (n: string) => GOLDEN_ENV[n];
  const v = validateSubmit(composeSubmit(path, [], lookup), path, { lookupEnv: lookup });
  return Object.keys(v.config.driver.benchmarks)
    .map((b) => renderScript(v.config, v.hostValues, ID, b))
    .join("");
}
