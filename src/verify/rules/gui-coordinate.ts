/**
 * gui_coordinate: the first `<point>(x, y)</point>` (0–1000 integer grid) against the expected
 * normalised "x,y"; reward (1 − d / max_dist)² inside max_dist, else 0.
 */
import { pyFloat } from "../../util/py-int.ts";
import { PY_SPACE_CLASS } from "../../util/py-str.ts";

const S = `[${PY_SPACE_CLASS}]*`;
const POINT = new RegExp(`<point>${S}\\[?${S}\\(${S}(\\d+)${S},${S}(\\d+)${S}\\)${S}\\]?${S}</point>`);

/** The expected point from "x,y", or null when it is not two floats. */
export function parseExpectedPoint(s: string): [number, number] | null {
  const parts = s.split(",");
  if (parts.length !== 2) return null;
  try {
    return [pyFloat(parts[0]), pyFloat(parts[1])];
  } catch {
    return null;
  }
}

/** The predicted point scaled to 0–1, or null. */
export function parsePoint(text: string): [number, number] | null {
  const m = POINT.exec(text);
  return m ? [Number.parseInt(m[1]!, 10) / 1000, Number.parseInt(m[2]!, 10) / 1000] : null;
}

/** gui_coordinate's verify fields. */
export function gradeGuiCoordinate(text: string, expected: string, maxDist: number): { reward: number; expected_answer: string; extracted_x: number | null; extracted_y: number | null; distance: number | null } {
  const gt = parseExpectedPoint(expected), pred = parsePoint(text);
  if (!gt || !pred) return { reward: 0.0, expected_answer: expected, extracted_x: null, extracted_y: null, distance: null };
  // Python's `** 0.5` (C pow), kept as a power rather than sqrt.
  const dist = ((pred[0] - gt[0]) ** 2 + (pred[1] - gt[1]) ** 2) ** 0.5;
  const reward = dist >= maxDist ? 0.0 : (1.0 - dist / maxDist) ** 2;
  return { reward, expected_answer: expected, extracted_x: pred[0], extracted_y: pred[1], distance: dist };
}
