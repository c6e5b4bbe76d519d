/** Build-time constants. `build.ts` replaces them with `define`; `bun run` falls back to these. */
declare const GYM_VERSION: string | undefined;
declare const GYM_BUILD_TARGET: string | undefined;
declare const GYM_GIT_SHA: string | undefined;

/** gym's own version (package.json at build time). */
export const VERSION: string = typeof GYM_VERSION === "string" ? GYM_VERSION : "0.1.0-dev";
/** The compile target of this binary, or `source` when run from TypeScript. */
export const BUILD_TARGET: string = typeof GYM_BUILD_TARGET === "string" ? GYM_BUILD_TARGET : "source";
/** The git commit the binary was built from. */
export const GIT_SHA: string = typeof GYM_GIT_SHA === "string" ? GYM_GIT_SHA : "unknown";
/** The upstream NeMo Gym release whose behaviour gym targets (D1). */
export const UPSTREAM_COMPAT = "0.7.0";
