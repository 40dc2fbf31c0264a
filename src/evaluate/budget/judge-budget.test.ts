import { describe, expect, it } from "vitest";
import { BudgetExhaustedError } from "../../errors/budget-exhausted-error.ts";
import { BudgetLedger } from "./judge-budget.ts";

const call = (costUsd: number, tokens = 0) => ({ costUsd, tokens });

describe("BudgetLedger", () => {
  it("grants reservations that fit beside the calls in flight, and settles them at what they cost", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    const first = await ledger.reserve(call(0.4));
    const second = await ledger.reserve(call(0.4));
    first.settle(call(0.1));
    second.settle(call(0.2));
    expect(ledger.snapshot()).toEqual({
      maxCostUsd: 1,
      maxTokens: null,
      spent: { costUsd: expect.closeTo(0.3, 12), tokens: 0 },
      exhausted: false,
    });
  });

  it("makes a call that does not fit wait for the calls in flight, which usually spend less than reserved", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    const first = await ledger.reserve(call(0.6));
    let granted = false;
    const waiting = ledger.reserve(call(0.6)).then((reservation) => {
      granted = true;
      return reservation;
    });
    await Promise.resolve();
    expect(granted).toBe(false);
    first.settle(call(0.1));
    const second = await waiting;
    second.settle(call(0.1));
    expect(ledger.snapshot().spent.costUsd).toBeCloseTo(0.2, 12);
  });

  it("is exhausted when a call cannot fit with nothing in flight: it and every later call are refused", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    const first = await ledger.reserve(call(0.6));
    const refused = ledger.reserve(call(0.5));
    const later = ledger.reserve(call(0.01));
    first.settle(call(0.6));
    await expect(refused).rejects.toThrow(BudgetExhaustedError);
    // First come, first served: a smaller call asked later does not jump the queue.
    await expect(later).rejects.toThrow(
      "The run's budget is spent: $0.6000 of $1.0000 spent, and the next judge call could cost up to $0.5000.",
    );
    await expect(ledger.reserve(call(0))).rejects.toThrow(BudgetExhaustedError);
    expect(ledger.snapshot()).toMatchObject({ exhausted: true, spent: { costUsd: 0.6 } });
  });

  it("counts a call whose cost is unknown, or that may have been billed without an answer, at its reservation", async () => {
    const ledger = new BudgetLedger({ maxTokens: 1_000 });
    (await ledger.reserve(call(0, 300))).settle(null);
    (await ledger.reserve(call(0, 200))).release({ billed: true });
    (await ledger.reserve(call(0, 400))).release({ billed: false });
    expect(ledger.snapshot().spent.tokens).toBe(500);
    await expect(ledger.reserve(call(0, 600))).rejects.toThrow(
      "500 of 1,000 tokens spent, and the next judge call could take up to 600",
    );
  });

  it("counts what a resumed run's earlier parts spent", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1, maxTokens: 10_000 });
    ledger.addSpent({ costUsd: 0.9, tokens: 100 });
    await expect(ledger.reserve(call(0.2, 10))).rejects.toThrow(BudgetExhaustedError);
  });

  it("lets a waiting call leave when its caller gives up", async () => {
    const ledger = new BudgetLedger({ maxCostUsd: 1 });
    const first = await ledger.reserve(call(0.9));
    const controller = new AbortController();
    const waiting = ledger.reserve(call(0.9), { signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    first.settle(call(0.05));
    expect(ledger.snapshot().exhausted).toBe(false);
    expect((await ledger.reserve(call(0.9))).settle).toBeTypeOf("function");
  });
});
