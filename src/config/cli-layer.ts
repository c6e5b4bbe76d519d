/**
 * The CLI layer (cli-config §2.3, §4.4, D4): all `+config_paths=[…]` tokens are folded into one
 * leading token (selector paths first), `+`/`++` tokens build the CLI layer, and bare/`~` tokens
 * are kept aside to be applied to the merged config.
 */
import { applyOverride, parseOverride, type OverrideOp } from "./overrides.ts";
import type { ConfigDict } from "./types.ts";

/** Split the `+config_paths=[…]` tokens out of the overrides (contents split naively on `,`). */
export function splitConfigPathTokens(overrides: string[]): { paths: string[]; rest: string[] } {
  const paths: string[] = [];
  const rest: string[] = [];
  for (const tok of overrides) {
    if (tok.startsWith("+config_paths=[") && tok.endsWith("]")) {
      const inner = tok.slice("+config_paths=[".length, -1);
      for (const part of inner.split(",")) {
        const p = part.trim();
        if (p !== "") paths.push(p);
      }
    } else rest.push(tok);
  }
  return { paths, rest };
}

/** Fold every `+config_paths=[…]` token into one, emitted first (selector-derived paths first). */
export function combineConfigPathTokens(selectorPaths: string[], overrides: string[]): string[] {
  const { paths, rest } = splitConfigPathTokens(overrides);
  const all = [...selectorPaths, ...paths];
  return all.length > 0 ? [`+config_paths=[${all.join(",")}]`, ...rest] : rest;
}

/** The parsed command line: the CLI layer and the ops to apply after the merge. */
export interface CliLayer {
  layer: ConfigDict;
  /** Bare `k=v` and `~k` ops, in command-line order (D4). */
  postMerge: OverrideOp[];
}

/**
 * Build the CLI layer: one combined `+config_paths` op first (built directly, so paths stay
 * verbatim whatever characters they hold), then every `+`/`++` token in order.
 */
export function buildCliLayer(selectorPaths: string[], overrides: string[]): CliLayer {
  const { paths, rest } = splitConfigPathTokens(overrides);
  const all = [...selectorPaths, ...paths];
  const layer: ConfigDict = {};
  const postMerge: OverrideOp[] = [];
  if (all.length > 0) applyOverride(layer, { kind: "add", path: ["config_paths"], value: all, raw: `+config_paths=[${all.join(",")}]` });
  for (const tok of rest) {
    const op = parseOverride(tok);
    if (op.kind === "add" || op.kind === "upsert") applyOverride(layer, op);
    else postMerge.push(op);
  }
  return { layer, postMerge };
}
