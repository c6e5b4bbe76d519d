/**
 * TypeBox schemas of server instances and dataset blocks (cli-config §6.1, §6.4, §6.6). Extra
 * keys are allowed at the implementation level (implementation-specific fields) and ignored in
 * dataset blocks, as upstream's pydantic models do.
 */
import Type, { type Static } from "typebox";
import { DATASET_TYPES, DOMAINS, INSTANCE_CLASS, LICENSES } from "./schema-names.ts";

export { DATASET_TYPES, DOMAINS, INSTANCE_CLASS, LICENSES };

/** A server domain. */
export const Domain = Type.Enum([...DOMAINS]);
/** A dataset license. */
export const License = Type.Enum([...LICENSES]);

const GitlabSource = Type.Object(
  { type: Type.Literal("gitlab"), dataset_name: Type.String(), version: Type.String(), artifact_fpath: Type.String() },
  { additionalProperties: true },
);
const HuggingfaceSource = Type.Object(
  { type: Type.Literal("huggingface"), repo_id: Type.String(), artifact_fpath: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
  { additionalProperties: true },
);
/** `source:` of a training dataset, checked after its `type` picks the branch. */
export const DatasetSources = { gitlab: GitlabSource, huggingface: HuggingfaceSource } as const;

/** A training dataset block (`example`/`train`/`validation`). */
export const TrainingDataset = Type.Object(
  {
    name: Type.String(),
    type: Type.Enum(["example", "train", "validation"]),
    jsonl_fpath: Type.String(),
    license: Type.Optional(Type.Union([License, Type.Null()])),
    num_repeats: Type.Optional(Type.Integer({ minimum: 1 })),
    source: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
    gitlab_identifier: Type.Optional(Type.Unknown()),
    huggingface_identifier: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);
/** A training dataset block. */
export type TrainingDataset = Static<typeof TrainingDataset>;

/** A benchmark dataset block (`type: benchmark`). */
export const BenchmarkDataset = Type.Object(
  {
    name: Type.String(),
    type: Type.Literal("benchmark"),
    jsonl_fpath: Type.String(),
    prepare_script: Type.String(),
    prompt_config: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    num_repeats: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: true },
);

/** The implementation leaf common to every server type. */
export const ServerLeaf = Type.Object(
  {
    entrypoint: Type.String(),
    host: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    port: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    num_workers: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    domain: Type.Optional(Domain),
    datasets: Type.Optional(Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Type.Null()])),
  },
  { additionalProperties: true },
);
/** The implementation leaf common to every server type. */
export type ServerLeaf = Static<typeof ServerLeaf>;
