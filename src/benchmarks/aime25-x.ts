/** Multilingual AIME 2025 (upstream benchmarks/aime25-x/prepare.py): `nvidia/Nemotron-Multilinugual-Eval-AIME25`, splits de/es/fr/ja. */
import { aimeXBenchmark } from "./_aime-x.ts";

/** The aime25-x preparer. */
export const benchmark = aimeXBenchmark("aime25-x", "nvidia/Nemotron-Multilinugual-Eval-AIME25");
