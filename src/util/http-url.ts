/** URL shape checks shared by the hub and tracker settings. */

/** True when `raw` parses as an absolute http: or https: URL. */
export function isHttpUrl(raw: string): boolean {
  const u = URL.parse(raw);
  return u !== null && (u.protocol === "http:" || u.protocol === "https:");
}
