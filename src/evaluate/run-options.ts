import { ConfigError } from "../errors/config-error.ts";
import type { RetryPolicy } from "../judge/retry-policy.ts";
import { JUDGE_TEXT_MODES, type JudgeTextMode } from "../results/judge-text.ts";
import type { RunnerEvent, RunReporter } from "../results/runner-events.ts";
import type { StoreOption } from "../store/open-store.ts";
import { parseShard } from "../store/run-shards.ts";
import { checkStoredName } from "../store/stored-names.ts";
import { type BatchOptions, resolveBatchOptions } from "./batch-options.ts";
import type { DisplayOption } from "./default-reporters.ts";
import type { CacheMode } from "./judge-scheduler-options.ts";
import type { JudgeScheduler } from "./scheduler.ts";

/**
 * A cap on what a run spends on its judges, over all its parts (a resumed run counts what its
 * earlier parts spent). Before each judge call the run reserves what the call can cost at most
 * (see docs/cost.md); a call that does not fit is not sent, and the run stops there, keeping
 * every finished case: status `"budget-exhausted"`.
 */
export interface RunBudget {
  /** The most USD the run may spend, at its judges' prices (every judge needs a known price). */
  maxCostUsd?: number;
  /** The most tokens, prompt and completion together, the run may spend. */
  maxTokens?: number;
}

/** What every run shares, whatever it scores: the options of evaluate() but its cases and metrics. */
export interface RunOptions {
  /** Judge requests in flight per judge model. @default 20 */
  maxConcurrent?: number;
  /** Milliseconds between dispatches to one judge model. @default 0 */
  throttleMs?: number;
  /**
   * A failed metric becomes `{ score: null, error }` instead of stopping the run. A rejected key
   * or an unknown model (a `JudgeCallError` of kind `"configuration"`) still stops it.
   * @default false
   */
  ignoreErrors?: boolean;
  /** Leave out a metric whose test-case fields are missing (wins over ignoreErrors). @default false */
  skipOnMissingParams?: boolean;
  /** Reuse judge answers across runs; `"replay"` fails on a miss (CI without keys). @default true */
  cache?: CacheMode;
  /** Runs each case this many times (distinct trials, never served from each other). @default 1 */
  repeat?: number;
  /** Print every metric's intermediate steps. */
  verbose?: boolean;
  /** Which cases the end report shows; `"none"` prints nothing. @default "all" */
  display?: DisplayOption;
  /** Show a progress bar (or periodic lines when not on a terminal). @default display !== "none" */
  showProgress?: boolean;
  /** Names the run, for `resume` and comparisons. */
  identifier?: string;
  /** Continue the latest run with `identifier`, reusing its finished cases. @default false */
  resume?: boolean;
  /**
   * Run only shard `"i/n"` of the cases (the i-th of n consecutive blocks), e.g. one CI
   * machine's share. Shards of one build (same `VERDICT_RUN_GROUP`, or the CI build's id on
   * GitHub Actions, GitLab CI, Buildkite, CircleCI) write into one stored run, which
   * `verdict view`, `compare` and `merge --run` read whole; the result holds this shard's cases.
   */
  shard?: string;
  /**
   * Plain JSON stored with the run (its `config.metadata`, shown by `verdict view`): what
   * produced the outputs, e.g. `{ model: "support-bot-v2", checkpoint: 3 }`.
   */
  metadata?: Record<string, unknown>;
  /**
   * Where runs and the judge cache are kept: a `postgres://` URL (a store the team shares), a
   * Store of your own, or `false` for none. By default `VERDICT_STORE` when set, else the `.verdict/`
   * SQLite store.
   */
  store?: StoreOption;
  /**
   * What the returned result keeps: `true`, every test result; `false`, the summary only
   * (`testResults` is empty), so that the run's memory does not grow with its cases — for runs
   * of tens of thousands of cases. The results still go to the store and the reporters as each
   * case finishes: read them back with `readTestResults(store, result.testRunId)`.
   * @default true
   */
  keepResults?: boolean;
  /**
   * What the store keeps of the judge's prompts and raw answers: `"text"`, their texts (secrets
   * masked, as everything stored; each text once per run, under its SHA-256), which
   * `verdict view` shows behind each judge call of a case; `"hash"`, only the SHA-256 of each
   * on its judge call (enough to tell whether two calls sent the same prompt), for a smaller
   * store. The results themselves carry the hashes either way. By default
   * `VERDICT_JUDGE_TEXT` when set, else `"text"`.
   */
  keepJudgeText?: JudgeTextMode;
  /** Called with every runner event. */
  onProgress?: (event: RunnerEvent) => void;
  /** More consumers of runner events. */
  reporters?: RunReporter[];
  /** Cancels the run: finished cases are kept and the run is marked interrupted. */
  signal?: AbortSignal;
  /** Retry policy for judge calls. */
  retry?: Partial<RetryPolicy>;
  /**
   * Stop on Ctrl-C (SIGINT), SIGTERM (how CI services, Kubernetes and `docker stop` cancel a
   * job) or SIGHUP (the terminal closed): stop dispatching, cancel the judge calls in flight,
   * mark the run interrupted, print how to resume, and set `process.exitCode` to 130, 143 or
   * 129 (128 + the signal) so the script still ends as interrupted (not when a `signal` is
   * given: then the exit is yours). A second signal ends the process at once. `false`: the
   * signals are left to the process.
   * @default true
   */
  handleInterrupt?: boolean;
  /** Environment for model and store resolution. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * Sends judge requests through the providers' batch APIs (OpenAI Batch, Anthropic Message
   * Batches) at half the price: each step of every case goes as one batch, polled until the
   * provider is done (minutes to 24 hours), and the next step follows. For large offline runs.
   * Judges without a batch API (other providers, custom `JudgeModel`s) are called directly.
   * Batch ids are kept in the store, so a run killed while it waits resumes polling them.
   * `true` takes the defaults of {@link BatchOptions}.
   * @default false
   */
  batch?: boolean | BatchOptions;
  /**
   * A cap on the run's judge spending, in USD (`maxCostUsd`) or tokens (`maxTokens`): the run
   * stops dispatching before a call could pass it, keeps every finished case, and ends
   * `"budget-exhausted"`; resume it with a larger budget to finish. @default none
   */
  budget?: RunBudget;
  /**
   * A scheduler shared with other runs (e.g. every assertion of a test file), with its own
   * concurrency, retries, cache and batching: `maxConcurrent`, `throttleMs`, `retry`, `cache`
   * and `batch` are then the scheduler's, and giving them too is a `ConfigError`.
   */
  scheduler?: JudgeScheduler;
}

/**
 * Every run option by name: what a front-end (`calibrate`, `evaluateCheckpoints`, the training
 * callback) passes on to the engine as the user gave it. The type check below fails when a
 * new run option is not listed here.
 */
export const RUN_OPTION_NAMES = [
  "maxConcurrent",
  "throttleMs",
  "ignoreErrors",
  "skipOnMissingParams",
  "cache",
  "repeat",
  "verbose",
  "display",
  "showProgress",
  "identifier",
  "resume",
  "shard",
  "metadata",
  "store",
  "keepResults",
  "keepJudgeText",
  "onProgress",
  "reporters",
  "signal",
  "retry",
  "handleInterrupt",
  "env",
  "batch",
  "budget",
  "scheduler",
] as const satisfies ReadonlyArray<keyof RunOptions>;

type UnlistedRunOption = Exclude<keyof RunOptions, (typeof RUN_OPTION_NAMES)[number]>;
// A compile error here names a run option missing from RUN_OPTION_NAMES.
const everyRunOptionListed: [UnlistedRunOption] extends [never] ? true : UnlistedRunOption = true;
void everyRunOptionListed;

/**
 * The options a given `scheduler` brings with it: a run that is handed a scheduler takes these
 * from it, so giving both is an error rather than a silent choice.
 */
export const SCHEDULER_OPTION_NAMES = [
  "maxConcurrent",
  "throttleMs",
  "retry",
  "cache",
  "batch",
  "budget",
] as const satisfies ReadonlyArray<keyof RunOptions>;

/**
 * The run options among `options` (those set), as given: what a front-end passes on to
 * evaluate() whatever else its own options hold.
 * @example
 * evaluate({ ...pickRunOptions(calibrateOptions), testCases, metrics });
 */
export function pickRunOptions(options: RunOptions): RunOptions {
  const picked: Record<string, unknown> = {};
  for (const name of RUN_OPTION_NAMES) {
    if (options[name] !== undefined) picked[name] = options[name];
  }
  return picked as RunOptions;
}

/**
 * The run options of a front-end that runs with a scheduler of its own (built from these
 * options): the options it passes on, with the scheduler in place of the options it brings.
 */
export function withScheduler(options: RunOptions, scheduler: JudgeScheduler): RunOptions {
  const picked = pickRunOptions(options) as Record<string, unknown>;
  for (const name of SCHEDULER_OPTION_NAMES) delete picked[name];
  return { ...(picked as RunOptions), scheduler };
}

/** Checks the options every kind of run shares, before anything runs. */
export function checkRunOptions(options: RunOptions): void {
  if (options.scheduler !== undefined) {
    const given = SCHEDULER_OPTION_NAMES.filter((name) => options[name] !== undefined);
    if (given.length > 0) {
      throw new ConfigError(
        `${given.join(", ")} ${given.length === 1 ? "is" : "are"} the scheduler's when a scheduler is given: ` +
          "leave them out (the scheduler brings its own), or leave out scheduler.",
      );
    }
  }
  const repeat = options.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1) {
    throw new ConfigError(
      `repeat must be a whole number of at least 1; got ${String(options.repeat)}.`,
    );
  }
  if (options.shard !== undefined && parseShard(options.shard) === null) {
    throw new ConfigError(
      `shard takes "i/n" with 1 <= i <= n, e.g. shard: "2/8"; got ${JSON.stringify(options.shard)}.`,
    );
  }
  if (options.batch !== undefined && options.batch !== false) resolveBatchOptions(options.batch);
  if (options.budget !== undefined) checkBudget(options.budget);
  const { metadata } = options;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
  ) {
    throw new ConfigError(
      'metadata must be a plain object of JSON values, e.g. { model: "support-bot-v2" }.',
    );
  }
  resolveJudgeTextMode(options);
  // Every store refuses it when the run starts; said here, before anything runs.
  checkStoredName("run identifier", options.identifier);
  if (options.resume && !options.identifier) {
    throw new ConfigError(
      'resume needs an identifier: evaluate({ identifier: "nightly", resume: true, … }).',
    );
  }
}

/**
 * What the run keeps of its judge's prompts and answers: `keepJudgeText`, else
 * `VERDICT_JUDGE_TEXT` (from `options.env`), else `"text"`; anything else is a `ConfigError`.
 */
export function resolveJudgeTextMode(options: RunOptions): JudgeTextMode {
  const fromEnvironment = (options.env ?? process.env).VERDICT_JUDGE_TEXT?.trim();
  const [value, where] =
    options.keepJudgeText !== undefined
      ? [options.keepJudgeText, "keepJudgeText"]
      : fromEnvironment
        ? [fromEnvironment, "VERDICT_JUDGE_TEXT"]
        : ["text", ""];
  if ((JUDGE_TEXT_MODES as readonly unknown[]).includes(value)) return value as JudgeTextMode;
  throw new ConfigError(
    `${where} is ${JSON.stringify(value)}: give "text" (keep the judge's prompts and answers) ` +
      'or "hash" (keep only their SHA-256).',
  );
}

/** The run options kept in a stored run's configuration. */
export function describeRunOptions(options: RunOptions): Record<string, unknown> {
  return {
    maxConcurrent: options.maxConcurrent ?? 20,
    throttleMs: options.throttleMs ?? 0,
    ignoreErrors: options.ignoreErrors ?? false,
    skipOnMissingParams: options.skipOnMissingParams ?? false,
    cache: options.cache ?? true,
    // Only when on: stored configurations of runs without batches stay as they were.
    ...(options.batch !== undefined && options.batch !== false ? { batch: true } : {}),
    ...(options.budget === undefined
      ? {}
      : {
          budget: {
            maxCostUsd: options.budget.maxCostUsd ?? null,
            maxTokens: options.budget.maxTokens ?? null,
          },
        }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    // Only when not the default: stored configurations of other runs stay as they were.
    ...(resolveJudgeTextMode(options) === "hash" ? { keepJudgeText: "hash" } : {}),
  };
}

/** A budget's caps: positive numbers, at least one of them. */
function checkBudget(budget: RunBudget): void {
  const example = "e.g. budget: { maxCostUsd: 5 } or { maxTokens: 2_000_000 }";
  if (typeof budget !== "object" || budget === null || Array.isArray(budget)) {
    throw new ConfigError(`budget must be an object of caps, ${example}.`);
  }
  const unknown = Object.keys(budget).filter((key) => key !== "maxCostUsd" && key !== "maxTokens");
  if (unknown.length > 0) {
    throw new ConfigError(
      `budget takes maxCostUsd and maxTokens; got ${unknown.map((key) => JSON.stringify(key)).join(", ")}: ${example}.`,
    );
  }
  for (const cap of ["maxCostUsd", "maxTokens"] as const) {
    const value = budget[cap];
    if (
      value !== undefined &&
      !(typeof value === "number" && Number.isFinite(value) && value > 0)
    ) {
      throw new ConfigError(
        `budget.${cap} must be a number above 0; got ${String(value)}: ${example}.`,
      );
    }
  }
  if (budget.maxCostUsd === undefined && budget.maxTokens === undefined) {
    throw new ConfigError(`budget needs a cap, ${example}.`);
  }
}
