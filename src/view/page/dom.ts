/**
 * The page's only way to build DOM: text always goes in as text nodes, never as markup, so model
 * output containing `<script>` or HTML stays inert.
 */

/** Attributes for `el`: strings set as attributes, functions as event listeners (`on<event>`). */
export type Attrs = Record<string, string | number | boolean | ((ev: Event) => void) | undefined>;

/** A child of `el`: strings become text nodes. */
export type Child = Node | string | number | null | undefined | false;

/** Create an element with attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "value" && "value" in e) (e as HTMLInputElement).value = String(v);
    else if (k === "checked" && "checked" in e) (e as HTMLInputElement).checked = Boolean(v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(typeof c === "object" ? c : String(c));
  return e;
}

/** Replace an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  for (const c of children) if (c !== null && c !== undefined && c !== false) parent.append(typeof c === "object" ? c : String(c));
}

/** A number for display: up to 4 significant decimals, "–" for none. */
export function fmt(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return Number.isInteger(v) ? String(v) : v.toFixed(digits).replace(/0+$/, "").replace(/\.$/, "");
}
