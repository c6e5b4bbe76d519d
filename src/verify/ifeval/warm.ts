/** Parse the embedded Punkt parameters and language profiles ahead of the first request. */
import { countSentences } from "./punkt.ts";
import { detectProbabilities } from "./langdetect.ts";

/** Load both data files now (≈ tens of ms once), so no verify call pays for it. */
export function warmIfeval(): void {
  countSentences("Warm up. Done.");
  detectProbabilities("warm up the language profiles");
}
