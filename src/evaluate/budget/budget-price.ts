import { ConfigError } from "../../errors/config-error.ts";
import type { JudgeModel } from "../../judge/judge-model.ts";
import type { ModelPrice } from "../../judge/usage-and-cost.ts";
import type { JudgeBudget } from "./judge-budget.ts";

/** The price a budget reserves `judge`'s calls at: refused when a cost cap cannot know it. */
export function budgetPrice(judge: JudgeModel, budget: JudgeBudget): ModelPrice | null {
  const price = judge.price ?? null;
  if (price === null && budget.limits.maxCostUsd !== null) {
    throw new ConfigError(
      `Judge "${judge.name}" has no known price, so a cost budget (maxCostUsd, --max-cost) cannot be kept: ` +
        "give it one (createJudge({ model, prices }), or a JudgeModel's price), or cap tokens instead (maxTokens, --max-tokens).",
    );
  }
  return price;
}
