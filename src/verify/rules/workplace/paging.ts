/**
 * The page arithmetic of WorkBench's paged searches (emails, events, customers): ceiling-divided page
 * count, the page clamped into range, and Python's list slicing; a page or size that is not an int is
 * the TypeError Python raises, and a zero page size the ZeroDivisionError.
 */
import { PyError, pyIndex } from "./py-ops.ts";

/** Page arithmetic shared by the paged searches: `(page, start, end, total_pages)`. */
export function paginate(total: number, pageArg: unknown, sizeArg: unknown): { page: number; start: number; end: number; totalPages: number; size: number } {
  const size = pyIndex(sizeArg, "page_size");
  if (size === 0) throw new PyError("ZeroDivisionError", "integer division or modulo by zero");
  const totalPages = Math.floor((total + size - 1) / size);
  const p = pyIndex(pageArg, "page");
  const page = totalPages > 0 ? Math.max(1, Math.min(p, totalPages)) : 1;
  const start = (page - 1) * size;
  return { page, start, end: Math.min(start + size, total), totalPages, size };
}

/** Python's list slice `xs[start:end]` (negative bounds count from the end). */
export function pySlice<T>(xs: readonly T[], start: number, end: number): T[] {
  const n = xs.length;
  const norm = (i: number) => (i < 0 ? Math.max(0, n + i) : Math.min(i, n));
  return xs.slice(norm(start), Math.max(norm(start), norm(end)));
}
