/** Multilingual AIME 2024 (upstream benchmarks/aime24-x/prepare.py): `nvidia/Nemotron-Multilinugual-Eval-AIME24`, splits de/es/fr/ja. */
import { aimeXBenchmark } from "./_aime-x.ts";

/** The aime24-x preparer. */
export const benchmark = aimeXBenchmark("aime24-x", "nvidia/Nemotron-Multilinugual-Eval-AIME24");
