import { afterEach, describe, expect, it } from "vitest";
import { BudgetExhaustedError } from "../errors/budget-exhausted-error.ts";
import { BudgetLedger } from "../evaluate/budget/judge-budget.ts";
import { type BudgetBroker, connectBudget, startBudgetBroker } from "./budget-broker.ts";

let broker: BudgetBroker | undefined;
afterEach(async () => {
  await broker?.close();
  broker = undefined;
});

const call = (costUsd: number) => ({ costUsd, tokens: 100 });

/** Waits until `check` holds: messages cross a socket. */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !check(); tries++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("one budget for every worker", () => {
  it("counts what each worker reserves and settles in the command's ledger", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    broker = await startBudgetBroker({ ledger });
    const [workerA, workerB] = [
      connectBudget(broker.environment),
      connectBudget(broker.environment),
    ];
    expect(workerA.limits).toEqual({ maxCostUsd: 1, maxTokens: null });
    const a = await workerA.reserve(call(0.4));
    const b = await workerB.reserve(call(0.4));
    a.settle(call(0.1));
    b.release({ billed: false });
    await until(() => ledger.snapshot().spent.costUsd > 0);
    expect(ledger.snapshot().spent).toEqual({ costUsd: 0.1, tokens: 100 });
    expect(await workerA.state()).toBeNull();
  });

  it("refuses every worker once the budget is spent, with what was spent", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    broker = await startBudgetBroker({ ledger });
    const [workerA, workerB] = [
      connectBudget(broker.environment),
      connectBudget(broker.environment),
    ];
    const held = await workerA.reserve(call(0.7));
    const waiting = workerB.reserve(call(0.5));
    held.settle(call(0.7));
    const refused = await waiting.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect(refused).toMatchObject({ maxCostUsd: 1, spentCostUsd: 0.7, nextCostUsd: 0.5 });
    await expect(workerA.reserve(call(0.01))).rejects.toThrow(BudgetExhaustedError);
  });

  it("counts a gone worker's reservations whole, and lets a waiting call be cancelled", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    broker = await startBudgetBroker({ ledger });
    const worker = connectBudget(broker.environment);
    const held = await worker.reserve(call(0.6));
    const controller = new AbortController();
    const waiting = worker.reserve(call(0.6), { signal: controller.signal });
    controller.abort(new Error("the test timed out"));
    await expect(waiting).rejects.toThrow("the test timed out");
    void held;
    await broker.close();
    broker = undefined;
    await until(() => ledger.snapshot().spent.costUsd > 0);
    // The worker's connection closed with a call in flight: it may have been billed.
    expect(ledger.snapshot().spent.costUsd).toBe(0.6);
    await expect(worker.reserve(call(0.01))).rejects.toThrow(/cannot be reached/);
  });
});
