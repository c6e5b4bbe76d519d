/** Errors named like the Python exceptions upstream raises, so 500 bodies read `ValueError('…')` (runtime.md §5.2). */

/** An Error whose `name` is a Python exception class name. */
export function pyError(pythonName: "ValueError" | "RuntimeError" | "NotImplementedError" | "AssertionError" | "TimeoutError", message: string): Error {
  const e = new Error(message);
  e.name = pythonName;
  return e;
}
