import path from "node:path";
import type { TestError, UserConsoleLog } from "vitest";
import type {
  Reporter,
  SerializedError,
  TestCase,
  TestModule,
  TestRunEndReason,
  TestSpecification,
  Vitest,
} from "vitest/node";
import { ConfigError } from "../errors/config-error.ts";
import { showControlCharacters, showName, stripColourCodes } from "../report/format.ts";
import type { CostEstimate } from "../results/cost-estimate.ts";
import type { EvaluationResult } from "../results/evaluation-result.ts";
import type { TestRunOutcome } from "../results/test-run-outcome.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { CaseIndexer } from "./case-indexer.ts";
import { rankTestFiles } from "./case-shard.ts";
import { DryRunState } from "./dry-run-state.ts";
import { failedToLoad } from "./failed-to-load.ts";
import { readTestRunSettings } from "./test-run-settings.ts";
import type { VerdictCaseRecord } from "./verdict-case-record.ts";
import type { VerdictReporterOptions } from "./verdict-reporter-options.ts";
import { RunState } from "./verdict-run-state.ts";

export type { VerdictReporterOptions } from "./verdict-reporter-options.ts";

/** Verdict error classes: a test failing with one of them failed for a verdict reason. */
const VERDICT_ERROR_NAMES = new Set([
  "EvalError",
  "BudgetExhaustedError",
  "ConfigError",
  "StoreError",
  "JudgeCallError",
  "JudgeOutputError",
  "MissingTestCaseParamsError",
]);

function posix(file: string): string {
  return file.split(path.sep).join("/");
}

/**
 * A Vitest reporter that gathers every verdict assertion of a Vitest run (`assertTest`,
 * `toPass`) into ONE stored run: each case is saved as it arrives, indexed by its place in the
 * suite (file, then test order, so shards merge in the same order), and reported through the
 * same runner events as evaluate(): progress, the console end report, and any reporters
 * given. `outcome` and `result` tell how the run ended. `verdict test run` uses it; add it to
 * your own Vitest config to get the same from `vitest run`.
 * @example
 * // vitest.config.ts
 * import { defineConfig } from "vitest/config";
 * import { VerdictReporter } from "verdict/vitest";
 * export default defineConfig({
 *   test: { include: ["**\/*.eval.ts"], reporters: ["default", new VerdictReporter({ display: "failing" })] },
 * });
 */
export class VerdictReporter implements Reporter {
  private readonly options: VerdictReporterOptions;
  private vitest: Vitest | null = null;
  private state: RunState | null = null;
  /** In a dry run (`VERDICT_DRY_RUN`), what the assertions would spend, instead of a run. */
  private dryRun: DryRunState | null = null;
  private lastEstimate: CostEstimate | null = null;
  private lastResult: EvaluationResult | null = null;
  private lastOutcome: TestRunOutcome | null = null;
  private lastConfigErrors: string[] = [];

  constructor(options: VerdictReporterOptions = {}) {
    this.options = options;
  }

  /** The last run's gathered result; `null` before a run ended. */
  get result(): EvaluationResult | null {
    return this.lastResult;
  }

  /** The last dry run's estimate (`VERDICT_DRY_RUN`); `null` before one ended, or after a real run. */
  get estimate(): CostEstimate | null {
    return this.lastEstimate;
  }

  /** How the last run ended; `null` before a run ended. */
  get outcome(): TestRunOutcome | null {
    return this.lastOutcome;
  }

  /** The configuration errors the last run met, each once. */
  get configErrors(): readonly string[] {
    return this.lastConfigErrors;
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    this.state = null;
    this.dryRun = null;
    this.lastEstimate = null;
    // No test file: nothing to store or report (the caller tells that no file was found).
    if (specifications.length === 0) return;
    const settings = safeSettings(this.options.env ?? process.env);
    if (settings.dryRun === true) {
      // A dry run stores nothing: its assertions asked no judge.
      this.dryRun = new DryRunState();
      this.dryRun.setTrials(typeof settings.repeat === "number" ? settings.repeat : 1);
      return;
    }
    const runFiles = specifications.map((specification) => this.relativeFile(specification));
    let allFiles = runFiles;
    let globbed: readonly TestSpecification[] = [];
    try {
      globbed = (await this.vitest?.globTestSpecifications()) ?? [];
      allFiles = [...globbed.map((specification) => this.relativeFile(specification)), ...runFiles];
    } catch {
      // Without the whole suite, the run's own files give a stable order too (unsharded).
    }
    const env = this.options.env ?? process.env;
    const state = new RunState({
      options: this.options,
      indexer: new CaseIndexer({ files: allFiles }),
      expectedModules: specifications.length,
      fileRanks: rankTestFiles(
        [...globbed, ...specifications].map((specification) => ({
          root: specification.project.config.root,
          moduleId: specification.moduleId,
        })),
      ),
    });
    this.state = state;
    const shard = this.options.shard ?? this.vitest?.config.shard;
    try {
      if (this.options.resume && !this.options.identifier) {
        throw new ConfigError(
          'resume needs an identifier, the name of the run to continue: new VerdictReporter({ identifier: "nightly", resume: true }).',
        );
      }
      // A run that needs its store and cannot open it throws here: Vitest then runs no test.
      await state.openStore({
        env,
        cwd: this.vitest?.config.root ?? process.cwd(),
        shard: shard ? { index: shard.index, count: shard.count } : null,
      });
    } catch (error) {
      this.state = null;
      throw error;
    }
    state.startStoredRun({
      runner: "vitest",
      files: [...new Set(runFiles)].sort(),
      shard: shard ? `${shard.index}/${shard.count}` : null,
      ...safeSettings(env),
      ...this.options.config,
    });
  }

  onTestModuleCollected(testModule: TestModule): void {
    this.state?.moduleCollected(testModule);
  }

  onTestCaseResult(testCase: TestCase): void {
    const records = latestAttempt(testCase.meta().verdict ?? []);
    const file = posix(testCase.module.relativeModuleId);
    if (this.dryRun !== null) {
      for (const record of records) this.dryRun.gather(record);
      if (testCase.result().state === "failed" && records.length === 0) {
        this.dryRun.otherFailures += 1;
        this.printFailure({
          title: `FAIL  ${file} > ${testCase.fullName}`,
          errors: testCase.result().errors ?? [],
          testCase,
        });
      }
      return;
    }
    const state = this.state;
    if (!state) return;
    for (const record of records) {
      state.gather({ testCase, file, record });
    }
    const result = testCase.result();
    if (result.state !== "failed") return;
    const explained = records.some((record) => record.outcome !== "passed");
    const verdictErrors = result.errors.filter((error) =>
      VERDICT_ERROR_NAMES.has(error.name ?? ""),
    );
    for (const error of verdictErrors) {
      if (!explained) state.testFailedWithVerdictError(error);
    }
    if (!explained && verdictErrors.length === 0) {
      state.otherFailures += 1;
      this.printFailure({
        title: `FAIL  ${file} > ${testCase.fullName}`,
        errors: result.errors,
        testCase,
      });
    }
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (!this.options.printVitestOutput) return;
    const stream =
      log.type === "stderr"
        ? (this.options.stderr ?? process.stderr)
        : (this.options.stdout ?? process.stdout);
    stream.write(log.content);
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): Promise<void> {
    if (this.dryRun !== null) {
      this.finishDryRun(testModules);
      return;
    }
    const state = this.state;
    if (!state) {
      this.lastResult = null;
      this.lastOutcome = null;
      return;
    }
    this.gatherModuleErrors(testModules, state);
    // Cut short on purpose, a run's workers may die with it: not a failure of the tests.
    if (unhandledErrors.length > 0 && reason !== "interrupted") {
      state.otherFailures += unhandledErrors.length;
      this.printFailure({ title: "Unhandled errors", errors: unhandledErrors });
    }
    // With `bail`, Vitest ends a run "interrupted" after enough failures: that is a failed run,
    // not one cut short (Ctrl-C).
    const bailed = (this.vitest?.config.bail ?? 0) > 0 && state.hasFailures();
    const { result, outcome } = await state.finish({
      interrupted: reason === "interrupted" && !bailed,
    });
    this.lastResult = result;
    this.lastOutcome = outcome;
    this.lastConfigErrors = [...state.configErrors];
    this.state = null;
  }

  private finishDryRun(testModules: ReadonlyArray<TestModule>): void {
    const dryRun = this.dryRun as DryRunState;
    this.gatherModuleErrors(testModules, dryRun);
    const { estimate, outcome } = dryRun.finish({
      stdout: this.options.stdout ?? process.stdout,
      stderr: this.options.stderr ?? process.stderr,
      print: (this.options.display ?? "all") !== "none",
    });
    this.lastEstimate = estimate;
    this.lastOutcome = outcome;
    this.lastResult = null;
    this.lastConfigErrors = [...dryRun.configErrors];
    this.dryRun = null;
  }

  /**
   * Prints the errors of test files and counts them: a file that did not load as a failed
   * module, errors of a file that ran (an `afterAll`) as failures outside verdict's metrics.
   */
  private gatherModuleErrors(
    testModules: ReadonlyArray<TestModule>,
    into: { moduleFailed(options: { file: string; message: string }): void; otherFailures: number },
  ): void {
    for (const testModule of testModules) {
      const errors = testModule.errors();
      if (errors.length === 0) continue;
      const file = posix(testModule.relativeModuleId);
      this.printFailure({ title: `FAIL  ${file}`, errors });
      if (failedToLoad(testModule)) {
        const first = errors[0];
        const name = first?.name && first.name !== "Error" ? `${first.name}: ` : "";
        into.moduleFailed({ file, message: `${name}${first?.message ?? ""}` });
      } else {
        into.otherFailures += 1;
      }
    }
  }

  private relativeFile(specification: TestSpecification): string {
    const root = specification.project.config.root;
    return posix(path.relative(root, specification.moduleId));
  }

  private printFailure(options: {
    title: string;
    errors: ReadonlyArray<TestError | SerializedError>;
    testCase?: TestCase;
  }): void {
    if (!this.options.printVitestOutput) return;
    const stderr = this.options.stderr ?? process.stderr;
    // A test's name comes from the test file: shown on one line, its hidden characters escaped.
    stderr.write(`\n${showName(options.title)}\n`);
    for (const original of options.errors) {
      // A message may quote a judge's text or a case's name: shown, never obeyed.
      // Colours a tool wrote into its message (Vite's parser errors) are dropped, not shown
      // as <U+001B>[31m: with NO_COLOR, off a terminal, and on one.
      const error = {
        ...original,
        message: showControlCharacters(stripColourCodes(original.message ?? "")),
        ...(typeof original.stack === "string"
          ? { stack: showControlCharacters(stripColourCodes(original.stack)) }
          : {}),
      };
      if (this.vitest) {
        this.vitest.logger.printError(error, {
          ...(options.testCase ? { project: options.testCase.project } : {}),
        });
      } else {
        stderr.write(
          `${showControlCharacters(redactSecretText(`${error.name ?? "Error"}: ${error.message}`))}\n`,
        );
      }
    }
  }
}

/** Keeps the records of the test's last retry of each repeat round. */
function latestAttempt(records: readonly VerdictCaseRecord[]): VerdictCaseRecord[] {
  const lastRetry = new Map<number, number>();
  for (const record of records) {
    lastRetry.set(record.repeat, Math.max(lastRetry.get(record.repeat) ?? 0, record.retry));
  }
  return records.filter((record) => record.retry === lastRetry.get(record.repeat));
}

function safeSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  try {
    return { ...readTestRunSettings({ env }) };
  } catch {
    return {};
  }
}
