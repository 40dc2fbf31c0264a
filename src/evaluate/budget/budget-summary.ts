import type { BudgetSummary, EvaluationSummary } from "../../results/evaluation-result.ts";
import type { BudgetAmount, JudgeBudget } from "./judge-budget.ts";

/** What a resumed run's earlier parts spent, as their summary says: its budget's count, else its own spending. */
export function spentBefore(summary: EvaluationSummary): BudgetAmount {
  if (summary.budget !== undefined) {
    return { costUsd: summary.budget.spentCostUsd, tokens: summary.budget.spentTokens };
  }
  return { costUsd: summary.costUsd ?? 0, tokens: summary.inputTokens + summary.outputTokens };
}

/** The budget and its spending, for the run's summary; `undefined` without a budget. */
export async function summariseBudget(
  budget: JudgeBudget | null,
): Promise<BudgetSummary | undefined> {
  const state = budget === null ? null : await budget.state();
  if (state === null) return undefined;
  return {
    maxCostUsd: state.maxCostUsd,
    maxTokens: state.maxTokens,
    spentCostUsd: state.spent.costUsd,
    spentTokens: state.spent.tokens,
  };
}
