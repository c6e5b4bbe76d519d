/**
 * `xmltodict.parse` (defaults: `@` attributes, `#text`, whitespace stripped, repeated children as
 * lists, comments and processing instructions dropped, no namespace processing) over a small
 * well-formedness checker whose failures read like expat's (`not well-formed (invalid token): line
 * L, column C`, `mismatched tag`, `no element found`, `junk after document element`, …), columns
 * 0-based as expat counts them. DOCTYPE declarations are skipped, not interpreted.
 */
import { pyStrip } from "../../util/py-str.ts";

/** A well-formedness error, named as Python's `xml.parsers.expat.ExpatError`. */
export class ExpatError extends Error {
  override name = "ExpatError";
}

type Node = Record<string, unknown>;
const NAME_START = /[:A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
const NAME_CHAR = /[-.0-9:A-Z_a-z\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u200C\u200D\u203F\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const XML_SPACE = new Set([" ", "\t", "\n", "\r"]);

interface Frame {
  name: string;
  item: Node | null;
  data: string[];
}

/** Parse XML text into xmltodict's dict shape; throws ExpatError when the text is not well-formed. */
export function xmlToDict(text: string): Node {
  let i = 0;
  const n = text.length;
  const fail = (msg: string, at: number): never => {
    let line = 1;
    let col = 0;
    for (let k = 0; k < at && k < n; k++) {
      if (text[k] === "\n") {
        line++;
        col = 0;
      } else col++;
    }
    throw new ExpatError(`${msg}: line ${line}, column ${col}`);
  };
  const stack: Frame[] = [];
  let root: Node | undefined;
  let rootClosed = false;

  const readName = (): string => {
    const s = i;
    if (i >= n) fail("unclosed token", s - 1);
    if (!NAME_START.test(text[i]!)) fail("not well-formed (invalid token)", i);
    i++;
    while (i < n && NAME_CHAR.test(text[i]!)) i++;
    return text.slice(s, i);
  };
  const skipSpace = () => {
    while (i < n && XML_SPACE.has(text[i]!)) i++;
  };
  const decode = (s: string, at: number): string => {
    let out = "";
    for (let k = 0; k < s.length; k++) {
      if (s[k] !== "&") {
        out += s[k];
        continue;
      }
      // expat points at the first character that cannot continue the reference.
      let j = k + 1;
      if (s[j] === "#") {
        const hex = s[j + 1] === "x";
        j += hex ? 2 : 1;
        const d0 = j;
        while (j < s.length && (hex ? /[0-9a-fA-F]/ : /[0-9]/).test(s[j]!)) j++;
        if (j === d0 || s[j] !== ";") fail("not well-formed (invalid token)", at + j);
        out += String.fromCodePoint(Number.parseInt(s.slice(d0, j), hex ? 16 : 10));
        k = j;
        continue;
      }
      if (j >= s.length || !NAME_START.test(s[j]!)) fail("not well-formed (invalid token)", at + j);
      while (j < s.length && NAME_CHAR.test(s[j]!)) j++;
      if (s[j] !== ";") fail("not well-formed (invalid token)", at + j);
      const name = s.slice(k + 1, j);
      if (!Object.hasOwn(ENTITIES, name)) fail("undefined entity", at + k);
      out += ENTITIES[name];
      k = j;
    }
    return out;
  };
  const pushData = (parent: Frame | undefined, key: string, value: unknown) => {
    if (!parent) {
      root = { [key]: value };
      return;
    }
    parent.item ??= {};
    const cur = parent.item[key];
    if (cur === undefined) parent.item[key] = value;
    else if (Array.isArray(cur)) cur.push(value);
    else parent.item[key] = [cur, value];
  };

  if (text.startsWith("<?xml") && /^<\?xml[\s?]/.test(text)) {
    const end = text.indexOf("?>");
    if (end < 0) fail("unclosed token", 0);
    i = end + 2;
  }
  while (i < n) {
    const ch = text[i]!;
    if (ch !== "<") {
      const next = text.indexOf("<", i);
      const end = next < 0 ? n : next;
      const chunk = text.slice(i, end);
      if (stack.length === 0) {
        const bad = [...chunk].findIndex((c) => !XML_SPACE.has(c));
        if (bad >= 0 && rootClosed) fail("junk after document element", i + bad);
        if (bad >= 0) {
          // The prolog reads a name here: complete at a space or the input's end → syntax error, else the stray character is an invalid token.
          let j = i + bad;
          if (!NAME_START.test(text[j]!)) fail("not well-formed (invalid token)", j);
          while (j < n && NAME_CHAR.test(text[j]!)) j++;
          fail(j >= n || XML_SPACE.has(text[j]!) ? "syntax error" : "not well-formed (invalid token)", j >= n || XML_SPACE.has(text[j]!) ? i + bad : j);
        }
      } else {
        if (chunk.includes("]]>")) fail("not well-formed (invalid token)", i + chunk.indexOf("]]>") + 2);
        stack.at(-1)!.data.push(decode(chunk, i));
      }
      i = end;
      continue;
    }
    const start = i;
    if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4);
      if (end < 0) fail("unclosed token", start);
      i = end + 3;
      continue;
    }
    if (text.startsWith("<![CDATA[", i)) {
      if (stack.length === 0) fail(rootClosed ? "junk after document element" : "syntax error", start);
      const end = text.indexOf("]]>", i + 9);
      if (end < 0) fail("unclosed CDATA section", start);
      stack.at(-1)!.data.push(text.slice(i + 9, end));
      i = end + 3;
      continue;
    }
    if (text.startsWith("<!DOCTYPE", i)) {
      if (root || stack.length) fail(rootClosed ? "junk after document element" : "syntax error", start);
      let depth = 0;
      for (i += 9; i < n; i++) {
        if (text[i] === "[") depth++;
        else if (text[i] === "]") depth--;
        else if (text[i] === ">" && depth <= 0) break;
      }
      if (i >= n) fail("unclosed token", start);
      i++;
      continue;
    }
    if (text.startsWith("<?", i)) {
      if (/^<\?xml[\s?]/i.test(text.slice(i, i + 6))) fail("XML or text declaration not at start of entity", start);
      const end = text.indexOf("?>", i + 2);
      if (end < 0) fail("unclosed token", start);
      i = end + 2;
      continue;
    }
    if (text[i + 1] === "/") {
      i += 2;
      const name = readName();
      skipSpace();
      if (i >= n) fail("unclosed token", start);
      if (text[i] !== ">") fail("not well-formed (invalid token)", i);
      i++;
      const top = stack.pop();
      if (!top || top.name !== name) fail("mismatched tag", start + 2);
      const data = pyStrip(top!.data.join(""));
      let value: unknown;
      if (top!.item) {
        if (data) top!.item["#text"] = data;
        value = top!.item;
      } else value = data === "" ? null : data;
      pushData(stack.at(-1), name, value);
      if (stack.length === 0) rootClosed = true;
      continue;
    }
    // A start tag.
    if (rootClosed) fail("junk after document element", start);
    i++;
    const name = readName();
    const attrs: Node = {};
    let selfClosing = false;
    for (;;) {
      const before = i;
      skipSpace();
      if (i >= n) fail("unclosed token", start);
      if (text[i] === ">") {
        i++;
        break;
      }
      if (text.startsWith("/>", i)) {
        i += 2;
        selfClosing = true;
        break;
      }
      if (i === before) fail("not well-formed (invalid token)", i);
      const attrAt = i;
      const attr = readName();
      skipSpace();
      if (text[i] !== "=") fail(i >= n ? "unclosed token" : "not well-formed (invalid token)", i >= n ? start : i);
      i++;
      skipSpace();
      const q = text[i];
      if (q !== '"' && q !== "'") fail(i >= n ? "unclosed token" : "not well-formed (invalid token)", i >= n ? start : i);
      const end = text.indexOf(q!, i + 1);
      if (end < 0) fail("unclosed token", start);
      const raw = text.slice(i + 1, end);
      if (raw.includes("<")) fail("not well-formed (invalid token)", i + 1 + raw.indexOf("<"));
      if (Object.hasOwn(attrs, `@${attr}`)) fail("duplicate attribute", attrAt);
      // Attribute-value normalisation: literal whitespace characters become spaces.
      attrs[`@${attr}`] = decode(raw.replace(/[\t\n\r]/g, " "), i + 1);
      i = end + 1;
    }
    const frame: Frame = { name, item: Object.keys(attrs).length ? attrs : null, data: [] };
    if (selfClosing) {
      pushData(stack.at(-1), name, frame.item);
      if (stack.length === 0) rootClosed = true;
    } else stack.push(frame);
  }
  if (stack.length > 0 || !root) fail("no element found", n);
  return root!;
}
