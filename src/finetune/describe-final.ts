import type { RunComparison } from "../report/compare-runs.ts";
import { formatPlural, formatPValue } from "../report/format.ts";
import {
  type BestCheckpoint,
  type CheckpointEvaluation,
  describeCheckpoint,
} from "./best-checkpoint.ts";
import type { WatchState } from "./watch-job.ts";

/** Whether the comparison found the final model significantly worse on `metric`. */
export function finalIsWorse(options: {
  comparison: RunComparison | null;
  metric: string;
}): boolean {
  const found = options.comparison?.metrics.find((metric) => metric.name === options.metric);
  return (found?.regressions.length ?? 0) > 0;
}

/**
 * What the end of a watch says after the best checkpoint: how the final model compares with
 * it, or why there is no final model (the job failed, the watch was interrupted or stopped).
 */
export function describeFinalVersusBest(options: {
  outcome: string;
  state: WatchState;
  best: BestCheckpoint | null;
  final: CheckpointEvaluation | null;
  comparison: RunComparison | null;
  metric: string;
  identifier: string;
}): string {
  const { state, best, final, comparison, metric } = options;
  const scored = formatPlural(state.evaluations.length, "checkpoint");
  const again = "Watch the job again to go on: checkpoints already scored are not scored again.";
  switch (options.outcome) {
    case "interrupted":
      return `Interrupted: ${scored} scored and stored. ${again}\n`;
    case "unscored":
      return `Stopped: a checkpoint was left partly unscored (${state.stopReason ?? "judge errors"}). ${again}\n`;
    case "job-failed": {
      const job = state.job;
      const why =
        job?.error === null || job?.error === undefined
          ? ""
          : `: ${job.error.message}${job.error.code === null ? "" : ` (${job.error.code})`}`;
      const verb = job?.status === "cancelled" ? "was cancelled" : `ended "${job?.status}"`;
      return `Fine-tuning job ${job?.id} ${job?.status === "failed" ? "failed" : verb}${why}. ${scored} scored before it ended; there is no final model to judge.\n`;
    }
  }
  if (final === null) return "";
  if (best === null || best.evaluation === final) {
    return `The final model, ${describeCheckpoint(final)}, is the best checkpoint.\n`;
  }
  const compared = comparison?.metrics.find((entry) => entry.name === metric);
  const compare = `Compare them: verdict compare ${best.evaluation.run.id} ${final.run.id}`;
  if (compared !== undefined && compared.regressions.length > 0) {
    return (
      `The final model, ${describeCheckpoint(final)}, is significantly worse than the best checkpoint on ${metric}: ` +
      `${compared.regressions.join(", ")}. ${compare}\n`
    );
  }
  const tests = compared?.tests;
  const pValues = [tests?.passFail?.pValue, tests?.scores?.pValue].filter(
    (value): value is number => typeof value === "number",
  );
  const evidence =
    compared !== undefined && compared.notSignificant.length > 0
      ? ` (worse, but within the judge's noise: ${compared.notSignificant.join(", ")})`
      : pValues.length > 0
        ? ` (${pValues.map(formatPValue).join(", ")})`
        : "";
  return `The final model, ${describeCheckpoint(final)}, is not significantly worse than the best checkpoint on ${metric}${evidence}. ${compare}\n`;
}
