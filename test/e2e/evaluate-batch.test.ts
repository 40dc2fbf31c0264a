// evaluate({ batch }) over the real wire path: the AI SDK's OpenAI provider (its batch
// interface and its language model) → HTTP → the fake server's /v1/files, /v1/batches and
// /v1/responses, with real SQLite stores in temporary folders.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BatchOptions } from "../../src/evaluate/batch-options.ts";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ContextualPrecisionMetric } from "../../src/metrics/contextual-precision/contextual-precision-metric.ts";
import { ContextualRecallMetric } from "../../src/metrics/contextual-recall/contextual-recall-metric.ts";
import { ContextualRelevancyMetric } from "../../src/metrics/contextual-relevancy/contextual-relevancy-metric.ts";
import { FaithfulnessMetric } from "../../src/metrics/faithfulness/faithfulness-metric.ts";
import { HallucinationMetric } from "../../src/metrics/hallucination/hallucination-metric.ts";
import { MisuseMetric } from "../../src/metrics/misuse/misuse-metric.ts";
import { NonAdviceMetric } from "../../src/metrics/non-advice/non-advice-metric.ts";
import { PIILeakageMetric } from "../../src/metrics/pii-leakage/pii-leakage-metric.ts";
import { RoleViolationMetric } from "../../src/metrics/role-violation/role-violation-metric.ts";
import { SummarizationMetric } from "../../src/metrics/summarization/summarization-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import type { JudgeBatchEvent, RunnerEvent } from "../../src/results/runner-events.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  type FakeResponder,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { runNode } from "./run-node.ts";

let server: FakeOpenAIServer;
let home: string;
let env: NodeJS.ProcessEnv;
const quiet = { display: "none" as const, handleInterrupt: false };
// Short waits: the fake server's batches end at their first retrieval unless told otherwise.
const fast: BatchOptions = { collectMs: 30, pollIntervalMs: 5, maxPollIntervalMs: 20 };

const caseNumber = (request: FakeOpenAIRequest) =>
  /Answer number (\d+)\./.exec(request.prompt)?.[1] ?? null;
const verdictCase = (request: FakeOpenAIRequest) => /Case (\d+) /.exec(request.prompt)?.[1] ?? null;
const asks = (request: FakeOpenAIRequest, field: string) =>
  Object.hasOwn((request.jsonSchema?.properties as object | undefined) ?? {}, field);

/**
 * Answers that differ from case to case, so that no two cases ask the judge the same thing
 * (a direct run and a batch run then pay for the same requests): opinions, statements and
 * verdicts name their case, and a third of the verdicts are "yes"; reasons are the default
 * answer for their prompt.
 */
const distinctAnswers: FakeResponder = (request) => {
  const number = caseNumber(request);
  if (number !== null && asks(request, "opinions")) {
    return reply.json({ opinions: [`Case ${number} is an opinion.`] });
  }
  if (number !== null && asks(request, "statements")) {
    return reply.json({ statements: [`Case ${number} answers with a number.`] });
  }
  const judged = verdictCase(request);
  if (judged !== null && asks(request, "verdicts")) {
    const verdict = Number(judged) % 3 === 0 ? "yes" : "no";
    return reply.json({ verdicts: [{ verdict, reason: `Case ${judged} judged ${verdict}.` }] });
  }
  return undefined;
};

const cases = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    name: `case-${index}`,
    input: `Question number ${index}?`,
    actualOutput: `Answer number ${index}.`,
  }));
const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];
const scores = (result: EvaluationResult) =>
  result.testResults.map((testResult) =>
    testResult.metricsData.map((metric) => [
      metric.name,
      metric.score,
      metric.reason,
      metric.error,
    ]),
  );
const batchEvents = (events: RunnerEvent[]) =>
  events.filter((event): event is JudgeBatchEvent => event.type === "judge-batch");

/** A run made before the one under test; the server forgets it. */
async function directRunOf(run: () => Promise<EvaluationResult>): Promise<EvaluationResult> {
  const result = await run();
  server.reset();
  return result;
}

/** The direct run the batch runs are compared with: no cache, so every answer is paid. */
function directRun(count: number): Promise<EvaluationResult> {
  return directRunOf(() =>
    evaluate({ testCases: cases(count), metrics: metrics(), env, store: false, ...quiet }),
  );
}

/** A batch run of `count` cases without a store (so no cache), with the events it reported. */
async function batchRun(
  count: number,
  options: { batch?: BatchOptions } = {},
): Promise<{ result: EvaluationResult; events: RunnerEvent[] }> {
  const events: RunnerEvent[] = [];
  const result = await evaluate({
    testCases: cases(count),
    metrics: metrics(),
    env,
    store: false,
    batch: options.batch ?? fast,
    onProgress: (event) => events.push(event),
    ...quiet,
  });
  return { result, events };
}

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setResponder(distinctAnswers);
  server.setBatchOptions({});
  home = mkdtempSync(join(tmpdir(), "verdict-batch-e2e-"));
  env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("evaluate({ batch }) over HTTP", () => {
  it("scores like direct calls, sends the same request bodies, one batch a step, at half the cost", async () => {
    let directBodies: string[] = [];
    const direct = await directRunOf(async () => {
      const result = await evaluate({
        testCases: cases(12),
        metrics: metrics(),
        env,
        store: false,
        ...quiet,
      });
      directBodies = server.requests.map((request) => JSON.stringify(request.body)).sort();
      return result;
    });
    const { result: batched, events } = await batchRun(12);

    expect(scores(batched)).toEqual(scores(direct));
    expect(batched.summary.testCases.unscored).toBe(0);
    // No direct call: every request went as a line of a batch, with the body a direct call sends.
    expect(server.stats().byEndpoint.responses).toBeUndefined();
    expect(server.requests.every((request) => request.batchId !== undefined)).toBe(true);
    expect(server.requests.map((request) => JSON.stringify(request.body)).sort()).toEqual(
      directBodies,
    );
    // Step 1 of every case (opinions, shared by Toxicity and Bias, and statements) in one
    // batch, step 2 (verdicts) in the next, step 3 (reasons) in the last.
    const batches = server.batches();
    expect(batches.map((batch) => [batch.status, batch.lines])).toEqual([
      ["completed", 24],
      ["completed", 36],
      ["completed", batches[2]?.lines],
    ]);
    expect(batches[2]?.lines).toBeGreaterThan(0);
    expect(server.stats().byEndpoint["batches.create"]).toBe(3);
    // The same answers paid for, at the batch price.
    expect(batched.summary.judgeCalls).toBe(direct.summary.judgeCalls);
    expect(batched.summary.inputTokens).toBe(direct.summary.inputTokens);
    expect(batched.summary.outputTokens).toBe(direct.summary.outputTokens);
    expect(batched.summary.costUsd).toBeCloseTo((direct.summary.costUsd ?? Number.NaN) * 0.5, 12);
    // Progress heard of each batch: submitted, then ended.
    const seen = batchEvents(events);
    expect(seen.filter((event) => event.event === "submitted")).toHaveLength(3);
    expect(seen.filter((event) => event.event === "ended").map((event) => event.lines)).toEqual(
      batches.map((batch) => batch.lines),
    );
  });

  it("runs Faithfulness and Summarization in three batches, their steps gathered as they are directly", async () => {
    const ragCases = cases(4).map((testCase) => ({
      ...testCase,
      retrievalContext: [`Source of ${testCase.name}: the number is what it is.`],
    }));
    const ragMetrics = () => [
      new FaithfulnessMetric({ model: "gpt-4.1" }),
      new SummarizationMetric({ model: "gpt-4.1", n: 2 }),
    ];
    const run = (batch?: BatchOptions) =>
      evaluate({
        testCases: ragCases,
        metrics: ragMetrics(),
        env,
        store: false,
        ...(batch ? { batch } : {}),
        ...quiet,
      });
    const direct = await directRunOf(() => run());
    const batched = await run(fast);
    expect(scores(batched)).toEqual(scores(direct));
    expect(batched.summary.testCases.unscored).toBe(0);
    expect(server.stats().byEndpoint.responses).toBeUndefined();
    // Batch 1: each case's facts (of the retrieval context, and of the input), its claims
    // (one request for both metrics) and Summarization's questions; batch 2: the verdicts
    // and answers; batch 3: the reasons.
    const batches = server.batches();
    expect(batches).toHaveLength(3);
    expect(batches[0]?.lines).toBe(4 * 4);
    expect(batched.summary.judgeCalls).toBe(direct.summary.judgeCalls);
  });

  it("scores the RAG metrics like direct calls: a node's call and a case's verdicts in one batch, reasons in the next", async () => {
    const ragCases = Array.from({ length: 6 }, (_, index) => ({
      name: `rag-${index}`,
      input: `Question number ${index}?`,
      actualOutput: `Answer number ${index}.`,
      expectedOutput: `Answer number ${index}. It comes from page ${index}.`,
      context: [`Page ${index} gives answer ${index}.`, `Page ${index} has a footnote.`],
      retrievalContext: [`Node A of case ${index}.`, `Node B of case ${index}.`],
    }));
    const ragMetrics = () => [
      new ContextualRelevancyMetric({ model: "gpt-4.1" }),
      new ContextualPrecisionMetric({ model: "gpt-4.1" }),
      new ContextualRecallMetric({ model: "gpt-4.1" }),
      new HallucinationMetric({ model: "gpt-4.1" }),
    ];
    server.setResponder(undefined);
    const bodies = () =>
      [...new Set(server.requests.map((request) => JSON.stringify(request.body)))].sort();
    let directBodies: string[] = [];
    const direct = await directRunOf(async () => {
      const result = await evaluate({
        testCases: ragCases,
        metrics: ragMetrics(),
        env,
        store: false,
        ...quiet,
      });
      directBodies = bodies();
      return result;
    });
    const batched = await evaluate({
      testCases: ragCases,
      metrics: ragMetrics(),
      env,
      store: false,
      batch: fast,
      ...quiet,
    });
    expect(scores(batched)).toEqual(scores(direct));
    expect(batched.summary.testCases.unscored).toBe(0);
    expect(server.stats().byEndpoint.responses).toBeUndefined();
    // The verdict calls of every case (two per case for Contextual Relevancy's two nodes) in
    // the first batch, the reasons asked in the second.
    const batches = server.batches();
    expect(batches[0]?.lines).toBe(6 * (2 + 1 + 1 + 1));
    expect(batches.length).toBeLessThanOrEqual(2);
    // The same questions asked (the fake's reasons repeat across cases, so some are shared).
    expect(bodies()).toEqual(directBodies);
  });

  it("sends only what the cache lacks, and caches batch answers like direct ones", async () => {
    await evaluate({ testCases: cases(6), metrics: metrics(), env, ...quiet });
    server.reset();
    const batched = await evaluate({
      testCases: cases(12),
      metrics: metrics(),
      env,
      batch: fast,
      ...quiet,
    });
    expect(batched.summary.testCases.unscored).toBe(0);
    // The first 6 cases were answered directly before: only the other 6 go in batches.
    const sentCases = new Set(server.requests.map(caseNumber).filter((number) => number !== null));
    expect([...sentCases].sort()).toEqual(["10", "11", "6", "7", "8", "9"]);
    expect(server.batches()[0]?.lines).toBe(12);

    server.reset();
    const again = await evaluate({
      testCases: cases(12),
      metrics: metrics(),
      env,
      batch: fast,
      ...quiet,
    });
    expect(server.stats().requests).toBe(0);
    expect(again.summary.judgeCalls).toBe(0);
    expect(scores(again)).toEqual(scores(batched));
  });

  it("puts a line that failed into the next batch", async () => {
    const direct = await directRun(6);
    let failed: string | null = null;
    server.setResponder((request) => {
      if (failed === null && request.batchId !== undefined && caseNumber(request) === "3") {
        failed = JSON.stringify(request.body);
        return reply.serverError(500);
      }
      return distinctAnswers(request);
    });
    const { result: batched } = await batchRun(6);
    expect(scores(batched)).toEqual(scores(direct));
    expect(server.stats().byEndpoint.responses).toBeUndefined();
    const tries = server.requests.filter((request) => JSON.stringify(request.body) === failed);
    expect(tries.map((request) => request.batchId)).toEqual([
      server.batches()[0]?.id,
      server.batches()[1]?.id,
    ]);
  });

  it("sends a line directly once it failed in maxAttempts batches, or at once when it was rejected", async () => {
    const direct = await directRun(6);
    server.setResponder((request) => {
      if (request.batchId !== undefined && caseNumber(request) === "3") {
        return asks(request, "opinions") ? reply.serverError(503) : reply.error(400);
      }
      return distinctAnswers(request);
    });
    const { result: batched, events } = await batchRun(6, { batch: { ...fast, maxAttempts: 2 } });
    expect(scores(batched)).toEqual(scores(direct));
    const opinions = server.requests.filter(
      (request) => caseNumber(request) === "3" && asks(request, "opinions"),
    );
    const statements = server.requests.filter(
      (request) => caseNumber(request) === "3" && asks(request, "statements"),
    );
    // Opinions: two batches, then directly. Statements (400): one batch, then directly.
    expect(opinions.map((request) => request.batchId !== undefined)).toEqual([true, true, false]);
    expect(statements.map((request) => request.batchId !== undefined)).toEqual([true, false]);
    expect(server.stats().byEndpoint.responses).toBe(2);
    const fallbacks = batchEvents(events).filter((event) => event.event === "direct");
    expect(fallbacks.map((event) => event.message).join("\n")).toMatch(/failed \(400\): 1/);
    expect(fallbacks.map((event) => event.message).join("\n")).toMatch(/failed \(503\): 1/);
  });

  it("sends the unanswered lines of an expired batch directly", async () => {
    const direct = await directRun(12);
    server.setBatchOptions({
      expire: (batch) => (batch.sequence === 1 ? { answeredLines: 10 } : false),
    });
    const { result: batched, events } = await batchRun(12);
    expect(scores(batched)).toEqual(scores(direct));
    expect(server.batches()[0]).toMatchObject({ status: "expired", lines: 24 });
    expect(server.stats().byEndpoint.responses).toBe(14);
    const fallback = batchEvents(events).find((event) => event.event === "direct");
    expect(fallback?.lines).toBe(14);
    expect(fallback?.message).toMatch(/expired/);
  });

  it("calls judges without a batch API directly", async () => {
    const batched = await evaluate({
      testCases: cases(3),
      metrics: [new ToxicityMetric({ model: "openai-compatible:my-model" })],
      env: { ...env, VERDICT_BASE_URL: server.url },
      store: false,
      batch: fast,
      ...quiet,
    });
    expect(batched.summary.testCases.unscored).toBe(0);
    expect(server.batches()).toEqual([]);
    expect(server.stats().byEndpoint["chat.completions"]).toBeGreaterThan(0);
  });
});

describe("evaluate({ batch }) with the safety metrics", () => {
  const SAFETY_ITEMS = ["extractedPii", "roleViolations", "advices", "misuses"];
  /** Items and verdicts that name their case; a third of the cases flagged. */
  const safetyAnswers: FakeResponder = (request) => {
    const number = caseNumber(request);
    const key = SAFETY_ITEMS.find((item) => asks(request, item));
    if (number !== null && key !== undefined) {
      return reply.json({ [key]: [`Case ${number} says something to judge.`] });
    }
    const judged = verdictCase(request);
    if (judged !== null && asks(request, "verdicts")) {
      const verdict = Number(judged) % 3 === 0 ? "yes" : "no";
      return reply.json({ verdicts: [{ verdict, reason: verdict === "yes" ? "Flagged." : null }] });
    }
    return undefined;
  };
  const safetyMetrics = () => [
    new PIILeakageMetric({ model: "gpt-4.1" }),
    new RoleViolationMetric({ model: "gpt-4.1", role: "maths tutor" }),
    new NonAdviceMetric({ model: "gpt-4.1", adviceTypes: ["financial"] }),
    new MisuseMetric({ model: "gpt-4.1", domain: "mathematics" }),
  ];

  it("scores PII Leakage, Role Violation, Non-Advice and Misuse like direct calls, one batch a step", async () => {
    server.setResponder(safetyAnswers);
    const run = (batch?: BatchOptions) =>
      evaluate({
        testCases: cases(6),
        metrics: safetyMetrics(),
        env,
        store: false,
        ...(batch ? { batch } : {}),
        ...quiet,
      });
    const direct = await directRunOf(() => run());
    const batched = await run(fast);
    expect(scores(batched)).toEqual(scores(direct));
    expect(batched.summary.testCases.unscored).toBe(0);
    // Cases 0 and 3 are flagged by every metric: PII Leakage and Non-Advice score 0, Role
    // Violation 0, Misuse 1; the others score as clean.
    expect(scores(batched)[3]?.map(([name, score]) => [name, score])).toEqual([
      ["PII Leakage", 0],
      ["Role Violation", 0],
      ["Non-Advice", 0],
      ["Misuse", 1],
    ]);
    expect(server.requests.every((request) => request.batchId !== undefined)).toBe(true);
    // Extraction (6 cases × 4 metrics), verdicts (the same), reasons: one a metric, since the
    // two flagged cases ask the very same reason prompt (same reasons, same score), once.
    expect(server.batches().map((batch) => batch.lines)).toEqual([24, 24, 4]);
    expect(batched.summary.judgeCalls).toBe(direct.summary.judgeCalls);
  });
});

describe("evaluate({ batch }) with an Anthropic judge", () => {
  const anthropicMetrics = () => [
    new ToxicityMetric({ model: "anthropic:claude-sonnet-4-5" }),
    new AnswerRelevancyMetric({ model: "anthropic:claude-sonnet-4-5" }),
  ];
  const anthropicEnv = () => ({
    ...env,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-fake",
  });
  const run = (batch: BatchOptions | false, onProgress?: (event: RunnerEvent) => void) =>
    evaluate({
      testCases: cases(6),
      metrics: anthropicMetrics(),
      env: anthropicEnv(),
      store: false,
      batch,
      ...(onProgress ? { onProgress } : {}),
      ...quiet,
    });

  it("scores like direct calls through Message Batches, with the same params, at half the cost", async () => {
    const direct = await run(false);
    const directBodies = server.requests.map((request) => JSON.stringify(request.body)).sort();
    expect(server.stats().byEndpoint.messages).toBe(direct.summary.judgeCalls);
    server.reset();
    const batched = await run(fast);
    expect(scores(batched)).toEqual(scores(direct));
    expect(server.stats().byEndpoint.messages).toBeUndefined();
    expect(server.batches().map((batch) => [batch.endpoint, batch.status])).toEqual([
      ["/v1/messages", "ended"],
      ["/v1/messages", "ended"],
      ["/v1/messages", "ended"],
    ]);
    expect(server.requests.map((request) => JSON.stringify(request.body)).sort()).toEqual(
      directBodies,
    );
    expect(batched.summary.costUsd).toBeCloseTo((direct.summary.costUsd ?? Number.NaN) / 2, 12);
  });

  it("sends the expired requests of a Message Batch directly", async () => {
    const direct = await directRunOf(() => run(false));
    server.setBatchOptions({ expire: (batch) => batch.sequence === 1 && { answeredLines: 4 } });
    const events: RunnerEvent[] = [];
    const batched = await run(fast, (event) => events.push(event));
    expect(scores(batched)).toEqual(scores(direct));
    expect(server.stats().byEndpoint.messages).toBe(8);
    expect(batchEvents(events).find((event) => event.event === "direct")?.message).toMatch(
      /expired: 8/,
    );
  });
});

describe("a batch run stopped while it waits", () => {
  it("records the batch, and resumes polling it instead of submitting it again", async () => {
    const direct = await directRun(8);
    server.setBatchOptions({ completionDelayMs: 60_000 });
    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    try {
      const controller = new AbortController();
      const stopped = await evaluate({
        testCases: cases(8),
        metrics: metrics(),
        env,
        store,
        identifier: "nightly",
        batch: fast,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === "judge-batch" && event.event === "status") controller.abort();
        },
        ...quiet,
      });
      expect(stopped.summary.status).toBe("interrupted");
      const [submitted] = server.batches();
      expect(server.batches()).toHaveLength(1);
      const open = await store.judgeBatches.listOpen();
      expect(open).toMatchObject([
        { id: submitted?.id, provider: "openai.batch", judge: "openai:gpt-4.1", state: "open" },
      ]);
      expect(open[0]?.requestKeys).toHaveLength(16);

      server.setBatchOptions({});
      const retrievalsBefore = submitted?.retrievals ?? 0;
      const resumed = await evaluate({
        testCases: cases(8),
        metrics: metrics(),
        env,
        store,
        identifier: "nightly",
        resume: true,
        batch: fast,
        ...quiet,
      });
      expect(resumed.summary.status).toBe("completed");
      expect(scores(resumed)).toEqual(scores(direct));
      // The first batch was polled again and holds step 1 of every case; no later batch
      // holds any of them again.
      expect(server.batches()[0]?.retrievals).toBeGreaterThan(retrievalsBefore);
      const firstStep = server.requests.filter(
        (request) => asks(request, "opinions") || asks(request, "statements"),
      );
      expect(firstStep).toHaveLength(16);
      expect(new Set(firstStep.map((request) => request.batchId))).toEqual(
        new Set([submitted?.id]),
      );
      expect(server.stats().byEndpoint["batches.create"]).toBe(server.batches().length);
      expect(await store.judgeBatches.listOpen()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("resumes the batch after the process was killed, submitting nothing it already had", async () => {
    server.setBatchOptions({ completionDelayMs: 60_000 });
    const childEnv = { ...process.env, ...env, CASES: "8" };
    const first = runNode({ args: ["test/e2e/fixtures/evaluate-batch-child.ts"], env: childEnv });
    while ((server.batches()[0]?.retrievals ?? 0) < 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.child.kill("SIGKILL");
    await first.exited;
    expect(server.batches()).toHaveLength(1);
    const killedBatch = server.batches()[0]?.id;
    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    const open = await store.judgeBatches.listOpen();
    expect(open.map((batch) => batch.id)).toEqual([killedBatch]);
    await store.close();

    server.setBatchOptions({});
    const second = runNode({
      args: ["test/e2e/fixtures/evaluate-batch-child.ts"],
      env: { ...childEnv, RESUME: "1" },
    });
    const { code, stdout } = await second.finished;
    expect(code).toBe(0);
    expect(JSON.parse(stdout).status).toBe("completed");
    const firstStep = server.requests.filter(
      (request) => asks(request, "opinions") || asks(request, "statements"),
    );
    expect(new Set(firstStep.map((request) => request.batchId))).toEqual(new Set([killedBatch]));
    expect(server.stats().byEndpoint.responses).toBeUndefined();
  });
});
