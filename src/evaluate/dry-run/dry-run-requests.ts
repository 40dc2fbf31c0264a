import { estimateTokens } from "../../judge/estimate-tokens.ts";
import type { JudgeResponse, JudgeTransport } from "../../judge/judge-transport.ts";
import { judgeCacheKey } from "../judge-cache-key.ts";
import type { JudgeScheduler } from "../scheduler.ts";

/**
 * Where a metric's dry run stops: the first request the judge cache cannot answer. The judge
 * is not asked; what the request would cost is counted, and the steps after it are estimated.
 */
export class DryRunStop extends Error {
  /** The request's cache key. */
  readonly key: string;
  readonly step: string;
  /** The prompt's tokens, estimated from the real prompt (characters ÷ 4, images). */
  readonly inputTokens: number;
  /** Images sent with the prompt: counted at 85 tokens each, a high-detail one costs more. */
  readonly images: number;

  constructor(options: { key: string; step: string; inputTokens: number; images: number }) {
    super(`Dry run: the "${options.step}" step would be asked of the judge.`);
    this.name = "DryRunStop";
    this.key = options.key;
    this.step = options.step;
    this.inputTokens = options.inputTokens;
    this.images = options.images;
  }
}

/** What one metric's dry run on one case met before it stopped. */
export interface DryRunRecord {
  /** A transport for this metric and case only. */
  transport: JudgeTransport;
  /** Requests the judge cache answered (free). */
  cacheHits: number;
  /** Requests asked before in this dry run (free: the run asks them once). */
  sharedCalls: number;
  /** Steps answered (from the cache, or a shared answer) before the stop. */
  answeredSteps: Set<string>;
}

/**
 * Every request of a dry run, by cache key: what the judge cache answered (`null` for a
 * request it could not answer), shared by all its metrics and cases, so that a request asked
 * by two metrics (Toxicity's and Bias's opinions) or two cases counts once, as the run would
 * ask it once. Nothing reaches a judge: a miss ends the metric's run with a {@link DryRunStop}.
 */
export class DryRunRequests {
  private readonly scheduler: JudgeScheduler;
  private readonly seen = new Map<string, Promise<JudgeResponse | null>>();

  constructor(options: { scheduler: JudgeScheduler }) {
    this.scheduler = options.scheduler;
  }

  /** Starts the record of one metric's run on one case. */
  begin(): DryRunRecord {
    const record: DryRunRecord = {
      cacheHits: 0,
      sharedCalls: 0,
      answeredSteps: new Set(),
      transport: {
        send: async (judge, request, meta) => {
          const key = judgeCacheKey({ judge, request, trial: meta.trial });
          let answer = this.seen.get(key);
          const shared = answer !== undefined;
          if (answer === undefined) {
            // Kept before the look-up resolves: a request asked meanwhile waits for it.
            answer = this.scheduler
              .lookUp({ judge, request, trial: meta.trial })
              .then((hit) => hit ?? null);
            this.seen.set(key, answer);
          }
          const found = await answer;
          if (found === null) {
            throw new DryRunStop({
              key,
              step: meta.step,
              inputTokens: estimateTokens({
                text: request.prompt,
                images: request.images?.length ?? 0,
              }),
              images: request.images?.length ?? 0,
            });
          }
          record.answeredSteps.add(meta.step);
          if (shared) {
            record.sharedCalls += 1;
            return { ...found, cached: true, shared: true };
          }
          record.cacheHits += 1;
          return found;
        },
      },
    };
    return record;
  }
}
