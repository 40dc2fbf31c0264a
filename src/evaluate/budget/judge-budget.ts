import { BudgetExhaustedError } from "../../errors/budget-exhausted-error.ts";
import { type QueuedWaiter, waitInQueue } from "../model-lane.ts";

/** An amount of judge spending: USD and tokens (prompt and completion together). */
export interface BudgetAmount {
  costUsd: number;
  tokens: number;
}

/** A budget's caps and what has been spent of it. */
export interface BudgetState {
  maxCostUsd: number | null;
  maxTokens: number | null;
  /** Spent: answered calls, calls that may have been billed, and the run's earlier parts. */
  spent: BudgetAmount;
  /** Whether a call was refused: the run stopped by its budget. */
  exhausted: boolean;
}

/** What one call reserved: settled with what it cost, or released when it got no answer. */
export interface BudgetReservation {
  /**
   * The call was answered: `spent` is what it cost (its tokens, its cost at the judge's price).
   * `null` when that is unknown (no usage reported): the reservation counts whole.
   */
  settle(spent: BudgetAmount | null): void;
  /**
   * The call ended without an answer. `billed`: it may have reached the provider and been
   * billed (a timeout, a dropped connection, a cancelled call), so the reservation counts
   * whole; otherwise (an HTTP error, nothing sent) nothing is spent.
   */
  release(options: { billed: boolean }): void;
}

/**
 * Where a run's judge calls reserve what they can cost before they are sent: a
 * {@link BudgetLedger} in the run's process, or, under `verdict test run`, the command's one
 * ledger shared by every Vitest worker.
 */
export interface JudgeBudget {
  /** The caps: USD, tokens, or both (`null`: none). */
  readonly limits: { maxCostUsd: number | null; maxTokens: number | null };
  /**
   * Reserves `amount`, the most one call can cost: at once when it fits in what is left
   * beside the calls in flight; once calls in flight have settled when it would fit then;
   * never when it cannot fit even with nothing in flight — then it rejects with a
   * {@link BudgetExhaustedError}, as does every later reservation. Waiting calls are granted
   * by `priority` (lower first: the run numbers them by case, so that the budget finishes
   * the cases it started), then in the order they came.
   */
  reserve(
    amount: BudgetAmount,
    options?: { signal?: AbortSignal | undefined; priority?: number | undefined },
  ): Promise<BudgetReservation>;
  /** The caps and what is spent so far; `null` where it is kept elsewhere (a Vitest worker's). */
  state(): Promise<BudgetState | null>;
}

interface Waiter extends QueuedWaiter<BudgetReservation> {
  amount: BudgetAmount;
}

/**
 * A budget kept in this process: reservations of each call's worst case (see
 * `worstCaseOf`), granted in the order asked, so that what is spent, plus what calls in
 * flight may still spend, never passes a cap. A call that does not fit waits for calls in
 * flight to settle (their worst case is rarely spent), and when nothing is in flight and it
 * still does not fit, the budget is exhausted: it and every later call are refused. Waiting
 * calls go by priority, then first come first served.
 * @example
 * const ledger = new BudgetLedger({ maxCostUsd: 5 });
 * const reservation = await ledger.reserve({ costUsd: 0.02, tokens: 6_000 });
 * reservation.settle({ costUsd: 0.003, tokens: 1_400 });
 */
export class BudgetLedger implements JudgeBudget {
  readonly limits: { maxCostUsd: number | null; maxTokens: number | null };
  private readonly maxCostUsd: number | null;
  private readonly maxTokens: number | null;
  private readonly spent: BudgetAmount = { costUsd: 0, tokens: 0 };
  private readonly reserved: BudgetAmount = { costUsd: 0, tokens: 0 };
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];
  private exhaustedBy: BudgetExhaustedError | null = null;

  constructor(options: { maxCostUsd?: number | undefined; maxTokens?: number | undefined }) {
    this.maxCostUsd = options.maxCostUsd ?? null;
    this.maxTokens = options.maxTokens ?? null;
    this.limits = { maxCostUsd: this.maxCostUsd, maxTokens: this.maxTokens };
  }

  /** Counts what the run's earlier parts spent (a resumed run): before any reservation. */
  addSpent(amount: BudgetAmount): void {
    this.spent.costUsd += amount.costUsd;
    this.spent.tokens += amount.tokens;
  }

  async state(): Promise<BudgetState> {
    return this.snapshot();
  }

  /** The caps and what is spent so far, at once. */
  snapshot(): BudgetState {
    return {
      maxCostUsd: this.maxCostUsd,
      maxTokens: this.maxTokens,
      spent: { ...this.spent },
      exhausted: this.exhaustedBy !== null,
    };
  }

  reserve(
    amount: BudgetAmount,
    options: { signal?: AbortSignal | undefined; priority?: number | undefined } = {},
  ): Promise<BudgetReservation> {
    if (this.exhaustedBy !== null) return Promise.reject(this.exhaustedBy);
    const waiting = waitInQueue<BudgetReservation, Waiter>({
      queue: this.waiting,
      priority: options.priority ?? 0,
      signal: options.signal,
      fields: { amount },
      // A call that gives up may have blocked those behind it.
      onLeave: () => this.pump(),
    });
    this.pump();
    return waiting;
  }

  private fits(amount: BudgetAmount): boolean {
    const cost = this.spent.costUsd + this.reserved.costUsd + amount.costUsd;
    const tokens = this.spent.tokens + this.reserved.tokens + amount.tokens;
    return (
      (this.maxCostUsd === null || cost <= this.maxCostUsd) &&
      (this.maxTokens === null || tokens <= this.maxTokens)
    );
  }

  /** Grants what fits, first come first served; exhausts the budget when the first cannot ever fit. */
  private pump(): void {
    while (this.waiting.length > 0) {
      const head = this.waiting[0] as Waiter;
      if (!this.fits(head.amount)) {
        if (this.inFlight > 0) return;
        this.exhaust(head.amount);
        return;
      }
      this.waiting.shift();
      head.resolve(this.open(head.amount));
    }
  }

  private open(amount: BudgetAmount): BudgetReservation {
    this.inFlight += 1;
    this.reserved.costUsd += amount.costUsd;
    this.reserved.tokens += amount.tokens;
    let closed = false;
    const close = (spent: BudgetAmount) => {
      if (closed) return;
      closed = true;
      this.inFlight -= 1;
      this.reserved.costUsd -= amount.costUsd;
      this.reserved.tokens -= amount.tokens;
      this.spent.costUsd += spent.costUsd;
      this.spent.tokens += spent.tokens;
      this.pump();
    };
    return {
      settle: (spent) => close(spent ?? amount),
      release: ({ billed }) => close(billed ? amount : { costUsd: 0, tokens: 0 }),
    };
  }

  private exhaust(next: BudgetAmount): void {
    this.exhaustedBy = new BudgetExhaustedError({
      maxCostUsd: this.maxCostUsd,
      maxTokens: this.maxTokens,
      spentCostUsd: this.spent.costUsd,
      spentTokens: this.spent.tokens,
      nextCostUsd: next.costUsd,
      nextTokens: next.tokens,
    });
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.exhaustedBy);
  }
}
