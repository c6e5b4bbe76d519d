/**
 * The page arithmetic of WorkBench's paged searches (emails, events, customers): ceiling-divided page
 * count, the page clamped into range, and Python's list slicing; a page or size that is not an int is
 * the TypeError Python raises, and a zero page size the ZeroDivisionError.
 */
import { PyError, pyTypeName } from "./py-ops.ts";

/** Page arithmetic shared by the paged searches, raising where Python's arithmetic would. */
export function paginate(total: number, pageArg: unknown, sizeArg: unknown): { page: number; start: number; end: number; totalPages: number; size: number } {
  const num = (v: unknown) => typeof v === "number" || typeof v === "boolean";
  if (!num(sizeArg)) throw new PyError("TypeError", `unsupported operand type(s) for +: 'int' and '${pyTypeName(sizeArg)}'`);
  const size = Number(sizeArg);
  if (size === 0) throw new PyError("ZeroDivisionError", "integer division or modulo by zero");
  const totalPages = Math.floor((total + size - 1) / size);
  // With no results the page argument is never looked at.
  let page = 1;
  if (totalPages > 0) {
    if (!num(pageArg)) throw new PyError("TypeError", `'<' not supported between instances of 'int' and '${pyTypeName(pageArg)}'`);
    page = Math.max(1, Math.min(Number(pageArg), totalPages));
  }
  if (!Number.isInteger(page) || !Number.isInteger(size)) throw new PyError("TypeError", "slice indices must be integers or None or have an __index__ method");
  const start = (page - 1) * size;
  return { page, start, end: Math.min(start + size, total), totalPages, size };
}

/** Python's list slice `xs[start:end]` (negative bounds count from the end). */
export function pySlice<T>(xs: readonly T[], start: number, end: number): T[] {
  const n = xs.length;
  const norm = (i: number) => (i < 0 ? Math.max(0, n + i) : Math.min(i, n));
  return xs.slice(norm(start), Math.max(norm(start), norm(end)));
}
