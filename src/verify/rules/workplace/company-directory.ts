/**
 * WorkBench's company directory (CompanyDirectoryTool.find_email_address): the addresses whose text
 * matches the name as a case-insensitive regex (pandas `str.contains`).
 */
import { containsMask } from "./pandas-str.ts";
import { lower } from "./py-ops.ts";
import { filterRows } from "./table.ts";
import type { ToolDef } from "./tool-def.ts";

/** The directory tool by its public name. */
export const DIRECTORY_TOOLS: Record<string, ToolDef> = {
  company_directory_find_email_address: {
    owner: "CompanyDirectoryTool",
    method: "find_email_address",
    params: { name: "" },
    run(state, { name }) {
      if (name === "") return "Name not provided.";
      const hit = containsMask(state.directory, "email_address", lower(name), false);
      return filterRows(state.directory, hit).rows.map((r) => r.email_address);
    },
  },
};
