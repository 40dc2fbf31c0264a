import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { AnswerRelevancyMetric } from "./answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "./bias/bias-metric.ts";
import { GEval } from "./g-eval/g-eval-metric.ts";
import { ToxicityMetric } from "./toxicity/toxicity-metric.ts";

function configErrorOf(make: () => unknown): ConfigError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, but the metric was made");
}

describe("metric options are checked when the metric is made", () => {
  it.each([
    [{ treshold: 0.1 }, "`treshold`: did you mean `threshold`?"],
    [{ strict_mode: true }, "`strict_mode`: verdict spells it `strictMode`"],
    [{ includeReasons: false }, "`includeReasons`: did you mean `includeReason`?"],
    [{ include_reason: false }, "`include_reason`: verdict spells it `includeReason`"],
    [{ StrictMode: true }, "`StrictMode`: verdict spells it `strictMode`"],
    [{ penalizeAmbiguous: true }, "`penalizeAmbiguous` is not one of its options"],
  ])("ToxicityMetric(%j) is a ConfigError naming it", (options, message) => {
    const error = configErrorOf(() => new ToxicityMetric(options as never));
    expect(error.message).toContain(message);
    expect(error.message).toContain("ToxicityMetric");
    expect(error.message).toContain("`threshold`");
  });

  it("accepts penalizeAmbiguous where it is an option, and suggests it when misspelled", () => {
    expect(new AnswerRelevancyMetric({ penalizeAmbiguous: true }).penalizeAmbiguous).toBe(true);
    const error = configErrorOf(
      () =>
        new AnswerRelevancyMetric({ penalizeAmbiguous: true, penalize_ambiguous: true } as never),
    );
    expect(error.message).toContain("`penalize_ambiguous`: verdict spells it `penalizeAmbiguous`");
  });

  it.each([
    [
      { threshold: "0.7" },
      '`threshold` must be a number from 0 to 1, or null for score-only; got the string "0.7"',
    ],
    [
      { threshold: 1.5 },
      "`threshold` must be a number from 0 to 1, or null for score-only; got 1.5",
    ],
    [{ strictMode: "yes" }, '`strictMode` must be true or false; got the string "yes"'],
    [{ includeReason: 0 }, "`includeReason` must be true or false; got 0"],
    [{ model: "" }, "`model` must be a model string"],
    [{ model: 42 }, "`model` must be a model string"],
  ])("refuses a wrong type: %j", (options, message) => {
    expect(configErrorOf(() => new BiasMetric(options as never)).message).toContain(message);
  });

  it("names every problem at once", () => {
    const error = configErrorOf(
      () => new AnswerRelevancyMetric({ treshold: 0.2, penalizeAmbiguous: "no" } as never),
    );
    expect(error.message).toContain("2 options it cannot use");
    expect(error.message).toContain("`treshold`");
    expect(error.message).toContain("`penalizeAmbiguous` must be true or false");
  });

  it("says a wrong value is a wrong option, not one the metric cannot use", () => {
    const message = configErrorOf(() => new BiasMetric({ threshold: 2 })).message;
    expect(message).toMatch(/^BiasMetric has a wrong option: `threshold` must be/);
    expect(message).not.toContain("cannot use");
  });

  it("ends a did-you-mean with its question mark alone", () => {
    const message = configErrorOf(() => new ToxicityMetric({ treshold: 0.2 } as never)).message;
    expect(message).toContain("did you mean `threshold`? Its options are");
    expect(message).not.toContain("?.");
  });

  it("shows a short list as written, so the wrong entry shows", () => {
    const message = configErrorOf(
      () => new GEval({ name: "x", criteria: "c", evaluationParams: ["actual_output"] } as never),
    ).message;
    expect(message).toContain('got ["actual_output"]');
  });

  it("refuses options that are not an object", () => {
    expect(configErrorOf(() => new ToxicityMetric(0.5 as never)).message).toContain(
      "takes an options object",
    );
  });

  it("an option given as undefined is the default, as before", () => {
    const metric = new ToxicityMetric({ threshold: undefined, strictMode: undefined } as never);
    expect(metric.threshold).toBe(0.5);
    expect(metric.strictMode).toBe(false);
  });

  it("fails before any judge call", async () => {
    const judge = new MockJudge({ answers: [] });
    expect(() => new ToxicityMetric({ model: judge, treshold: 0.1 } as never)).toThrow(ConfigError);
    expect(judge.calls).toHaveLength(0);
  });
});

describe("config() holds every option", () => {
  it("includes a metric's own options, so changing one changes the fingerprint", () => {
    const plain = new AnswerRelevancyMetric().config();
    const strict = new AnswerRelevancyMetric({ penalizeAmbiguous: true }).config();
    expect(plain.penalizeAmbiguous).toBe(false);
    expect(strict.penalizeAmbiguous).toBe(true);
  });
});
