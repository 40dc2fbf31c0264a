// A judge that accepts the connection and never answers (issue 19, item 8): retry.maxElapsedMs
// bounds each request's whole life — attempts, their timeouts and the waits between them —
// over the real wire path (AI SDK OpenAI provider → HTTP → the fake server, which hangs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { faultCases } from "./fixtures/fault-cases.ts";

let server: FakeOpenAIServer;
let home: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ respond: () => reply.hang() });
  home = mkdtempSync(join(tmpdir(), "verdict-hung-"));
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

describe("a judge that never answers", () => {
  it("errors each request once maxElapsedMs is spent: one attempt timed out, the next cut at the bound", async () => {
    const result = await evaluate({
      testCases: faultCases(1),
      metrics: [
        new ToxicityMetric({ model: "gpt-4.1" }),
        new BiasMetric({ model: "gpt-4.1" }),
        new AnswerRelevancyMetric({ model: "gpt-4.1" }),
      ],
      // The shape of { timeoutMs: 3000, maxElapsedMs: 5000 }, five times shorter.
      retry: { timeoutMs: 600, maxElapsedMs: 1000, initialDelayMs: 50 },
      ignoreErrors: true,
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home },
      display: "none",
      handleInterrupt: false,
    });
    const errors = result.testResults[0]?.metricsData.map((metric) => metric.error) ?? [];
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error).toMatch(
        /^Gave up after 2 attempts in 1(\.\d)? s: the retry budget \(retry\.maxElapsedMs = 1000 ms\) ran out while waiting for an answer\./,
      );
      expect(error).toMatch(/Last failure: Judge "openai:gpt-4\.1" timed out/);
    }
    // Two requests (Toxicity and Bias share their opinions), two attempts each, none answered.
    expect(server.stats().byStatus).toEqual({ hung: 4 });
    expect(result.summary.testCases).toMatchObject({ total: 1, failed: 1, errored: 1 });
  });
});
