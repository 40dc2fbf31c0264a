// The cache key knows where the judge lives (issue 19, item 5): the same model name served by
// another server never reuses the first server's answers, whether the server is named by
// OPENAI_BASE_URL, VERDICT_BASE_URL, OLLAMA_BASE_URL, a provider instance's baseURL or a
// custom judge's own endpoint — while the same server is still answered from the cache.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { defaultAnswer } from "../../src/judge/default-answer.ts";
import type { JudgeModel } from "../../src/judge/judge-model.ts";
import type { ModelSpec } from "../../src/judge/resolve-model.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { faultCases } from "./fixtures/fault-cases.ts";

let first: FakeOpenAIServer;
let second: FakeOpenAIServer;
let home: string;

beforeAll(async () => {
  [first, second] = await Promise.all([startFakeOpenAIServer(), startFakeOpenAIServer()]);
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});
beforeEach(() => {
  first.reset();
  second.reset();
  home = mkdtempSync(join(tmpdir(), "verdict-cache-endpoints-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** One cached run of 3 cases × 2 metrics (Toxicity and Bias share their opinion requests). */
function run(options: { model: ModelSpec; env?: NodeJS.ProcessEnv }): Promise<EvaluationResult> {
  return evaluate({
    testCases: faultCases(3),
    metrics: [
      new ToxicityMetric({ model: options.model }),
      new BiasMetric({ model: options.model }),
    ],
    env: { OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home, ...options.env },
    display: "none",
    handleInterrupt: false,
  });
}

/** A custom judge that answers in-process and says which server it stands for. */
function customJudge(endpoint: string, calls: { count: number }): JudgeModel {
  return {
    name: "team-judge",
    endpoint,
    async generate(request) {
      calls.count++;
      return JSON.stringify(defaultAnswer(request.jsonSchema, request.prompt));
    },
  };
}

describe.each([
  {
    how: "OPENAI_BASE_URL",
    at: (server: FakeOpenAIServer) => ({ model: "gpt-4.1", env: { OPENAI_BASE_URL: server.url } }),
  },
  {
    how: "VERDICT_BASE_URL",
    at: (server: FakeOpenAIServer) => ({
      model: "openai-compatible:team-model",
      env: { VERDICT_BASE_URL: server.url },
    }),
  },
  {
    how: "OLLAMA_BASE_URL",
    at: (server: FakeOpenAIServer) => ({
      model: "ollama:llama3.1",
      env: { OLLAMA_BASE_URL: server.url },
    }),
  },
  {
    how: "a provider instance's baseURL",
    at: (server: FakeOpenAIServer) => ({
      model: createOpenAI({ baseURL: server.url, apiKey: "sk-fake" }).chat("gpt-4.1"),
    }),
  },
])("the same model name at another server, named by $how", ({ at }) => {
  it("reuses no answer of the first server, and still reuses the first server's own", async () => {
    // A run pays once per distinct request (identical ones of different cases are shared or
    // hit the cache within the run): a run that reused another's answers pays for fewer.
    const atFirst = await run(at(first));
    const calls = atFirst.summary.judgeCalls;
    expect(calls).toBeGreaterThan(0);

    const atSecond = await run(at(second));
    expect(atSecond.summary.judgeCalls).toBe(calls);
    expect(second.stats().requests).toBe(calls);

    const again = await run(at(first));
    expect(again.summary.judgeCalls).toBe(0);
    expect(first.stats().requests).toBe(calls);
  });
});

describe("a custom judge's own endpoint", () => {
  it("keys its answers: the same name at another endpoint asks again", async () => {
    const calls = { count: 0 };
    const atA = await run({ model: customJudge("https://judges.example.com/a", calls) });
    const asked = calls.count;
    expect(asked).toBeGreaterThan(0);
    expect(atA.summary.judgeCalls).toBe(asked);
    const atB = await run({ model: customJudge("https://judges.example.com/b", calls) });
    expect(atB.summary.judgeCalls).toBe(asked);
    // Credentials or a query in the URL change nothing: the same server is answered from cache.
    const sameA = await run({
      model: customJudge("https://user:secret@judges.example.com/a?key=k", calls),
    });
    expect(sameA.summary.judgeCalls).toBe(0);
    expect(calls.count).toBe(2 * asked);
  });
});
