import { expect } from "vitest";
import type { BaseMetric, BaseMetricOptions } from "../../metrics/base-metric.ts";
import type { LLMTestCaseFields } from "../../test-case/llm-test-case.ts";
import { type MockAnswer, MockJudge, type MockJudgeOptions } from "../mock-judge.ts";

/** What a metric declares for {@link describeMetricContract}. */
export interface MetricContractOptions<Template extends object> {
  /** The metric's `name`, e.g. `"Toxicity"`; also the suite's title. */
  name: string;
  /** A new metric with these options; `model` is always a `MockJudge`. */
  create: (options: BaseMetricOptions<Template> & { model: MockJudge }) => BaseMetric<Template>;
  /** The built-in template class (static step methods), extended by the custom-template case. */
  templateClass: new () => object;
  /** A test case the metric can score; it must have a `name` (errors quote it). */
  testCase: LLMTestCaseFields & { name: string };
  /** The steps (SPEC §3): the template function of each, and what its JSON holds. */
  steps: {
    /** Step 1, e.g. `{ step: "generateOpinions", key: "opinions" }`: `{ [key]: string[] }`. */
    extract: { step: string; key: string };
    /**
     * Step 2, e.g. `{ step: "generateVerdicts", itemName: "opinion" }`: `{ "verdicts": […] }`,
     * one per item; its template function gets the items under the extract step's `key`.
     */
    verdicts: { step: string; itemName: string };
    /** Step 3, e.g. `{ step: "generateReason", flaggedArg: "toxics" }`: `{ "reason": string }`. */
    reason: { step: string; flaggedArg: string };
  };
  /** Passes when `score <= threshold` (Toxicity, Bias) rather than `>=`. */
  lowerIsBetter: boolean;
  /** The score the metric must give these verdicts (SPEC §3), before strict mode. */
  expectedScore: (verdicts: readonly string[]) => number;
  /** Whether a verdict counts against the output, so that step 3 explains it. */
  isFlagged: (verdict: string) => boolean;
  /** Verdicts of the "mixed" case: some flagged, some not, scoring strictly between 0 and 1. */
  mixedVerdicts: readonly string[];
  /** The whole reason written, without a judge call, when step 1 extracts nothing. */
  nothingExtractedReason: string;
}

/**
 * Scripted answers per step, keyed by what the step asks for (`"opinions"`, `"verdicts"`,
 * `"reason"`, …: `MockJudgeCall.kind`), each list answered in order.
 */
export type AnswersByKind = Record<string, readonly MockAnswer[]>;

/**
 * A `MockJudge` that answers each step from its own list, so a script need not know where
 * re-asks fall. A call with no answer left fails (the metric reports it as its error).
 */
export function scriptedJudge(
  answers: AnswersByKind,
  options: Omit<MockJudgeOptions, "answers"> = {},
): MockJudge {
  const left = new Map(Object.entries(answers).map(([kind, list]) => [kind, [...list]]));
  return new MockJudge({
    ...options,
    answers: (call) =>
      left.get(call.kind)?.shift() ??
      new Error(`no scripted answer left for the "${call.kind}" call #${call.index + 1}`),
  });
}

/** `count` distinct items, with quotes and non-ASCII text to show they are passed verbatim. */
export function itemsFor(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `Item ${index + 1} says "so" — naïvely.`);
}

/** A scripted run of the three steps for given verdicts, and what it should lead to. */
export interface MetricScenario {
  items: string[];
  /** Step 2's answer, one verdict per item; flagged ones carry a reason. */
  verdictAnswers: Array<{ verdict: string; reason: string | null }>;
  /** The reasons of the flagged verdicts, which step 3 explains. */
  flaggedReasons: string[];
  /** Step 3's answer. */
  reason: string;
  answers: AnswersByKind;
}

/** Scripts step 1 to extract one item per verdict, step 2 to give `verdicts`, and step 3. */
export function scriptScenario(
  declaration: Pick<MetricContractOptions<object>, "steps" | "isFlagged">,
  verdicts: readonly string[],
): MetricScenario {
  const key = declaration.steps.extract.key;
  const items = itemsFor(verdicts.length);
  const verdictAnswers = verdicts.map((verdict, index) => ({
    verdict,
    reason: declaration.isFlagged(verdict) ? `Item ${index + 1} is "${verdict}".` : null,
  }));
  const flaggedReasons = verdictAnswers.flatMap((answer) => answer.reason ?? []);
  const reason = "The score is scripted because the judge said so.";
  return {
    items,
    verdictAnswers,
    flaggedReasons,
    reason,
    answers: {
      [key]: [{ [key]: items }],
      verdicts: [{ verdicts: verdictAnswers }],
      reason: [{ reason }],
    },
  };
}

const FIRST_ITEM = "The first item is complete.";
const CUT_OFF_ITEM = "The second item was cut o";

/**
 * What happens to an answer cut off mid-JSON (a judge that ran out of output tokens): it is
 * never completed into a plausible answer. The step is asked again once, and the complete
 * answer is used; a second cut-off answer is a `JudgeOutputError`. The contract's
 * truncated-JSON cases read only this object.
 */
export const TRUNCATED_ANSWER = {
  /** Step 1's answer, cut off inside its last item. */
  extractAnswer: (key: string) => `{"${key}": ["${FIRST_ITEM}", "${CUT_OFF_ITEM}`,
  /** Step 1's answer when it is asked again. */
  completeItems: [FIRST_ITEM, `${CUT_OFF_ITEM}ff here.`],
  /** Step 1 is asked twice: the cut-off answer is refused and re-asked. */
  extractCalls: 2,
  /** The items step 2 is asked about: the complete ones, never the cut-off one. */
  itemsRead: [FIRST_ITEM, `${CUT_OFF_ITEM}ff here.`],
  /** Step 2's answer, cut off inside its last verdict. */
  verdictsAnswer: '{"verdicts": [{"verdict": "yes", "reason": "r"}, {"verdict": "no"',
  /** Step 2's answer when it is asked again. */
  completeVerdicts: [{ verdict: "yes", reason: "r" }, { verdict: "no" }],
  /** Step 2 is asked twice: the cut-off answer is refused and re-asked. */
  verdictCalls: 2,
  /** The verdicts scored (the re-asked answer's). */
  verdictsRead: ["yes", "no"],
  /** What the re-ask tells the judge about the cut-off answer. */
  problem: "the answer was cut off",
};

/** What the contract's cases share: the declaration, and helpers built on it. */
export interface ContractHarness<Template extends object> {
  contract: MetricContractOptions<Template>;
  name: string;
  create: MetricContractOptions<Template>["create"];
  testCase: MetricContractOptions<Template>["testCase"];
  steps: MetricContractOptions<Template>["steps"];
  lowerIsBetter: boolean;
  /** What step 1's JSON holds, which is also `MockJudgeCall.kind` of its calls. */
  extractKey: string;
  /** 0 for lower-is-better metrics, else 1; `worstScore` the other. */
  bestScore: number;
  worstScore: number;
  /** "yes" or "no", whichever does not count against the output. */
  clean: string;
  /** Scripts a run of the three steps for `verdicts`. */
  scenario: (verdicts: readonly string[]) => MetricScenario;
  /** Measures the declared test case with a judge scripted by `answers`; never throws. */
  measure: (
    answers: AnswersByKind,
    options?: Omit<BaseMetricOptions<Template>, "model">,
    judgeOptions?: Omit<MockJudgeOptions, "answers">,
  ) => Promise<{ judge: MockJudge; metric: BaseMetric<Template>; error: unknown }>;
  /** Types a test's step functions as an `evaluationTemplate`. */
  template: (steps: object) => Partial<Template>;
  /** Asserts what a failed `measure()` leaves on the metric. */
  expectFailure: (
    metric: BaseMetric<Template>,
    error: unknown,
    options: { message: string; judgeCalls: number },
  ) => void;
}

/** Builds the {@link ContractHarness} of a declaration. */
export function createContractHarness<Template extends object>(
  contract: MetricContractOptions<Template>,
): ContractHarness<Template> {
  const { create, testCase, lowerIsBetter } = contract;
  const bestScore = lowerIsBetter ? 0 : 1;
  const [clean] = ["yes", "no"].filter((verdict) => !contract.isFlagged(verdict));
  if (clean === undefined) throw new Error('either "yes" or "no" must count for the output');
  return {
    contract,
    name: contract.name,
    create,
    testCase,
    steps: contract.steps,
    lowerIsBetter,
    extractKey: contract.steps.extract.key,
    bestScore,
    worstScore: 1 - bestScore,
    clean,
    scenario: (verdicts) => scriptScenario(contract, verdicts),
    measure: async (answers, options = {}, judgeOptions = {}) => {
      const judge = scriptedJudge(answers, judgeOptions);
      const metric = create({ ...options, model: judge });
      const error = await metric.measure(testCase).then(
        () => null,
        (caught: unknown) => caught,
      );
      return { judge, metric, error };
    },
    template: (steps) => steps as Partial<Template>,
    expectFailure: (metric, error, options) => {
      expect(metric.error).toBe((error as Error).message);
      expect(metric.error).toContain(options.message);
      expect(metric.score).toBeNull();
      expect(metric.reason).toBeNull();
      expect(metric.success).toBe(false);
      expect(metric.judgeCalls).toBe(options.judgeCalls);
    },
  };
}
