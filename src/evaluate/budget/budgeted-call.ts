import type { JudgeCallError } from "../../errors/judge-call-error.ts";
import type { ModelPrice } from "../../judge/usage-and-cost.ts";
import type { AttemptSlot } from "../../judge/with-retries.ts";
import type { BudgetReservation, JudgeBudget } from "./judge-budget.ts";
import { spentBy, type WorstCase } from "./worst-case.ts";

const NO_ANSWER = Symbol("no answer");

/**
 * Whether an attempt that ended without an answer may have been billed: it may have reached
 * the provider and been worked on (a timeout, a dropped connection, an answer cut short, a
 * cancelled call) unless the provider answered with an error status (a 429, a 5xx, a 4xx).
 */
function mayBeBilled(error: JudgeCallError | null): boolean {
  if (error === null) return true;
  return error.status === null || (error.status >= 200 && error.status < 300);
}

/**
 * One request's spending against the run's budget: each attempt reserves the request's worst
 * case once it holds its concurrency slot (so reservations are what is in flight, not what is
 * queued), and when the attempt ends, settles with what its answer cost, or releases the
 * reservation (counted whole when the attempt may have been billed).
 */
export class BudgetedCall {
  private readonly budget: JudgeBudget;
  private readonly worst: WorstCase;
  private readonly price: ModelPrice | null;
  private readonly factor: number;
  private readonly priority: number;
  private reservation: BudgetReservation | null = null;
  private answer: unknown = NO_ANSWER;

  constructor(options: {
    budget: JudgeBudget;
    worst: WorstCase;
    price: ModelPrice | null;
    factor: number;
    /** The request's case's place in the run: earlier cases are granted first. */
    priority: number;
  }) {
    this.budget = options.budget;
    this.worst = options.worst;
    this.price = options.price;
    this.factor = options.factor;
    this.priority = options.priority;
  }

  /** `inner` (the concurrency slot), then a reservation of the worst case, for each attempt. */
  slot(inner: AttemptSlot): AttemptSlot {
    return {
      acquire: async (signal) => {
        await inner.acquire(signal);
        try {
          this.reservation = await this.budget.reserve(this.worst.amount, {
            signal,
            priority: this.priority,
          });
          this.answer = NO_ANSWER;
        } catch (error) {
          inner.release({ error: null });
          throw error;
        }
      },
      release: (outcome) => {
        this.close(outcome.error);
        inner.release(outcome);
      },
    };
  }

  /** An attempt's answer, as the judge gave it: what the attempt is settled with. */
  answered(answer: unknown): void {
    this.answer = answer;
  }

  /** Ends the attempt's reservation: settled with its answer's cost, or released. */
  close(error: JudgeCallError | null): void {
    const reservation = this.reservation;
    this.reservation = null;
    if (reservation === null) return;
    if (this.answer === NO_ANSWER) {
      reservation.release({ billed: mayBeBilled(error) });
      return;
    }
    reservation.settle(
      spentBy({
        answer: this.answer,
        reserved: this.worst.amount,
        price: this.price,
        factor: this.factor,
      }),
    );
  }
}
