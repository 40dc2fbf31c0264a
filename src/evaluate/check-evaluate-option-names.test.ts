import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";

describe("evaluate() refuses options it does not know", () => {
  it.each([
    [{ identifer: "nightly" }, "`identifer`: did you mean `identifier`?"],
    [{ ignore_errors: true }, "`ignore_errors`: verdict spells it `ignoreErrors`"],
    [{ maxConcurent: 4 }, "`maxConcurent`: did you mean `maxConcurrent`?"],
    [{ colour: true }, "`colour` is not one of its options"],
  ])("%j, before any judge call", async (extra, message) => {
    const judge = new MockJudge({ answers: [] });
    const error = await evaluate({
      testCases: [{ input: "hi", actualOutput: "hello" }],
      metrics: [new ToxicityMetric({ model: judge })],
      display: "none",
      handleInterrupt: false,
      ...(extra as object),
    } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect(judge.calls).toHaveLength(0);
  });

  it("takes every option it documents", async () => {
    const judge = new MockJudge({ answers: [{ opinions: [] }] });
    const result = await evaluate({
      testCases: [{ input: "hi", actualOutput: "hello" }],
      metrics: [new ToxicityMetric({ model: judge, includeReason: false })],
      display: "none",
      handleInterrupt: false,
      identifier: "known",
      cache: false,
    });
    expect(result.testResults[0]?.success).toBe(true);
  });
});
