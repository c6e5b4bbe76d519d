import { describe, expect, test } from "bun:test";
import { maskUrlSecrets, maskUrlSecretsDeep } from "../../src/util/url-secrets.ts";

describe("maskUrlSecrets (D39)", () => {
  const cases: [string, string][] = [
    ["http://user:pw@host/v1", "http://****@host/v1"],
    ["https://tok@api.example.com:8443/v1/chat", "https://****@api.example.com:8443/v1/chat"],
    ["error: POST http://a:b@127.0.0.1:9/v1/responses failed", "error: POST http://****@127.0.0.1:9/v1/responses failed"],
    ["https://h/v1?api_key=sk-123&model=m", "https://h/v1?api_key=****&model=m"],
    ["https://h/x?key=AIza&alt=json", "https://h/x?key=****&alt=json"],
    ["https://h/x?model=m&access_token=abc#frag", "https://h/x?model=m&access_token=****#frag"],
    ["https://s3/b/o?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA", "https://s3/b/o?X-Amz-Signature=****&X-Amz-Credential=****"],
    ["url='http://u:p@h:1/run'", "url='http://****@h:1/run'"],
  ];
  for (const [raw, masked] of cases) test(raw, () => expect(maskUrlSecrets(raw)).toBe(masked));

  test("leaves ordinary text, e-mail addresses and harmless queries alone", () => {
    for (const s of ["http://127.0.0.1:8000/v1", "git@github.com:NVIDIA/x", "mail me at a@b.c", "https://h/v1?model=m&max_tokens=5", "row=5 class=x", "max_output_tokens=7"]) {
      expect(maskUrlSecrets(s)).toBe(s);
    }
  });

  test("deep: every string of a config-like value", () => {
    expect(maskUrlSecretsDeep({ a: ["http://x:y@h"], b: { c: "https://h?token=t" }, n: 3, z: null })).toEqual({ a: ["http://****@h"], b: { c: "https://h?token=****" }, n: 3, z: null });
  });
});
