/** datasetConfigNames over a local server speaking the Hub's `GET /api/datasets/<repo>` (dataset info with cardData). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HubHttp } from "../../src/dataset/hf-http.ts";
import { datasetConfigNames } from "../../src/dataset/hf-configs.ts";

const INFO: Record<string, unknown> = {
  "/api/datasets/o/cards": { id: "o/cards", cardData: { configs: [{ config_name: "zz", data_files: "zz/*" }, { config_name: "aa" }, { config_name: "zz" }] } },
  "/api/datasets/o/plain": { id: "o/plain", cardData: { license: "mit" } },
  "/api/datasets/o/nocard": { id: "o/nocard" },
  "/api/datasets/o/bad": { id: "o/bad", cardData: { configs: [{ data_files: "x" }] } },
};
let srv: ReturnType<typeof Bun.serve>;
const auth: (string | null)[] = [];
beforeAll(() => {
  srv = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      auth.push(req.headers.get("authorization"));
      const body = INFO[new URL(req.url).pathname];
      return body ? Response.json(body) : Response.json({ error: "Repository not found" }, { status: 404 });
    },
  });
});
afterAll(() => srv.stop(true));

describe("datasetConfigNames", () => {
  const hub = () => new HubHttp(`http://127.0.0.1:${srv.port}`, "hf_tok", "Hugging Face");
  test("the card's configs in order (duplicates once), with the token", async () => {
    expect(await datasetConfigNames(hub(), "o/cards")).toEqual(["zz", "aa"]);
    expect(auth.at(-1)).toBe("Bearer hf_tok");
  });
  test.each(["o/plain", "o/nocard"])("%s: no configs in the card → default", async (repo) => {
    expect(await datasetConfigNames(hub(), repo)).toEqual(["default"]);
  });
  test("an entry without config_name is a clear error", async () => {
    await expect(datasetConfigNames(hub(), "o/bad")).rejects.toThrow("cardData.configs entry without a config_name");
  });
  test("a missing repo names the URL and status", async () => {
    await expect(datasetConfigNames(hub(), "o/missing")).rejects.toThrow("/api/datasets/o/missing → HTTP 404: Repository not found");
  });
});
