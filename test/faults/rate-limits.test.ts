// Rate limits never drop a case (issue 9, item 1): evaluate() over the real wire path (AI SDK
// OpenAI provider → HTTP → the fake server's seeded faults) with the default SQLite store, and
// waits of a few milliseconds so that it runs fast.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import type { RetryPolicy } from "../../src/judge/retry-policy.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeFaults,
  type FakeOpenAIServer,
  type FakeRateLimitHint,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { faultCases } from "./fixtures/fault-cases.ts";

let server: FakeOpenAIServer;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "verdict-faults-"));
  env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home };
});
afterEach(() => {
  server.setFaults(undefined);
  server.reset();
  rmSync(home, { recursive: true, force: true });
});

const threeMetrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];

async function run(options: {
  faults: FakeFaults;
  count: number;
  metrics?: ReturnType<typeof threeMetrics>;
  retry?: Partial<RetryPolicy>;
  identifier?: string;
}): Promise<EvaluationResult> {
  server.setFaults(options.faults);
  server.reset();
  return evaluate({
    testCases: faultCases(options.count),
    metrics: options.metrics ?? threeMetrics(),
    maxConcurrent: 10,
    ignoreErrors: true,
    // A backoff of a few ms too: it floors the provider's waits.
    retry: { initialDelayMs: 2, ...options.retry },
    ...(options.identifier === undefined ? {} : { identifier: options.identifier }),
    env,
    display: "none",
    handleInterrupt: false,
  });
}

const metricResults = (result: EvaluationResult) =>
  result.testResults.flatMap((testResult) => testResult.metricsData);
const unscored = (result: EvaluationResult) =>
  metricResults(result).filter((metric) => metric.score === null);

describe("rate limits with a Retry-After", () => {
  it.each([1, 2, 3])(
    "scores every case at 30 percent 429s, even with one attempt per request (seed %i)",
    async (seed) => {
      // maxAttempts 1: any 429 that spent the attempt budget would drop its case.
      const result = await run({
        faults: { seed, rateLimit: 0.3, retryAfterMs: 5 },
        count: 40,
        retry: { maxAttempts: 1 },
        identifier: `rate-limits-${seed}`,
      });
      expect(server.stats().byStatus["429"]).toBeGreaterThan(20);
      expect(unscored(result)).toEqual([]);
      expect(metricResults(result)).toHaveLength(120);
      expect(result.summary.testCases).toMatchObject({ total: 40, unscored: 0 });
      const store = new SqliteRunStore({ path: join(home, "verdict.db") });
      try {
        const run = await store.runs.getRun(`rate-limits-${seed}`);
        const stored = await store.runs.getTestResults(run?.id ?? "");
        expect(stored).toHaveLength(40);
        expect(stored.flatMap((entry) => entry.result.metricsData).map((m) => m.error)).toEqual(
          Array(120).fill(null),
        );
      } finally {
        await store.close();
      }
    },
  );

  it.each([
    ["retry-after", 429],
    ["openai-reset", 429],
    ["anthropic-reset", 429],
    ["retry-after-ms", 503],
  ] as Array<[FakeRateLimitHint, number]>)(
    "waits as told by %s on a %i, without spending attempts",
    async (rateLimitHint, status) => {
      const share = status === 429 ? { rateLimit: 0.5 } : { serviceUnavailable: 0.5 };
      const result = await run({
        faults: { seed: 11, ...share, rateLimitHint, retryAfterMs: 5 },
        count: 15,
        metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
        retry: { maxAttempts: 1 },
      });
      expect(server.stats().byStatus[String(status)]).toBeGreaterThan(5);
      expect(unscored(result)).toEqual([]);
    },
  );

  it("still counts a 429 without any hint: attempts run out and the case says so", async () => {
    const result = await run({
      faults: { seed: 5, rateLimit: 1, rateLimitHint: "none" },
      count: 2,
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      retry: { maxAttempts: 3, initialDelayMs: 1 },
    });
    expect(server.stats().byStatus["429"]).toBe(6);
    expect(unscored(result).map((metric) => metric.error)).toEqual(
      Array(2).fill(expect.stringMatching(/HTTP 429.*Gave up after 3 attempts\.$/)),
    );
  });

  it("gives up when the waits pass retry.maxElapsedMs, saying what to do; the case is kept", async () => {
    const result = await run({
      faults: { seed: 6, rateLimit: 1, retryAfterMs: 20 },
      count: 3,
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      // Room for a first attempt in a process that has just started, and several waits.
      retry: { maxElapsedMs: 300 },
    });
    expect(result.testResults).toHaveLength(3);
    const errors = unscored(result).map((metric) => metric.error ?? "");
    expect(errors).toHaveLength(3);
    let told = 0;
    let made = 0;
    for (const error of errors) {
      // Every answer was a rate limit that said how long to wait (none spent the budget). The
      // budget ends before a wait that would use it up, or during an attempt, which is cut.
      const [, attempts, waits] =
        /^Gave up after (\d+) attempts? in \d+ ms(?: \((\d+) times? told to wait\))?/.exec(error) ??
        [];
      expect(Number(attempts)).toBeGreaterThanOrEqual(1);
      told += Number(waits ?? 0);
      made += Number(attempts);
      if (waits === attempts) {
        expect(error).toMatch(/past the retry budget \(retry\.maxElapsedMs = 300 ms\)/);
        expect(error).toMatch(/is rate limited \(HTTP 429\)/);
        expect(error).toMatch(
          /Raise retry\.maxElapsedMs.*lower maxConcurrent.*rate limit of your plan/,
        );
      } else {
        expect(Number(waits ?? 0)).toBe(Number(attempts) - 1);
        // Cut during an attempt, or the last attempt's answer came with no time left for
        // another: both say which budget ran out.
        expect(error).toMatch(
          /the retry budget \(retry\.maxElapsedMs = 300 ms\) ran out while waiting for an answer|the attempts used up the retry budget \(retry\.maxElapsedMs = 300 ms\), leaving no time for another/,
        );
      }
    }
    // The server saw the attempts the errors name (an attempt cut at the bound may or may not
    // have been answered). Waits of at least 20 ms in 300 ms bound them whatever the machine's
    // speed (a slow one makes fewer, never more).
    const rateLimited = server.stats().byStatus["429"] ?? 0;
    expect(rateLimited).toBeGreaterThanOrEqual(told);
    expect(rateLimited).toBeLessThanOrEqual(made);
    expect(made).toBeLessThanOrEqual(3 * 16);
  });
});

describe("rate limits mixed with hard failures", () => {
  it.each([1, 2])(
    "scores every case at 30 percent 429s, 5 percent 500s and 2 percent drops (seed %i)",
    async (seed) => {
      const result = await run({
        faults: { seed, rateLimit: 0.3, serverError: 0.05, drop: 0.02, retryAfterMs: 5 },
        count: 40,
        // Four attempts: plenty for 7% hard failures, too few if the 429s spent them too.
        retry: { maxAttempts: 4, initialDelayMs: 5 },
      });
      const byStatus = server.stats().byStatus;
      expect(byStatus["429"]).toBeGreaterThan(20);
      expect((byStatus["500"] ?? 0) + (byStatus.dropped ?? 0)).toBeGreaterThan(3);
      expect(unscored(result)).toEqual([]);
    },
  );

  it("keeps hard failures bounded: 500s and dropped connections give up after maxAttempts", async () => {
    const result = await run({
      faults: { seed: 9, rateLimit: 0.4, serverError: 0.3, drop: 0.3, retryAfterMs: 5 },
      count: 1,
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      retry: { maxAttempts: 2, initialDelayMs: 1 },
    });
    // Only 40% of calls are rate limits: most requests meet two hard failures and give up.
    const errors = unscored(result).map((metric) => metric.error);
    expect(errors).toEqual([
      expect.stringMatching(/(HTTP 500|connection failed).*Gave up after \d+ attempts\.$/),
    ]);
    const hard = (server.stats().byStatus["500"] ?? 0) + (server.stats().byStatus.dropped ?? 0);
    expect(hard).toBe(2);
  });
});
