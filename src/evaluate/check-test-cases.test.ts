// Item 5 of issue 9: one bad case never stops the others, and every error names its case.
import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../test/fixtures/images.ts";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { EvalError } from "../errors/eval-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { image } from "../test-case/image.ts";
import { LLMTestCase } from "../test-case/llm-test-case.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { fingerprintTestCase } from "./build-test-result.ts";
import { evaluate } from "./evaluate.ts";

const quiet = { display: "none" as const, handleInterrupt: false };

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { id: 7 };
  value.self = value;
  return value;
}

class Account {
  readonly owner: string;
  constructor(owner: string) {
    this.owner = owner;
  }
}

// Metadata JSON cannot hold: converted where stored or hashed, never thrown on.
const ODD_METADATA: Array<[string, Record<string, unknown>]> = [
  ["circular", circular()],
  ["a BigInt", { tokens: 123n }],
  ["a function", { score: function scoreIt() {} }],
  ["a symbol", { tag: Symbol("x") }],
  ["undefined", { gone: undefined }],
  ["a Date", { at: new Date(0) }],
  ["a Map and a Set", { map: new Map([[1, 2]]), set: new Set([1]) }],
  ["a class instance", { account: new Account("sam") }],
  ["NaN and Infinity", { nan: Number.NaN, inf: Number.POSITIVE_INFINITY }],
];

// Invalid cases and the field their error names.
const INVALID: Array<[string, unknown, RegExp]> = [
  ["null", null, /must be an object with at least an "input".*got null/],
  ["a string", "just text", /got a string/],
  ["no input", { actualOutput: "a" }, /"input": must be text/],
  ["a numeric input", { input: 5, actualOutput: "a" }, /"input": must be text.*got a number/],
  ["a context that is no list", { input: "q", actualOutput: "a", context: "c" }, /"context"/],
  ["a name that is no string", { input: "q", actualOutput: "a", name: 5 }, /"name"/],
  [
    "an image part without source",
    { input: ["x", { type: "image" }], actualOutput: "a" },
    /"input\[1\]": is an image part that has no source/,
  ],
  [
    "metadata that is a list",
    { input: "q", actualOutput: "a", metadata: [1] },
    /"metadata": must be an object/,
  ],
];

describe("evaluate() checks each test case on its own", () => {
  it.each(ODD_METADATA)("scores a case whose metadata holds %s", async (_label, metadata) => {
    const judge = new MockJudge({ answers: answer });
    const result = await evaluate({
      testCases: [new LLMTestCase({ input: "q", actualOutput: "fine", metadata })],
      metrics: [new ToxicityMetric({ model: judge })],
      store: new MemoryRunStore(),
      ...quiet,
    });
    expect(result.testResults[0]?.metricsData[0]?.score).toBe(0);
  });

  it("fingerprints odd metadata as marked JSON, and plain JSON as before", () => {
    const metrics = [{ name: "Toxicity" }];
    const plain = new LLMTestCase({ input: "q", metadata: { a: [1, "b", null] } });
    expect(fingerprintTestCase({ testCase: plain, metrics, repeat: 1 })).toMatch(/^[0-9a-f]{64}$/);
    const first = fingerprintTestCase({
      testCase: new LLMTestCase({ input: "q", metadata: { tokens: 1n } }),
      metrics,
      repeat: 1,
    });
    const second = fingerprintTestCase({
      testCase: new LLMTestCase({ input: "q", metadata: { tokens: 2n } }),
      metrics,
      repeat: 1,
    });
    expect(first).not.toBe(second);
  });

  it.each(INVALID)(
    "with ignoreErrors, %s becomes an errored result naming it; the others are scored",
    async (_label, bad, field) => {
      const judge = new MockJudge({ answers: answer });
      const result = await evaluate({
        testCases: [
          { name: "good-0", input: "q", actualOutput: "fine" },
          bad as never,
          { name: "good-2", input: "q", actualOutput: "nasty" },
        ],
        metrics: [
          new ToxicityMetric({ model: judge }),
          new ToxicityMetric({ model: judge, threshold: null }),
        ],
        store: new MemoryRunStore(),
        ignoreErrors: true,
        ...quiet,
      });
      const [first, invalid, last] = result.testResults;
      expect(first?.metricsData.map((data) => data.score)).toEqual([0, 0]);
      expect(last?.metricsData[0]?.score).toBeGreaterThan(0);
      expect(invalid?.index).toBe(1);
      expect(invalid?.success).toBe(false);
      expect(invalid?.metricsData).toHaveLength(2);
      for (const data of invalid?.metricsData ?? []) {
        expect(data.score).toBeNull();
        expect(data.judgeCalls).toBe(0);
        expect(data.error).toMatch(/^Test case #1 .*\(testCases\[1\]\) is invalid: /);
        expect(data.error).toMatch(field);
      }
      expect(result.summary.testCases).toMatchObject({ total: 3, passed: 2, failed: 1 });
    },
  );

  it.each(INVALID)(
    "without ignoreErrors, %s stops the run before any judge call, naming it",
    async (_label, bad, field) => {
      const judge = new MockJudge({ answers: answer });
      const running = evaluate({
        testCases: [
          { input: "q", actualOutput: "fine" },
          { input: "q", actualOutput: "fine" },
          bad as never,
        ],
        metrics: [new ToxicityMetric({ model: judge })],
        store: new MemoryRunStore(),
        ...quiet,
      });
      const error = await running.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EvalError);
      expect((error as EvalError).code).toBe("INVALID_TEST_CASE");
      expect((error as Error).message).toMatch(/^Test case #2 .*\(testCases\[2\]\) is invalid: /);
      expect((error as Error).message).toMatch(field);
      expect((error as Error).message).toContain("pass ignoreErrors: true");
      expect(judge.calls).toHaveLength(0);
    },
  );

  it("names the first bad case, by index and name, and counts the others", async () => {
    const error = await evaluate({
      testCases: [
        { input: "q", actualOutput: "a" },
        { name: "q-12", input: 1 as never },
        { name: "q-13", input: ["x", { type: "image" } as never] },
      ],
      metrics: [new ToxicityMetric({ model: new MockJudge() })],
      store: false,
      ...quiet,
    }).then(
      () => new Error("expected evaluate() to fail"),
      (caught: unknown) => caught as Error,
    );
    expect(error.message).toMatch(/^Test case #1 "q-12" \(testCases\[1\]\) is invalid: "input"/);
    expect(error.message).toContain("(1 more test cases are invalid too.)");
  });

  it("checks image files of every case before the run, naming case, field and file", async () => {
    const judge = new MockJudge({ answers: answer });
    const result = await evaluate({
      testCases: [
        { name: "ok", input: ["see ", image(PNG_BYTES)], actualOutput: "fine" },
        { name: "gone", input: ["see ", image("/nonexistent/tower.png")], actualOutput: "fine" },
      ],
      metrics: [new ToxicityMetric({ model: judge })],
      store: new MemoryRunStore(),
      ignoreErrors: true,
      ...quiet,
    });
    expect(result.testResults[0]?.metricsData[0]?.score).toBe(0);
    expect(result.testResults[1]?.metricsData[0]?.error).toMatch(
      /^Test case #1 "gone" \(testCases\[1\]\) is invalid: "input\[1\]": Image file "\/nonexistent\/tower.png" does not exist/,
    );
  });

  it("never reuses an invalid case's stored result when a run is resumed", async () => {
    const store = new MemoryRunStore();
    const judge = new MockJudge({ answers: answer });
    const options = {
      metrics: [new ToxicityMetric({ model: judge })],
      store,
      identifier: "nightly",
      ignoreErrors: true,
      ...quiet,
    };
    await evaluate({
      ...options,
      testCases: [{ input: "q", actualOutput: "fine" }, { input: 3 as never }],
    });
    const fixed = await evaluate({
      ...options,
      resume: true,
      testCases: [
        { input: "q", actualOutput: "fine" },
        { input: "q", actualOutput: "fine" },
      ],
    });
    expect(fixed.testResults.map((result) => result.metricsData[0]?.score)).toEqual([0, 0]);
  });

  it("checks goldens of a component run the same way", async () => {
    const judge = new MockJudge({ answers: answer });
    const metric = new ToxicityMetric({ model: judge });
    const goldens = [
      { input: "q", metadata: { big: 1n } },
      { name: "broken", input: 4 as never },
    ];
    const result = await evaluate({
      goldens,
      observedCallback: () => "fine",
      metrics: [metric],
      store: new MemoryRunStore(),
      ignoreErrors: true,
      ...quiet,
    });
    expect(result.testResults[0]?.metricsData[0]?.score).toBe(0);
    expect(result.testResults[1]?.metricsData[0]?.error).toMatch(
      /^Golden #1 "broken" \(goldens\[1\]\) is invalid: "input": must be text/,
    );
    await expect(
      evaluate({
        goldens,
        observedCallback: () => "fine",
        metrics: [metric],
        store: false,
        ...quiet,
      }),
    ).rejects.toThrow(/^Golden #1 "broken" \(goldens\[1\]\) is invalid: .*pass ignoreErrors: true/);
  });
});
