/**
 * The config names of a Hugging Face dataset, as the `datasets` library's
 * `get_dataset_config_names` gives them for a repo without a loading script: the `configs:` list of
 * the dataset card's YAML (in the card's order), read from the Hub's `GET /api/datasets/<repo>`
 * (`cardData.configs[].config_name`); a card without one has the single config `default`.
 */
import { RuntimeError } from "../errors.ts";
import type { HubHttp } from "./hf-http.ts";

/** The dataset's config names in the card's order (`["default"]` when the card declares none). */
export async function datasetConfigNames(hub: HubHttp, repo: string): Promise<string[]> {
  const path = `/api/datasets/${repo.split("/").map(encodeURIComponent).join("/")}`;
  const info = await hub.json<unknown>(path);
  const bad = (what: string) =>
    new RuntimeError(`${hub.service}: ${hub.display(hub.url(path))} answered with ${what}`, { hint: "check the repo id; the Hub's dataset info should hold cardData.configs[].config_name" });
  if (typeof info !== "object" || info === null || Array.isArray(info)) throw bad("something that is not a dataset info object");
  const card = (info as Record<string, unknown>).cardData;
  const configs = typeof card === "object" && card !== null ? (card as Record<string, unknown>).configs : undefined;
  if (configs === undefined || configs === null) return ["default"];
  if (!Array.isArray(configs)) throw bad("a cardData.configs that is not a list");
  const names: string[] = [];
  for (const c of configs) {
    const name = typeof c === "object" && c !== null ? (c as Record<string, unknown>).config_name : undefined;
    if (typeof name !== "string" || name === "") throw bad(`a cardData.configs entry without a config_name: ${JSON.stringify(c).slice(0, 200)}`);
    if (!names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names : ["default"];
}
