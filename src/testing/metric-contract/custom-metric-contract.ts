import { describe, expect, it } from "vitest";
import { ConfigError } from "../../errors/config-error.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../../errors/missing-test-case-params-error.ts";
import type { BaseMetric } from "../../metrics/base-metric.ts";
import type { LLMTestCaseFields } from "../../test-case/llm-test-case.ts";
import { type MockAnswer, MockJudge, type MockJudgeCall } from "../mock-judge.ts";

/** What a re-asked prompt says after the prompt it repeats. */
const REASKED = "Your previous answer to this request could not be used.";

/** What a metric declares for {@link describeCustomMetricContract}. */
export interface CustomMetricContractOptions {
  /** The metric's `name`; also the suite's title. */
  name: string;
  /**
   * A new metric with these options (`model` is a `MockJudge`; the other options are the base
   * ones and those of `optionVariants`).
   */
  create: (options: Record<string, unknown>) => BaseMetric<object>;
  /** A test case the metric can score, with every field it requires. */
  testCase: LLMTestCaseFields;
  /**
   * How the judge answers each call of a scoring that succeeds, e.g.
   * `(call) => ({ reason: "…", score: 7 })`; vary it by `call.kind` or `call.prompt` for
   * metrics with several steps.
   */
  answer: (call: MockJudgeCall) => MockAnswer;
  /**
   * Two or more values of each of the metric's own options: each must change `config()` (the
   * fingerprint that keeps resume and the cache from reusing a result after an option changed).
   */
  optionVariants?: Record<string, readonly unknown[]>;
}

/**
 * The contract any metric keeps, whatever its steps (`defineMetric`, a `BaseMetric` subclass,
 * `GEval`): scores from 0 to 1 that pass by its threshold and direction; `threshold: null`,
 * strict mode and `includeReason: false`; required fields checked before any judge call;
 * misspelled and mistyped options refused before any judge call; every option part of
 * `config()`; unreadable judge answers re-asked once, then a `JudgeOutputError`; a judge that
 * throws reported as the metric's error; `run()` leaving the metric untouched. Call it at the
 * top level of a Vitest test file.
 * @example
 * describeCustomMetricContract({
 *   name: "Politeness",
 *   create: (options) => new Politeness(options),
 *   testCase: { input: "Where is my parcel?", actualOutput: "It left today, thanks for waiting!" },
 *   answer: () => ({ reason: "Warm.", score: 9 }),
 *   optionVariants: { audience: ["customers", "colleagues"] },
 * });
 */
export function describeCustomMetricContract(contract: CustomMetricContractOptions): void {
  const judge = (answer: (call: MockJudgeCall) => MockAnswer = contract.answer) =>
    new MockJudge({ answers: answer });
  const create = (options: Record<string, unknown> = {}, model = judge()) =>
    contract.create({ ...options, model });

  describe(`${contract.name}: custom metric contract`, () => {
    it("scores from 0 to 1 and passes by its threshold and direction", async () => {
      const metric = create({ threshold: 0.5 });
      const score = await metric.measure(contract.testCase);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(metric.name).toBe(contract.name);
      expect(metric.success).toBe(metric.lowerIsBetter ? score <= 0.5 : score >= 0.5);
      expect(metric.error).toBeNull();
      expect(metric.judgeCalls).toBeGreaterThan(0);
    });

    it("gives the same score to the same answers", async () => {
      const first = await create().measure(contract.testCase);
      expect(await create().measure(contract.testCase)).toBe(first);
    });

    it("threshold null scores without passing or failing; strict mode scores 0 or 1", async () => {
      const scoreOnly = create({ threshold: null });
      await scoreOnly.measure(contract.testCase);
      expect(scoreOnly.success).toBeNull();
      const strict = create({ strictMode: true });
      expect([0, 1]).toContain(await strict.measure(contract.testCase));
      expect(strict.threshold).toBe(strict.lowerIsBetter ? 0 : 1);
    });

    it("includeReason: false gives no reason", async () => {
      const metric = create({ includeReason: false });
      await metric.measure(contract.testCase);
      expect(metric.reason).toBeNull();
    });

    it("needs each required field before any judge call", async () => {
      for (const field of create().requiredFields) {
        const model = judge();
        const metric = create({}, model);
        const testCase = { ...contract.testCase, input: contract.testCase.input };
        if (field === "input") (testCase as { input: unknown }).input = "   ";
        else delete (testCase as Record<string, unknown>)[field];
        await expect(metric.measure(testCase)).rejects.toThrow(MissingTestCaseParamsError);
        expect(model.calls).toHaveLength(0);
      }
    });

    it("refuses a misspelled or mistyped option before any judge call", () => {
      const model = judge();
      expect(() => create({ treshold: 0.5 }, model)).toThrow(/did you mean `threshold`/);
      expect(() => create({ strict_mode: true }, model)).toThrow(/spells it `strictMode`/);
      expect(() => create({ threshold: "0.5" }, model)).toThrow(ConfigError);
      expect(model.calls).toHaveLength(0);
    });

    it("puts every option into config(), so a changed option is never served a stale result", () => {
      const base = create().config();
      expect(JSON.parse(JSON.stringify(base))).toEqual(base);
      expect(create().config()).toEqual(base);
      const changes: Array<Record<string, unknown>> = [
        { threshold: 0.9 },
        { strictMode: true },
        { includeReason: false },
        { model: new MockJudge({ name: "another-judge" }) },
      ];
      for (const [option, values] of Object.entries(contract.optionVariants ?? {})) {
        for (const value of values) changes.push({ [option]: value });
      }
      for (const change of changes) {
        const [option, value] = Object.entries(change)[0] as [string, unknown];
        const isDefault =
          option !== "model" && JSON.stringify(base[option]) === JSON.stringify(value);
        const config =
          option === "model" ? contract.create(change).config() : create(change).config();
        if (isDefault) expect(config, `${option}: ${JSON.stringify(value)}`).toEqual(base);
        else expect(config, `${option}: ${JSON.stringify(value)}`).not.toEqual(base);
      }
    });

    it("re-asks an unreadable answer once, then fails with a JudgeOutputError", async () => {
      const model = judge(() => "this is not JSON {");
      const metric = create({}, model);
      await expect(metric.measure(contract.testCase)).rejects.toThrow(JudgeOutputError);
      // Each step asked is re-asked once (a metric whose first steps run at once asks each).
      const firstAsks = model.calls.filter((call) => !call.prompt.includes(REASKED));
      expect(firstAsks.length).toBeGreaterThan(0);
      expect(model.calls).toHaveLength(2 * firstAsks.length);
      for (const first of firstAsks) {
        const asked = model.calls.filter((call) => call.prompt.startsWith(first.prompt));
        expect(asked).toHaveLength(2);
      }
      expect(metric.score).toBeNull();
      expect(metric.success).toBe(false);
      expect(metric.error).toMatch(/could not|not valid|JSON/i);
    });

    it("reports a judge that throws as the metric's error", async () => {
      const metric = create(
        {},
        judge(() => new Error("judge unavailable")),
      );
      await expect(metric.measure(contract.testCase)).rejects.toThrow("judge unavailable");
      expect(metric.error).toContain("judge unavailable");
      expect(metric.isSuccessful()).toBe(false);
    });

    it("run() scores without changing the metric", async () => {
      const metric = create();
      const { data, error } = await metric.run(contract.testCase);
      expect(error).toBeNull();
      expect(typeof data.score).toBe("number");
      expect(metric.score).toBeNull();
    });
  });
}
