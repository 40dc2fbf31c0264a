import { describe, expect, it } from "vitest";
import { answer } from "../../../test/fixtures/judge-answers.ts";
import { ConfigError } from "../../errors/config-error.ts";
import type { JudgeModel, JudgeRequest } from "../../judge/judge-model.ts";
import { AnswerRelevancyMetric } from "../../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { ToxicityMetric } from "../../metrics/toxicity/toxicity-metric.ts";
import type { RunnerEvent } from "../../results/runner-events.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { readTestResults } from "../../store/read-test-results.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { evaluate } from "../evaluate.ts";

const PRICE = { inputPerMillion: 2, outputPerMillion: 8 };
const quiet = { display: "none" as const, handleInterrupt: false };
const testCases = Array.from({ length: 24 }, (_, index) => ({
  name: `case-${index}`,
  input: `Question ${index}?`,
  actualOutput: index % 3 === 0 ? `A nasty answer ${index}.` : `A fine answer ${index}.`,
}));

function metricsOf(judge: JudgeModel) {
  return [new ToxicityMetric({ model: judge }), new AnswerRelevancyMetric({ model: judge })];
}

describe("evaluate({ budget })", () => {
  it("stops before a call could pass the budget, keeps whole cases, and resumes paying nothing twice", async () => {
    const full = await evaluate({
      testCases,
      metrics: metricsOf(new MockJudge({ answers: answer, price: PRICE, latencyMs: 1 })),
      store: new MemoryRunStore(),
      ...quiet,
    });
    const fullCost = full.summary.costUsd ?? Number.NaN;
    const maxCostUsd = fullCost * 0.4;
    const store = new MemoryRunStore();
    const judge = new MockJudge({ answers: answer, price: PRICE, latencyMs: 1 });
    const messages: Array<string | null> = [];
    const first = await evaluate({
      testCases,
      metrics: metricsOf(judge),
      store,
      identifier: "nightly",
      budget: { maxCostUsd },
      onProgress: (event: RunnerEvent) => {
        if (event.type === "run-end") messages.push(event.message);
      },
      ...quiet,
    });
    expect(first.summary.status).toBe("budget-exhausted");
    expect(first.summary.costUsd).toBeLessThanOrEqual(maxCostUsd);
    expect(first.summary.budget).toEqual({
      maxCostUsd,
      maxTokens: null,
      spentCostUsd: first.summary.costUsd,
      spentTokens: first.summary.inputTokens + first.summary.outputTokens,
    });
    const finished = first.testResults.length;
    expect(finished).toBeGreaterThan(0);
    expect(finished).toBeLessThan(testCases.length);
    expect(messages[0]).toMatch(
      /^Stopped by the budget: spent \$0\.\d{4} of \$0\.\d{4}, and the next judge call could have passed it\. \d+\/24 test cases finished and stored, \d+ left unscored\. Resume with a larger budget: evaluate\(\{ identifier: "nightly", resume: true, budget: \{ maxCostUsd: [\d.]+ \}, … \}\)\.$/,
    );
    // What is stored is whole: every finished case with both metrics scored, no other case.
    const run = await store.runs.getRun("nightly");
    const stored = [];
    for await (const entry of readTestResults(store, run?.id ?? "")) stored.push(entry.result);
    expect(stored).toHaveLength(finished);
    for (const result of stored) {
      expect(result.metricsData.map((metric) => metric.score === null)).toEqual([false, false]);
    }
    expect(run?.status).toBe("budget-exhausted");
    expect(run?.summary?.budget?.spentCostUsd).toBe(first.summary.costUsd);

    const second = await evaluate({
      testCases,
      metrics: metricsOf(judge),
      store,
      identifier: "nightly",
      resume: true,
      budget: { maxCostUsd: fullCost * 2 },
      ...quiet,
    });
    expect(second.summary.status).toBe("completed");
    expect(second.testResults).toHaveLength(testCases.length);
    // Nothing paid twice: the two parts make exactly the calls of one whole run.
    expect(first.summary.judgeCalls + second.summary.judgeCalls).toBe(full.summary.judgeCalls);
    expect(judge.calls).toHaveLength(full.summary.judgeCalls);
    expect((first.summary.costUsd ?? 0) + (second.summary.costUsd ?? 0)).toBeCloseTo(fullCost, 12);
    // The budget counts the run's earlier part.
    expect(second.summary.budget?.spentCostUsd).toBeCloseTo(fullCost, 12);
  });

  it("caps tokens with any judge, and sends each request with an output limit", async () => {
    const limits: Array<number | undefined> = [];
    const mock = new MockJudge({ answers: answer });
    const judge: JudgeModel = {
      name: "token-judge",
      generate: (request: JudgeRequest) => {
        limits.push(request.maxOutputTokens);
        return mock.generate(request);
      },
    };
    const result = await evaluate({
      testCases,
      metrics: metricsOf(judge),
      store: false,
      // Room for a few calls: one call's worst case (prompt bytes, twice its tokens) is ~4,500.
      budget: { maxTokens: 12_000 },
      ...quiet,
    });
    expect(result.summary.status).toBe("budget-exhausted");
    expect(result.summary.inputTokens + result.summary.outputTokens).toBeLessThanOrEqual(12_000);
    expect(limits.length).toBeGreaterThan(0);
    expect(limits.every((limit) => limit !== undefined && limit >= 1_024)).toBe(true);
  });

  it("refuses a cost budget with a judge of unknown price, and a budget without a cap, before any call", async () => {
    const judge = new MockJudge({ answers: answer });
    await expect(
      evaluate({
        testCases,
        metrics: metricsOf(judge),
        store: false,
        budget: { maxCostUsd: 1 },
        ...quiet,
      }),
    ).rejects.toThrow(/needs the price of every judge, and verdict has none for "mock-judge"/);
    await expect(
      evaluate({ testCases, metrics: metricsOf(judge), store: false, budget: {}, ...quiet }),
    ).rejects.toThrow(ConfigError);
    await expect(
      evaluate({
        testCases,
        metrics: metricsOf(judge),
        store: false,
        budget: { maxCostUsd: -1 },
        ...quiet,
      }),
    ).rejects.toThrow("budget.maxCostUsd must be a number above 0; got -1");
    expect(judge.calls).toEqual([]);
  });
});
