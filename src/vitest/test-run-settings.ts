import { ConfigError } from "../errors/config-error.ts";
import type { CacheMode } from "../evaluate/judge-scheduler-options.ts";

/**
 * The environment variables through which `verdict test run` hands its flags to the Vitest
 * workers, where {@link assertTest} and `toPass` read them. They may also be set by hand (in
 * the shell, a `.env` file or a Vitest config's `test.env`) when running `vitest` directly.
 * Options passed to `assertTest` / `toPass` win over them.
 *
 * | variable | flag | values | default |
 * | --- | --- | --- | --- |
 * | `VERDICT_MAX_CONCURRENT` | `-n` | whole number ≥ 1: judge requests in flight per judge model, per Vitest worker | `20` |
 * | `VERDICT_CACHE` | `-c/--no-cache` | `1` (read and write the judge cache), `0` (off), `replay` (a miss is an error) | `1` |
 * | `VERDICT_IGNORE_ERRORS` | `-i` | `1` / `0`: a metric that errors does not throw in the test; it is still reported, and the run still ends "unscored" | `0` |
 * | `VERDICT_SKIP_ON_MISSING_PARAMS` | `-s` | `1` / `0`: leave out a metric whose test-case fields are missing | `0` |
 * | `VERDICT_VERBOSE` | `-v` | `1` / `0`: print every metric's intermediate steps (unset: each metric's own `verboseMode`) | unset |
 * | `VERDICT_REPEAT` | `-r` | whole number ≥ 1: trials of each case | `1` |
 * | `VERDICT_DRY_RUN` | `--dry-run` | `1` / `0`: ask no judge; each assertion records what it would spend (and passes) | `0` |
 *
 * `VERDICT_HOME` (the store folder, whose judge cache the workers share), `VERDICT_MODEL`
 * (the default judge, `--judge`) and `VERDICT_JUDGE_TEXT` (`--judge-text`: what the store keeps
 * of the judge's prompts and answers, as evaluate()'s `keepJudgeText`) keep their usual meaning.
 */
export const TEST_RUN_VARIABLES = {
  maxConcurrent: "VERDICT_MAX_CONCURRENT",
  cache: "VERDICT_CACHE",
  ignoreErrors: "VERDICT_IGNORE_ERRORS",
  skipOnMissingParams: "VERDICT_SKIP_ON_MISSING_PARAMS",
  verbose: "VERDICT_VERBOSE",
  repeat: "VERDICT_REPEAT",
  dryRun: "VERDICT_DRY_RUN",
} as const;

/** What a test run's assertions are configured with. */
export interface TestRunSettings {
  /** Judge requests in flight per judge model, per worker process. @default 20 */
  maxConcurrent: number;
  /** @default true */
  cache: CacheMode;
  /** @default false */
  ignoreErrors: boolean;
  /** @default false */
  skipOnMissingParams: boolean;
  /** `undefined`: each metric's own `verboseMode`. */
  verbose: boolean | undefined;
  /** @default 1 */
  repeat: number;
  /** Ask no judge: record what each case would spend. @default false */
  dryRun: boolean;
}

/** Options of {@link readTestRunSettings}. */
export interface ReadTestRunSettingsOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Options of {@link toTestRunEnvironment}. */
export interface ToTestRunEnvironmentOptions {
  settings: Partial<TestRunSettings>;
}

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off"]);

function readFlag(options: { env: NodeJS.ProcessEnv; variable: string }): boolean | undefined {
  const text = options.env[options.variable]?.trim().toLowerCase();
  if (text === undefined || text === "") return undefined;
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  throw new ConfigError(
    `${options.variable} must be 1 or 0 (true/false); got "${options.env[options.variable]}".`,
  );
}

function readWholeNumber(options: {
  env: NodeJS.ProcessEnv;
  variable: string;
}): number | undefined {
  const text = options.env[options.variable]?.trim();
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(
      `${options.variable} must be a whole number of at least 1; got "${options.env[options.variable]}".`,
    );
  }
  return value;
}

function readCacheMode(env: NodeJS.ProcessEnv): CacheMode {
  const variable = TEST_RUN_VARIABLES.cache;
  if (env[variable]?.trim().toLowerCase() === "replay") return "replay";
  return readFlag({ env, variable }) ?? true;
}

/**
 * Reads the {@link TEST_RUN_VARIABLES} from an environment, with their defaults.
 * @throws {ConfigError} naming the variable when a value is not understood.
 * @example
 * const { maxConcurrent, cache } = readTestRunSettings({ env: process.env });
 */
export function readTestRunSettings(options: ReadTestRunSettingsOptions = {}): TestRunSettings {
  const env = options.env ?? process.env;
  return {
    maxConcurrent: readWholeNumber({ env, variable: TEST_RUN_VARIABLES.maxConcurrent }) ?? 20,
    cache: readCacheMode(env),
    ignoreErrors: readFlag({ env, variable: TEST_RUN_VARIABLES.ignoreErrors }) ?? false,
    skipOnMissingParams:
      readFlag({ env, variable: TEST_RUN_VARIABLES.skipOnMissingParams }) ?? false,
    verbose: readFlag({ env, variable: TEST_RUN_VARIABLES.verbose }),
    repeat: readWholeNumber({ env, variable: TEST_RUN_VARIABLES.repeat }) ?? 1,
    dryRun: readFlag({ env, variable: TEST_RUN_VARIABLES.dryRun }) ?? false,
  };
}

/**
 * The {@link TEST_RUN_VARIABLES} that carry these settings to the Vitest workers; settings
 * left out are left out of the result (so the workers use their defaults).
 * @example
 * toTestRunEnvironment({ settings: { cache: false, maxConcurrent: 5 } });
 * // { VERDICT_CACHE: "0", VERDICT_MAX_CONCURRENT: "5" }
 */
export function toTestRunEnvironment(options: ToTestRunEnvironmentOptions): Record<string, string> {
  const { settings } = options;
  const environment: Record<string, string> = {};
  const flag = (value: boolean) => (value ? "1" : "0");
  if (settings.maxConcurrent !== undefined) {
    environment[TEST_RUN_VARIABLES.maxConcurrent] = String(settings.maxConcurrent);
  }
  if (settings.cache !== undefined) {
    environment[TEST_RUN_VARIABLES.cache] =
      settings.cache === "replay" ? "replay" : flag(settings.cache);
  }
  if (settings.ignoreErrors !== undefined) {
    environment[TEST_RUN_VARIABLES.ignoreErrors] = flag(settings.ignoreErrors);
  }
  if (settings.skipOnMissingParams !== undefined) {
    environment[TEST_RUN_VARIABLES.skipOnMissingParams] = flag(settings.skipOnMissingParams);
  }
  if (settings.verbose !== undefined) {
    environment[TEST_RUN_VARIABLES.verbose] = flag(settings.verbose);
  }
  if (settings.repeat !== undefined)
    environment[TEST_RUN_VARIABLES.repeat] = String(settings.repeat);
  if (settings.dryRun !== undefined) environment[TEST_RUN_VARIABLES.dryRun] = flag(settings.dryRun);
  return environment;
}
