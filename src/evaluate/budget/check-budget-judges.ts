import { ConfigError } from "../../errors/config-error.ts";
import type { JudgeModel } from "../../judge/judge-model.ts";
import type { RunBudget } from "../run-options.ts";

/**
 * Refuses, before any judge call, a cost budget with a judge whose price verdict does not
 * know: the budget could not tell what a call costs.
 */
export function checkBudgetJudges(options: {
  budget: RunBudget | undefined;
  judges: Iterable<JudgeModel>;
}): void {
  if (options.budget?.maxCostUsd === undefined) return;
  const unpriced = [
    ...new Set(
      [...options.judges]
        .filter((judge) => (judge.price ?? null) === null)
        .map((judge) => judge.name),
    ),
  ];
  if (unpriced.length === 0) return;
  throw new ConfigError(
    `A cost budget (maxCostUsd, --max-cost) needs the price of every judge, and verdict has none for ${unpriced.map((name) => `"${name}"`).join(", ")}: ` +
      "give it one (createJudge({ model, prices }), or a JudgeModel's price), or cap tokens instead (maxTokens, --max-tokens).",
  );
}
