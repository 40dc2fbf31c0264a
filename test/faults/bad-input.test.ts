// Issue 9, items 5–7: a run over good cases mixed with every kind of bad one, on the real
// wire path (AI SDK OpenAI provider → HTTP → the fake server, images included) and the
// default node:sqlite store; and every kind of broken dataset file.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatasetFileError } from "../../src/dataset/dataset-file-error.ts";
import { readGoldens } from "../../src/dataset/read-goldens.ts";
import { EvalError } from "../../src/errors/eval-error.ts";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { AnswerRelevancyMetric } from "../../src/metrics/answer-relevancy/answer-relevancy-metric.ts";
import type { BaseMetric } from "../../src/metrics/base-metric.ts";
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
import type { MetricData } from "../../src/results/metric-data.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import { image } from "../../src/test-case/image.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  BAD_CASES,
  BAD_DATASETS,
  BAD_IMAGE_CALLS,
  BAD_RAG_CASES,
  isRawError,
  seededRandom,
} from "../fixtures/bad-inputs.ts";
import { PNG_BYTES, PNG_DATA_URL } from "../fixtures/images.ts";

let server: FakeOpenAIServer;
let folder: string;
let env: NodeJS.ProcessEnv;
const quiet = { display: "none" as const, handleInterrupt: false };

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  folder = mkdtempSync(join(tmpdir(), "verdict-bad-input-"));
  env = {
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-fake",
    VERDICT_HOME: join(folder, "home"),
  };
});
afterAll(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

function goodCase(index: number): Record<string, unknown> {
  const png = join(folder, `good-${index}.png`);
  writeFileSync(png, PNG_BYTES);
  const input =
    index % 3 === 0
      ? ["What is this? ", image(png)]
      : index % 3 === 1
        ? ["And this? ", image(PNG_DATA_URL)]
        : "Tell me about the tower.";
  return {
    name: `good-${index}`,
    input,
    actualOutput: `It is the Eiffel Tower (${index}).`,
    retrievalContext: ["The Eiffel Tower is a wrought-iron tower in Paris, finished in 1889."],
  };
}

/** A metric's result on a case: scored, or errored naming the case (never a raw error). */
function expectOutcome(
  data: MetricData,
  expected: { errored: boolean; index: number; name: string; label: string },
): void {
  const { index, name, label } = expected;
  if (!expected.errored) {
    expect(data.error, label).toBeNull();
    expect(typeof data.score, label).toBe("number");
    return;
  }
  expect(data.score, label).toBeNull();
  expect(data.error, label).toBeTruthy();
  // Names itself: by index and list position, or (a metric's own error) by name.
  const named = data.error?.includes(`testCases[${index}]`) || data.error?.includes(`"${name}"`);
  expect(named, `${label}: ${data.error}`).toBe(true);
  expect(isRawError(data.error ?? ""), `${label}: ${data.error}`).toBe(false);
}

/** `entries` shuffled in place (Fisher–Yates) with a fixed seed. */
function shuffled<T>(entries: T[], seed: number): T[] {
  const random = seededRandom(seed);
  for (let index = entries.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [entries[index], entries[other]] = [entries[other] as T, entries[index] as T];
  }
  return entries;
}

/** What evaluate() throws for `testCases` without ignoreErrors (an Error when it does not). */
function firstFailure(testCases: unknown[], metrics: BaseMetric<object>[]): Promise<Error> {
  return evaluate({ testCases: testCases as never, metrics, store: false, env, ...quiet }).then(
    () => new Error("expected evaluate() to fail"),
    (caught: unknown) => caught as Error,
  );
}

/** Good cases and one of every bad kind, shuffled with a fixed seed. */
function mixedRun(): Array<{
  value: unknown;
  name: string;
  expect: "good" | "errored" | "scored";
  kind: string;
}> {
  const entries: Array<{
    value: unknown;
    name: string;
    expect: "good" | "errored" | "scored";
    kind: string;
  }> = [];
  for (let index = 0; index < 12; index++) {
    entries.push({ value: goodCase(index), name: `good-${index}`, expect: "good", kind: "good" });
  }
  for (const [position, bad] of BAD_CASES.entries()) {
    const name = `bad-${position}`;
    entries.push({ value: bad.make(folder, name), name, expect: bad.expect, kind: bad.kind });
  }
  return shuffled(entries, 9);
}

const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
  new PIILeakageMetric({ model: "gpt-4.1" }),
  new RoleViolationMetric({ model: "gpt-4.1", role: "museum guide" }),
  new NonAdviceMetric({ model: "gpt-4.1", adviceTypes: ["financial"] }),
  new MisuseMetric({ model: "gpt-4.1", domain: "travel" }),
  new FaithfulnessMetric({ model: "gpt-4.1" }),
  new SummarizationMetric({ model: "gpt-4.1" }),
];

describe("a run mixing good cases with every kind of bad one", () => {
  it("with ignoreErrors: every good case scored, every bad case errored naming itself", async () => {
    const entries = mixedRun();
    const store = SqliteRunStore.open({ env });
    const result = await evaluate({
      testCases: entries.map((entry) => entry.value) as never,
      metrics: metrics(),
      ignoreErrors: true,
      store,
      env,
      ...quiet,
    });
    await store.close();
    expect(result.testResults).toHaveLength(entries.length);
    for (const [index, entry] of entries.entries()) {
      const testResult = result.testResults[index];
      const label = `${entry.kind} (#${index})`;
      expect(testResult?.index, label).toBe(index);
      expect(testResult?.metricsData, label).toHaveLength(metrics().length);
      for (const data of testResult?.metricsData ?? []) {
        expectOutcome(data, {
          errored: entry.expect === "errored",
          index,
          name: entry.name,
          label,
        });
      }
    }
    // The images of good cases went over the wire as image parts.
    expect(server.requests.some((request) => request.images.includes(PNG_DATA_URL))).toBe(true);
    // Stored as run: every case, in the real SQLite store.
    const reopened = SqliteRunStore.open({ env });
    try {
      expect(await reopened.runs.getTestResults(result.testRunId)).toHaveLength(entries.length);
    } finally {
      await reopened.close();
    }
  });

  it("without ignoreErrors: the error names the first bad case, before any judge call", async () => {
    const entries = mixedRun();
    const firstInvalid = entries.findIndex(
      (entry) => entry.expect === "errored" && !entry.kind.includes("output"),
    );
    server.reset();
    const error = await firstFailure(
      entries.map((entry) => entry.value),
      metrics(),
    );
    expect(error).toBeInstanceOf(EvalError);
    expect(isRawError(error.message, error.name)).toBe(false);
    // Invalid cases are found before the run (blank outputs only when their metric runs).
    expect(error.message).toContain(`testCases[${firstInvalid}]`);
    expect(error.message).toContain(`"${entries[firstInvalid]?.name}"`);
    expect(server.stats().requests).toBe(0);
  });
});

const ragMetrics = () => [
  new ContextualRelevancyMetric({ model: "gpt-4.1" }),
  new ContextualPrecisionMetric({ model: "gpt-4.1" }),
  new ContextualRecallMetric({ model: "gpt-4.1" }),
  new HallucinationMetric({ model: "gpt-4.1" }),
];

/** Good RAG cases (images in the input) and one of every bad RAG kind, shuffled with a fixed seed. */
function mixedRagRun() {
  const entries = BAD_RAG_CASES.map((bad, position) => ({
    value: bad.make(folder, `bad-rag-${position}`),
    name: `bad-rag-${position}`,
    kind: bad.kind,
    errored: bad.errored,
  }));
  for (let index = 0; index < 6; index++) {
    const input =
      index % 2 === 0 ? ["What does this receipt's policy say? ", image(PNG_DATA_URL)] : "Refunds?";
    entries.push({
      value: {
        name: `good-rag-${index}`,
        input,
        actualOutput: `Refunds are accepted within 30 days (${index}).`,
        expectedOutput: "Refunds are accepted within 30 days. Shipping is free.",
        context: ["Refunds are accepted within 30 days of delivery."],
        retrievalContext: [`Refunds are accepted within 30 days (${index}).`, "Shipping is free."],
      },
      name: `good-rag-${index}`,
      kind: "good",
      errored: [],
    });
  }
  return shuffled(entries, 21);
}

describe("a RAG run mixing good cases with every kind of bad RAG field", () => {
  it("with ignoreErrors: scored where a metric has what it needs, errored naming the case where not", async () => {
    const entries = mixedRagRun();
    const result = await evaluate({
      testCases: entries.map((entry) => entry.value) as never,
      metrics: ragMetrics(),
      ignoreErrors: true,
      store: false,
      env,
      ...quiet,
    });
    expect(result.testResults).toHaveLength(entries.length);
    for (const [index, entry] of entries.entries()) {
      const metricsData = result.testResults[index]?.metricsData ?? [];
      expect(metricsData, entry.kind).toHaveLength(4);
      for (const data of metricsData) {
        const errored = entry.errored === "all" || entry.errored.includes(data.name);
        const label = `${entry.kind} (#${index}), ${data.name}`;
        expectOutcome(data, { errored, index, name: entry.name, label });
      }
    }
  });

  it("without ignoreErrors: the error names the first invalid case, before any judge call", async () => {
    const entries = mixedRagRun();
    const firstInvalid = entries.findIndex((entry) => entry.errored === "all");
    server.reset();
    const error = await firstFailure(
      entries.map((entry) => entry.value),
      ragMetrics(),
    );
    expect(error).toBeInstanceOf(EvalError);
    expect(error.message).toContain(`testCases[${firstInvalid}]`);
    expect(server.stats().requests).toBe(0);
  });
});

describe("image() refuses each kind of unusable image at once", () => {
  it.each(BAD_IMAGE_CALLS.map((entry) => [entry.kind, entry.call] as const))(
    "%s",
    (_kind, call) => {
      let thrown: unknown = null;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(EvalError);
      expect(isRawError((thrown as Error).message, (thrown as Error).name)).toBe(false);
      expect((thrown as Error).message).toMatch(/^image\(/);
    },
  );
});

describe("every broken dataset file is a clear error with file and line", () => {
  it.each(BAD_DATASETS.map((entry) => [entry.kind, entry] as const))("%s", async (_kind, entry) => {
    const path = join(folder, entry.name);
    writeFileSync(path, entry.content);
    const error = await readGoldens({ path }).then(
      () => new Error("expected readGoldens to fail"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(DatasetFileError);
    expect((error as DatasetFileError).line).toBe(entry.line);
    expect(
      error.message.startsWith(entry.line === null ? `${path}: ` : `${path}:${entry.line}`),
    ).toBe(true);
    expect(isRawError(error.message, error.name)).toBe(false);
  });

  it("decodes UTF-16 with a byte-order mark, LE and BE, and skips a UTF-8 one", async () => {
    const text = "input,actual_output\nq,é\n";
    const le = Buffer.from(`\uFEFF${text}`, "utf16le");
    const be = Buffer.from(le).swap16();
    for (const [name, bytes] of [
      ["le.csv", le],
      ["be.csv", be],
      ["bom8.csv", Buffer.from(`\uFEFF${text}`)],
    ] as const) {
      const path = join(folder, name);
      writeFileSync(path, bytes);
      const goldens = await readGoldens({ path });
      expect(goldens.map((golden) => [golden.input, golden.actualOutput])).toEqual([["q", "é"]]);
    }
  });
});
