/**
 * Benchmark: resolve a generated 100-file `config_paths` include tree, in-process and through
 * the compiled binary, against baselines measured here (parsing the same YAML alone; starting
 * the binary for `--version`). Prints figures and ratios; asserts nothing.
 *
 *   bun scripts/bench-resolve.ts [--build] [--iterations N] [--binary PATH]
 *   bun scripts/bench-resolve.ts --write-tree DIR   (only write the tree, e.g. for profiling)
 *
 * `--binary` measures another build (e.g. an older one) instead of dist/gym. To see where the
 * time of one run goes inside the binary: `GYM_TIMING=1 dist/gym env resolve --config root.yaml`
 * in a written tree prints a mark per pipeline stage on stderr.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseDocument } from "yaml";
import { resolveGlobalConfig } from "../src/config/resolve.ts";
import { log } from "../src/log.ts";

const args = process.argv.slice(2);
const iterations = Number(args[args.indexOf("--iterations") + 1]) || 30;
const repo = resolve(import.meta.dir, "..");
const binaryArg = args.indexOf("--binary");
const binary = binaryArg >= 0 ? resolve(args[binaryArg + 1] ?? "") : join(repo, "dist", "gym");

/**
 * Write a realistic 100-file tree: root.yaml → 9 component files (a resources server and its
 * agent each) → 10 fragments each that adjust one field of that component and add a setting,
 * as shared configs plus per-benchmark overrides do.
 */
function generateTree(dir: string): string[] {
  const files: string[] = [];
  const write = (rel: string, text: string): void => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
    files.push(join(dir, rel));
  };
  const groups = Array.from({ length: 9 }, (_, g) => `components/c${g}.yaml`);
  write(
    "root.yaml",
    `config_paths:\n${groups.map((g) => `- ${g}`).join("\n")}\npolicy_base_url: http://127.0.0.1:9/v1\npolicy_api_key: sk-bench\npolicy_model_name: m\n` +
      "policy_model:\n  responses_api_models:\n    openai_model:\n      entrypoint: app.py\n      openai_base_url: ${policy_base_url}\n      openai_api_key: ${policy_api_key}\n      openai_model: ${policy_model_name}\n",
  );
  groups.forEach((g, gi) => {
    const id = `rs${gi}`;
    const fragments = Array.from({ length: 10 }, (_, l) => `fragments/c${gi}_f${l}.yaml`);
    write(
      g,
      `config_paths:\n${fragments.map((l) => `- ${l}`).join("\n")}\n` +
        `${id}:\n  resources_servers:\n    impl_${id}:\n      entrypoint: app.py\n      domain: math\n      verified: false\n      description: generated server ${id}\n` +
        `      judge_base_url: \${policy_base_url}\n` +
        `${id}_agent:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      max_steps: 10\n` +
        `      resources_server: {type: resources_servers, name: ${id}}\n      model_server: {type: responses_api_models, name: policy_model}\n` +
        `      datasets:\n      - name: ex_${id}\n        type: example\n        jsonl_fpath: data/${id}.jsonl\n`,
    );
    fragments.forEach((f, fi) => {
      write(f, `${id}:\n  resources_servers:\n    impl_${id}:\n      setting_${fi}: ${fi}\n      shared_url_${fi}: \${policy_base_url}/x${fi}\ntuning_${gi}_${fi}:\n  temperature: 0.${fi}\n  tags: [a, b, c]\n`);
    });
  });
  return files;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeIt(n: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

function ms(x: number): string {
  return `${x.toFixed(2)} ms`;
}

if (args.includes("--write-tree")) {
  const target = resolve(args[args.indexOf("--write-tree") + 1] ?? "bench-tree");
  generateTree(target);
  console.log(`wrote ${target}/root.yaml and its includes`);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "gym-bench-resolve-"));
try {
  const files = generateTree(dir);
  log.level = 0;
  const texts = files.map((f) => readFileSync(f, "utf8"));
  const parseOnly = await timeIt(iterations, () => texts.forEach((t) => parseDocument(t).toJS()));
  const nativeOnly = await timeIt(iterations, () => texts.forEach((t) => Bun.YAML.parse(t)));
  const req = { selectors: { configPaths: ["root.yaml"], searchDirs: [] }, overrides: [], cwd: dir, offline: true };
  const first = await resolveGlobalConfig(req);
  const inProcess = await timeIt(iterations, () => resolveGlobalConfig(req));
  console.log(`include tree: ${files.length} files, ${first.servers.length} server instances (incl. generated)`);
  console.log(`baseline  parse the ${files.length} files (yaml pkg)   : ${ms(parseOnly)}`);
  console.log(`baseline  parse the ${files.length} files (Bun.YAML)   : ${ms(nativeOnly)}`);
  console.log(
    `in-process resolveGlobalConfig              : ${ms(inProcess)}  (ratio ${(inProcess / parseOnly).toFixed(2)}x yaml-pkg parse, ${(inProcess / nativeOnly).toFixed(1)}x native parse)`,
  );

  if (binaryArg < 0 && (args.includes("--build") || !existsSync(binary))) {
    const b = Bun.spawnSync([process.execPath, "build.ts"], { cwd: repo, stdout: "inherit", stderr: "inherit" });
    if (b.exitCode !== 0) throw new Error("bun build.ts failed");
  }
  // CPU time (user + system) of each child too: wall time on a shared machine is noisy.
  const cpu: Record<string, number[]> = {};
  const run = (argv: string[]) => () => {
    const p = Bun.spawnSync([binary, ...argv], { cwd: dir, stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin", HOME: dir } });
    if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${p.exitCode}: ${p.stderr.toString()}`);
    const u = p.resourceUsage?.cpuTime;
    if (u) (cpu[argv.join(" ")] ??= []).push((Number(u.user) + Number(u.system)) / 1000);
  };
  const cpuMedian = (argv: string[]): number | undefined => {
    const xs = cpu[argv.join(" ")];
    return xs && xs.length > 0 ? median(xs) : undefined;
  };
  const cpuOf = (argv: string[]): string => {
    const c = cpuMedian(argv);
    return c === undefined ? "" : `, cpu ${ms(c)}`;
  };
  const binIter = Math.max(5, Math.floor(iterations / 3));
  if (binaryArg >= 0) console.log(`binary: ${binary} (the lines below say dist/gym)`);
  const startup = await timeIt(binIter, run(["--version"]));
  const help = await timeIt(binIter, run(["--help"]));
  console.log(`baseline  dist/gym --version (process start)   : ${ms(startup)}${cpuOf(["--version"])}`);
  console.log(`          dist/gym --help                       : ${ms(help)}${cpuOf(["--help"])}  (target ≤ 40 ms)`);
  try {
    run(["env", "resolve", "--config", "root.yaml"])(); // warm the asset extraction cache
    const viaBinary = await timeIt(binIter, run(["env", "resolve", "--config", "root.yaml"]));
    const resolveArgv = ["env", "resolve", "--config", "root.yaml"];
    const cpuResolve = cpuMedian(resolveArgv);
    const cpuStart = cpuMedian(["--version"]);
    const cpuRatio = cpuResolve !== undefined && cpuStart !== undefined ? `, cpu ratio ${(cpuResolve / cpuStart).toFixed(2)}x` : "";
    console.log(
      `dist/gym env resolve (100-file tree, wall)     : ${ms(viaBinary)}${cpuOf(resolveArgv)}  (target ≤ 50 ms; ratio ${(viaBinary / startup).toFixed(2)}x process start${cpuRatio})`,
    );
    console.log(`          env resolve minus process start       : wall ${ms(viaBinary - startup)}${cpuResolve !== undefined && cpuStart !== undefined ? `, cpu ${ms(cpuResolve - cpuStart)}` : ""}`);
  } catch (err) {
    console.log(`dist/gym env resolve could not run: ${(err as Error).message.split("\n")[0]}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
