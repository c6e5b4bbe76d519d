import { describe, expect, test } from "bun:test";
import { createConsola, type ConsolaReporter, type LogObject } from "consola";
import { withPlainLineFastPath } from "../src/log.ts";

/** A consola logger on the fancy reporter that writes into a string; `fast` adds gym's fast path. */
function capture(fast: boolean, columns?: number): { logger: ReturnType<typeof createConsola>; text: () => string; fullCalls: () => number } {
  let out = "";
  const stream = { columns, write: (s: string) => ((out += s), true) } as unknown as NodeJS.WriteStream;
  // `fancy` forces consola's fancy reporter (it picks the basic one under CI); its typings omit it.
  const options = { level: 5, fancy: true, stdout: stream, stderr: stream, formatOptions: { date: false }, throttle: 0 };
  const logger = createConsola(options);
  const reporter = logger.options.reporters[0] as ConsolaReporter & { formatLogObj: (o: LogObject, opts: object) => string };
  let calls = 0;
  const original = reporter.formatLogObj.bind(reporter);
  reporter.formatLogObj = (o, opts) => (calls++, original(o, opts));
  if (fast) withPlainLineFastPath(reporter);
  return { logger, text: () => out, fullCalls: () => calls };
}

const MESSAGES = [
  "Agent 'a' has no Environment Server; generated legacy_agent 'a__legacy_agent'. This is deprecated — add an environment server.\nAgent 'b' too",
  "use `gym env resolve` to see the merged config",
  "a _word_ with underscores and snake_case_names and `code`",
  "",
  "trailing newline\n",
  "100% done, %s stays literal",
  "unicode: ünïcödé 日本語 🙂",
];

describe("log fast path for plain lines", () => {
  test("prints exactly what consola's fancy reporter prints, for every log type and a tag", () => {
    const slow = capture(false);
    const fast = capture(true);
    for (const { logger } of [slow, fast]) {
      for (const m of MESSAGES) {
        logger.warn(m);
        logger.info(m);
        logger.error(m);
        logger.success(m);
        logger.debug(m);
        logger.log(m);
        logger.withTag("runtime").warn(m);
        logger.withTag("runtime").info(m);
      }
    }
    expect(fast.text()).toBe(slow.text());
    expect(fast.text()).toContain(" WARN  Agent 'a'");
  });

  test("takes the fast path for one string on a narrow stream, consola's formatter otherwise", () => {
    const boom = new Error("boom");
    const fast = capture(true);
    fast.logger.warn("plain");
    fast.logger.info("plain", "two args");
    fast.logger.error(boom);
    fast.logger.box("boxed");
    // The test preload sets NO_COLOR, so only the multi-argument, Error and box lines need consola.
    expect(fast.fullCalls()).toBe(3);
    const slow = capture(false);
    slow.logger.warn("plain");
    slow.logger.info("plain", "two args");
    slow.logger.error(boom);
    slow.logger.box("boxed");
    expect(fast.text()).toBe(slow.text());
  });

  test("a wide stream (a terminal) keeps consola's padded layout", () => {
    const fast = capture(true, 100);
    const slow = capture(false, 100);
    for (const { logger } of [fast, slow]) logger.withTag("t").info("padded to the right edge");
    expect(fast.fullCalls()).toBe(1);
    expect(fast.text()).toBe(slow.text());
  });
});

describe("the root logger", () => {
  test("is created on first use, keeps a level set before that, and forwards tagged children", async () => {
    const script = [
      `import { log, setQuiet, setVerbose } from ${JSON.stringify(`${import.meta.dir}/../src/log.ts`)};`,
      `setQuiet();`,
      `log.info("hidden info");`,
      `log.warn("shown warning");`,
      `log.error("shown error");`,
      `setVerbose(true);`,
      `log.debug("shown debug");`,
      `log.withTag("runtime").info("tagged info");`,
      `console.log(JSON.stringify({ level: log.level, reporters: log.options.reporters.length }));`,
    ].join("\n");
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", env: { ...process.env } });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ level: 4, reporters: 1 });
    expect(err).not.toContain("hidden info");
    expect(err).toContain("shown warning");
    expect(err).toContain("shown error");
    expect(err).toContain("shown debug");
    expect(err).toContain("tagged info");
    expect(err).toContain("runtime");
  });
});
