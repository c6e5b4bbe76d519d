/**
 * Source positions of config values (D12). Every value parsed from a file carries a LocNode tree
 * that mirrors its shape, so an error about `a.b.c` can point at `file:line:col` even after
 * merging, overriding and directive moves (each of those moves the LocNode along with the value).
 */
import { isMap, isScalar, isSeq, LineCounter, type Node } from "yaml";
import type { SourceLocation } from "../errors.ts";

/** Where one file's text lives, with a lazily filled line index. */
export interface SourceFile {
  file: string;
  lineCounter: LineCounter;
}

/** Location of one value plus the locations of its children (map keys or list indices). */
export interface LocNode {
  src?: SourceFile;
  offset?: number;
  children?: Map<string, LocNode>;
}

/** Build the LocNode tree of a parsed YAML node. */
export function locTree(node: Node | null | undefined, src: SourceFile): LocNode {
  const out: LocNode = { src, offset: node?.range?.[0] };
  if (isMap(node)) {
    out.children = new Map();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const valueNode = pair.value as Node | null;
      // A null value has no node; point at its key instead.
      const child = valueNode ? locTree(valueNode, src) : { src, offset: (pair.key as Node | null)?.range?.[0] };
      out.children.set(key, child);
    }
  } else if (isSeq(node)) {
    out.children = new Map();
    node.items.forEach((item, i) => out.children!.set(String(i), locTree(item as Node, src)));
  }
  return out;
}

/** The LocNode at a path, or undefined. */
export function locAt(root: LocNode | undefined, path: readonly string[]): LocNode | undefined {
  let cur = root;
  for (const seg of path) {
    cur = cur?.children?.get(seg);
    if (!cur) return undefined;
  }
  return cur;
}

/** The deepest known `file:line:col` for a path (falls back to the nearest located ancestor). */
export function locationOf(root: LocNode | undefined, path: readonly string[]): SourceLocation | undefined {
  let cur = root;
  let best: LocNode | undefined = cur?.src ? cur : undefined;
  for (const seg of path) {
    cur = cur?.children?.get(seg);
    if (!cur) break;
    if (cur.src) best = cur;
  }
  if (!best?.src) return undefined;
  if (best.offset === undefined) return { file: best.src.file };
  const { line, col } = best.src.lineCounter.linePos(best.offset);
  return { file: best.src.file, line, col };
}

/** Set (or replace) the LocNode at a path, creating empty parents. */
export function setLocAt(root: LocNode, path: readonly string[], node: LocNode | undefined): void {
  if (path.length === 0) return;
  let cur = root;
  for (const seg of path.slice(0, -1)) {
    cur.children ??= new Map();
    let next = cur.children.get(seg);
    if (!next) {
      next = {};
      cur.children.set(seg, next);
    }
    cur = next;
  }
  const last = path[path.length - 1]!;
  if (node) (cur.children ??= new Map()).set(last, node);
  else cur.children?.delete(last);
}

/** A structural copy (source files shared), so a copied value's locations can diverge. */
export function cloneLoc(node: LocNode | undefined): LocNode | undefined {
  if (!node) return undefined;
  const out: LocNode = { src: node.src, offset: node.offset };
  if (node.children) out.children = new Map([...node.children].map(([k, v]) => [k, cloneLoc(v)!]));
  return out;
}
