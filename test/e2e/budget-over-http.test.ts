// A budget over the real wire path: AI SDK OpenAI provider → HTTP → the fake server, with the
// SQLite store of a temporary VERDICT_HOME. The run stops before its spend could pass the
// budget, keeps every finished case, and a resume with a larger budget pays nothing twice.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { readTestResults } from "../../src/store/read-test-results.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { readingJudge } from "../fixtures/reading-judge.ts";

const testCases = Array.from({ length: 40 }, (_, index) => ({
  name: `case-${index}`,
  input: `What do you think of plan ${index}?`,
  actualOutput:
    index % 4 === 0
      ? `Plan ${index} is nasty. It was filed in May. Its budget is small.`
      : `Plan ${index} is great. It was filed in June.`,
}));

let server: FakeOpenAIServer;
const homes: string[] = [];
beforeAll(async () => {
  server = await startFakeOpenAIServer({ respond: readingJudge, latencyMs: 5 });
});
afterAll(async () => {
  await server.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function environment() {
  const home = mkdtempSync(join(tmpdir(), "verdict-budget-"));
  homes.push(home);
  return { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake-budget", VERDICT_HOME: home };
}

const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];
const quiet = { display: "none" as const, handleInterrupt: false };

describe("a budget over HTTP", () => {
  it("stops at 40% of a run's cost without passing it, and a resume finishes it paying nothing twice", async () => {
    server.reset();
    const full = await evaluate({ testCases, metrics: metrics(), env: environment(), ...quiet });
    const fullCost = full.summary.costUsd ?? Number.NaN;
    const fullCalls = server.stats().requests;
    expect(full.summary.judgeCalls).toBe(fullCalls);

    server.reset();
    const env = environment();
    const maxCostUsd = fullCost * 0.4;
    const first = await evaluate({
      testCases,
      metrics: metrics(),
      env,
      identifier: "budgeted",
      budget: { maxCostUsd },
      ...quiet,
    });
    expect(first.summary.status).toBe("budget-exhausted");
    expect(first.summary.costUsd).toBeLessThanOrEqual(maxCostUsd);
    expect(first.summary.budget?.spentCostUsd).toBeLessThanOrEqual(maxCostUsd);
    // Every request was sent with an output limit, so that none could cost more than reserved.
    const bodies = server.requests.map((request) => request.body as { max_output_tokens?: number });
    expect(bodies.every((body) => (body.max_output_tokens ?? 0) >= 1_024)).toBe(true);
    const firstCalls = server.stats().requests;

    // No finished case is lost: the store holds each one whole.
    const store = new SqliteRunStore({ path: join(env.VERDICT_HOME, "verdict.db") });
    const run = await store.runs.getRun("budgeted");
    expect(run?.status).toBe("budget-exhausted");
    const stored = [];
    for await (const entry of readTestResults(store, run?.id ?? "")) stored.push(entry.result);
    await store.close();
    expect(stored.length).toBe(first.testResults.length);
    expect(stored.length).toBeGreaterThan(0);
    for (const result of stored) {
      expect(result.metricsData.every((metric) => metric.score !== null)).toBe(true);
    }

    server.reset();
    const second = await evaluate({
      testCases,
      metrics: metrics(),
      env,
      identifier: "budgeted",
      resume: true,
      budget: { maxCostUsd: fullCost * 2 },
      ...quiet,
    });
    expect(second.summary.status).toBe("completed");
    expect(second.testResults).toHaveLength(testCases.length);
    // Nothing paid twice: the judge was asked, over both parts, exactly what one run asks.
    expect(firstCalls + server.stats().requests).toBe(fullCalls);
    expect((first.summary.costUsd ?? 0) + (second.summary.costUsd ?? 0)).toBeCloseTo(fullCost, 10);
    expect(second.summary.budget?.spentCostUsd).toBeCloseTo(fullCost, 10);
  });
});
