import { spentBefore, summariseBudget } from "../../evaluate/budget/budget-summary.ts";
import { BudgetLedger } from "../../evaluate/budget/judge-budget.ts";
import type { BudgetSummary } from "../../results/evaluation-result.ts";
import { openStore } from "../../store/open-store.ts";
import { BUDGET_ENV, startBudgetBroker } from "../../vitest/budget-broker.ts";

/** The budget of one `verdict test run`: kept in the command, reserved against by every worker. */
export interface TestRunBudget {
  /** What the workers need to reach it. */
  environment: Record<string, string>;
  /** The budget and what was spent of it, for the stored run's summary. */
  summary: () => Promise<BudgetSummary | undefined>;
  close(): Promise<void>;
}

/**
 * Starts the budget of `--max-cost`/`--max-tokens`: one ledger for all the Vitest workers. A
 * resumed run (`--resume --identifier`) counts what the run's earlier parts spent, as their
 * stored summary says.
 */
export async function startTestRunBudget(options: {
  maxCostUsd: number | undefined;
  maxTokens: number | undefined;
  resume: boolean;
  identifier: string | undefined;
  /** The workers' environment (its VERDICT_HOME, VERDICT_STORE name the store). */
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<TestRunBudget | null> {
  if (options.maxCostUsd === undefined && options.maxTokens === undefined) return null;
  const ledger = new BudgetLedger({ maxCostUsd: options.maxCostUsd, maxTokens: options.maxTokens });
  if (options.resume && options.identifier !== undefined) {
    const opened = await openStore({ env: options.env, cwd: options.cwd, purpose: "read" });
    try {
      const earlier = (await opened.store?.runs.getRun(options.identifier))?.summary ?? null;
      if (earlier !== null) ledger.addSpent(spentBefore(earlier));
    } finally {
      if (opened.owned) await opened.store?.close();
    }
  }
  const broker = await startBudgetBroker({ ledger });
  return {
    environment: { [BUDGET_ENV]: broker.environment },
    summary: () => summariseBudget(ledger),
    close: () => broker.close(),
  };
}
