/**
 * The config handoff to a server process (D3, runtime.md §2.2), as the runtime uses it: the
 * config engineer's serializer and child loader (config/child.ts) under the runtime's names.
 */
export { loadChildConfig as parseChildConfig, serializeConfigDict as serializeConfig, type ChildConfig } from "../../config/child.ts";
