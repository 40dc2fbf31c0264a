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

/**
 * Caps to suggest for resuming: enough, at the pace so far, for every case with a quarter to
 * spare (what was spent, per case finished, times the cases), and at least twice the cap;
 * rounded up to something readable.
 */
export function largerCaps(options: { budget: BudgetSummary; finished: number; total: number }): {
  maxCostUsd: number | null;
  maxTokens: number | null;
} {
  const { budget } = options;
  const scale = options.total / Math.max(1, options.finished);
  const larger = (spent: number, cap: number) => {
    const wanted = Math.max(cap * 2, spent * scale * 1.25);
    const magnitude = 10 ** Math.floor(Math.log10(wanted));
    return Number((Math.ceil(wanted / magnitude) * magnitude).toPrecision(12));
  };
  return {
    maxCostUsd: budget.maxCostUsd === null ? null : larger(budget.spentCostUsd, budget.maxCostUsd),
    maxTokens: budget.maxTokens === null ? null : larger(budget.spentTokens, budget.maxTokens),
  };
}

/** How evaluate() goes on after its budget stopped it: a resume with larger caps. */
export function resumeEvaluateHint(options: {
  budget: BudgetSummary;
  finished: number;
  total: number;
  identifier: string;
}): string {
  const caps = largerCaps(options);
  const given = [
    ...(caps.maxCostUsd === null ? [] : [`maxCostUsd: ${caps.maxCostUsd}`]),
    ...(caps.maxTokens === null ? [] : [`maxTokens: ${caps.maxTokens}`]),
  ].join(", ");
  return `Resume with a larger budget: evaluate({ identifier: "${options.identifier}", resume: true, budget: { ${given} }, … }).`;
}

/** How `verdict test run` goes on after its budget stopped it: the flags of a larger budget. */
export function resumeTestRunHint(options: {
  budget: BudgetSummary;
  finished: number;
  total: number;
  identifier: string | undefined;
}): string {
  const { identifier } = options;
  const caps = largerCaps(options);
  const flags = [
    ...(caps.maxCostUsd === null ? [] : [`--max-cost ${caps.maxCostUsd}`]),
    ...(caps.maxTokens === null ? [] : [`--max-tokens ${caps.maxTokens}`]),
  ].join(" ");
  return identifier === undefined
    ? `Run it again with a larger budget (${flags}): the judge cache answers what this run paid for; name it (--identifier) to resume it.`
    : `Resume with a larger budget: verdict test run --identifier ${shellWord(identifier)} --resume ${flags} (with the same paths and flags).`;
}
