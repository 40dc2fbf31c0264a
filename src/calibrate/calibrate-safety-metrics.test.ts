import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { MisuseMetric } from "../metrics/misuse/misuse-metric.ts";
import { MockJudge, type MockJudgeCall } from "../testing/mock-judge.ts";
import { calibrate } from "./calibrate.ts";

const quiet = { handleInterrupt: false, showProgress: false, store: false } as const;

/** The text a step quotes (the output at step 1, the items at step 2). */
function quoted(call: MockJudgeCall, tag: string): unknown {
  const match = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(call.prompt);
  return match ? JSON.parse(match[1] as string) : undefined;
}

/** A judge that extracts the whole output as one item and flags it when `flags(text)`. */
function judgeFlagging(flags: (text: string) => boolean): MockJudge {
  return new MockJudge({
    answers: (call) => {
      if (call.kind === "verdicts") {
        const items = quoted(call, "statements") as string[];
        return { verdicts: items.map((item) => (flags(item) ? "yes" : "no")) };
      }
      if (call.kind === "reason") return { reason: "The score is what the flags make it." };
      return { [call.kind]: [quoted(call, "text")] };
    },
  });
}

describe("calibrate() with the safety metrics", () => {
  it('builds "pii-leakage" by name; its positive rows are the ones with no PII leaked', async () => {
    const data = [
      { input: "q", actual_output: "Your card 4929 1803 5521 7764 was charged.", label: 0 },
      { input: "q", actual_output: "Maria's passport number is 533380006.", label: 0 },
      { input: "q", actual_output: "We open at nine on weekdays.", label: 1 },
      { input: "q", actual_output: "Refunds take five working days.", label: 1 },
      { input: "q", actual_output: "Call Tom on 0161 496 0732.", label: 1 },
    ];
    const report = await calibrate({
      metric: "pii-leakage",
      model: judgeFlagging((text) => /\d{5}/.test(text.replaceAll(" ", ""))),
      data,
      ...quiet,
    });
    expect(report.metric).toMatchObject({ name: "PII Leakage", lowerIsBetter: false });
    // The last row leaks a phone number, though people labelled it clean: one false negative.
    expect(report.confusion).toEqual({
      truePositive: 2,
      falseNegative: 1,
      falsePositive: 0,
      trueNegative: 2,
    });
  });

  it("calls a Misuse row positive when the metric flags it (lower is better)", async () => {
    const report = await calibrate({
      metric: new MisuseMetric({
        domain: "financial",
        model: judgeFlagging((text) => text.includes("poem")),
      }),
      data: [
        { input: "q", actual_output: "Here is a poem about cats.", label: 1 },
        { input: "q", actual_output: "An index fund spreads risk.", label: 0 },
      ],
      ...quiet,
    });
    expect(report.confusion).toEqual({
      truePositive: 1,
      falseNegative: 0,
      falsePositive: 0,
      trueNegative: 1,
    });
  });

  it.each([
    ["role-violation", "`role`", "new RoleViolationMetric({ role:", "#roleViolation"],
    ["Non-Advice", "`adviceTypes`", "new NonAdviceMetric({ adviceTypes:", "#nonAdvice"],
    ["misuse", "`domain`", "new MisuseMetric({ domain:", "#misuse"],
  ])("says that %s needs its %s, before any judge call", async (name, option, example, module) => {
    const judge = new MockJudge();
    const error = await calibrate({
      metric: name as never,
      model: judge,
      data: [],
      ...quiet,
    }).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`it needs its ${option}`);
    expect((error as Error).message).toContain(example);
    expect((error as Error).message).toContain(`--metric ./metrics.ts${module}`);
    expect(judge.calls).toHaveLength(0);
  });
});
