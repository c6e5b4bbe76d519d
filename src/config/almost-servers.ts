/**
 * Almost-server reporting (cli-config §6.3): always shown as a warning banner; an error unless
 * `error_on_almost_servers` is false. The error carries a secret-masked dump of the config (D10).
 */
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { redactSecrets } from "./redact.ts";
import { yamlLib } from "./yaml-lib.ts";
import type { AlmostServer } from "./servers.ts";
import type { ConfigDict } from "./types.ts";

const RULE = "═".repeat(20);

/** The banner text of §6.3 for a list of almost-servers. */
export function almostServerReport(almost: AlmostServer[]): string {
  const blocks = almost.map(
    (a) =>
      `Almost-Server Detected: '${a.name}'\nThis server configuration failed validation:\n${a.errors.map((e) => `  - ${e}`).join("\n")}\nThis server will NOT be started.`,
  );
  return `${RULE} Configuration Warnings: Almost-Servers Detected ${RULE}\n${blocks.join("\n\n")}`;
}

/** Print the report, then throw AlmostServerError when `errorOnAlmost` is true. */
export function handleAlmostServers(almost: AlmostServer[], errorOnAlmost: boolean, dict: ConfigDict): void {
  if (almost.length === 0) return;
  const report = almostServerReport(almost);
  if (!errorOnAlmost) {
    log.warn(report);
    return;
  }
  throw new ConfigError(
    `${report}\n\nFound ${almost.length} almost-server(s) with validation errors. Fix the issues above or set error_on_almost_servers=false to bypass this error.\n` +
      `Found global config dict yaml:\n${yamlLib().stringify(redactSecrets(dict), { indentSeq: false, lineWidth: 0 })}`,
    { code: "E_ALMOST_SERVER", hint: "fix the fields listed above, or pass +error_on_almost_servers=false to skip those servers" },
  );
}
