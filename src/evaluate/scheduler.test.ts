import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import type { CachedJudgeAnswer, JudgeCache, JudgeLeases } from "../store/run-store.ts";
import type { RequestGate } from "./request-gate.ts";
import { JudgeScheduler } from "./scheduler.ts";

const schema = z.object({ reason: z.string() });
const request = (prompt: string): JudgeRequest => ({
  prompt,
  schema,
  jsonSchema: { type: "object" },
});
const meta = { metric: "Toxicity", step: "generateReason", trial: 0 };
const noWait = async () => {};

/**
 * Runs the scheduled work to the end on the fake clock: every judge latency, throttle gap and
 * time limit is a fake timer, so a test takes no wall time and never depends on it.
 */
async function settle<T>(work: Promise<T>): Promise<T> {
  // Handled here so that a rejection while the clock runs is not "unhandled"; the caller
  // still gets it.
  work.catch(() => {});
  await vi.runAllTimersAsync();
  return work;
}

/** A judge that records concurrency and can be told to rate-limit. */
function countingJudge(options: {
  latencyMs: number;
  rateLimited?: (call: number) => boolean;
  /** The 429's Retry-After; `null` for a 429 without one. @default 1 */
  retryAfterMs?: number | null;
}) {
  let call = 0;
  const state = { inFlight: 0, peak: 0, calls: 0, concurrencyAtCall: [] as number[] };
  const judge: JudgeModel = {
    name: "counting",
    async generate() {
      call += 1;
      state.calls += 1;
      state.inFlight += 1;
      state.peak = Math.max(state.peak, state.inFlight);
      state.concurrencyAtCall.push(state.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
        if (options.rateLimited?.(call)) {
          throw new JudgeCallError({
            message: "429",
            status: 429,
            retryable: true,
            retryAfterMs: options.retryAfterMs === undefined ? 1 : options.retryAfterMs,
          });
        }
        return {
          text: '{"reason": "ok"}',
          usage: { inputTokens: 10, outputTokens: 2 },
          costUsd: 0.001,
        };
      } finally {
        state.inFlight -= 1;
      }
    },
  };
  return { judge, state };
}

describe("JudgeScheduler", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("never exceeds maxConcurrent per model, and reaches it", async () => {
    const { judge, state } = countingJudge({ latencyMs: 5 });
    const scheduler = new JudgeScheduler({ maxConcurrent: 4 });
    await settle(
      Promise.all(
        Array.from({ length: 30 }, (_, index) => scheduler.send(judge, request(`p${index}`), meta)),
      ),
    );
    expect(state.peak).toBe(4);
    expect(scheduler.stats.peakInFlight).toBe(4);
    expect(scheduler.stats.judgeCalls).toBe(30);
    expect(scheduler.stats.costUsd).toBeCloseTo(0.03, 10);
  });

  it("serves the earliest-started case first, first come first served within it", async () => {
    const order: string[] = [];
    const judge: JudgeModel = {
      name: "ordered",
      async generate(judgeRequest) {
        order.push(judgeRequest.prompt);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return '{"reason": "ok"}';
      },
    };
    const scheduler = new JudgeScheduler({ maxConcurrent: 1 });
    // Three cases started together, each asking two steps at once, then a third after them.
    const runCase = async (name: string) => {
      const transport = scheduler.forCase();
      await Promise.all([
        transport.send(judge, request(`${name}1`), meta),
        transport.send(judge, request(`${name}2`), meta),
      ]);
      await transport.send(judge, request(`${name}3`), meta);
    };
    await settle(Promise.all([runCase("a"), runCase("b"), runCase("c")]));
    // In arrival order the cases would advance in lockstep (a1 a2 b1 b2 c1 c2 a3 b3 c3) and
    // all finish at the end. The slot never idles for a step not asked yet (b1 takes it while
    // a's next step is built), but a3 then goes before every later case's request: a is done
    // fourth, b seventh.
    expect(order).toEqual(["a1", "a2", "b1", "a3", "b2", "c1", "b3", "c2", "c3"]);
  });

  it("numbers a case when it first asks, and requests without a case as they come", async () => {
    const order: string[] = [];
    const judge: JudgeModel = {
      name: "ordered",
      async generate(judgeRequest) {
        order.push(judgeRequest.prompt);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return '{"reason": "ok"}';
      },
    };
    const scheduler = new JudgeScheduler({ maxConcurrent: 1 });
    const early = scheduler.forCase();
    const late = scheduler.forCase();
    const work = Promise.all([
      scheduler.send(judge, request("plain-1"), meta),
      // Made first but asks second: it queues after the case that asked before it.
      late.send(judge, request("late-1"), meta),
      early.send(judge, request("early-1"), meta),
      scheduler.send(judge, request("plain-2"), meta),
    ]).then(() => Promise.all([early.send(judge, request("early-2"), meta)]));
    await settle(work);
    expect(order).toEqual(["plain-1", "late-1", "early-1", "plain-2", "early-2"]);
  });

  it("halves concurrency under sustained 429s and raises it back after successes", async () => {
    const { judge, state } = countingJudge({ latencyMs: 2, rateLimited: (call) => call <= 12 });
    const scheduler = new JudgeScheduler({ maxConcurrent: 8, sleep: noWait });
    const first = await settle(
      Promise.all(
        Array.from({ length: 12 }, (_, index) => scheduler.send(judge, request(`a${index}`), meta)),
      ),
    );
    expect(first).toHaveLength(12);
    expect(scheduler.stats.rateLimited).toBeGreaterThan(0);
    const lowered = scheduler.concurrencyOf("counting") ?? 0;
    expect(lowered).toBeLessThan(8);
    await settle(
      Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          scheduler.send(judge, request(`b${index}`), meta),
        ),
      ),
    );
    expect(scheduler.concurrencyOf("counting")).toBe(8);
    expect(state.peak).toBeLessThanOrEqual(8);
  });

  it("spaces dispatches by throttleMs", async () => {
    const start = Date.now();
    // When each request reached the judge, on the fake clock.
    const sentAt: number[] = [];
    const judge: JudgeModel = {
      name: "timed",
      async generate({ prompt }) {
        sentAt.push(Date.now() - start);
        return `{"reason": "${prompt}"}`;
      },
    };
    const scheduler = new JudgeScheduler({ maxConcurrent: 10, throttleMs: 30 });
    const answers = await settle(
      Promise.all(
        Array.from({ length: 4 }, (_, index) => scheduler.send(judge, request(`t${index}`), meta)),
      ),
    );
    // The first at once, then one every 30 ms, in the order asked.
    expect(sentAt).toEqual([0, 30, 60, 90]);
    expect(answers.map((answer) => answer.text)).toEqual(
      ["t0", "t1", "t2", "t3"].map((prompt) => `{"reason": "${prompt}"}`),
    );
  });

  it("makes identical requests once: shared in flight, then from the cache", async () => {
    const { judge, state } = countingJudge({ latencyMs: 10 });
    const store = new MemoryRunStore();
    const scheduler = new JudgeScheduler({ cache: store.judgeCache });
    const [first, second] = await settle(
      Promise.all([
        scheduler.send(judge, request("same"), meta),
        scheduler.send(judge, request("same"), meta),
      ]),
    );
    expect(state.calls).toBe(1);
    expect(first?.cached).toBe(false);
    expect(second?.cached).toBe(true);
    expect(scheduler.stats.sharedCalls).toBe(1);
    expect(scheduler.stats.saved).toEqual({
      judgeCalls: 1,
      inputTokens: 10,
      outputTokens: 2,
      costUsd: 0.001,
    });
    const later = new JudgeScheduler({ cache: store.judgeCache });
    const cached = await later.send(judge, request("same"), meta);
    expect(state.calls).toBe(1);
    expect(cached.cached).toBe(true);
    expect(later.stats.saved).toEqual({
      judgeCalls: 1,
      inputTokens: 10,
      outputTokens: 2,
      costUsd: 0.001,
    });
    // A different trial is a different request.
    await settle(later.send(judge, request("same"), { ...meta, trial: 1 }));
    expect(state.calls).toBe(2);
  });

  describe("with a cache shared by processes (leases)", () => {
    const elsewhere: CachedJudgeAnswer = {
      text: '{"reason": "bought by another machine"}',
      object: undefined,
      inputTokens: 7,
      outputTokens: 3,
      costUsd: 0.002,
    };

    /**
     * A memory cache and leases on its keys, logging what the scheduler does with them. Each
     * claim is answered by the next of `claims` (the last one repeats): `"lease"` takes it,
     * `"held"` finds another process's lease, `"answer"` finds the answer it stored.
     */
    function leasingCache(options: { claims?: Array<"lease" | "held" | "answer"> } = {}) {
      const inner = new MemoryRunStore().judgeCache;
      const claims = options.claims ?? ["lease"];
      const log: string[] = [];
      const cache: JudgeCache = {
        get: (key) => {
          log.push("get");
          return inner.get(key);
        },
        set: async (key, answer) => {
          log.push("set");
          await inner.set(key, answer);
        },
      };
      const leases: JudgeLeases = {
        tryClaim: async () => {
          const outcome =
            claims[Math.min(log.filter((entry) => entry === "claim").length, claims.length - 1)];
          log.push("claim");
          if (outcome === "answer") return { answer: elsewhere };
          return { leased: outcome === "lease" };
        },
        renew: async () => {
          log.push("renew");
        },
        release: async () => {
          log.push("release");
        },
      };
      return { cache, leases, log };
    }

    it("asks the judge under the lease, stores the answer, then releases the lease", async () => {
      const { judge, state } = countingJudge({ latencyMs: 1 });
      const { cache, leases, log } = leasingCache();
      const scheduler = new JudgeScheduler({ cache, leases });
      const response = await settle(scheduler.send(judge, request("x"), meta));
      expect(response.cached).toBe(false);
      expect(state.calls).toBe(1);
      expect(log).toEqual(["claim", "set", "release"]);
    });

    it("takes the answer another process paid for, without a call", async () => {
      const { judge, state } = countingJudge({ latencyMs: 1 });
      const { cache, leases, log } = leasingCache({ claims: ["answer"] });
      const scheduler = new JudgeScheduler({ cache, leases });
      const response = await settle(scheduler.send(judge, request("x"), meta));
      expect(response).toMatchObject({
        cached: true,
        text: '{"reason": "bought by another machine"}',
      });
      expect(state.calls).toBe(0);
      expect(log).toEqual(["claim"]);
      expect(scheduler.stats).toMatchObject({ cacheHits: 1, judgeCalls: 0 });
      expect(scheduler.stats.saved).toEqual({
        judgeCalls: 1,
        inputTokens: 7,
        outputTokens: 3,
        costUsd: 0.002,
      });
    });

    it("waits while another process holds the lease, then takes its answer without a call", async () => {
      const { judge, state } = countingJudge({ latencyMs: 1 });
      const { cache, leases, log } = leasingCache({ claims: ["held", "held", "answer"] });
      const scheduler = new JudgeScheduler({ cache, leases });
      const response = await settle(scheduler.send(judge, request("x"), meta));
      expect(response).toMatchObject({ cached: true, text: elsewhere.text });
      expect(state.calls).toBe(0);
      expect(log).toEqual(["claim", "claim", "claim"]);
    });

    it("claims a lease only once the request holds its concurrency slot, and keeps that slot for the call", async () => {
      const cache = new MemoryRunStore().judgeCache;
      const held = new Set<string>();
      const log: string[] = [];
      let inFlight = 0;
      const judge: JudgeModel = {
        name: "slow",
        async generate(request) {
          inFlight += 1;
          log.push(`call ${request.prompt} (in flight: ${inFlight})`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight -= 1;
          return '{"reason": "fine"}';
        },
      };
      const leases: JudgeLeases = {
        tryClaim: async (key) => {
          log.push(`claim (in flight: ${inFlight})`);
          const answer = await cache.get(key);
          if (answer) return { answer };
          if (held.has(key)) return { leased: false };
          held.add(key);
          return { leased: true };
        },
        renew: async () => {},
        release: async (key) => {
          log.push("release");
          held.delete(key);
        },
      };
      const scheduler = new JudgeScheduler({ cache, leases, maxConcurrent: 1 });
      await Promise.all([
        settle(scheduler.send(judge, request("x"), meta)),
        settle(scheduler.send(judge, request("y"), meta)),
      ]);
      // y claims once x's call has ended and handed it the slot (before, y claimed its lease at
      // once and held it while queueing behind x's call).
      expect(log).toEqual([
        "claim (in flight: 0)",
        "call x (in flight: 1)",
        "claim (in flight: 0)",
        "release",
        "call y (in flight: 1)",
        "release",
      ]);
    });

    it("never holds a slot while waiting for another process's lease: a holder retrying after a 429 gets one", async () => {
      // Two processes (two schedulers) share a cache with leases and one request slot (a gate,
      // as `verdict test run -n 1` gives its workers). A's first attempt is rate limited: it
      // gives the slot back and waits to retry, still holding the lease. B asks the same
      // meanwhile: it must not keep the slot while it waits for A's answer, or A never gets it
      // back and neither ends.
      vi.useRealTimers();
      const answers = new Map<string, CachedJudgeAnswer>();
      const holders = new Map<string, string>();
      const cache: JudgeCache = {
        get: async (key) => answers.get(key),
        set: async (key, answer) => {
          answers.set(key, answer);
          holders.delete(key);
        },
      };
      let claims = 0;
      const leases: JudgeLeases = {
        tryClaim: async (key, holder) => {
          claims += 1;
          const answer = answers.get(key);
          if (answer) return { answer };
          if (holders.has(key)) return { leased: false };
          holders.set(key, holder);
          return { leased: true };
        },
        renew: async () => {},
        release: async (key, holder) => {
          if (holders.get(key) === holder) holders.delete(key);
        },
      };
      let busy = false;
      const queued: Array<() => void> = [];
      const gate: RequestGate = {
        acquire: async () => {
          if (busy) await new Promise<void>((resolve) => queued.push(resolve));
          busy = true;
          let released = false;
          return () => {
            if (released) return;
            released = true;
            const next = queued.shift();
            if (next) next();
            else busy = false;
          };
        },
      };
      let calls = 0;
      const judge: JudgeModel = {
        name: "shared",
        async generate() {
          calls += 1;
          if (calls === 1) {
            throw new JudgeCallError({
              message: "429",
              status: 429,
              retryable: true,
              retryAfterMs: 1,
            });
          }
          return '{"reason": "fine"}';
        },
      };
      const b = new JudgeScheduler({ cache, leases, gate });
      let fromB: Promise<unknown> = Promise.resolve();
      const a = new JudgeScheduler({
        cache,
        leases,
        gate,
        sleep: async () => {
          // B asks while A waits to retry, and has claimed (and found A's lease) before A goes on.
          fromB = b.send(judge, request("x"), meta);
          const claimsBefore = claims;
          while (claims < claimsBefore + 2) await new Promise((resolve) => setTimeout(resolve, 5));
        },
      });
      // A's answer, then B's (B starts while A waits to retry).
      const both = a.send(judge, request("x"), meta).then(() => fromB);
      both.catch(() => {});
      const timedOut = Symbol("timed out");
      const outcome = await Promise.race([
        both,
        new Promise((resolve) => setTimeout(() => resolve(timedOut), 2000)),
      ]);
      expect(outcome).not.toBe(timedOut);
      expect(calls).toBe(2);
    });

    it("answers cached requests at once under a throttle: a claim never waits for a dispatch", async () => {
      const { judge, state } = countingJudge({ latencyMs: 1 });
      const { cache, leases } = leasingCache({ claims: ["answer"] });
      const scheduler = new JudgeScheduler({ cache, leases, throttleMs: 60_000 });
      const started = Date.now();
      const responses = await Promise.all(
        ["x", "y", "z"].map((prompt) => settle(scheduler.send(judge, request(prompt), meta))),
      );
      expect(responses.every((response) => response.cached)).toBe(true);
      expect(state.calls).toBe(0);
      // One dispatch a minute: hits that took slots would move the (fake) clock on by minutes.
      expect(Date.now() - started).toBeLessThan(30_000);
    });

    it("releases the lease, storing nothing, when the call fails or its answer is rejected", async () => {
      const { cache, leases, log } = leasingCache();
      const failing: JudgeModel = {
        name: "failing",
        generate: async () => {
          throw new JudgeCallError({ message: "bad request", status: 400, retryable: false });
        },
      };
      const scheduler = new JudgeScheduler({ cache, leases, retry: { maxAttempts: 1 } });
      await expect(scheduler.send(failing, request("x"), meta)).rejects.toThrow("bad request");
      const prose: JudgeModel = { name: "prose", generate: async () => "no JSON here" };
      await scheduler.send(prose, request("y"), { ...meta, validate: () => false });
      expect(log).toEqual(["claim", "release", "claim", "release"]);
    });

    it("only reads in replay mode, and leaves the cache alone when it is off", async () => {
      const { judge } = countingJudge({ latencyMs: 1 });
      const replay = leasingCache();
      await expect(
        new JudgeScheduler({
          cache: replay.cache,
          leases: replay.leases,
          cacheMode: "replay",
        }).send(judge, request("x"), meta),
      ).rejects.toThrow(/no answer is cached/);
      expect(replay.log).toEqual(["get"]);
      const off = leasingCache();
      await settle(
        new JudgeScheduler({ cache: off.cache, leases: off.leases, cacheMode: false }).send(
          judge,
          request("x"),
          meta,
        ),
      );
      expect(off.log).toEqual([]);
    });
  });

  it("fails a replay miss without calling the judge", async () => {
    const { judge, state } = countingJudge({ latencyMs: 1 });
    const scheduler = new JudgeScheduler({
      cache: new MemoryRunStore().judgeCache,
      cacheMode: "replay",
    });
    await expect(scheduler.send(judge, request("x"), meta)).rejects.toThrow(
      /cache is "replay" but no answer is cached/,
    );
    expect(state.calls).toBe(0);
  });

  it("stops dispatching on an exhausted quota: queued requests fail, none is sent", async () => {
    let calls = 0;
    const judge: JudgeModel = {
      name: "broke",
      async generate() {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new JudgeCallError({
          message: "quota",
          status: 429,
          retryable: false,
          providerCode: "insufficient_quota",
        });
      },
    };
    const scheduler = new JudgeScheduler({ maxConcurrent: 1 });
    const outcomes = await settle(
      Promise.allSettled(
        Array.from({ length: 5 }, (_, index) => scheduler.send(judge, request(`q${index}`), meta)),
      ),
    );
    expect(calls).toBe(1);
    expect(outcomes.every((outcome) => outcome.status === "rejected")).toBe(true);
    expect((scheduler.stoppedBy as JudgeCallError).quotaExhausted).toBe(true);
  });

  it.each([
    ["a rejected key (401)", 401, null],
    ["denied access (403)", 403, null],
    ["an unknown model (404)", 404, "model_not_found"],
  ])(
    "stops one judge on %s: queued, in-flight and later requests fail with that error, unsent",
    async (_label, status, providerCode) => {
      const calls: string[] = [];
      const failing: JudgeModel = {
        name: "misconfigured",
        async generate(sent) {
          calls.push(sent.prompt);
          // The first call fails at once; the others would take long, and are cut short.
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, calls.length === 1 ? 5 : 60_000);
            sent.signal?.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(sent.signal?.reason);
            });
          });
          throw new JudgeCallError({
            message: `HTTP ${status}`,
            status,
            retryable: false,
            providerCode,
          });
        },
      };
      const { judge: other, state } = countingJudge({ latencyMs: 5 });
      const scheduler = new JudgeScheduler({ maxConcurrent: 2 });
      const outcomes = await settle(
        Promise.allSettled(
          Array.from({ length: 6 }, (_, index) =>
            scheduler.send(failing, request(`q${index}`), meta),
          ),
        ),
      );
      // Two went out at once (maxConcurrent 2); the four queued were never sent.
      expect(calls).toEqual(["q0", "q1"]);
      const stop = scheduler.judgeStoppedBy("misconfigured") as JudgeCallError;
      expect(stop).toMatchObject({ status, kind: "configuration" });
      // Every caller gets the very same error, so that it is reported once.
      expect(outcomes).toEqual(outcomes.map(() => ({ status: "rejected", reason: stop })));
      await expect(scheduler.send(failing, request("later"), meta)).rejects.toBe(stop);
      expect(calls).toHaveLength(2);
      // Another judge goes on, and the scheduler as a whole is not stopped.
      expect(scheduler.stoppedBy).toBeNull();
      await expect(settle(scheduler.send(other, request("fine"), meta))).resolves.toMatchObject({
        text: '{"reason": "ok"}',
      });
      expect(state.calls).toBe(1);
    },
  );

  it("keeps a judge going after a failure that is not about its configuration", async () => {
    let calls = 0;
    const judge: JudgeModel = {
      name: "picky",
      async generate() {
        calls += 1;
        if (calls === 1) {
          throw new JudgeCallError({ message: "HTTP 400", status: 400, retryable: false });
        }
        return '{"reason": "ok"}';
      },
    };
    const scheduler = new JudgeScheduler({ maxConcurrent: 1 });
    await expect(settle(scheduler.send(judge, request("bad"), meta))).rejects.toMatchObject({
      status: 400,
    });
    await expect(settle(scheduler.send(judge, request("good"), meta))).resolves.toMatchObject({
      text: '{"reason": "ok"}',
    });
    expect(scheduler.judgeStoppedBy("picky")).toBeNull();
  });

  it("keeps a shared request going for the others when its first caller gives up", async () => {
    const { judge, state } = countingJudge({ latencyMs: 30 });
    const scheduler = new JudgeScheduler();
    const first = new AbortController();
    const one = scheduler.send(judge, { ...request("same"), signal: first.signal }, meta);
    const two = scheduler.send(judge, request("same"), meta);
    first.abort();
    await expect(one).rejects.toMatchObject({ code: "ABORTED" });
    await expect(settle(two)).resolves.toMatchObject({ text: '{"reason": "ok"}' });
    expect(state.calls).toBe(1);
  });

  it("never sends a queued request whose caller gave up", async () => {
    const { judge, state } = countingJudge({ latencyMs: 40 });
    const scheduler = new JudgeScheduler({ maxConcurrent: 1 });
    const busy = scheduler.send(judge, request("first"), meta);
    const controller = new AbortController();
    const queued = scheduler.send(judge, { ...request("second"), signal: controller.signal }, meta);
    const queuedOutcome = expect(queued).rejects.toMatchObject({ code: "ABORTED" });
    // Gives up while the first request is still with the judge.
    await vi.advanceTimersByTimeAsync(5);
    expect(state.calls).toBe(1);
    controller.abort();
    await queuedOutcome;
    await settle(busy);
    // Nothing is left to run: the queued request was never sent.
    expect(vi.getTimerCount()).toBe(0);
    expect(state.calls).toBe(1);
  });

  it("does not cache an answer the step rejects", async () => {
    const store = new MemoryRunStore();
    const judge: JudgeModel = { name: "prose", generate: async () => "no JSON here" };
    const scheduler = new JudgeScheduler({ cache: store.judgeCache });
    await scheduler.send(judge, request("ask"), { ...meta, validate: () => false });
    const later = new JudgeScheduler({ cache: store.judgeCache, cacheMode: "replay" });
    await expect(later.send(judge, request("ask"), meta)).rejects.toThrow(/no answer is cached/);
  });

  it("lowers concurrency on a 429 even when no retry follows (last attempt)", async () => {
    const { judge } = countingJudge({
      latencyMs: 1,
      rateLimited: () => true,
      retryAfterMs: null,
    });
    const scheduler = new JudgeScheduler({ maxConcurrent: 8, retry: { maxAttempts: 1 } });
    await expect(settle(scheduler.send(judge, request("x"), meta))).rejects.toMatchObject({
      status: 429,
    });
    expect(scheduler.concurrencyOf("counting")).toBe(4);
  });

  it("scores every request through long runs of 429s with Retry-After, at one attempt each", async () => {
    // Calls 1 to 150 are rate limited: every request meets several 429s in a row.
    const { judge, state } = countingJudge({ latencyMs: 3, rateLimited: (call) => call <= 150 });
    const scheduler = new JudgeScheduler({
      maxConcurrent: 8,
      retry: { maxAttempts: 1 },
      sleep: noWait,
    });
    const answers = await settle(
      Promise.all(
        Array.from({ length: 40 }, (_, index) => scheduler.send(judge, request(`r${index}`), meta)),
      ),
    );
    expect(answers).toHaveLength(40);
    // Each request met several 429s (with maxAttempts 1, any one of them used to drop it).
    expect(scheduler.stats.rateLimited).toBeGreaterThan(100);
    expect(state.calls).toBe(40 + scheduler.stats.rateLimited);
    // The limit was halved by the 429s and raised back by the 40 successes.
    expect(state.peak).toBeLessThanOrEqual(8);
    expect(scheduler.concurrencyOf("counting")).toBe(8);
  });

  it("refuses a bad retry policy before sending anything", () => {
    expect(() => new JudgeScheduler({ retry: { maxElapsedMs: -1 } })).toThrow(
      /retry\.maxElapsedMs must be at least 1 millisecond/,
    );
  });
});
