/**
 * Source positions of config values (D12). Every value parsed from a file carries a LocNode tree
 * that mirrors its shape, so an error about `a.b.c` can point at `file:line:col` even after
 * merging, overriding and directive moves (each of those moves the LocNode along with the value).
 * Positions are computed lazily: files read on the fast path keep only their text and the key
 * path of each value inside the file, and are parsed for positions only when an error needs one.
 */
import type { Document, LineCounter, Node } from "yaml";
import type { SourceLocation } from "../errors.ts";
import { yamlLib } from "./yaml-lib.ts";

/** One file's text, with its position index built on first use. */
export interface SourceFile {
  file: string;
  text?: string;
  lineCounter?: LineCounter;
  doc?: Document;
}

/** Location of one value plus the locations of its children (map keys or list indices). */
export interface LocNode {
  src?: SourceFile;
  /** Character offset in `src` (known on the slow path, computed lazily otherwise). */
  offset?: number;
  /** Key path of this value inside its own file (for lazy lookup). */
  filePath?: string[];
  children?: Map<string, LocNode>;
}

/** Build the LocNode tree of a parsed YAML node (positions known up front). */
export function locTree(node: Node | null | undefined, src: SourceFile): LocNode {
  const { isMap, isScalar, isSeq } = yamlLib();
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

/**
 * The LocNode of a whole value read from `src` on the fast path: O(1). Its children are
 * synthesised on first access (`childLoc`) from the key path, because every key under it came
 * from that same file until a merge or override says otherwise (and records that explicitly).
 */
export function lazyLocTree(src: SourceFile, filePath: string[] = []): LocNode {
  return { src, filePath };
}

/** The LocNode of `key` under `node`: an explicit entry, or one synthesised for a fast-path node. */
export function childLoc(node: LocNode | undefined, key: string): LocNode | undefined {
  if (!node) return undefined;
  const explicit = node.children?.get(key);
  if (explicit) return explicit;
  if (!node.src || !node.filePath) return undefined;
  const made: LocNode = { src: node.src, filePath: [...node.filePath, key] };
  (node.children ??= new Map()).set(key, made);
  return made;
}

/** Like `childLoc`, but a synthesised node is not kept in `node` (for trees that are only read). */
export function peekChildLoc(node: LocNode | undefined, key: string): LocNode | undefined {
  if (!node) return undefined;
  const explicit = node.children?.get(key);
  if (explicit) return explicit;
  if (!node.src || !node.filePath) return undefined;
  return { src: node.src, filePath: [...node.filePath, key] };
}

/** Record where `key` under `node` came from; undefined marks it as not from any file. */
export function setChildLoc(node: LocNode | undefined, key: string, child: LocNode | undefined): void {
  // An empty node is a tombstone: it stops a fast-path parent from synthesising a file position.
  if (node) (node.children ??= new Map()).set(key, child ?? {});
}

function documentOf(src: SourceFile): Document | undefined {
  if (!src.doc && src.text !== undefined) {
    const { LineCounter, parseDocument } = yamlLib();
    src.lineCounter = new LineCounter();
    // Only fast-path files get here, and for those YAML 1.2 reads keys the way PyYAML does.
    src.doc = parseDocument(src.text, { lineCounter: src.lineCounter, uniqueKeys: false });
  }
  return src.doc;
}

function keyOf(k: unknown): string {
  return yamlLib().isScalar(k) ? String(k.value) : String(k);
}

/** Offset of the value at `filePath` in its file (its key when the value is empty). */
function lazyOffset(node: LocNode): number | undefined {
  const doc = node.src ? documentOf(node.src) : undefined;
  if (!doc || !node.filePath) return undefined;
  const { isMap, isSeq } = yamlLib();
  let cur: unknown = doc.contents;
  let keyNode: Node | undefined;
  for (const seg of node.filePath) {
    if (isMap(cur)) {
      const pair = cur.items.find((p) => keyOf(p.key) === seg);
      if (!pair) return undefined;
      keyNode = pair.key as Node;
      cur = pair.value;
    } else if (isSeq(cur)) {
      cur = cur.items[Number(seg)];
      keyNode = undefined;
    } else return undefined;
  }
  const range = (cur as Node | null)?.range ?? keyNode?.range;
  return range?.[0];
}

/** The LocNode at a path, or undefined. */
export function locAt(root: LocNode | undefined, path: readonly string[]): LocNode | undefined {
  let cur = root;
  for (const seg of path) {
    cur = childLoc(cur, seg);
    if (!cur) return undefined;
  }
  return cur;
}

/** The deepest known `file:line:col` for a path (falls back to the nearest located ancestor). */
export function locationOf(root: LocNode | undefined, path: readonly string[]): SourceLocation | undefined {
  const chain: LocNode[] = [];
  let cur = root;
  if (cur?.src) chain.push(cur);
  for (const seg of path) {
    cur = childLoc(cur, seg);
    if (!cur) break;
    if (cur.src) chain.push(cur);
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const node = chain[i]!;
    if (node.offset === undefined && node.filePath) node.offset = lazyOffset(node);
    if (node.offset === undefined) continue;
    if (!node.src!.lineCounter) documentOf(node.src!);
    const lc = node.src!.lineCounter;
    if (!lc) continue;
    const { line, col } = lc.linePos(node.offset);
    return { file: node.src!.file, line, col };
  }
  const last = chain[chain.length - 1];
  return last?.src ? { file: last.src.file } : undefined;
}

/** Set (or replace) the LocNode at a path, creating empty parents. */
export function setLocAt(root: LocNode, path: readonly string[], node: LocNode | undefined): void {
  if (path.length === 0) return;
  let cur = root;
  for (const seg of path.slice(0, -1)) {
    let next = childLoc(cur, seg);
    if (!next) {
      next = {};
      (cur.children ??= new Map()).set(seg, next);
    }
    cur = next;
  }
  setChildLoc(cur, path[path.length - 1]!, node);
}

/** A structural copy (source files shared), so a copied value's locations can diverge. */
export function cloneLoc(node: LocNode | undefined): LocNode | undefined {
  if (!node) return undefined;
  const out: LocNode = { src: node.src, offset: node.offset, filePath: node.filePath };
  if (node.children) out.children = new Map([...node.children].map(([k, v]) => [k, cloneLoc(v)!]));
  return out;
}
