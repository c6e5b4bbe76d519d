/**
 * Shell text helpers for the renderer: quoting (Python shlex.quote semantics, so words round-trip),
 * variable-name mangling, and node-host markers. A marker stands for "the hostname of allocation
 * node i"; `expandMarkers` turns it into a batch-host expansion of `gym_nodes[i]` that matches the
 * quoting context it sits in, so the literal hostname lands in the step's command (D29) however
 * deeply the command was wrapped.
 */

const SAFE = /^[A-Za-z0-9@%+=:,./_-]+$/;

/** Quote `s` as one shell word, only when needed (`'` inside becomes `'"'"'`). */
export function q(s: string): string {
  if (s === "") return "''";
  if (SAFE.test(s.replace(MARKER_RE, "h"))) return s;
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

/** Escape text for use inside a double-quoted string. */
export function dq(s: string): string {
  return s.replace(/[\\"$`]/g, (c) => `\\${c}`);
}

/** Upper-case a name and replace every char outside `[A-Z0-9]` with `_` (spec §3.3). */
export function bashVar(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/** `bashVar` where it starts a variable name: a leading digit gets a `_` (spec fix §3.3). */
export function bashVarStart(name: string): string {
  const v = bashVar(name);
  return /^[0-9]/.test(v) ? `_${v}` : v;
}

const MARK = "\u0000";
const MARKER_RE = /\u0000N(\d+)\u0000/g;

/** A placeholder for the hostname of allocation node `i`. */
export function nodeHost(i: number): string {
  return `${MARK}N${i}${MARK}`;
}

/**
 * Replace node markers in a finished script line with `${gym_nodes[i]}` expansions that the batch
 * shell performs, closing and reopening whatever quote the marker sits in.
 */
export function expandMarkers(text: string): string {
  if (!text.includes(MARK)) return text;
  let out = "";
  let state: "none" | "single" | "double" = "none";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === MARK) {
      const end = text.indexOf(MARK, i + 1);
      const idx = text.slice(i + 2, end);
      const ref = `\${gym_nodes[${idx}]}`;
      out += state === "single" ? `'"${ref}"'` : state === "double" ? ref : `"${ref}"`;
      i = end;
      continue;
    }
    out += c;
    if (state === "none") {
      if (c === "\\") {
        out += text[i + 1] ?? "";
        i++;
      } else if (c === "'") state = "single";
      else if (c === '"') state = "double";
    } else if (state === "single") {
      if (c === "'") state = "none";
    } else if (c === "\\") {
      out += text[i + 1] ?? "";
      i++;
    } else if (c === '"') state = "none";
  }
  return out;
}

/**
 * `bash -c '<pre>\nexec <command>'` when there is a pre-command, else the command unchanged.
 * Blank lines of the pre-command are dropped: a service step holds no empty line (spec §6), which
 * is what lets a reader (or a tool) cut the script into steps at empty lines.
 */
export function wrapPre(pre: string, command: string): string {
  const body = pre.split("\n").filter((l) => l.trim() !== "").join("\n");
  if (body === "") return command;
  return `bash -c ${q(`${body}\nexec ${command}`)}`;
}

/** Regex-escape text for a pkill/grep pattern. */
export function reEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
