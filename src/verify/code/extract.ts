/** Code extraction from model output, as the upstream code servers do it. */

/** LiveCodeBench (code_gen): the lines between the last two lines containing ``` ("" when fewer than two). */
export function extractLcbCode(text: string): string {
  const lines = text.split("\n");
  const fences: number[] = [];
  lines.forEach((l, i) => l.includes("```") && fences.push(i));
  if (fences.length < 2) return "";
  return lines.slice(fences[fences.length - 2]! + 1, fences[fences.length - 1]).join("\n");
}
