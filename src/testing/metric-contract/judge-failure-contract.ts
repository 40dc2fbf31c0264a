import { describe, expect, it } from "vitest";
import { JudgeCallError } from "../../errors/judge-call-error.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { MissingTestCaseParamsError } from "../../errors/missing-test-case-params-error.ts";
import type { LLMTestCaseFields } from "../../test-case/llm-test-case.ts";
import {
  type ContractHarness,
  itemsFor,
  scriptedJudge,
  TRUNCATED_ANSWER,
} from "./scripted-metric-contract.ts";

/**
 * The contract's failure cases: missing fields, answers that cannot be used as they stand,
 * and a judge that throws.
 */
export function describeJudgeFailureContract<Template extends object>(
  harness: ContractHarness<Template>,
): void {
  const { name, create, testCase, steps, extractKey, scenario, measure, expectFailure, contract } =
    harness;

  describe("missing test-case fields", () => {
    const { actualOutput: _actualOutput, ...withoutOutput } = testCase;
    it.each<[string, LLMTestCaseFields]>([
      ["missing", withoutOutput],
      ["empty", { ...testCase, actualOutput: "" }],
      ["whitespace-only", { ...testCase, actualOutput: "   \n\t" }],
    ])(
      "raises MissingTestCaseParamsError for a %s actualOutput before any judge call",
      async (_label, blank) => {
        const judge = scriptedJudge({});
        const metric = create({ model: judge });
        const error = await metric.measure(blank).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(MissingTestCaseParamsError);
        expect(error).toMatchObject({
          metric: name,
          field: "actualOutput",
          testCase: testCase.name,
        });
        expect((error as Error).message).toBe(
          `Metric "${name}" needs "actualOutput" on test case "${testCase.name}": add it, or skip this metric where it is missing: skipOnMissingParams: true in code, -s (--skip-on-missing-params) with \`verdict test run\`.`,
        );
        expectFailure(metric, error, { message: "actualOutput", judgeCalls: 0 });
        expect(judge.calls).toHaveLength(0);
      },
    );

    it("names every other required field that is blank", async () => {
      const metric = create({ model: scriptedJudge({}) });
      const others = metric.requiredFields.filter((field) => field !== "actualOutput");
      expect(metric.requiredFields).toContain("actualOutput");
      for (const field of others) {
        const error = await metric
          .measure({ ...testCase, [field]: " " })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(MissingTestCaseParamsError);
        expect(error).toMatchObject({ metric: name, field, testCase: testCase.name });
      }
    });
  });

  describe("judge answers", () => {
    const items = itemsFor(2);

    it("reads fenced, single-quoted or prose-wrapped JSON without a re-ask", async () => {
      const script = scenario(["yes", "no"]);
      const body = JSON.stringify(script.items).replace(/]$/, ",]");
      const { judge, metric } = await measure({
        ...script.answers,
        [extractKey]: [`Sure! Here you go:\n\`\`\`json\n{"${extractKey}": ${body},}\n\`\`\``],
        verdicts: [
          "{'verdicts': [{'verdict': 'yes', 'reason': 'single-quoted'}, {'verdict': 'no'}]}",
        ],
        reason: ['My answer: {"reason": "The score is 0.50 because of prose."} Hope this helps!'],
      });
      expect(metric.error).toBeNull();
      expect(metric.score).toBe(contract.expectedScore(["yes", "no"]));
      expect(judge.callsOfKind(extractKey)).toHaveLength(1);
      expect(judge.callsOfKind("verdicts")).toHaveLength(1);
      expect(metric.verboseLogs).toContain('"reason": "single-quoted"');
      expect(metric.reason).toBe("The score is 0.50 because of prose.");
      expect(judge.calls.some((call) => call.prompt.includes("could not be used"))).toBe(false);
    });

    it("re-asks an answer cut off mid-JSON instead of completing it (TRUNCATED_ANSWER)", async () => {
      const truncated = TRUNCATED_ANSWER;
      const { judge, metric } = await measure({
        [extractKey]: [
          truncated.extractAnswer(extractKey),
          { [extractKey]: truncated.completeItems },
        ],
        verdicts: [truncated.verdictsAnswer, { verdicts: truncated.completeVerdicts }],
        reason: [{ reason: "The score is scripted." }],
      });
      expect(metric.error).toBeNull();
      expect(judge.callsOfKind(extractKey)).toHaveLength(truncated.extractCalls);
      expect(judge.callsOfKind("verdicts")).toHaveLength(truncated.verdictCalls);
      expect(judge.callsOfKind(extractKey)[1]?.prompt).toContain(truncated.problem);
      expect(judge.callsOfKind("verdicts")[1]?.prompt).toContain(truncated.problem);
      expect(metric.verboseLogs).toContain(JSON.stringify(truncated.itemsRead, null, 2));
      const verdictPrompt = judge.callsOfKind("verdicts")[0]?.prompt ?? "";
      for (const item of truncated.itemsRead) expect(verdictPrompt).toContain(JSON.stringify(item));
      expect(metric.score).toBe(contract.expectedScore(truncated.verdictsRead));
    });

    it.each([
      ["step 1", "extract", 2],
      ["step 2", "verdicts", 3],
      ["step 3", "reason", 4],
    ] as const)(
      "reports an answer cut off twice at %s as a JudgeOutputError, never a score",
      async (_label, step, judgeCalls) => {
        const script = scenario(contract.mixedVerdicts);
        const kind = step === "extract" ? extractKey : step;
        const cut = JSON.stringify(script.answers[kind]?.[0]).slice(0, -3);
        const { metric, error } = await measure({ ...script.answers, [kind]: [cut, cut] });
        expect(error).toBeInstanceOf(JudgeOutputError);
        expect(error).toMatchObject({ metric: name, step: steps[step].step, rawText: cut });
        expectFailure(metric, error, { message: TRUNCATED_ANSWER.problem, judgeCalls });
      },
    );

    it.each(["yes/no", "yes or no", "yes-ish", "no idea", "No, yes.", "maybe"])(
      "re-asks the ambiguous verdict %j, then reports it, never reading its first word",
      async (ambiguous) => {
        const verdicts = { verdicts: [{ verdict: ambiguous }, { verdict: "no" }] };
        const { judge, metric, error } = await measure({
          [extractKey]: [{ [extractKey]: items }],
          verdicts: [verdicts, verdicts],
        });
        expect(error).toBeInstanceOf(JudgeOutputError);
        expect(judge.callsOfKind("verdicts")[1]?.prompt).toContain("verdicts.0.verdict");
        expectFailure(metric, error, { message: "verdicts.0.verdict", judgeCalls: 3 });
      },
    );

    it("re-asks an unreadable answer once, then uses the corrected one", async () => {
      const script = scenario(["no", "no"]);
      const { judge, metric } = await measure({
        ...script.answers,
        [extractKey]: ["I would rather not say.", { [extractKey]: script.items }],
      });
      expect(metric.error).toBeNull();
      expect(judge.callsOfKind(extractKey)).toHaveLength(2);
      const reask = judge.calls[1]?.prompt ?? "";
      expect(reask.startsWith(judge.calls[0]?.prompt ?? "-")).toBe(true);
      expect(reask).toContain("Your previous answer to this request could not be used.");
      expect(reask).toContain("no JSON object found in the answer");
      expect(reask).toContain(JSON.stringify("I would rather not say."));
    });

    it("reports an answer still unreadable after the re-ask as a JudgeOutputError", async () => {
      const { judge, metric, error } = await measure({
        [extractKey]: ["I would rather not say.", "Still no."],
      });
      expect(error).toBeInstanceOf(JudgeOutputError);
      expect(error).toMatchObject({
        metric: name,
        step: steps.extract.step,
        rawText: "Still no.",
      });
      expectFailure(metric, error, { message: "even after one re-ask", judgeCalls: 2 });
      expect(judge.calls).toHaveLength(2);
    });

    it("re-asks an off-enum verdict once, quoting the problem", async () => {
      const script = scenario(["yes", "no"]);
      const { judge, metric } = await measure({
        ...script.answers,
        verdicts: [
          { verdicts: [{ verdict: "maybe", reason: "unclear" }, { verdict: "no" }] },
          { verdicts: script.verdictAnswers },
        ],
      });
      expect(metric.error).toBeNull();
      expect(metric.score).toBe(contract.expectedScore(["yes", "no"]));
      const [, reask] = judge.callsOfKind("verdicts");
      expect(reask?.prompt).toContain("Your previous answer to this request could not be used.");
      expect(reask?.prompt).toContain("verdicts.0.verdict");
      expect(reask?.prompt).toContain('\\"maybe\\"');
    });

    it("reports an off-enum verdict given twice as a JudgeOutputError", async () => {
      const offEnum = { verdicts: [{ verdict: "perhaps" }, { verdict: "no" }] };
      const { metric, error } = await measure({
        [extractKey]: [{ [extractKey]: items }],
        verdicts: [offEnum, offEnum],
      });
      expect(error).toBeInstanceOf(JudgeOutputError);
      expect(error).toMatchObject({ metric: name, step: steps.verdicts.step });
      expect((error as JudgeOutputError).rawText).toContain("perhaps");
      expectFailure(metric, error, { message: "verdicts.0.verdict", judgeCalls: 3 });
    });

    it("re-asks a wrong verdict count once, then reports a JudgeOutputError", async () => {
      const tooFew = { verdicts: [{ verdict: "no" }] };
      const tooMany = { verdicts: [{ verdict: "no" }, { verdict: "no" }, { verdict: "no" }] };
      const { judge, metric, error } = await measure({
        [extractKey]: [{ [extractKey]: items }],
        verdicts: [tooFew, tooMany],
      });
      expect(error).toBeInstanceOf(JudgeOutputError);
      expect(error).toMatchObject({ metric: name, step: steps.verdicts.step });
      expect((error as JudgeOutputError).rawText).toBe(JSON.stringify(tooMany));
      const problem = `expected exactly 2 verdicts, one per ${steps.verdicts.itemName} in the same order`;
      expect((error as Error).message).toContain(`${problem}, but got 3`);
      expect(judge.callsOfKind("verdicts")[1]?.prompt).toContain(`${problem}, but got 1`);
      expectFailure(metric, error, { message: "even after one re-ask", judgeCalls: 3 });
    });

    it("uses a right verdict count given on the re-ask", async () => {
      const script = scenario(["no", "no"]);
      const { judge, metric } = await measure({
        ...script.answers,
        verdicts: [{ verdicts: [{ verdict: "no" }] }, { verdicts: script.verdictAnswers }],
      });
      expect(metric.error).toBeNull();
      expect(metric.score).toBe(contract.expectedScore(["no", "no"]));
      expect(judge.callsOfKind("verdicts")).toHaveLength(2);
    });

    it.each(["extract", "verdicts", "reason"] as const)(
      "reports a judge that throws at the %s step as the metric's error, without retrying it",
      async (step) => {
        const script = scenario(contract.mixedVerdicts);
        const kind = step === "extract" ? extractKey : step;
        const { judge, metric, error } = await measure({
          ...script.answers,
          [kind]: [new Error("boom: the judge crashed")],
        });
        expect(error).toBeInstanceOf(JudgeCallError);
        expect(error).toMatchObject({ retryable: false });
        expect(judge.callsOfKind(kind)).toHaveLength(1);
        expect(judge.calls.at(-1)?.kind).toBe(kind);
        expectFailure(metric, error, {
          message: "boom: the judge crashed",
          judgeCalls: judge.calls.length - 1,
        });
      },
    );
  });
}
