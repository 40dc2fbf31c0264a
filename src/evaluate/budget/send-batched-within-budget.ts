import type { JudgeBatchApi, JudgeModel, JudgeRequest } from "../../judge/judge-model.ts";
import type { JudgeResponse } from "../../judge/judge-transport.ts";
import { BATCH_PRICE_FACTOR } from "../../judge/usage-and-cost.ts";
import type { BatchDispatcher } from "../batch-dispatcher.ts";
import { budgetPrice } from "./budget-price.ts";
import type { JudgeBudget } from "./judge-budget.ts";
import { spentBy, worstCaseOf } from "./worst-case.ts";

/** A request sent through its judge's batches, its worst case reserved first with a budget. */
export async function sendBatchedWithinBudget(options: {
  batcher: BatchDispatcher;
  /** `null`: no budget, the request is only sent. */
  budget: JudgeBudget | null;
  key: string;
  judge: JudgeModel & { batch: JudgeBatchApi };
  request: JudgeRequest;
  direct: () => Promise<JudgeResponse>;
  priority: number | undefined;
}): Promise<JudgeResponse> {
  const { batcher, budget, key, judge } = options;
  if (budget === null)
    return batcher.send({ key, judge, request: options.request, direct: options.direct });
  const price = budgetPrice(judge, budget);
  const worst = worstCaseOf({ request: options.request, price, factor: BATCH_PRICE_FACTOR });
  const reservation = await budget.reserve(worst.amount, {
    signal: options.request.signal,
    priority: options.priority,
  });
  // A request the batch sends directly after all reserves again there, at the list price.
  let sentDirectly = false;
  try {
    const response = await batcher.send({
      key,
      judge,
      request: { ...options.request, maxOutputTokens: worst.maxOutputTokens },
      direct: () => {
        sentDirectly = true;
        return options.direct();
      },
    });
    if (sentDirectly) reservation.release({ billed: false });
    else {
      reservation.settle(
        spentBy({
          answer: response,
          reserved: worst.amount,
          price,
          factor: BATCH_PRICE_FACTOR,
        }),
      );
    }
    return response;
  } catch (error) {
    reservation.release({ billed: false });
    throw error;
  }
}
