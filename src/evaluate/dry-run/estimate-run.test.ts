import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../../test/fixtures/images.ts";
import { answer } from "../../../test/fixtures/judge-answers.ts";
import { ConfigError } from "../../errors/config-error.ts";
import type { JudgeModel } from "../../judge/judge-model.ts";
import { BiasMetric } from "../../metrics/bias/bias-metric.ts";
import { ToxicityTemplate } from "../../metrics/toxicity/prompts.ts";
import { ToxicityMetric } from "../../metrics/toxicity/toxicity-metric.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { image, mm } from "../../test-case/image.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { evaluate } from "../evaluate.ts";

const PRICE = { inputPerMillion: 2, outputPerMillion: 8 };
const quiet = { display: "none" as const, handleInterrupt: false };
const cases = [
  { name: "a", input: "How is the plan?", actualOutput: "It is the best plan. It starts in May." },
  { name: "b", input: "How is the team?", actualOutput: "The team is nasty. It has six people." },
  { name: "c", input: "When is it?", actualOutput: "It starts on the first of May." },
];

/** A judge that fails the test if it is ever asked. */
function untouchable(price = PRICE): MockJudge {
  return new MockJudge({ answers: [], price });
}

describe("evaluate({ dryRun: true })", () => {
  it("asks no judge and prices the expected calls and tokens at the judge's price", async () => {
    const judge = untouchable();
    const metric = new ToxicityMetric({ model: judge });
    const estimate = await evaluate({
      testCases: cases,
      metrics: [metric],
      store: new MemoryRunStore(),
      dryRun: true,
      ...quiet,
    });
    expect(judge.calls).toEqual([]);
    expect(estimate.testCases).toBe(3);
    // Each case's calls are those the metric's own estimate expects.
    const expectedCalls = (await Promise.all(cases.map((testCase) => metric.estimate(testCase))))
      .flat()
      .reduce((sum, step) => sum + step.calls.expected, 0);
    const total = estimate.total;
    expect(total.judgeCalls.expected).toBeCloseTo(expectedCalls, 6);
    expect(total.judgeCalls.low).toBe(3);
    expect(total.judgeCalls.high).toBe(9);
    // The first step's prompt is the real one: characters ÷ 4.
    const firstPrompts = cases.map((testCase) =>
      Math.ceil(
        ToxicityTemplate.generateOpinions({
          actualOutput: testCase.actualOutput,
          multimodal: false,
        }).length / 4,
      ),
    );
    expect(total.inputTokens.low).toBe(firstPrompts.reduce((sum, tokens) => sum + tokens, 0));
    expect(total.costUsd?.expected).toBeCloseTo(
      (total.inputTokens.expected * 2 + total.outputTokens.expected * 8) / 1_000_000,
      12,
    );
    expect(estimate.metrics.map((entry) => [entry.name, entry.judge])).toEqual([
      ["Toxicity", "mock-judge"],
    ]);
    expect(estimate.unpricedJudges).toEqual([]);
  });

  it("counts what the judge cache answers as free: after a run, the same run costs nothing", async () => {
    const store = new MemoryRunStore();
    const judge = new MockJudge({ answers: answer, price: PRICE });
    const result = await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: judge })],
      store,
      ...quiet,
    });
    const dry = untouchable();
    const estimate = await evaluate({
      testCases: [...cases, { input: "And now?", actualOutput: "Now it is great." }],
      metrics: [new ToxicityMetric({ model: dry })],
      store,
      dryRun: true,
      ...quiet,
    });
    expect(dry.calls).toEqual([]);
    // The three cases the run scored come from the cache to their last step; the new one is paid.
    expect(estimate.total.cacheHits).toBe(result.summary.judgeCalls);
    expect(estimate.total.judgeCalls.low).toBe(1);
    const again = await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: new MockJudge({ answers: [], price: PRICE }) })],
      store,
      dryRun: true,
      ...quiet,
    });
    expect(again.total.judgeCalls).toEqual({ low: 0, expected: 0, high: 0 });
    expect(again.total.costUsd).toEqual({ low: 0, expected: 0, high: 0 });
  });

  it("does not look up the cache with cache: false", async () => {
    const store = new MemoryRunStore();
    await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer, price: PRICE }) })],
      store,
      ...quiet,
    });
    const estimate = await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: untouchable() })],
      store,
      cache: false,
      dryRun: true,
      ...quiet,
    });
    expect(estimate.cacheLookedUp).toBe(false);
    expect(estimate.total.cacheHits).toBe(0);
    expect(estimate.total.judgeCalls.low).toBe(3);
  });

  it("counts the opinion request Toxicity and Bias share once, as the run asks it once", async () => {
    const judge = untouchable();
    const alone = await evaluate({
      testCases: cases,
      metrics: [new BiasMetric({ model: judge })],
      store: false,
      dryRun: true,
      ...quiet,
    });
    const both = await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: judge }), new BiasMetric({ model: judge })],
      store: false,
      dryRun: true,
      ...quiet,
    });
    const bias = both.metrics.find((entry) => entry.name === "Bias");
    // Bias pays its verdicts and reasons, not the opinions Toxicity asked for first.
    expect(bias?.sharedCalls).toBe(3);
    expect(bias?.judgeCalls.expected).toBeCloseTo(alone.total.judgeCalls.expected - 3, 6);
  });

  it("counts a request several cases ask once when the run caches answers, even before its store exists", async () => {
    const home = mkdtempSync(join(tmpdir(), "verdict-dry-run-"));
    try {
      const first = cases[0] as (typeof cases)[number];
      const twice = [first, { ...first, name: "a again" }];
      const estimateOf = (cache: boolean) =>
        evaluate({
          testCases: twice,
          metrics: [new ToxicityMetric({ model: untouchable() })],
          env: { VERDICT_HOME: home },
          cache,
          dryRun: true,
          ...quiet,
        });
      const cached = await estimateOf(true);
      expect(cached.cacheLookedUp).toBe(false);
      const once = await evaluate({
        testCases: [first],
        metrics: [new ToxicityMetric({ model: untouchable() })],
        store: false,
        dryRun: true,
        ...quiet,
      });
      // The second case's requests are the first's: the run's cache answers them.
      expect(cached.total.judgeCalls).toEqual(once.total.judgeCalls);
      expect(cached.total.sharedCalls).toBeCloseTo(once.total.judgeCalls.expected, 6);
      // Without a cache, each case pays its own.
      const uncached = await estimateOf(false);
      expect(uncached.total.judgeCalls.expected).toBeCloseTo(2 * once.total.judgeCalls.expected, 6);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("counts once the later steps two cases are expected to ask alike", async () => {
    // Different texts whose likely opinions are the same sentence: the same verdict request.
    const alike = [
      { input: "q1", actualOutput: "It is the best plan. Filed on May 1." },
      { input: "q2", actualOutput: "It is the best plan. Filed on June 2." },
    ];
    const estimate = await evaluate({
      testCases: alike,
      metrics: [new ToxicityMetric({ model: untouchable() })],
      store: new MemoryRunStore(),
      dryRun: true,
      ...quiet,
    });
    const [first] = await Promise.all(
      alike.map((testCase) => new ToxicityMetric().estimate(testCase)),
    );
    const later = (first ?? []).slice(1).reduce((sum, step) => sum + step.calls.expected, 0);
    // Two opinion requests (different texts), one verdict request and what follows it.
    expect(estimate.total.judgeCalls.expected).toBeCloseTo(2 + later, 6);
  });

  it("counts an image as a low-detail one, and a high-detail one in the range", async () => {
    const withImage = {
      input: "What is in the picture?",
      actualOutput: mm`It is the best photo I took: ${image(PNG_BYTES)}`,
    };
    const estimate = await evaluate({
      testCases: [withImage],
      metrics: [new ToxicityMetric({ model: untouchable() })],
      store: false,
      dryRun: true,
      ...quiet,
    });
    const prompt = ToxicityTemplate.generateOpinions({
      actualOutput: "It is the best photo I took: [image 1]",
      multimodal: true,
    });
    const [opinions, ...later] = await new ToxicityMetric().estimate(withImage);
    const text = Math.ceil(prompt.length / 4);
    expect(opinions?.inputTokens.expected).toBe(text + 85);
    // The opinion request: its prompt and one image at 85 tokens, up to 2,500 in the range.
    const laterHigh = later.reduce((sum, step) => sum + step.calls.high * step.inputTokens.high, 0);
    expect(estimate.total.inputTokens.high).toBe(text + 2_500 + laterHigh);
    expect(estimate.total.inputTokens.low).toBe(text + 85);
  });

  it("says the cost is unknown for a judge without a price, rather than guessing", async () => {
    const judge: JudgeModel = {
      name: "my-judge",
      generate: async () => {
        throw new Error("a dry run must not call the judge");
      },
    };
    const estimate = await evaluate({
      testCases: cases,
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      dryRun: true,
      ...quiet,
    });
    expect(estimate.total.costUsd).toBeNull();
    expect(estimate.unpricedJudges).toEqual(["my-judge"]);
    expect(estimate.total.judgeCalls.expected).toBeGreaterThan(3);
  });

  it("prices batched runs at the batch discount for judges with a batch API", async () => {
    const batchJudge = Object.assign(untouchable(), { batch: { provider: "test.batch" } });
    const options = {
      testCases: cases,
      metrics: [new ToxicityMetric({ model: batchJudge as unknown as JudgeModel })],
      store: false as const,
      dryRun: true as const,
      ...quiet,
    };
    const direct = await evaluate(options);
    const batched = await evaluate({ ...options, batch: true });
    expect(batched.batch).toBe(true);
    expect(batched.total.costUsd?.expected).toBeCloseTo(
      (direct.total.costUsd?.expected ?? 0) / 2,
      12,
    );
  });

  it("leaves out the cases a resumed run already finished", async () => {
    const store = new MemoryRunStore();
    const metric = () => new ToxicityMetric({ model: new MockJudge({ answers: answer }) });
    await evaluate({
      testCases: cases.slice(0, 2),
      metrics: [metric()],
      store,
      identifier: "nightly",
      ...quiet,
    });
    const estimate = await evaluate({
      testCases: cases,
      metrics: [metric()],
      store,
      identifier: "nightly",
      resume: true,
      cache: false,
      dryRun: true,
      ...quiet,
    });
    expect(estimate.resumedTestCases).toBe(2);
    expect(estimate.testCases).toBe(1);
  });

  it("refuses what it cannot estimate, saying what to do", async () => {
    const metrics = [new ToxicityMetric({ model: untouchable() })];
    await expect(
      evaluate({
        testCases: (function* () {
          yield* cases;
        })(),
        metrics,
        dryRun: true,
        ...quiet,
      }),
    ).rejects.toThrow(/pass testCases as an array/);
    await expect(
      evaluate({
        goldens: [{ input: "q" }],
        observedCallback: () => "a",
        dryRun: true,
      } as never),
    ).rejects.toThrow(ConfigError);
  });
});
