/**
 * The extraction anchors and their priorities (math-verify 0.8.0's targets, rebuilt as JavaScript regexes:
 * Python's Unicode `\d` is `\p{Nd}`, its scoped `(?i:…)` is spelled out as character classes).
 */

/** One regex with its priority (lower is tried first). */
export interface Anchor {
  re: RegExp;
  priority: number;
  kind: "latex" | "expr";
}

/** Case-insensitive literal without inline flags: "is" → "[iI][sS]". */
function ci(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c === " " ? " " : `\\${c}`)).join("");
}

const D = "\\p{Nd}";
const FINAL_IS = ci("final answer is");
const FINAL = ci("final answer");
const ANSWER = ci("answer");

function exprAnchors(): Anchor[] {
  const number =
    `(?<!${D})(?:(?<integer1>-?[1-9]${D}{0,2}(?:[ ,]${D}{3})+)(?<decimal1>\\.${D}+)?|` +
    `(?<integer2>-?${D}+)(?<decimal2>[.,]${D}+)|(?<decimal3>\\.${D}+)|(?<integer3>-?${D}+))` +
    `(?<percent>\\s*(?:%|[Pp]ercent|\\s*[Pp]ercentage|\\s*[Pp]ct))?`;
  const ops = "\\+\\-\\*×\\/\\^\\(\\)÷";
  const chars = `[${D}\\.\\s${ops}]`;
  const expr = `(?<expr>-?\\(?-?${D}${chars}*[${ops}]${chars}+\\)?)`;
  const currency = "[$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₭₮₯₰₱₲₳₴₵₶₷₸₺₻₼₾₿]";
  const prefix = "(?:^|\\s|=)(?:\\*\\*)?";
  const suffix = "(?:\\*\\*)?(?:\\.|,|:|\\s|\\)|\\$|$)";
  const exprAnch = `(?:${prefix}${expr}${suffix})`;
  const numAnch = `(?:${prefix}${currency}?${number})`;
  const either = `(?:${exprAnch}|${numAnch})`;
  const mk = (s: string, priority: number): Anchor => ({ re: new RegExp(s, "gu"), priority, kind: "expr" });
  return [
    mk(`${FINAL_IS}:?\\s*${either}\\.?\\s?I hope`, 0),
    mk(`${FINAL}.{0,100}?\\s+is:?${either}`, 50),
    mk(`${ANSWER}:(?:.{0,100}=\\s*|.{0,50}?)${either}(?!\\s*=)`, 100),
    mk(`${ANSWER}(?:.{0,100}=\\s*|.{0,50}?)${either}(?!\\s*=)`, 200),
    mk(exprAnch, 300),
    mk(numAnch, 300),
  ];
}

/** One math environment ($…$, $$…$$, \[…\], \(…\), " […] ", bare \frac{a}{b}) with an optional percent. */
function latexEnv(prefix: string, boxed: boolean): string {
  const pct = `(?<${prefix}percent>(?:\\\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct))`;
  let dd = "(?:[^$]|\\$(?!\\$))";
  let db = "(?:[^\\\\]|\\\\(?!\\]))";
  let id = "(?:\\\\[$]|[^\\n$])";
  let ip = "(?:[^\\\\\\n]|\\\\(?!\\)))";
  let ib = "[^\\n\\]\\[]";
  const around = (c: string) => `${c}*?\\\\boxed\\{${c}+?\\}${c}*?`;
  if (boxed) [dd, db, id, ip, ib] = [around(dd), around(db), around(id), around(ip), around(ib)];
  else [dd, db, id, ip, ib] = [`${dd}+?`, `${db}+?`, `${id}+?`, `${ip}+?`, `${ib}+?`];
  const alts = [
    `(?<!\\\\)\\$\\$(?<${prefix}latexDisplayDollar>${dd})(?<!\\\\)\\$\\$`,
    `(?<!\\\\)\\\\\\[(?<${prefix}latexDisplayBracket>${db})(?<!\\\\)\\\\\\]`,
    `(?<!\\\\|${D})\\$(?<${prefix}latexInlineDollar>${id})(?<!\\\\)\\$`,
    `(?<!\\\\)\\\\\\((?<${prefix}latexInlineParenthesis>${ip})(?<!\\\\)\\\\\\)`,
    `\\s\\[(?<${prefix}latexInlineBracket>${ib})\\]\\s`,
  ];
  if (!boxed) {
    const simple = `-?${D}+(?:[.,]${D}+)?`;
    alts.push(`(?<${prefix}latexFraction>-?\\\\frac\\{${simple}\\}\\{${simple}\\})`);
  }
  return `(?:(?:${alts.join("|")})\\s*${pct}?)`;
}

function latexAnchors(boxedPriority: number): Anchor[] {
  const joined = (boxed: boolean) => {
    let s = latexEnv("first_", boxed);
    for (let i = 1; i <= 5; i++) {
      s += `${boxed ? "\\s*" : ""}(?:\\s*(?:,?and|,?or|,)\\s*${latexEnv(`next${i}_`, boxed)})?`;
    }
    return `(?:${s})`;
  };
  const envs = joined(false);
  const mk = (s: string, priority: number): Anchor => ({ re: new RegExp(s, "gsu"), priority, kind: "latex" });
  const out = [
    mk(`${FINAL_IS}:?\\s*${envs}\\.?\\s?I hope`, 0),
    mk(`${FINAL}.{0,100}?\\s+is:?\\s*${envs}`, 50),
    mk(`${ANSWER}:.{0,50}?${envs}`, 100),
    mk(`${ANSWER}.{0,50}?${envs}`, 200),
    mk(envs, 300),
  ];
  if (boxedPriority >= 0) {
    out.push(mk(joined(true), boxedPriority));
    out.push(mk("(?<first_latexBoxed>\\\\boxed\\{.+\\})", boxedPriority));
  }
  return out;
}

const cache = new Map<string, Anchor[]>();

/** The anchors for a target list, e.g. ["latex", "expr"], with the boxed priority (default 50). */
export function anchorsFor(targets: readonly ("latex" | "expr")[], boxedPriority = 50): Anchor[] {
  const k = `${targets.join(",")}:${boxedPriority}`;
  let a = cache.get(k);
  if (!a) {
    a = targets.flatMap((t) => (t === "latex" ? latexAnchors(boxedPriority) : exprAnchors()));
    cache.set(k, a);
  }
  return a;
}
