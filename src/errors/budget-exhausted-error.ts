import { EvalError } from "./eval-error.ts";

/** What a budget allows and what was spent of it, when it stopped a run. */
export interface BudgetExhaustedErrorOptions {
  /** The cap in USD; `null` without one. */
  maxCostUsd: number | null;
  /** The cap in tokens; `null` without one. */
  maxTokens: number | null;
  /** Spent so far (the run's earlier parts included). */
  spentCostUsd: number;
  spentTokens: number;
  /** The most the next call could have cost, which did not fit. */
  nextCostUsd: number;
  nextTokens: number;
}

const usd = (value: number) => `$${value.toFixed(4)}`;
const count = (value: number) => Math.round(value).toLocaleString("en-US");

/**
 * The run's budget (`budget`, `--max-cost`, `--max-tokens`) cannot pay for another judge call:
 * the next one could cost more than is left. No more calls are sent; the calls in flight end
 * (they were paid for), finished cases are kept, and the run ends `"budget-exhausted"`.
 * Resume it with a larger budget to finish.
 */
export class BudgetExhaustedError extends EvalError {
  readonly maxCostUsd: number | null;
  readonly maxTokens: number | null;
  readonly spentCostUsd: number;
  readonly spentTokens: number;
  /** The most the call that did not fit could have cost. */
  readonly nextCostUsd: number;
  readonly nextTokens: number;

  constructor(options: BudgetExhaustedErrorOptions) {
    const parts: string[] = [];
    if (options.maxCostUsd !== null) {
      parts.push(
        `${usd(options.spentCostUsd)} of ${usd(options.maxCostUsd)} spent, and the next judge call could cost up to ${usd(options.nextCostUsd)}`,
      );
    }
    if (options.maxTokens !== null) {
      parts.push(
        `${count(options.spentTokens)} of ${count(options.maxTokens)} tokens spent, and the next judge call could take up to ${count(options.nextTokens)}`,
      );
    }
    super(
      "BUDGET_EXHAUSTED",
      `The run's budget is spent: ${parts.join("; ")}. No more judge calls are sent; finished cases are kept. Resume with a larger budget to finish.`,
    );
    this.maxCostUsd = options.maxCostUsd;
    this.maxTokens = options.maxTokens;
    this.spentCostUsd = options.spentCostUsd;
    this.spentTokens = options.spentTokens;
    this.nextCostUsd = options.nextCostUsd;
    this.nextTokens = options.nextTokens;
  }
}
