// evaluate() over the real wire path: AI SDK OpenAI provider → HTTP → the fake server, with
// the default SQLite store in a temporary VERDICT_HOME.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { runNode } from "./run-node.ts";

let server: FakeOpenAIServer;
let home: string;
let env: NodeJS.ProcessEnv;
const quiet = { display: "none" as const, handleInterrupt: false };

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setResponder(undefined);
  server.setLatency(0);
  home = mkdtempSync(join(tmpdir(), "verdict-e2e-"));
  env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const cases = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    name: `case-${index}`,
    input: "Tell me about it.",
    actualOutput: `Answer number ${index}.`,
  }));

describe("evaluate() over HTTP", () => {
  it("keeps in-flight requests at maxConcurrent, and reaches it", async () => {
    server.setLatency(40);
    server.setResponder(() => reply.json({ opinions: [] }));
    const result = await evaluate({
      testCases: cases(30),
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      maxConcurrent: 5,
      env,
      ...quiet,
    });
    expect(result.summary.judgeCalls).toBe(30);
    expect(server.stats().peakInFlight).toBe(5);
  });

  it("serves a second identical run from the cache: zero calls, same scores, savings reported", async () => {
    const metrics = () => [
      new ToxicityMetric({ model: "gpt-4.1" }),
      new BiasMetric({ model: "gpt-4.1" }),
      new AnswerRelevancyMetric({ model: "gpt-4.1" }),
    ];
    const first = await evaluate({ testCases: cases(5), metrics: metrics(), env, ...quiet });
    const firstRequests = server.stats().requests;
    expect(firstRequests).toBeGreaterThan(0);
    server.reset();
    const second = await evaluate({ testCases: cases(5), metrics: metrics(), env, ...quiet });
    expect(server.stats().requests).toBe(0);
    expect(second.summary.judgeCalls).toBe(0);
    // Every answer of the first run (paid, shared in flight, or a cache hit on an earlier
    // case's identical request) comes from the cache or a shared call now.
    const answers = first.summary.judgeCalls + first.summary.sharedCalls + first.summary.cacheHits;
    expect(first.summary.judgeCalls).toBe(firstRequests);
    expect(second.summary.cacheHits + second.summary.sharedCalls).toBe(answers);
    expect(second.summary.cacheHits).toBeGreaterThan(0);
    expect(second.summary.saved.judgeCalls).toBe(answers);
    expect(second.summary.saved.inputTokens).toBe(
      first.summary.inputTokens + first.summary.saved.inputTokens,
    );
    expect(second.summary.saved.costUsd).toBeCloseTo(
      (first.summary.costUsd ?? Number.NaN) + (first.summary.saved.costUsd ?? Number.NaN),
      12,
    );
    const scores = (result: typeof first) =>
      result.testResults.map((testResult) =>
        testResult.metricsData.map((metric) => [metric.score, metric.reason]),
      );
    expect(scores(second)).toEqual(scores(first));
  });

  it("never serves a changed prompt from the cache", async () => {
    await evaluate({
      testCases: cases(2),
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      env,
      ...quiet,
    });
    server.reset();
    const changed = new ToxicityMetric({
      model: "gpt-4.1",
      evaluationTemplate: {
        generateOpinions: ({ actualOutput }) => `List opinions as JSON: ${actualOutput}`,
      },
    });
    await evaluate({ testCases: cases(2), metrics: [changed], env, ...quiet });
    expect(server.stats().requests).toBeGreaterThan(0);
  });

  it('fails clearly on a cache miss with cache: "replay"', async () => {
    await expect(
      evaluate({
        testCases: cases(1),
        metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
        cache: "replay",
        env,
        ...quiet,
      }),
    ).rejects.toThrow(
      /cache is "replay" but no answer is cached for judge "openai:gpt-4.1" \(metric "Toxicity", step "generateOpinions"\): run once with the cache on/,
    );
    expect(server.stats().requests).toBe(0);
  });

  it("rides out a 429 storm with Retry-After and scores every case", async () => {
    let served = 0;
    server.setResponder(() => {
      served += 1;
      return served <= 40 && served % 4 !== 0
        ? reply.error(429, {
            code: "rate_limit_exceeded",
            message: "Rate limit reached",
            headers: { "retry-after-ms": "20" },
          })
        : reply.json({ opinions: [] });
    });
    const result = await evaluate({
      testCases: cases(20),
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      maxConcurrent: 8,
      retry: { maxAttempts: 20, initialDelayMs: 5, maxDelayMs: 50 },
      env,
      ...quiet,
    });
    expect(server.stats().byStatus["429"]).toBe(30);
    expect(result.summary.status).toBe("completed");
    expect(result.testResults).toHaveLength(20);
    expect(result.testResults.every((testResult) => testResult.metricsData[0]?.score === 0)).toBe(
      true,
    );
  });

  it("ends cleanly on an exhausted quota, storing what finished", async () => {
    let served = 0;
    server.setResponder(() => {
      served += 1;
      return served <= 4 ? reply.json({ opinions: [] }) : reply.quotaExceeded();
    });
    const result = await evaluate({
      testCases: cases(10),
      metrics: [new ToxicityMetric({ model: "gpt-4.1" })],
      maxConcurrent: 1,
      identifier: "quota-run",
      env,
      ...quiet,
    });
    expect(result.summary.status).toBe("quota-exhausted");
    expect(result.testResults).toHaveLength(4);
    expect(result.summary.testCases.unscored).toBe(6);
    expect(server.stats().byStatus["429"]).toBe(1);
    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    try {
      const run = await store.runs.getRun("quota-run");
      expect(run?.status).toBe("quota-exhausted");
      expect(await store.runs.getTestResults(run?.id ?? "")).toHaveLength(4);
    } finally {
      await store.close();
    }
  });
});

describe("a run killed half-way", () => {
  const runChild = (childEnv: NodeJS.ProcessEnv) =>
    runNode({
      args: ["test/e2e/fixtures/evaluate-child.ts"],
      env: { ...process.env, ...childEnv },
    });

  it("resumes without repeating a finished case", async () => {
    server.setLatency(60);
    server.setResponder(() => reply.json({ opinions: [] }));
    const first = runChild({ ...env, CASES: "12" });
    while (server.stats().requests < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill("SIGKILL");
    await first.exited;

    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    const run = await store.runs.getRun("killed-run");
    const finished = (await store.runs.getTestResults(run?.id ?? "")).map(
      (stored) => stored.result.index,
    );
    await store.close();
    expect(run?.status).toBe("running");
    expect(finished.length).toBeGreaterThanOrEqual(4);
    expect(finished.length).toBeLessThan(12);

    server.reset();
    const second = runChild({ ...env, CASES: "12", RESUME: "1" });
    expect(await second.exited).toBe(0);
    expect(JSON.parse(second.output().stdout)).toEqual({
      status: "completed",
      judgeCalls: 12 - finished.length,
    });
    for (const index of finished) {
      expect(
        server.requests.some(
          (request) =>
            request.prompt.includes(`output number ${index}\\"`) ||
            request.prompt.includes(`"output number ${index}"`),
        ),
      ).toBe(false);
    }
    const after = new SqliteRunStore({ path: join(home, "verdict.db") });
    const resumed = await after.runs.getRun("killed-run");
    expect(resumed?.id).toBe(run?.id);
    expect(resumed?.status).toBe("completed");
    expect(await after.runs.getTestResults(resumed?.id ?? "")).toHaveLength(12);
    await after.close();
  });

  it("stops on Ctrl-C, marks the run interrupted and says how to resume", async () => {
    server.setLatency(60);
    server.setResponder(() => reply.json({ opinions: [] }));
    const run = runChild({ ...env, CASES: "12" });
    while (server.stats().requests < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill("SIGINT");
    // The script goes on after evaluate() returns, but exits 130, as if Ctrl-C had ended it.
    expect(await run.exited).toBe(130);
    const { stdout, stderr } = run.output();
    expect(JSON.parse(stdout).status).toBe("interrupted");
    expect(stderr).toMatch(
      /Run interrupted: \d+\/12 test cases finished and stored\. Resume with evaluate\(\{ identifier: "killed-run", resume: true/,
    );
    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    expect((await store.runs.getRun("killed-run"))?.status).toBe("interrupted");
    await store.close();
  });
});
