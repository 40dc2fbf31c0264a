import { COMPARISON_TOLERANCE, type RunComparison } from "../../report/compare-runs.ts";
import { diffWords } from "../../report/word-diff.ts";
import type { RunRow } from "../api.ts";
import type { RunComparisonView } from "../run-comparison-view.ts";

type MetricView = RunComparisonView["metrics"][number];

function change(
  before: number | null | undefined,
  after: number | null | undefined,
): number | null {
  return before === null || before === undefined || after === null || after === undefined
    ? null
    : after - before;
}

/**
 * Which way a metric moved: the pass rate decides when both runs have one, else the mean
 * score read in the metric's direction; `null` when neither can be compared.
 */
function directionOf(options: {
  lowerIsBetter: boolean;
  meanScoreChange: number | null;
  passRateChange: number | null;
}): MetricView["direction"] {
  const { passRateChange, meanScoreChange } = options;
  const signed =
    passRateChange !== null && Math.abs(passRateChange) > COMPARISON_TOLERANCE
      ? passRateChange
      : meanScoreChange !== null
        ? options.lowerIsBetter
          ? -meanScoreChange
          : meanScoreChange
        : passRateChange;
  if (signed === null) return null;
  if (Math.abs(signed) <= COMPARISON_TOLERANCE) return "same";
  return signed > 0 ? "better" : "worse";
}

/** `compareRuns`' comparison (what `verdict compare` prints) as the compare page shows it. */
export function toComparisonView(options: {
  run: RunRow;
  baseline: RunRow;
  comparison: RunComparison;
  maxDrop: number;
}): RunComparisonView {
  const { comparison } = options;
  return {
    run: options.run,
    baseline: options.baseline,
    maxDrop: options.maxDrop,
    alpha: comparison.alpha,
    unmatched: comparison.unmatched,
    metrics: comparison.metrics.map((metric) => {
      const lowerIsBetter = metric.direction === "lower-is-better";
      const meanScoreChange = change(metric.baseline?.meanScore, metric.candidate?.meanScore);
      const passRateChange = change(metric.baseline?.passRate, metric.candidate?.passRate);
      return {
        name: metric.name,
        lowerIsBetter,
        baseline: metric.baseline,
        candidate: metric.candidate,
        meanScoreChange,
        passRateChange,
        direction: directionOf({ lowerIsBetter, meanScoreChange, passRateChange }),
        regressions: metric.regressions,
        notSignificant: metric.notSignificant,
        tests: metric.tests,
      };
    }),
    changes: comparison.changes.map((item) => ({
      metric: item.metric,
      name: item.testCase,
      runKey: String(item.candidateIndex),
      baselineKey: String(item.baselineIndex),
      from: item.from,
      to: item.to,
      baselineScore: item.baselineScore,
      candidateScore: item.candidateScore,
      baselineReason: item.baselineReason,
      candidateReason: item.candidateReason,
      baselineOutput: item.baselineOutput,
      candidateOutput: item.candidateOutput,
      outputDiff:
        item.baselineOutput === item.candidateOutput
          ? null
          : diffWords(item.baselineOutput, item.candidateOutput),
    })),
    regressed: comparison.regressed,
  };
}
