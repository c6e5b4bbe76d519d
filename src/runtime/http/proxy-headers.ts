/**
 * Reverse-proxy header handling (D18, cli-config.md §7.3): off by default, so `X-Forwarded-*`
 * is ignored and the client is the socket peer; when on, only peers in the allow-list are trusted,
 * and allow-lists that would trust everyone are refused at startup.
 */
import { ConfigError } from "../../errors.ts";

/** Validated proxy-header settings of one server. */
export interface ProxySettings {
  enabled: boolean;
  /** Parsed allow-list networks. */
  allow: Network[];
}

/** One IP network (an address is a network with the full prefix length). */
export interface Network {
  v6: boolean;
  base: bigint;
  prefix: number;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = (n << 8n) | BigInt(Number(p));
  }
  return n;
}

function parseV6(s: string): bigint | undefined {
  let text = s;
  let tail: bigint[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >> 16n, v4 & 0xffffn];
    const before = text.slice(0, lastColon + 1);
    text = before.endsWith("::") ? before : before.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  for (const g of [...head, ...rest]) if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
  const words = [...head.map((g) => BigInt(`0x${g}`))];
  const after = [...rest.map((g) => BigInt(`0x${g}`)), ...tail];
  const missing = 8 - words.length - after.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...words, ...Array<bigint>(missing).fill(0n), ...after];
  return all.reduce((acc, w) => (acc << 16n) | w, 0n);
}

/** Parse an address (`::ffff:a.b.c.d` becomes IPv4) or undefined. */
export function parseAddress(s: string): { v6: boolean; value: bigint } | undefined {
  const v4 = parseV4(s);
  if (v4 !== undefined) return { v6: false, value: v4 };
  const v6 = parseV6(s.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { v6: false, value: v6 & 0xffffffffn };
  return { v6: true, value: v6 };
}

/** Parse `addr` or `addr/len`; undefined when invalid. */
export function parseNetwork(entry: string): Network | undefined {
  const [addr, len, extra] = entry.trim().split("/");
  if (extra !== undefined || !addr) return undefined;
  const v4 = parseV4(addr);
  const v6 = v4 === undefined ? parseV6(addr) : undefined;
  if (v4 === undefined && v6 === undefined) return undefined;
  const isV6 = v4 === undefined;
  const max = isV6 ? 128 : 32;
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return undefined;
  const prefix = len === undefined ? max : Number(len);
  if (prefix > max) return undefined;
  const bits = BigInt(max - prefix);
  return { v6: isV6, base: ((isV6 ? v6! : v4!) >> bits) << bits, prefix };
}

function contains(net: Network, addr: { v6: boolean; value: bigint }): boolean {
  if (net.v6 !== addr.v6) return false;
  const bits = BigInt((net.v6 ? 128 : 32) - net.prefix);
  return addr.value >> bits === net.base >> bits;
}

const MAPPED_V4 = 0xffffn << 32n;

/** True when a network trusts every client: prefix 0, or an IPv6 range holding all of `::ffff:0:0/96`. */
function coversEverything(net: Network): boolean {
  if (net.prefix === 0) return true;
  return net.v6 && net.prefix <= 96 && contains(net, { v6: true, value: MAPPED_V4 });
}

/** Read and check `uvicorn_proxy_headers` / `uvicorn_forwarded_allow_ips` from the global config. */
export function proxySettingsFromConfig(dict: Record<string, unknown>): ProxySettings {
  const enabled = dict.uvicorn_proxy_headers === true || dict.uvicorn_proxy_headers === "true";
  const raw = dict.uvicorn_forwarded_allow_ips;
  const entries = (Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? raw.split(",") : []).map((e) => e.trim()).filter((e) => e !== "");
  if (!enabled) return { enabled: false, allow: [] };
  if (entries.length === 0) {
    throw new ConfigError("uvicorn_proxy_headers=true requires a non-empty uvicorn_forwarded_allow_ips list of proxy addresses or CIDRs.", {
      key: "uvicorn_forwarded_allow_ips",
      hint: "list the addresses of your reverse proxies, e.g. uvicorn_forwarded_allow_ips=[10.0.0.5]",
    });
  }
  const allow: Network[] = [];
  for (const e of entries) {
    const net = e === "*" ? undefined : parseNetwork(e);
    if (!net || coversEverything(net)) {
      throw new ConfigError(`uvicorn_forwarded_allow_ips entry '${e}' is not allowed: wildcards and all-address ranges trust every client.`, {
        key: "uvicorn_forwarded_allow_ips",
        hint: net ? "list only the addresses of your reverse proxies" : "each entry must be an IPv4/IPv6 address or CIDR",
      });
    }
    allow.push(net);
  }
  return { enabled: true, allow };
}

/** Client address and scheme of a request: the socket peer, or the forwarded values from a trusted proxy. */
export function clientOf(req: Request, peer: string | undefined, settings: ProxySettings | undefined): { address: string | undefined; scheme: string } {
  const scheme = new URL(req.url).protocol.replace(":", "");
  if (!settings?.enabled || peer === undefined) return { address: peer, scheme };
  const addr = parseAddress(peer);
  if (!addr || !settings.allow.some((n) => contains(n, addr))) return { address: peer, scheme };
  // Walk X-Forwarded-For from the right, skipping trusted hops, as uvicorn does.
  const hops = (req.headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim()).filter((h) => h !== "");
  let address = peer;
  for (let k = hops.length - 1; k >= 0; k--) {
    address = hops[k]!;
    const a = parseAddress(address);
    if (!a || !settings.allow.some((n) => contains(n, a))) break;
  }
  const proto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return { address, scheme: proto || scheme };
}
