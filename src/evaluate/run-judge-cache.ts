import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { JudgeResponse } from "../judge/judge-transport.ts";
import type {
  CachedJudgeAnswer,
  JudgeCache,
  JudgeCacheClaim,
  JudgeCacheLease,
  JudgeLeases,
} from "../store/run-store.ts";
import { cachedResponse } from "./cached-response.ts";
import type { HeldFirstSlot } from "./held-first-slot.ts";
import { JudgeCacheFallback } from "./judge-cache-fallback.ts";
import { judgeCacheKey } from "./judge-cache-key.ts";
import type { CacheMode } from "./judge-scheduler-options.ts";

/**
 * How long a request waiting for another holder's answer keeps its concurrency slot before it
 * gives it back (see `withLease`).
 */
const SLOT_KEPT_WHILE_WAITING_MS = 250;

/**
 * The judge cache as a run's scheduler uses it: in its mode (on, off, or `"replay"`), with
 * leases on its keys when it is shared with other processes, through {@link JudgeCacheFallback}
 * (a cache that fails costs no result).
 */
export class RunJudgeCache {
  private readonly options: {
    cache: JudgeCache | null | undefined;
    leases: JudgeLeases | null | undefined;
    cacheMode: CacheMode | undefined;
  };
  private readonly fallback: JudgeCacheFallback;

  constructor(options: {
    cache: JudgeCache | null | undefined;
    leases: JudgeLeases | null | undefined;
    cacheMode: CacheMode | undefined;
    warn: (message: string) => void;
  }) {
    this.options = { cache: options.cache, leases: options.leases, cacheMode: options.cacheMode };
    this.fallback = new JudgeCacheFallback({ warn: options.warn });
  }

  /** How the cache is used. @default true */
  get mode(): CacheMode {
    return this.options.cacheMode ?? true;
  }

  /** Whether requests are looked up in a judge cache (the cache is on and there is one). */
  get usesCache(): boolean {
    return (this.options.cacheMode ?? true) !== false && (this.options.cache ?? null) !== null;
  }

  /**
   * Answers the request of `key` with `answer`, given the cache to use (`null`: none, or off)
   * and the outcome of its lease claim. With leases, the request takes its concurrency slot
   * first (`holdSlot`) and claims the lease holding it (the claim returns the answer when one
   * is cached), so that a lease is taken by a request that can ask the judge now: a process
   * waiting for that answer waits for one judge call, not for the holder's queue (`holdSlot`
   * takes no slot under a throttle: see the scheduler). A request that finds another holder's
   * lease gives its slot back after 250 ms of waiting (see below). The lease is released once
   * answered. (Reading the cache before taking the slot, so that a hit
   * would not queue, sent 2.7× the statements to a PostgreSQL store and waited longer.)
   */
  async withLease(options: {
    key: string;
    signal: AbortSignal | undefined;
    /** Whether the request goes into a provider batch (asked only when leases could apply). */
    batched: () => boolean;
    /** Takes the request's concurrency slot, held for its first attempt. */
    holdSlot: () => Promise<HeldFirstSlot>;
    answer: (found: {
      cache: JudgeCache | null;
      /** The lease claim's outcome; `null`: it failed; `undefined`: no leases, read the cache. */
      claim: JudgeCacheClaim | null | undefined;
      /** The request's slot when it holds its first already (claimed under a lease). */
      held?: HeldFirstSlot;
    }) => Promise<JudgeResponse>;
  }): Promise<JudgeResponse> {
    const { key } = options;
    const mode = this.options.cacheMode ?? true;
    const cache = mode === false ? null : (this.options.cache ?? null);
    // A cache shared with other processes hands out leases: of all the processes asking this
    // request now, one pays and the others wait for its answer. Not for a request sent in a
    // provider batch: that may wait hours, and thousands of leases renewed all along would
    // cost more than the rare request two processes batch at once (at half price).
    const leases =
      cache !== null && mode === true && !options.batched() ? (this.options.leases ?? null) : null;
    if (leases === null || cache === null) return await options.answer({ cache, claim: undefined });
    const held = await options.holdSlot();
    let lease: JudgeCacheLease | null = null;
    try {
      // A claim the store failed (null) goes on without a lease, as a miss. While another
      // holder's lease is live the slot is kept for a short while (most answers come within
      // one judge call, and a slot given back at once lets the process start more calls than
      // the CPU serves, slowing every holder: claim wait p99 +200 ms in the team-store bench),
      // then given back: that holder may need a slot to answer (a retry after a 429 queues
      // again), and with every slot held by requests waiting on each other's leases, across
      // processes sharing a gate or not, none would ever answer. A lease taken after such a
      // wait (its holder let go without an answer, or died) is held while the request queues
      // for its slot again, as before leases waited for slots.
      let giveBackLater: NodeJS.Timeout | undefined;
      const claim = await this.fallback
        .claim({
          leases,
          key,
          signal: options.signal,
          onWait: () => {
            giveBackLater ??= setTimeout(() => held.giveBack(), SLOT_KEPT_WHILE_WAITING_MS);
          },
        })
        .finally(() => clearTimeout(giveBackLater));
      lease = claim !== null && "lease" in claim ? claim.lease : null;
      return await options.answer({ cache, claim, held });
    } finally {
      held.giveBack();
      await lease?.release();
    }
  }

  /** The cached answer of `key`, or `undefined` on a miss or a failed read (warned once). */
  read(options: { cache: JudgeCache; key: string }): Promise<CachedJudgeAnswer | undefined> {
    return this.fallback.read({ ...options, replay: this.mode === "replay" });
  }

  /** Keeps a judge's answer for `key`; a failed write is warned of once and otherwise ignored. */
  keep(options: { cache: JudgeCache; key: string; response: JudgeResponse }): Promise<void> {
    const { cache, key, response } = options;
    return this.fallback.write({
      cache,
      key,
      answer: {
        text: response.text,
        object: response.object ?? null,
        inputTokens: response.usage?.inputTokens ?? null,
        outputTokens: response.usage?.outputTokens ?? null,
        costUsd: response.costUsd,
        ...(response.logprobs === undefined ? {} : { logprobs: response.logprobs }),
      },
    });
  }

  /**
   * The answer the judge cache holds for a request, without asking the judge or counting
   * anything: what a dry run looks up. `undefined` on a miss, with the cache off (or no cache),
   * or when the cache cannot be read (warned once).
   */
  async lookUp(options: {
    judge: JudgeModel;
    request: JudgeRequest;
    trial: number;
  }): Promise<JudgeResponse | undefined> {
    const mode = this.options.cacheMode ?? true;
    const cache = mode === false ? null : (this.options.cache ?? null);
    if (cache === null) return undefined;
    const key = judgeCacheKey(options);
    const hit = await this.fallback.read({ cache, key, replay: false });
    return hit === undefined ? undefined : cachedResponse(hit);
  }
}
