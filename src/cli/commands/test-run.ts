import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { CliOptions } from "vitest/node";
import { createHtmlReporter } from "../../report/html-report.ts";
import { createJsonReporter } from "../../report/json-report.ts";
import { createJUnitReporter } from "../../report/junit-report.ts";
import type { RunReporter } from "../../results/runner-events.ts";
import { toTestRunEnvironment } from "../../vitest/test-run-settings.ts";
import { VerdictReporter } from "../../vitest/verdict-reporter.ts";
import { EXIT_CODES, exitCodeForOutcome } from "../exit-codes.ts";

/** Options of {@link runTestRun}: the flags of `verdict test run`. */
export interface TestRunCommandOptions {
  /** Test files or folders; folders are searched for `*.eval.ts`. Empty: the whole project. */
  paths: string[];
  /** Reuse judge answers from earlier runs (`-c/--no-cache` turns it off). */
  cache: boolean;
  ignoreErrors: boolean;
  skipOnMissingParams: boolean;
  verbose: boolean;
  /** Judge requests in flight per judge model, per Vitest worker. */
  maxConcurrent?: number;
  /** Trials of each case. */
  repeat?: number;
  /** Stop at the first failing test (Vitest's `bail: 1`). */
  exitOnFirstFailure: boolean;
  display: "all" | "failing" | "passing";
  identifier?: string;
  output?: "json" | "junit" | "html";
  /** @default `verdict-report.<json|xml|html>` in `cwd` */
  outputFile?: string;
  /** Vitest's `--shard`, `"i/n"`. */
  shard?: string;
  /** `--judge`: the judge model of this run (`VERDICT_MODEL` for the workers); `"fake"` for the fake judge. */
  judge?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The file extension of each `--output` format. */
export const OUTPUT_EXTENSIONS = { json: "json", junit: "xml", html: "html" } as const;

/** The export condition that makes `verdict` load its TypeScript sources (development, e2e). */
const SOURCE_CONDITION = "verdict-source";
/** Vite's default server conditions, which setting `resolve.conditions` replaces. */
const SERVER_CONDITIONS = ["module", "node", "development|production"];
/** Evals call a judge: far slower than Vitest's 5 s default. A test's own `timeout` wins. */
const TEST_TIMEOUT_MS = 10 * 60 * 1000;

function usage(message: string): number {
  process.stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

function posix(file: string): string {
  return file.split(path.sep).join("/");
}

/** Whether this process runs with `--conditions=verdict-source` (flag or NODE_OPTIONS). */
function usesSourceCondition(env: NodeJS.ProcessEnv): boolean {
  const args = [...process.execArgv, ...(env.NODE_OPTIONS?.split(/\s+/) ?? [])];
  return args.some(
    (arg, position) =>
      arg === `--conditions=${SOURCE_CONDITION}` ||
      arg === `-C=${SOURCE_CONDITION}` ||
      ((arg === "--conditions" || arg === "-C") && args[position + 1] === SOURCE_CONDITION),
  );
}

/** The Vitest `include` globs for the given paths, or an error message. */
function includePatterns(options: { paths: string[]; cwd: string }): string[] | string {
  if (options.paths.length === 0) return ["**/*.eval.ts"];
  const patterns: string[] = [];
  for (const given of options.paths) {
    const absolute = path.resolve(options.cwd, given);
    const stat = statSync(absolute, { throwIfNoEntry: false });
    if (stat === undefined) return `No such file or folder: "${given}" (looked in ${options.cwd}).`;
    const relative = posix(path.relative(options.cwd, absolute));
    const base =
      relative.startsWith("..") || path.isAbsolute(relative) ? posix(absolute) : relative;
    if (stat.isDirectory()) patterns.push(base === "" ? "**/*.eval.ts" : `${base}/**/*.eval.ts`);
    else patterns.push(base);
  }
  return patterns;
}

/** Options of {@link createOutputReporter}. */
export interface CreateOutputReporterOptions {
  output: "json" | "junit" | "html";
  /** Absolute path of the report file. */
  file: string;
}

/**
 * The reporter that writes an `--output` report when the run ends.
 * @example
 * createOutputReporter({ output: "junit", file: "/ci/verdict-report.xml" });
 */
export function createOutputReporter(options: CreateOutputReporterOptions): RunReporter {
  if (options.output === "json") return createJsonReporter({ file: options.file });
  if (options.output === "junit") return createJUnitReporter({ file: options.file });
  return createHtmlReporter({ file: options.file });
}

/**
 * `verdict test run [paths…]`: runs `*.eval.ts` files (and any test file given by path)
 * through Vitest's Node API with {@link VerdictReporter}, which gathers every `assertTest` /
 * `toPass` of the run into one stored run and prints verdict's end report. The flags reach
 * the Vitest workers as `VERDICT_*` variables. Returns the exit code (it never exits):
 * 2 for a usage or configuration error (bad shard, no test files, Vitest config errors, no
 * judge configured), 3 when judge errors left cases unscored, 1 when a test failed, else 0.
 * @example
 * const code = await runTestRun({
 *   paths: ["evals/"], cache: true, ignoreErrors: false, skipOnMissingParams: false,
 *   verbose: false, exitOnFirstFailure: false, display: "failing", cwd: process.cwd(), env: process.env,
 * });
 */
export async function runTestRun(options: TestRunCommandOptions): Promise<number> {
  const { cwd } = options;
  if (options.shard !== undefined) {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(options.shard);
    const [index, count] = [Number(match?.[1]), Number(match?.[2])];
    if (match === null || index < 1 || count < 1 || index > count) {
      return usage(`--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "${options.shard}".`);
    }
  }
  for (const [flag, value] of [
    ["--max-concurrent", options.maxConcurrent],
    ["--repeat", options.repeat],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      return usage(`${flag} takes a whole number of 1 or more; got ${value}.`);
    }
  }
  const include = includePatterns({ paths: options.paths, cwd });
  if (typeof include === "string") return usage(include);

  const outputFile =
    options.output === undefined
      ? null
      : path.resolve(
          cwd,
          options.outputFile ?? `verdict-report.${OUTPUT_EXTENSIONS[options.output]}`,
        );
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    // Absolute, so the workers, whatever their working folder, share this store and cache.
    VERDICT_HOME: path.resolve(cwd, options.env.VERDICT_HOME?.trim() || ".verdict"),
    ...(options.judge === undefined ? {} : { VERDICT_MODEL: options.judge }),
    ...toTestRunEnvironment({
      settings: {
        ...(options.cache ? {} : { cache: false }),
        ...(options.ignoreErrors ? { ignoreErrors: true } : {}),
        ...(options.skipOnMissingParams ? { skipOnMissingParams: true } : {}),
        ...(options.verbose ? { verbose: true } : {}),
        ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
        ...(options.repeat === undefined ? {} : { repeat: options.repeat }),
      },
    }),
  };
  const reporter = new VerdictReporter({
    env,
    display: options.display,
    printVitestOutput: true,
    ...(options.identifier === undefined ? {} : { identifier: options.identifier }),
    ...(options.output === undefined || outputFile === null
      ? {}
      : { reporters: [createOutputReporter({ output: options.output, file: outputFile })] }),
    config: {
      command: "verdict test run",
      paths: options.paths,
      exitOnFirstFailure: options.exitOnFirstFailure,
      shard: options.shard ?? null,
    },
  });

  const source = usesSourceCondition(options.env);
  const cliOptions: CliOptions = {
    watch: false,
    root: cwd,
    include,
    reporters: [reporter],
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    testTimeout: TEST_TIMEOUT_MS,
    ...(options.exitOnFirstFailure ? { bail: 1 } : {}),
    ...(options.shard === undefined ? {} : { shard: options.shard.replace(/\s+/g, "") }),
    ...(source ? { execArgv: [`--conditions=${SOURCE_CONDITION}`] } : {}),
  };
  const conditions = [SOURCE_CONDITION, ...SERVER_CONDITIONS];
  const viteOverrides = source ? { resolve: { conditions }, ssr: { resolve: { conditions } } } : {};

  let createVitest: typeof import("vitest/node").createVitest;
  try {
    ({ createVitest } = await import("vitest/node"));
  } catch (error) {
    return usage(
      `verdict test run needs Vitest 5 in this project: npm install --save-dev vitest (${(error as Error).message}).`,
    );
  }
  // Vitest sets process.exitCode on failures; the caller decides the exit code.
  const exitCodeBefore = process.exitCode;
  try {
    let vitest: Awaited<ReturnType<typeof createVitest>>;
    try {
      vitest = await createVitest(cliOptions, viteOverrides);
    } catch (error) {
      return usage(`Vitest could not start: ${(error as Error).message}`);
    }
    try {
      await vitest.start();
    } catch (error) {
      if ((error as { code?: unknown }).code === "VITEST_FILES_NOT_FOUND") {
        return usage(
          `No test files found: looked for ${include.join(", ")} in ${cwd}. Name eval files *.eval.ts, or pass their paths.`,
        );
      }
      if (reporter.outcome === null) {
        return usage(`Vitest could not run: ${(error as Error).message}`);
      }
    } finally {
      await vitest.close();
    }
  } finally {
    process.exitCode = exitCodeBefore;
  }

  if (outputFile !== null && existsSync(outputFile)) {
    process.stdout.write(`Report written to ${outputFile}\n`);
  }
  const outcome = reporter.outcome;
  if (outcome === null) return usage("No test ran: nothing was evaluated.");
  return exitCodeForOutcome({ outcome });
}
