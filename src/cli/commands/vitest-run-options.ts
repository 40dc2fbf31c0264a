import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { CliOptions, Reporter } from "vitest/node";
import { posixPath } from "../posix-path.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";

/** The export condition that makes `verdict` load its TypeScript sources (development, e2e). */
const SOURCE_CONDITION = "verdict-source";
/** Vite's default server conditions, which setting `resolve.conditions` replaces. */
const SERVER_CONDITIONS = ["module", "node", "development|production"];
/** Evals call a judge: far slower than Vitest's 5 s default. A test's own `timeout` wins. */
const TEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Judge requests in flight per model when `-n` is not given (the assertions' own default). */
export const DEFAULT_MAX_CONCURRENT = 20;
/**
 * Tests of a file in flight per judge request allowed in flight. A test waits on several judge
 * steps in a row; with only `-n` tests started, the last tests of a file start when the first
 * finish and pay their whole chain of steps after them (21 tests at 400 ms: 2.65 s against
 * 1.70 s through evaluate()). The scheduler, not Vitest, bounds the load, and it serves earlier
 * tests first, so extra started tests only queue.
 */
const TESTS_PER_JUDGE_REQUEST = 5;
/**
 * Eval files run at once in this many workers at least (more on machines with more cores):
 * they wait on the judge, not the CPU, and Vitest's default (cores − 1) ran the files of a
 * 2-core CI runner one after another (4 files: 3.05× evaluate()). The shared slots keep `-n`
 * the limit across all of them.
 */
const MIN_WORKERS = 4;

/**
 * verdict's Vitest setup file, beside this module's folder (`src/` or `dist/`): it gives each
 * test the async context that files its assertions under it when tests run concurrently.
 */
function setupFilePath(): string {
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`../../vitest/setup${extension}`, import.meta.url));
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

/**
 * How `verdict test run` starts Vitest: the CLI options (files, reporters, the workers'
 * environment, timeouts, concurrency, sharding) and the Vite overrides (verdict's setup file,
 * the store left out of a watch, the source condition in development).
 */
export function vitestRunOptions(context: {
  options: TestRunCommandOptions;
  /** The Vitest `include` globs of the paths given. */
  include: string[];
  /** The workers' environment. */
  env: NodeJS.ProcessEnv;
  reporters: Reporter[];
  /** A `--watch` session. */
  watching: boolean;
  /** A `--shard` of the tests. */
  sharded: boolean;
}) {
  const { options, include, env, watching, sharded } = context;
  const { cwd } = options;
  const source = usesSourceCondition(options.env);
  const cliOptions: CliOptions = {
    watch: watching,
    root: cwd,
    include,
    reporters: context.reporters,
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    testTimeout: TEST_TIMEOUT_MS,
    maxWorkers: Math.max(MIN_WORKERS, availableParallelism()),
    // Each test's judge calls go through its worker's one scheduler, which bounds the load
    // (`-n`): running a file's tests at once costs nothing more, and saves their latencies.
    ...(options.concurrent === false
      ? {}
      : {
          sequence: { concurrent: true },
          maxConcurrency:
            (options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT) * TESTS_PER_JUDGE_REQUEST,
        }),
    ...(options.exitOnFirstFailure ? { bail: 1 } : {}),
    // Where each test is: failing tests are annotated at their line (GitHub Actions).
    includeTaskLocation: true,
    // A shard runs some tests of every file (not Vitest's files per shard): the others are
    // skipped, and a shard may get none of a file's tests, or none at all.
    ...(sharded ? { passWithNoTests: true } : {}),
    ...(source ? { execArgv: [`--conditions=${SOURCE_CONDITION}`] } : {}),
  };
  const conditions = [SOURCE_CONDITION, ...SERVER_CONDITIONS];
  // In the overrides, not the CLI options: Vite merges them with the project's own setupFiles.
  const viteOverrides = {
    test: { setupFiles: [setupFilePath()] },
    // The store is written all through a run: nothing there is a change to re-run for.
    ...(watching
      ? { server: { watch: { ignored: [`${posixPath(env.VERDICT_HOME ?? "")}/**`] } } }
      : {}),
    ...(source ? { resolve: { conditions }, ssr: { resolve: { conditions } } } : {}),
  };
  return { cliOptions, viteOverrides };
}
