// Answers cut short after their headers, or 200s that are not the provider's JSON, never
// drop a case (issue 19, item 3): evaluate() over the real wire path (AI SDK OpenAI provider
// → HTTP → the fake server's seeded faults), through the Responses API and Chat Completions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import {
  type FakeFaults,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { faultCases } from "./fixtures/fault-cases.ts";

let server: FakeOpenAIServer;
let home: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "verdict-cut-"));
});
afterEach(() => {
  server.setFaults(undefined);
  server.reset();
  rmSync(home, { recursive: true, force: true });
});

const endpoints = [
  { name: "the Responses API", model: () => "gpt-4.1" },
  {
    name: "Chat Completions",
    model: () => createOpenAI({ baseURL: server.url, apiKey: "sk-fake" }).chat("gpt-4.1"),
  },
];

async function run(options: {
  faults: FakeFaults;
  count: number;
  model: () => ReturnType<(typeof endpoints)[number]["model"]>;
}): Promise<EvaluationResult> {
  server.setFaults(options.faults);
  server.reset();
  return evaluate({
    testCases: faultCases(options.count),
    metrics: [
      new ToxicityMetric({ model: options.model() }),
      new BiasMetric({ model: options.model() }),
      new AnswerRelevancyMetric({ model: options.model() }),
    ],
    maxConcurrent: 10,
    ignoreErrors: true,
    retry: { initialDelayMs: 2 },
    env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home },
    display: "none",
    handleInterrupt: false,
  });
}

const unscored = (result: EvaluationResult) =>
  result.testResults
    .flatMap((testResult) => testResult.metricsData)
    .filter((m) => m.score === null);

describe.each(endpoints)("evaluate() over $name", ({ model }) => {
  it("scores every case when 10 percent of answers are cut after their headers", async () => {
    const result = await run({ faults: { seed: 4, cutAfterHeaders: 0.1 }, count: 40, model });
    expect(server.stats().byStatus.cut).toBeGreaterThan(3);
    expect(unscored(result)).toEqual([]);
    expect(result.summary.testCases).toMatchObject({ total: 40, unscored: 0 });
  });

  it("scores every case when 10 percent of 200s carry a proxy's HTML page", async () => {
    const result = await run({ faults: { seed: 5, notJson: 0.1 }, count: 40, model });
    expect(server.stats().byStatus["not-json"]).toBeGreaterThan(3);
    expect(unscored(result)).toEqual([]);
  });

  it("keeps the case and says the response was cut when every answer is", async () => {
    const result = await run({ faults: { seed: 6, cutAfterHeaders: 1 }, count: 1, model });
    const errors = unscored(result).map((metric) => metric.error);
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error).toMatch(/the response was cut short \(HTTP 200, then the connection closed/);
      expect(error).toMatch(/Gave up after 6 attempts\.$/);
      expect(error).not.toMatch(/check the model name/);
    }
  });
});
