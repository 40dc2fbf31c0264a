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
import { FaithfulnessMetric } from "../../src/metrics/faithfulness/faithfulness-metric.ts";
import { MisuseMetric } from "../../src/metrics/misuse/misuse-metric.ts";
import { NonAdviceMetric } from "../../src/metrics/non-advice/non-advice-metric.ts";
import { PIILeakageMetric } from "../../src/metrics/pii-leakage/pii-leakage-metric.ts";
import { RoleViolationMetric } from "../../src/metrics/role-violation/role-violation-metric.ts";
import { SummarizationMetric } from "../../src/metrics/summarization/summarization-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
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
  const random = seededRandom(9);
  for (let index = entries.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [entries[index], entries[other]] = [
      entries[other] as (typeof entries)[number],
      entries[index] as (typeof entries)[number],
    ];
  }
  return entries;
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
        if (entry.expect === "errored") {
          expect(data.score, label).toBeNull();
          expect(data.error, label).toBeTruthy();
          // Names itself: by index and list position, or (a metric's own error) by name.
          const named =
            data.error?.includes(`testCases[${index}]`) || data.error?.includes(`"${entry.name}"`);
          expect(named, `${label}: ${data.error}`).toBe(true);
          expect(isRawError(data.error ?? ""), `${label}: ${data.error}`).toBe(false);
        } else {
          expect(data.error, label).toBeNull();
          expect(typeof data.score, label).toBe("number");
        }
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
    const error = await evaluate({
      testCases: entries.map((entry) => entry.value) as never,
      metrics: metrics(),
      store: false,
      env,
      ...quiet,
    }).then(
      () => new Error("expected evaluate() to fail"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(EvalError);
    expect(isRawError(error.message, error.name)).toBe(false);
    // Invalid cases are found before the run (blank outputs only when their metric runs).
    expect(error.message).toContain(`testCases[${firstInvalid}]`);
    expect(error.message).toContain(`"${entries[firstInvalid]?.name}"`);
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
