/**
 * Which files of a Hugging Face dataset repo hold which split, for downloads without an
 * `artifact_fpath` (components §4.2: "list the repo tree and pick `*.jsonl`"). The split is read
 * from the path the way the `datasets` library's default patterns do: a split keyword delimited by
 * `-`, `_`, `.`, space, a digit or `/` (`train.jsonl`, `data/train-00000-of-00001.jsonl`,
 * `test/part0.jsonl`); when no file names a split, every file is `train`.
 */
import { RuntimeError } from "../errors.ts";

/** Split keywords in the order a file is tried against them (the `datasets` defaults). */
const KEYWORDS: [split: string, words: string[]][] = [
  ["train", ["train", "training"]],
  ["validation", ["validation", "valid", "dev", "val"]],
  ["test", ["test", "testing", "eval", "evaluation"]],
];

const DATA_EXTENSIONS = /\.(parquet|arrow|csv|tsv|json|txt|jsonl\.gz|json\.gz|csv\.gz)$/i;

function splitOf(path: string): string | undefined {
  for (const [split, words] of KEYWORDS) {
    const re = new RegExp(`(^|[-._ 0-9/])(${words.join("|")})([-._ 0-9/]|$)`, "i");
    if (re.test(path.replace(/\.jsonl$/i, "."))) return split;
  }
  return undefined;
}

/** Group the repo's `*.jsonl` files by split (paths sorted within a split). */
export function jsonlSplits(repoId: string, files: string[]): Map<string, string[]> {
  // Hidden files and folders (`.github/…`) are not data, as in `datasets`.
  const visible = files.filter((f) => !f.split("/").some((part) => part.startsWith(".")));
  const jsonl = visible.filter((f) => /\.jsonl$/i.test(f)).sort();
  if (jsonl.length === 0) {
    const other = visible.filter((f) => DATA_EXTENSIONS.test(f));
    const parquet = other.filter((f) => /\.parquet$/i.test(f));
    const shown = (parquet.length > 0 ? parquet : other).slice(0, 5).join(", ");
    throw new RuntimeError(
      parquet.length > 0
        ? `Hugging Face dataset '${repoId}' holds parquet files only (${shown}${parquet.length > 5 ? ", …" : ""}); gym downloads JSONL datasets, not parquet`
        : `Hugging Face dataset '${repoId}' has no *.jsonl files${shown ? ` (its data files: ${shown})` : ""}`,
      { code: "E_NO_JSONL", hint: "download one raw file with +artifact_fpath=<path in the repo> --output PATH, or publish the dataset as JSONL" },
    );
  }
  const bySplit = new Map<string, string[]>();
  const named = jsonl.map((f) => [f, splitOf(f)] as const);
  const anyNamed = named.some(([, s]) => s !== undefined);
  for (const [file, split] of named) {
    if (anyNamed && split === undefined) continue; // a file outside every split pattern, next to files that have one
    const key = split ?? "train";
    bySplit.set(key, [...(bySplit.get(key) ?? []), file]);
  }
  return bySplit;
}
