import type { JudgeText, JudgeTextMode } from "../results/judge-text.ts";
import type { JudgeCallRecord } from "../results/metric-data.ts";
import { addCosts } from "../results/spending.ts";
import { toJudgeText } from "./judge-text-hash.ts";
import type { JudgeResponse } from "./judge-transport.ts";

/** Totals of the judge calls made for one metric on one test case. */
export interface JudgeTotals {
  /** Requests answered (paid or served from cache / a shared call). */
  judgeCalls: number;
  /** Of those, how many cost nothing because the answer was cached or shared. */
  cachedCalls: number;
  /** Of `cachedCalls`, how many were shared with an identical request in flight. */
  sharedCalls: number;
  /** Input tokens paid for; `null` when a judge did not report usage. */
  inputTokens: number | null;
  outputTokens: number | null;
  /** USD paid; `null` when a price or usage was unknown (never a made-up 0). */
  costUsd: number | null;
  /** What the cached or shared answers would have cost. */
  saved: { inputTokens: number; outputTokens: number; costUsd: number | null };
  /** Each call, in order. */
  calls: JudgeCallRecord[];
  /**
   * The texts of the calls' prompts and answers, each once (by hash), in the order first
   * seen; empty when the ledger keeps hashes only.
   */
  texts: JudgeText[];
}

/** What the ledger records of a call beyond its response: which step asked, whom, and how long it took. */
export interface JudgeCallContext {
  step: string;
  model: string | null;
  latencyMs: number | null;
  /** The prompt as sent (a re-ask's, for a re-asked step). */
  prompt?: string;
  /** The answer as the judge wrote it (an object answer as its JSON). */
  answer?: string;
}

/** Adds up usage and cost over judge calls; unknown stays unknown. */
export class JudgeLedger {
  judgeCalls = 0;
  cachedCalls = 0;
  sharedCalls = 0;
  inputTokens: number | null = 0;
  outputTokens: number | null = 0;
  costUsd: number | null = 0;
  readonly saved: JudgeTotals["saved"] = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  readonly calls: JudgeCallRecord[] = [];
  private readonly texts = new Map<string, string>();
  private readonly judgeText: JudgeTextMode;

  /**
   * `judgeText`: `"text"` keeps the prompts' and answers' texts (see {@link JudgeTotals.texts}),
   * `"hash"` only their hashes on each call.
   */
  constructor(options: { judgeText?: JudgeTextMode } = {}) {
    this.judgeText = options.judgeText ?? "text";
  }

  /**
   * Counts one answered call. A cached answer adds a call, costs nothing, and counts as saved.
   * With `call`, the call is also listed (step, model, tokens, cost, latency, where it came from).
   */
  record(response: JudgeResponse, call?: JudgeCallContext): void {
    this.judgeCalls += 1;
    if (call !== undefined) this.calls.push(this.callRecord(response, call));
    if (response.cached) {
      this.cachedCalls += 1;
      if (response.shared) this.sharedCalls += 1;
      this.saved.inputTokens += response.usage?.inputTokens ?? 0;
      this.saved.outputTokens += response.usage?.outputTokens ?? 0;
      this.saved.costUsd = addCosts(this.saved.costUsd, response.costUsd);
      return;
    }
    if (response.usage === null) {
      this.inputTokens = null;
      this.outputTokens = null;
    } else {
      if (this.inputTokens !== null) this.inputTokens += response.usage.inputTokens;
      if (this.outputTokens !== null) this.outputTokens += response.usage.outputTokens;
    }
    this.costUsd = addCosts(this.costUsd, response.costUsd);
  }

  /**
   * The record of one call, written as one object literal with its hashes: one spread into
   * it would put them in a second allocation beside the object, and a run holds nine records
   * a case for as long as it keeps its results. A hash without its text is left out (never
   * `undefined`); structured output always gives both.
   */
  private callRecord(response: JudgeResponse, call: JudgeCallContext): JudgeCallRecord {
    const record: JudgeCallRecord = {
      step: call.step,
      model: call.model,
      inputTokens: response.usage?.inputTokens ?? null,
      outputTokens: response.usage?.outputTokens ?? null,
      costUsd: response.costUsd,
      latencyMs: call.latencyMs,
      source: response.cached ? (response.shared ? "shared" : "cache") : "judge",
      promptHash: call.prompt === undefined ? undefined : this.hashOf(call.prompt),
      answerHash: call.answer === undefined ? undefined : this.hashOf(call.answer),
    };
    // Last first: V8 takes back the last property of an object without slowing it down.
    if (record.answerHash === undefined) delete record.answerHash;
    if (record.promptHash === undefined) delete record.promptHash;
    return record;
  }

  /** The hash of a call's prompt or answer; its text kept when the ledger keeps texts. */
  private hashOf(text: string): string {
    const kept = toJudgeText(text);
    if (this.judgeText === "text") this.texts.set(kept.hash, kept.text);
    return kept.hash;
  }

  /** The totals as a plain object. */
  totals(): JudgeTotals {
    return {
      judgeCalls: this.judgeCalls,
      cachedCalls: this.cachedCalls,
      sharedCalls: this.sharedCalls,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      costUsd: this.costUsd,
      saved: { ...this.saved },
      // The records themselves: the ledger never changes one once it is listed.
      calls: this.calls.slice(),
      texts: [...this.texts].map(([hash, text]) => ({ hash, text })),
    };
  }
}
