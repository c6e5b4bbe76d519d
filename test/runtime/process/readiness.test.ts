import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { exitCodeOf, RuntimeError } from "../../../src/errors.ts";
import { modelEndpoints, probeModelEndpoint, probeServer, waitForModelEndpoints } from "../../../src/runtime/process/readiness.ts";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

const paths: string[] = [];
const up = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (paths.push(new URL(req.url).pathname), new Response("no", { status: 401 })) });
const downPort = (() => {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
})();
afterAll(() => up.stop(true));

describe("server probe", () => {
  test("any HTTP status is success; nothing listening is connection_error", async () => {
    expect(await probeServer(`http://127.0.0.1:${up.port}/`)).toBe("success");
    expect(await probeServer(`http://127.0.0.1:${downPort}/`)).toBe("connection_error");
  });
});

describe("model endpoints", () => {
  test("collects every *base_url of model servers (string or list), de-duplicated ignoring a trailing slash", () => {
    const dict = {
      policy_base_url: "http://a:1/v1",
      m1: { responses_api_models: { vllm_model: { base_url: ["${policy_base_url}", "http://b:2/v1/"], api_key: "x" } } },
      m2: { responses_api_models: { openai_model: { openai_base_url: "http://a:1/v1/", judge_base_url: "" } } },
      rs: { resources_servers: { x: { base_url: "http://not-a-model/v1" } } },
    };
    expect(modelEndpoints(dict, ["m1", "m2", "rs"])).toEqual([
      { url: "http://a:1/v1", key: "base_url" },
      { url: "http://b:2/v1/", key: "base_url" },
    ]);
  });

  test("probe: /v1 URLs get /models; 401 counts as answering; refused; DNS failure is unresolvable", async () => {
    expect(await probeModelEndpoint(`http://127.0.0.1:${up.port}/v1`)).toBe("answering");
    expect(paths.at(-1)).toBe("/v1/models");
    expect(await probeModelEndpoint(`http://127.0.0.1:${up.port}/api`)).toBe("answering");
    expect(paths.at(-1)).toBe("/api");
    expect(await probeModelEndpoint(`http://127.0.0.1:${downPort}/v1`)).toBe("refused");
    expect(await probeModelEndpoint("http://no-such-host.invalid/v1")).toBe("unresolvable");
  });

  test("probe: a peer whose reply is not HTTP (an error the probe does not know) is not 'answering'", async () => {
    // Answers every connection with bytes that are no HTTP status line, then closes.
    const garbage = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(sock) {
          sock.write("\x00\x01 this is not http\r\n\r\n");
          sock.end();
        },
        data() {},
      },
    });
    try {
      expect(await probeModelEndpoint(`http://127.0.0.1:${garbage.port}/v1`, 3000)).toBe("refused");
    } finally {
      garbage.stop(true);
    }
  });

  test("waiting: unresolvable hosts are reported once and skipped; a refused endpoint times out naming the key", async () => {
    const info: string[] = [];
    const warn: string[] = [];
    const err = await waitForModelEndpoints(
      [
        { url: `http://127.0.0.1:${downPort}/v1`, key: "openai_base_url" },
        { url: "http://no-such-host.invalid/v1", key: "base_url" },
        { url: `http://127.0.0.1:${up.port}/v1`, key: "base_url" },
      ],
      0.4,
      { info: (l) => info.push(l), warn: (l) => warn.push(l) },
      { pollMs: 100 },
    ).catch((e) => e);
    // D31: an endpoint that never answers is a runtime failure, exit 1.
    expect(err).toBeInstanceOf(RuntimeError);
    expect(exitCodeOf(err)).toBe(1);
    expect(err.message).toContain("1 model endpoint(s) never answered within 0.4s:");
    expect(err.message).toContain(`http://127.0.0.1:${downPort}/v1 (from \`openai_base_url\`)`);
    expect(err.message).toContain("model_endpoint_readiness_timeout_seconds");
    expect(warn).toEqual(["Model endpoint http://no-such-host.invalid/v1 (base_url) does not resolve. Waiting cannot fix a hostname, so it is not retried."]);
    expect(info[0]).toContain("Waiting for 1 model endpoint(s) to answer");
  });

  test("0 skips the wait entirely", async () => {
    await waitForModelEndpoints([{ url: `http://127.0.0.1:${downPort}/v1`, key: "base_url" }], 0, { info: () => {}, warn: () => {} });
  });
});
