/** The viewer's HTML document: the embedded page script and style, plus an optional inline data block. */
import { PAGE_CSS, PAGE_JS } from "./page.gen.ts";

/** The page; `data` (base64 of gzip JSON) makes it a self-contained report that needs no server. */
export function pageHtml(title: string, data?: string): string {
  const esc = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    // The report must never reach the network: no external resources, and a CSP that forbids them.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:">`,
    `<title>${esc} · gym eval view</title><style>${PAGE_CSS}</style></head>`,
    '<body><div id="app">loading…</div>',
    data === undefined ? "" : `<script type="application/octet-stream" id="gym-data">${data}</script>`,
    `<script type="module">${PAGE_JS}</script>`,
    "</body></html>",
  ].join("\n");
}
