import { CostEstimateBuilder } from "../evaluate/dry-run/cost-estimate-builder.ts";
import { terminalWidth } from "../report/console-report.ts";
import { renderCostEstimate } from "../report/cost-estimate-report.ts";
import type { CostEstimate } from "../results/cost-estimate.ts";
import type { TestRunOutcome } from "../results/test-run-outcome.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import type { VerdictCaseRecord } from "./verdict-case-record.ts";

/**
 * What `VerdictReporter` gathers in a dry run (`VERDICT_DRY_RUN`, `verdict test run
 * --dry-run`): each assertion's estimate, added up as evaluate()'s dry run adds up its cases
 * (a request asked by several cases counted once), and the errors that stop a run the same
 * way they would stop the real one. Nothing is stored.
 */
export class DryRunState {
  readonly configErrors = new Set<string>();
  readonly loadErrors: string[] = [];
  otherFailures = 0;
  private readonly builder = new CostEstimateBuilder();
  private trials = 1;

  /** Takes one assertion's record. */
  gather(record: VerdictCaseRecord): void {
    if (record.outcome === "config-error" && record.error !== null) {
      this.configErrors.add(record.error.message);
    }
    if (record.estimate !== undefined) this.builder.addCase(record.estimate);
  }

  /** Trials of each case, as the run was set up (`-r`). */
  setTrials(trials: number): void {
    this.trials = trials;
  }

  /** A test file that could not be loaded. */
  moduleFailed(options: { file: string; message: string }): void {
    this.loadErrors.push(`${options.file}: ${options.message.split("\n")[0] ?? ""}`);
  }

  /** Prints the estimate (unless `display` is `"none"`) and the errors; returns how the run ended. */
  finish(options: {
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
    print: boolean;
  }): { estimate: CostEstimate; outcome: TestRunOutcome } {
    const estimate = this.builder.build({ trials: this.trials, resumedTestCases: 0, batch: false });
    for (const message of this.configErrors) options.stderr.write(`${redactSecretText(message)}\n`);
    for (const message of this.loadErrors) {
      options.stderr.write(`${redactSecretText(`Error: could not load ${message}`)}\n`);
    }
    if (options.print) {
      const width = terminalWidth(options.stdout);
      options.stdout.write(`${renderCostEstimate({ estimate, width })}\n`);
    }
    const outcome: TestRunOutcome =
      this.configErrors.size + this.loadErrors.length > 0
        ? "usage"
        : this.otherFailures > 0
          ? "failed"
          : "passed";
    return { estimate, outcome };
  }
}
