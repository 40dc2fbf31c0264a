import type { MetricContractOptions } from "./scripted-metric-contract.ts";

/**
 * The contract declaration of a metric built on `OpinionVerdictMetric` (Toxicity, Bias):
 * opinions, then a yes/no verdict per opinion, scored `#yes / #verdicts` (0 when there are
 * none), lower is better. The metric adds its name, metric, template and test case, the
 * argument its reason prompt names the flagged reasons with, and its own wording.
 */
export function opinionMetricContract<Template extends object>(
  declaration: Pick<
    MetricContractOptions<Template>,
    "name" | "create" | "templateClass" | "testCase" | "mixedVerdicts" | "nothingExtractedReason"
  > & { flaggedArg: string },
): MetricContractOptions<Template> {
  const { flaggedArg, ...rest } = declaration;
  return {
    ...rest,
    steps: {
      extract: { step: "generateOpinions", key: "opinions" },
      verdicts: { step: "generateVerdicts", itemName: "opinion" },
      reason: { step: "generateReason", flaggedArg },
    },
    lowerIsBetter: true,
    expectedScore: (verdicts) =>
      verdicts.length === 0
        ? 0
        : verdicts.filter((verdict) => verdict === "yes").length / verdicts.length,
    isFlagged: (verdict) => verdict === "yes",
  };
}
