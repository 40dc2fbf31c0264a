import { describe, expect, it } from "vitest";
import { PNG_BYTES, PNG_DATA_URL } from "../../test/fixtures/images.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MAX_STORED_IMAGE_BYTES } from "../results/evaluation-result.ts";
import { image } from "../test-case/image.ts";
import { LLMTestCase } from "../test-case/llm-test-case.ts";
import { buildTestResult, fingerprintTestCase } from "./build-test-result.ts";
import { JudgeResolver } from "./judge-resolver.ts";

const judge = (name: string): JudgeModel => ({ name, generate: async () => "{}" });

/** The metrics as a run describes them: configuration and resolved judge. */
async function describeMetrics(metrics: Array<BaseMetric<object>>) {
  const resolver = new JudgeResolver({});
  await resolver.resolve(metrics);
  return resolver.describe(metrics);
}

describe("fingerprintTestCase", () => {
  it("changes when the judge a metric resolved to changes (e.g. another VERDICT_MODEL)", async () => {
    const testCase = new LLMTestCase({ input: "q", actualOutput: "a" });
    const print = async (model: string) =>
      fingerprintTestCase({
        testCase,
        metrics: await describeMetrics([new ToxicityMetric({ model: judge(model) })]),
        repeat: 1,
      });
    expect(await print("openai:gpt-4.1")).not.toBe(await print("openai:gpt-4.1-mini"));
    expect(await print("openai:gpt-4.1")).toBe(await print("openai:gpt-4.1"));
  });

  it("changes with the test case, the metric options and the number of trials", async () => {
    const base = {
      testCase: new LLMTestCase({ input: "q", actualOutput: "a" }),
      metrics: await describeMetrics([new ToxicityMetric({ model: judge("j") })]),
      repeat: 1,
    };
    const strict = await describeMetrics([
      new ToxicityMetric({ model: judge("j"), strictMode: true }),
    ]);
    const prints = [
      fingerprintTestCase(base),
      fingerprintTestCase({
        ...base,
        testCase: new LLMTestCase({ input: "q", actualOutput: "b" }),
      }),
      fingerprintTestCase({ ...base, metrics: strict }),
      fingerprintTestCase({ ...base, repeat: 2 }),
    ];
    expect(new Set(prints).size).toBe(prints.length);
  });
});

describe("buildTestResult", () => {
  it("keeps images structured, with where each marker sits in the field's text", () => {
    const testCase = new LLMTestCase({
      input: ["Describe ", image("https://example.com/cat.png"), " and ", image("dog.png")],
      actualOutput: ["It is ", image("out.png")],
    });
    const result = buildTestResult({ testCase, index: 0, trials: [], repeat: 1 });
    expect(result.input).toBe(
      "Describe [image 1: https://example.com/cat.png] and [image 2: dog.png]",
    );
    expect(result.images).toEqual([
      {
        field: "input",
        number: 1,
        start: 9,
        end: 47,
        kind: "url",
        label: "https://example.com/cat.png",
      },
      { field: "input", number: 2, start: 52, end: 70, kind: "file", label: "dog.png" },
      { field: "actualOutput", number: 1, start: 6, end: 24, kind: "file", label: "out.png" },
    ]);
    for (const part of result.images) {
      const text = part.field === "input" ? result.input : result.actualOutput;
      expect(text?.slice(part.start, part.end)).toBe(`[image ${part.number}: ${part.label}]`);
    }
  });

  it("keeps the data of images given as bytes or data: URLs, so a viewer can show them", () => {
    const large = new Uint8Array(MAX_STORED_IMAGE_BYTES + 1);
    large.set(PNG_BYTES);
    const testCase = new LLMTestCase({
      input: [image(PNG_BYTES), image(PNG_DATA_URL), image("cat.png"), image(large)],
    });
    const [bytes, dataUrl, file, tooLarge] = buildTestResult({
      testCase,
      index: 0,
      trials: [],
      repeat: 1,
    }).images;
    expect(bytes?.data).toBe(PNG_DATA_URL);
    expect(bytes?.label).toBe(`${PNG_BYTES.byteLength} bytes`);
    expect(dataUrl?.data).toBe(PNG_DATA_URL);
    expect(file).not.toHaveProperty("data");
    expect(tooLarge).not.toHaveProperty("data");
  });

  it("keeps the case's tags and contexts, and leaves them out when it has none", () => {
    const tagged = buildTestResult({
      testCase: { input: "q", tags: ["a", "b"], context: ["c"], retrievalContext: [] },
      index: 0,
      trials: [],
      repeat: 1,
    });
    expect(tagged).toMatchObject({ tags: ["a", "b"], context: ["c"], retrievalContext: [] });
    const bare = buildTestResult({
      testCase: { input: "q", tags: [] },
      index: 0,
      trials: [],
      repeat: 1,
    });
    for (const field of ["tags", "context", "retrievalContext", "file"]) {
      expect(bare).not.toHaveProperty(field);
    }
  });
});
