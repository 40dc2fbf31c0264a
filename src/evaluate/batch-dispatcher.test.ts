import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { JudgeCallError } from "../errors/judge-call-error.ts";
import type {
  JudgeBatchApi,
  JudgeBatchLine,
  JudgeModel,
  JudgeRequest,
} from "../judge/judge-model.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import type { JudgeBatchEvent, RunnerEvent } from "../results/runner-events.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { type BatchOptions, resolveBatchOptions } from "./batch-options.ts";
import { evaluate } from "./evaluate.ts";
import { planBatches } from "./plan-batches.ts";

const quiet = { display: "none" as const, handleInterrupt: false };
const fast: BatchOptions = { collectMs: 5, pollIntervalMs: 1, maxPollIntervalMs: 2 };

/** A judge's answer by the field its step asks for: one opinion per case, judged not toxic. */
function answer(request: JudgeRequest): string {
  const properties = (request.jsonSchema as { properties?: object }).properties ?? {};
  const reply = /Reply \d+/.exec(request.prompt)?.[0];
  if ("opinions" in properties) return JSON.stringify({ opinions: [`${reply} is fine.`] });
  if ("verdicts" in properties) return JSON.stringify({ verdicts: [{ verdict: "no" }] });
  return JSON.stringify({ reason: "Fine." });
}

/**
 * A judge with a batch API of its own, in memory: each batch ends at its `endsAfter`-th
 * status check, every line answered by {@link answer}. Counts every call.
 */
function batchingJudge(
  options: { endsAfter?: number; failStart?: boolean; resultsTakeMs?: number } = {},
) {
  const batches = new Map<string, { lines: JudgeBatchLine[]; checks: number }>();
  const calls = { start: 0, status: 0, results: 0, generate: 0 };
  const api: JudgeBatchApi = {
    provider: "memory.batch",
    maxLines: 1000,
    maxBytes: 100_000_000,
    async start({ lines }) {
      calls.start++;
      if (options.failStart) throw new Error("this account has no batch access");
      const batchId = `batch-${calls.start}`;
      batches.set(batchId, { lines: [...lines], checks: 0 });
      return { batchId, phase: "pending", providerStatus: "validating", counts: null, error: null };
    },
    async status({ batchId }) {
      calls.status++;
      const batch = batches.get(batchId);
      if (batch === undefined) {
        throw new JudgeCallError({ message: `No batch ${batchId}`, status: 404, retryable: false });
      }
      batch.checks++;
      const ended = batch.checks >= (options.endsAfter ?? 1);
      return {
        batchId,
        phase: ended ? "ended" : "pending",
        providerStatus: ended ? "completed" : "in_progress",
        counts: null,
        error: null,
      };
    },
    async results({ batchId }) {
      calls.results++;
      if (options.resultsTakeMs !== undefined) await delay(options.resultsTakeMs);
      return (batches.get(batchId)?.lines ?? []).map((line) => ({
        id: line.id,
        status: "answered" as const,
        answer: { text: answer(line.request), usage: { inputTokens: 10, outputTokens: 2 } },
      }));
    },
  };
  const judge: JudgeModel = {
    name: "memory-judge",
    batch: api,
    async generate(request) {
      calls.generate++;
      return answer(request);
    },
  };
  return { judge, calls, batches };
}

const cases = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ input: "Hi?", actualOutput: `Reply ${index}.` }));
const events = (list: RunnerEvent[]) =>
  list.filter((event): event is JudgeBatchEvent => event.type === "judge-batch");

describe("evaluate({ batch }) with a judge's own batch API", () => {
  it("batches a JudgeModel of your own: one batch a step, generate() never called", async () => {
    const { judge, calls, batches } = batchingJudge({ endsAfter: 3 });
    const result = await evaluate({
      testCases: cases(4),
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      batch: fast,
      ...quiet,
    });
    expect(result.testResults.map((testResult) => testResult.metricsData[0]?.score)).toEqual([
      0, 0, 0, 0,
    ]);
    expect(calls.generate).toBe(0);
    // Opinions of the 4 cases, then their verdicts; no reason asked (nothing toxic).
    expect([...batches.values()].map((batch) => batch.lines.length)).toEqual([4, 4]);
    expect(calls.status).toBe(6);
  });

  it("gives a batch's results download its own time, past a short retry.maxElapsedMs", async () => {
    const { judge, calls } = batchingJudge({ resultsTakeMs: 40 });
    const result = await evaluate({
      testCases: cases(2),
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      batch: fast,
      // Bounds each request's whole life; a results download is one long read, not a request.
      retry: { maxElapsedMs: 5 },
      ...quiet,
    });
    expect(result.testResults.map((testResult) => testResult.metricsData[0]?.error)).toEqual([
      null,
      null,
    ]);
    expect(calls.results).toBe(2);
  });

  it("splits a step into batches of at most maxLines requests", async () => {
    const { judge, batches } = batchingJudge();
    await evaluate({
      testCases: cases(5),
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      batch: { ...fast, maxLines: 2 },
      ...quiet,
    });
    expect([...batches.values()].map((batch) => batch.lines.length)).toEqual([2, 2, 1, 2, 2, 1]);
  });

  it("sends directly when a batch cannot be made: that step and the judge's later ones, said once", async () => {
    const { judge, calls } = batchingJudge({ failStart: true });
    const seen: RunnerEvent[] = [];
    const result = await evaluate({
      testCases: cases(3),
      metrics: [new ToxicityMetric({ model: judge })],
      store: false,
      batch: fast,
      onProgress: (event) => seen.push(event),
      ...quiet,
    });
    expect(result.summary.testCases.unscored).toBe(0);
    expect(calls.start).toBe(1);
    expect(calls.generate).toBe(6);
    const direct = events(seen).filter((event) => event.event === "direct");
    expect(direct).toHaveLength(1);
    expect(direct[0]?.lines).toBe(3);
    expect(direct[0]?.message).toMatch(
      /Judge "memory-judge": a batch could not be submitted \(.*no batch access.*\); its requests, and the later ones of this judge, are sent directly/,
    );
  });

  it("leaves the batch open when the run is cancelled, and stops polling it", async () => {
    const { judge, calls } = batchingJudge({ endsAfter: Number.POSITIVE_INFINITY });
    const store = new MemoryRunStore();
    const controller = new AbortController();
    const result = await evaluate({
      testCases: cases(2),
      metrics: [new ToxicityMetric({ model: judge })],
      store,
      batch: fast,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === "judge-batch" && event.event === "status") controller.abort();
      },
      ...quiet,
    });
    expect(result.summary.status).toBe("interrupted");
    expect(await store.judgeBatches.listOpen()).toMatchObject([
      { id: "batch-1", provider: "memory.batch", judge: "memory-judge", state: "open" },
    ]);
    const checks = calls.status;
    await delay(30);
    expect(calls.status).toBe(checks);
  });

  it("forgets a recorded batch its provider no longer knows, and submits its requests anew", async () => {
    const first = batchingJudge({ endsAfter: Number.POSITIVE_INFINITY });
    const store = new MemoryRunStore();
    const controller = new AbortController();
    await evaluate({
      testCases: cases(2),
      metrics: [new ToxicityMetric({ model: first.judge })],
      store,
      batch: fast,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === "judge-batch" && event.event === "submitted") controller.abort();
      },
      ...quiet,
    });
    // Another process, whose provider has never heard of batch-1.
    const second = batchingJudge();
    const seen: RunnerEvent[] = [];
    const result = await evaluate({
      testCases: cases(2),
      metrics: [new ToxicityMetric({ model: second.judge })],
      store,
      batch: fast,
      onProgress: (event) => seen.push(event),
      ...quiet,
    });
    expect(result.summary.testCases.unscored).toBe(0);
    expect(events(seen).map((event) => [event.event, event.batchId])).toEqual(
      expect.arrayContaining([
        ["resumed", "batch-1"],
        ["submitted", "batch-1"],
      ]),
    );
    expect(second.calls.start).toBe(2);
    expect(await store.judgeBatches.listOpen()).toEqual([]);
  });

  it.each([
    ["rejects", () => Promise.reject(new Error("disk full"))],
    [
      "throws before it returns a promise",
      (): Promise<void> => {
        throw new Error("disk full");
      },
    ],
  ])(
    "warns once when the store cannot record batches (its save %s), and scores all the same",
    async (_how, failingSave) => {
      const { judge } = batchingJudge();
      const store = new MemoryRunStore();
      const save = vi.spyOn(store.judgeBatches, "save").mockImplementation(failingSave);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      try {
        const result = await evaluate({
          testCases: cases(2),
          metrics: [new ToxicityMetric({ model: judge })],
          store,
          batch: fast,
          ...quiet,
        });
        expect(result.summary.testCases.unscored).toBe(0);
        const warnings = warn.mock.calls.map(([message]) => String(message));
        expect(warnings.filter((message) => message.includes("could not be recorded"))).toEqual([
          expect.stringMatching(
            /judge batch batch-1 could not be recorded in the store \(disk full\)/,
          ),
        ]);
      } finally {
        save.mockRestore();
        warn.mockRestore();
      }
    },
  );
});

describe("resolveBatchOptions", () => {
  it("fills in the defaults", () => {
    expect(resolveBatchOptions(true)).toEqual({
      collectMs: 200,
      pollIntervalMs: 5000,
      maxPollIntervalMs: 60_000,
      maxAttempts: 2,
      maxLines: undefined,
    });
  });

  it("refuses a bad value, naming the field", async () => {
    expect(() => resolveBatchOptions({ maxAttempts: 0 })).toThrow(
      "batch.maxAttempts must be a whole number of at least 1; got 0.",
    );
    expect(() => resolveBatchOptions({ pollIntervalMs: Number.NaN })).toThrow(/pollIntervalMs/);
    await expect(
      evaluate({ testCases: cases(1), metrics: [new ToxicityMetric()], batch: { maxLines: 1.5 } }),
    ).rejects.toThrow(/batch.maxLines must be a whole number/);
  });
});

describe("planBatches", () => {
  const entry = (prompt: string) =>
    ({ request: { prompt, jsonSchema: {}, schema: undefined } }) as never;

  it("splits by line count and by estimated bytes", () => {
    const entries = [entry("a"), entry("b"), entry("c")];
    expect(
      planBatches({ entries, maxLines: 2, maxBytes: 1e9 }).map((batch) => batch.length),
    ).toEqual([2, 1]);
    const big = [entry("x".repeat(5000)), entry("y".repeat(5000)), entry("z")];
    expect(
      planBatches({ entries: big, maxLines: 10, maxBytes: 8000 }).map((batch) => batch.length),
    ).toEqual([1, 2]);
  });
});
