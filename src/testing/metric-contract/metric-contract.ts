import { describe } from "vitest";
import { describeJudgeFailureContract } from "./judge-failure-contract.ts";
import { describeScoringContract } from "./scoring-contract.ts";
import { createContractHarness, type MetricContractOptions } from "./scripted-metric-contract.ts";
import { describeTemplateContract } from "./template-contract.ts";

export type { MetricContractOptions } from "./scripted-metric-contract.ts";

/**
 * Runs the contract every extract → verdict → reason metric keeps (SPEC §2–3), as every
 * store runs `describeRunStoreContract`: nothing extracted, all "yes", all "no", mixed,
 * strict mode, `includeReason: false`, threshold `null`, verbose logs, usage and cost,
 * missing fields, malformed, truncated, unreadable and off-enum answers, wrong verdict
 * counts, a judge that throws at each step, custom templates, and judged text kept as data.
 *
 * How a metric gets these tests: call it at the top level of the metric's test file with
 * what the metric declares (see {@link MetricContractOptions}); the cases script a
 * `MockJudge` from the declared steps themselves. Keep in that file only what is the
 * metric's own: prompt snapshots, the wording of reasons it writes itself beyond the
 * nothing-extracted one, and options only it has (e.g. `penalizeAmbiguous`).
 * - Step 1 must answer `{ [key]: string[] }`, step 2 `{ "verdicts": [{ "verdict", "reason"? }] }`
 *   with one verdict per item and "yes" and "no" among the verdicts it allows, step 3
 *   `{ "reason": string }`, asked only when some verdict is flagged. A metric with other
 *   steps needs cases of its own.
 * - `expectedScore` is the metric's formula, written again from SPEC, not imported from it.
 * - A metric built on `OpinionVerdictMetric` declares itself through
 *   `opinionMetricContract` (`opinion-metric-contract.ts`), which fills in the shared steps,
 *   direction and formula.
 * - What a cut-off (truncated) answer does (re-asked, never completed) is pinned in one
 *   place, `TRUNCATED_ANSWER` in `scripted-metric-contract.ts`.
 * @example
 * describeMetricContract({
 *   name: "Toxicity",
 *   create: (options) => new ToxicityMetric(options),
 *   templateClass: ToxicityTemplate,
 *   testCase: { name: "sarah", input: "How is Sarah?", actualOutput: "Sarah meant well." },
 *   steps: {
 *     extract: { step: "generateOpinions", key: "opinions" },
 *     verdicts: { step: "generateVerdicts", itemName: "opinion" },
 *     reason: { step: "generateReason", flaggedArg: "toxics" },
 *   },
 *   lowerIsBetter: true,
 *   expectedScore: (verdicts) =>
 *     verdicts.length === 0 ? 0 : verdicts.filter((v) => v === "yes").length / verdicts.length,
 *   isFlagged: (verdict) => verdict === "yes",
 *   mixedVerdicts: ["no", "yes", "no", "no"],
 *   nothingExtractedReason:
 *     "The score is 0.00 because the output expresses no opinions, so nothing in it is toxic.",
 * });
 */
export function describeMetricContract<Template extends object>(
  contract: MetricContractOptions<Template>,
): void {
  const harness = createContractHarness(contract);
  describe(`${contract.name}: metric contract`, () => {
    describeScoringContract(harness);
    describeJudgeFailureContract(harness);
    describeTemplateContract(harness);
  });
}
