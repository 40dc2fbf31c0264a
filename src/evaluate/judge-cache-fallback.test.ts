// The judge cache's failures as the scheduler meets them (a store down past its retries): a
// failed read is a miss, a failed write keeps the answer, a failed claim goes on without the
// lease; each warned of once, and no case loses its score to the cache.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { StoreError } from "../errors/store-error.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import type { JudgeCache, JudgeLeases } from "../store/run-store.ts";
import { JudgeScheduler } from "./scheduler.ts";

const schema = z.object({ reason: z.string() });
const request = (prompt: string, signal?: AbortSignal): JudgeRequest => ({
  prompt,
  schema,
  jsonSchema: { type: "object" },
  ...(signal === undefined ? {} : { signal }),
});
const meta = { metric: "Toxicity", step: "generateReason", trial: 0 };
const down = () =>
  new StoreError(
    'Could not write judge cache entry "k" in the verdict store postgres://evals@db:5432/evals (schema verdict): nothing answers at db:5432.',
  );

function countingJudge() {
  const prompts: string[] = [];
  const judge: JudgeModel = {
    name: "counting",
    generate: async ({ prompt }) => {
      prompts.push(prompt);
      return { text: `{"reason": "${prompt}"}`, usage: { inputTokens: 5, outputTokens: 1 } };
    },
  };
  return { judge, prompts };
}

/** A memory cache whose reads and writes fail as told, logging each use. */
function brokenCache(options: { get?: boolean; set?: boolean }) {
  const inner = new MemoryRunStore().judgeCache;
  const log: string[] = [];
  const cache: JudgeCache = {
    get: async (key) => {
      log.push("get");
      if (options.get) throw down();
      return inner.get(key);
    },
    set: async (key, answer) => {
      log.push("set");
      if (options.set) throw down();
      await inner.set(key, answer);
    },
  };
  return { cache, log, inner };
}

async function settle<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  await vi.runAllTimersAsync();
  return work;
}

describe("the judge cache failing under the scheduler", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes a failed read for a miss: the judge answers, warned once", async () => {
    const { judge, prompts } = countingJudge();
    const { cache, log } = brokenCache({ get: true });
    const warnings: string[] = [];
    const scheduler = new JudgeScheduler({ cache, onWarning: (text) => warnings.push(text) });
    const first = await settle(scheduler.send(judge, request("one"), meta));
    const second = await settle(scheduler.send(judge, request("two"), meta));
    expect([first.text, second.text]).toEqual(['{"reason": "one"}', '{"reason": "two"}']);
    expect(prompts).toEqual(["one", "two"]);
    expect(log).toEqual(["get", "set", "get", "set"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("nothing answers at db:5432");
    expect(warnings[0]).toContain("the judge is asked instead");
  });

  it("keeps an answer it could not store: the case is scored, warned once", async () => {
    const { judge, prompts } = countingJudge();
    const { cache, inner } = brokenCache({ set: true });
    const warnings: string[] = [];
    const scheduler = new JudgeScheduler({ cache, onWarning: (text) => warnings.push(text) });
    const answers = await settle(
      Promise.all(["a", "b", "c"].map((prompt) => scheduler.send(judge, request(prompt), meta))),
    );
    expect(answers.map((answer) => answer.text)).toEqual([
      '{"reason": "a"}',
      '{"reason": "b"}',
      '{"reason": "c"}',
    ]);
    expect(prompts).toEqual(["a", "b", "c"]);
    expect(scheduler.stats.judgeCalls).toBe(3);
    expect(await inner.entries?.({ limit: 10 })).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the answer is kept and the case scored");
  });

  it("never prints a secret a cache's failure carries", async () => {
    const { judge } = countingJudge();
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const cache: JudgeCache = {
      get: async () => {
        throw new Error(`connection to https://user:${key}@cache.internal refused`);
      },
      set: async () => {},
    };
    const warnings: string[] = [];
    const scheduler = new JudgeScheduler({ cache, onWarning: (text) => warnings.push(text) });
    await settle(scheduler.send(judge, request("x"), meta));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain(key);
  });

  it("asks without the lease when the claim fails, neither reading nor releasing", async () => {
    const { judge, prompts } = countingJudge();
    const { cache, log } = brokenCache({});
    const leases: JudgeLeases = {
      tryClaim: async () => {
        log.push("claim");
        throw down();
      },
      renew: async () => {},
      release: async () => {
        log.push("release");
      },
    };
    const warnings: string[] = [];
    const scheduler = new JudgeScheduler({
      cache,
      leases,
      onWarning: (text) => warnings.push(text),
    });
    await settle(scheduler.send(judge, request("x"), meta));
    await settle(scheduler.send(judge, request("y"), meta));
    expect(prompts).toEqual(["x", "y"]);
    expect(log).toEqual(["claim", "set", "claim", "set"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("without a lease");
  });

  it("lets a cancellation through: a claim cut by the run's abort is not a miss", async () => {
    const { judge, prompts } = countingJudge();
    const { cache } = brokenCache({});
    const controller = new AbortController();
    const leases: JudgeLeases = {
      tryClaim: async () => {
        controller.abort(new Error("run cancelled"));
        throw down();
      },
      renew: async () => {},
      release: async () => {},
    };
    const warnings: string[] = [];
    const scheduler = new JudgeScheduler({
      cache,
      leases,
      onWarning: (text) => warnings.push(text),
    });
    await expect(
      settle(scheduler.send(judge, request("x", controller.signal), meta)),
    ).rejects.toThrow();
    expect(prompts).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('fails a read in "replay" mode with the store\'s error, not as a miss', async () => {
    const { judge, prompts } = countingJudge();
    const { cache } = brokenCache({ get: true });
    const scheduler = new JudgeScheduler({ cache, cacheMode: "replay", onWarning: () => {} });
    await expect(settle(scheduler.send(judge, request("x"), meta))).rejects.toThrow(StoreError);
    expect(prompts).toEqual([]);
  });
});
