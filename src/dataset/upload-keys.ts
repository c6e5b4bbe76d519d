/**
 * The top-level keys of the dataset transfer commands (upload, download, rm, migrate, render) are
 * read through config/'s accessor; these names keep the dataset modules' vocabulary.
 */
import { configAccess, type ConfigAccess } from "../config/access.ts";

/** Typed access to the top-level keys of one resolved config. */
export type Keys = ConfigAccess;

/** Build the key reader of a resolved config. */
export const keysOf = configAccess;
