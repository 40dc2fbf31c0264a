import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { Golden } from "../test-case/golden.ts";
import { LLMTestCase } from "../test-case/llm-test-case.ts";
import { buildTestCases, type GoldenApplication } from "./build-test-cases.ts";
import { TestCaseBuildError } from "./test-case-build-error.ts";

function goldens(count: number): Golden[] {
  return Array.from({ length: count }, (_, index) => new Golden({ input: `q${index}` }));
}

/** An application that records how many of its calls run at once. */
function concurrentApplication(): { application: GoldenApplication; maxInFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  const application: GoldenApplication = async (input) => {
    inFlight++;
    max = Math.max(max, inFlight);
    // Later goldens answer sooner (on the fake clock), so finishing order differs from golden
    // order.
    await new Promise((resolve) => setTimeout(resolve, 20 - Number(String(input).slice(1))));
    inFlight--;
    return `answer to ${input}`;
  };
  return { application, maxInFlight: () => max };
}

/** Runs `work` to the end on the fake clock. */
async function settle<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  await vi.runAllTimersAsync();
  return work;
}

describe("buildTestCases", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps golden order and never runs more than `concurrency` calls at once", async () => {
    vi.useFakeTimers();
    const { application, maxInFlight } = concurrentApplication();
    const testCases = await settle(
      buildTestCases({ goldens: goldens(12), application, concurrency: 3 }),
    );
    expect(testCases.map((testCase) => testCase.actualOutput)).toEqual(
      Array.from({ length: 12 }, (_, index) => `answer to q${index}`),
    );
    expect(maxInFlight()).toBe(3);
  });

  it("runs 8 calls at once by default", async () => {
    vi.useFakeTimers();
    const { application, maxInFlight } = concurrentApplication();
    await settle(buildTestCases({ goldens: goldens(20), application }));
    expect(maxInFlight()).toBe(8);
  });

  it("fills actualOutput and what an object answer adds, over the golden's fields", async () => {
    const golden = new Golden({
      input: "q",
      expectedOutput: "e",
      context: ["golden context"],
      retrievalContext: ["golden retrieval"],
      name: "n",
      comments: "for people",
    });
    const [testCase] = await buildTestCases({
      goldens: [golden],
      application: (input, received) => {
        expect(received).toBe(golden);
        return {
          actualOutput: `a to ${input}`,
          retrievalContext: ["fetched"],
          toolsCalled: [{ name: "search" }],
        };
      },
    });
    expect(testCase).toStrictEqual(
      new LLMTestCase({
        input: "q",
        actualOutput: "a to q",
        expectedOutput: "e",
        context: ["golden context"],
        retrievalContext: ["fetched"],
        toolsCalled: [{ name: "search" }],
        name: "n",
      }),
    );
  });

  it("tries every golden, then lists the failures, keeping the other test cases on the error", async () => {
    const dataset = [
      new Golden({ input: "ok 1" }),
      new Golden({ input: "boom", name: "exploding" }),
      new Golden({ input: "ok 2" }),
      new Golden({ input: "a number please" }),
      new Golden({ input: "an object without actualOutput" }),
    ];
    const calls: string[] = [];
    const application: GoldenApplication = async (input) => {
      calls.push(String(input));
      if (input === "boom") throw new TypeError("the model is down");
      if (input === "a number please") return 42 as never;
      if (input === "an object without actualOutput") return { output: "x" } as never;
      return `answer to ${input}`;
    };
    const error = await buildTestCases({ goldens: dataset, application }).catch((caught) => caught);
    expect(calls).toHaveLength(5);
    expect(error).toBeInstanceOf(TestCaseBuildError);
    expect(error).toBeInstanceOf(EvalError);
    expect(error.code).toBe("INVALID_TEST_CASE");
    expect(error.failures.map((failure: { index: number }) => failure.index)).toEqual([1, 3, 4]);
    expect(error.testCases.map((testCase: LLMTestCase) => testCase.actualOutput)).toEqual([
      "answer to ok 1",
      "answer to ok 2",
    ]);
    expect(error.message).toContain("The application failed on 3 of 5 goldens: ");
    expect(error.message).toContain('golden #1 "exploding": TypeError: the model is down');
    expect(error.message).toContain(
      'golden #3 ("a number please"): the application returned a number: return the answer as a string',
    );
    expect(error.message).toContain(
      'golden #4 ("an object without actualOutput"): the application returned an object with unknown keys "output"',
    );
    expect(error.cause).toMatchObject({ name: "TypeError", message: "the model is down" });
  });

  it("refuses a concurrency that is not a whole number of at least 1", async () => {
    for (const concurrency of [0, 1.5, -1]) {
      await expect(
        buildTestCases({ goldens: goldens(1), application: () => "a", concurrency }),
      ).rejects.toThrow(ConfigError);
    }
  });

  it("returns no test cases for no goldens", async () => {
    expect(await buildTestCases({ goldens: [], application: () => "a" })).toEqual([]);
  });
});
