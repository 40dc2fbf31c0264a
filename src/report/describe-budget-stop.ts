import type { BudgetSummary } from "../results/evaluation-result.ts";
import { formatCostUsd, formatCount } from "./format.ts";

/**
 * The one line a run stopped by its budget ends with, for evaluate() and `verdict test run`
 * alike: what it spent of which cap, the cases finished and left, and how to go on.
 * @example
 * describeBudgetStop({ budget, finished: 80, total: 200, resume: "verdict test run --resume --identifier nightly --max-cost 1" });
 */
export function describeBudgetStop(options: {
  budget: BudgetSummary;
  finished: number;
  total: number;
  /** How to resume with a larger budget. */
  resume: string;
}): string {
  const { budget } = options;
  const spent: string[] = [];
  if (budget.maxCostUsd !== null) {
    spent.push(`${formatCostUsd(budget.spentCostUsd)} of ${formatCostUsd(budget.maxCostUsd)}`);
  }
  if (budget.maxTokens !== null) {
    spent.push(
      `${formatCount(Math.round(budget.spentTokens))} of ${formatCount(budget.maxTokens)} tokens`,
    );
  }
  const left = options.total - options.finished;
  return (
    `Stopped by the budget: spent ${spent.join(" and ")}, and the next judge call could have passed it. ` +
    `${formatCount(options.finished)}/${formatCount(options.total)} test cases finished and stored` +
    `${left > 0 ? `, ${formatCount(left)} left unscored` : ""}. ${options.resume}`
  );
}

/** A larger cap to suggest for resuming: twice what was spent, rounded up to something readable. */
export function suggestLargerCap(spent: number, cap: number): number {
  const wanted = Math.max(cap * 2, spent * 2);
  const magnitude = 10 ** Math.floor(Math.log10(wanted));
  return Math.ceil(wanted / magnitude) * magnitude;
}
