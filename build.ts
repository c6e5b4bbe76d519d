/**
 * Compile gym into one executable per target. `bun build.ts` builds dist/gym for the host;
 * `bun build.ts --all` builds every target in TARGETS as dist/gym-<target>.
 */
import pkg from "./package.json" with { type: "json" };

/** Every target `--all` builds. */
const TARGETS = ["bun-linux-x64", "bun-linux-arm64", "bun-linux-x64-musl", "bun-linux-arm64-musl"] as const;

async function gitSha(): Promise<string> {
  const p = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { stderr: "ignore" });
  return p.exitCode === 0 ? p.stdout.toString().trim() : "unknown";
}

/**
 * The compile flags of the gym binary, shared with scripts/bench-help.ts (which builds a hello-world
 * with the very same flags as the floor `gym --help` is measured against).
 */
export function compileOptions(entrypoints: string[], outfile: string, target?: string): Bun.BuildConfig {
  return {
    entrypoints,
    compile: {
      outfile,
      ...(target ? { target: target as Bun.Build.CompileTarget } : {}),
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    bytecode: true,
    // Split chunks: a command loads only its own modules' bytecode (`gym --help` read all of it before).
    splitting: true,
    format: "esm",
    minify: true,
    sourcemap: "none",
  } as Bun.BuildConfig;
}

async function buildOne(target: string | undefined, outfile: string): Promise<void> {
  const sha = await gitSha();
  const result = await Bun.build({
    // Worker entries are built in too: a Worker in the binary loads them by their source path.
    ...compileOptions(["./src/main.ts", "./src/verify/worker.ts"], outfile, target),
    define: {
      GYM_VERSION: JSON.stringify(pkg.version),
      GYM_BUILD_TARGET: JSON.stringify(target ?? `bun-${process.platform}-${process.arch}`),
      GYM_GIT_SHA: JSON.stringify(sha),
    },
  });
  if (!result.success) {
    for (const m of result.logs) console.error(m);
    throw new Error(`build failed for ${target ?? "host"}`);
  }
  console.error(`built ${outfile}`);
}

if (import.meta.main) {
  if (process.argv.includes("--all")) {
    for (const t of TARGETS) await buildOne(t, `dist/gym-${t.replace(/^bun-/, "")}`);
  } else {
    await buildOne(undefined, "dist/gym");
  }
}
