/** The unit collation and its downloads share: one in-scope dataset of one agent. */
import type { PromptConfig } from "./prompt.ts";

/** One in-scope dataset of one agent. */
export interface DatasetEntry {
  agent: string;
  config: Record<string, unknown>;
  name: string;
  type: string;
  /** Resolved absolute path. */
  path: string;
  repeats: number;
  prompt?: PromptConfig;
}
