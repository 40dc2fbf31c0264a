import type { BudgetSummary } from "../results/evaluation-result.ts";
import { shellWord } from "../store/run-liveness.ts";
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

/** How `verdict test run` goes on after its budget stopped it: the flags of a larger budget. */
export function resumeTestRunHint(options: {
  budget: BudgetSummary;
  identifier: string | undefined;
}): string {
  const { budget, identifier } = options;
  const caps = [
    ...(budget.maxCostUsd === null
      ? []
      : [`--max-cost ${suggestLargerCap(budget.spentCostUsd, budget.maxCostUsd)}`]),
    ...(budget.maxTokens === null
      ? []
      : [`--max-tokens ${suggestLargerCap(budget.spentTokens, budget.maxTokens)}`]),
  ].join(" ");
  return identifier === undefined
    ? `Run it again with a larger budget (${caps}): the judge cache answers what this run paid for; name it (--identifier) to resume it.`
    : `Resume with a larger budget: verdict test run --identifier ${shellWord(identifier)} --resume ${caps} (with the same paths and flags).`;
}
