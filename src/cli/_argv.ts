/**
 * argv parsing for one gym command: flags (with aliases, repeatable flags and `--x=v`),
 * positionals, and raw Hydra overrides. Unknown `-` tokens are collected and reported with
 * a did-you-mean hint, as upstream's router does (spec cli-config §2.2, D11).
 */
import { UsageError } from "../errors.ts";
import { closestMatch } from "../util/similar.ts";
import type { GymArgDef, ParsedFlags } from "./_command.ts";

/** Result of parsing one command's tokens. */
export interface ParsedArgv {
  flags: ParsedFlags;
  overrides: string[];
  verbose: boolean;
  help: boolean;
}

function isOverrideToken(tok: string): boolean {
  return tok.startsWith("+") || tok.startsWith("~") || tok.includes("=");
}

/** Parse `tokens` against a command's argument definitions; `prog` names the command in errors. */
export function parseArgv(tokens: string[], defs: Record<string, GymArgDef>, prog: string): ParsedArgv {
  const byName = new Map<string, [string, GymArgDef]>();
  const optionStrings: string[] = [];
  const positionals: [string, GymArgDef][] = [];
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") {
      positionals.push([name, def]);
      continue;
    }
    byName.set(`--${name}`, [name, def]);
    optionStrings.push(`--${name}`);
    const alias = "alias" in def ? def.alias : undefined;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    for (const a of aliases) {
      const s = a.length === 1 ? `-${a}` : `--${a}`;
      byName.set(s, [name, def]);
      optionStrings.push(s);
    }
  }

  const flags: ParsedFlags = {};
  const overrides: string[] = [];
  const unknown: string[] = [];
  const extra: string[] = [];
  let verbose = false;
  let help = false;
  let posIndex = 0;

  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === "-v" || tok === "--verbose") {
      verbose = true;
      continue;
    }
    if (tok === "-h" || tok === "--help") {
      help = true;
      continue;
    }
    if (tok.startsWith("-") && tok.length > 1 && !/^-\d/.test(tok)) {
      const eq = tok.indexOf("=");
      const flagName = eq >= 0 ? tok.slice(0, eq) : tok;
      const entry = byName.get(flagName);
      if (!entry) {
        unknown.push(tok);
        continue;
      }
      const [name, def] = entry;
      let value: string | boolean;
      if (def.type === "boolean") {
        value = eq >= 0 ? tok.slice(eq + 1) !== "false" : true;
      } else {
        if (eq >= 0) value = tok.slice(eq + 1);
        else {
          const next = tokens[i + 1];
          if (next === undefined) throw new UsageError(`${prog}: error: argument ${flagName}: expected one argument`);
          value = next;
          i++;
        }
        if (def.type === "enum" && def.options && !def.options.includes(value)) {
          const near = closestMatch(value, def.options);
          throw new UsageError(
            `${prog}: error: argument ${flagName}: invalid choice: '${value}' (choose from ${def.options.map((o) => `'${o}'`).join(", ")})`,
            { hint: near ? `Did you mean \`${near}\`?` : undefined },
          );
        }
      }
      if (def.repeatable) {
        const prev = flags[name];
        flags[name] = [...(Array.isArray(prev) ? prev : []), String(value)];
      } else flags[name] = value;
      continue;
    }
    if (isOverrideToken(tok)) {
      overrides.push(tok);
      continue;
    }
    const pos = positionals[posIndex];
    if (pos) {
      flags[pos[0]] = tok;
      posIndex++;
    } else extra.push(tok);
  }

  if (unknown.length > 0 || extra.length > 0) {
    const hints = unknown
      .map((u) => {
        const base = u.split("=")[0]!;
        const near = closestMatch(base, optionStrings.filter((o) => o !== base));
        return near ? `Did you mean \`${near}\`?` : undefined;
      })
      .filter((h): h is string => h !== undefined);
    throw new UsageError(`${prog}: error: unrecognized arguments: ${[...unknown, ...extra].join(" ")}`, {
      hint: hints.length > 0 ? hints.join("\n") : `run \`${prog} --help\` to see the accepted options`,
    });
  }
  // `--help` prints help and exits 0 whatever else is missing (argparse does the same).
  for (const [name, def] of help ? [] : positionals) {
    if (flags[name] === undefined && def.required === true) {
      throw new UsageError(`${prog}: error: the following arguments are required: ${name.toUpperCase()}`);
    }
  }
  return { flags, overrides, verbose, help };
}
