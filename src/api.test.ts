import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  JudgeAnswerWithTokens,
  JudgeOutput,
  JudgeRequest,
  JudgeTokenLogprob,
  MetricContext,
} from "./index.ts";
import type { FakeLogprobs, MockJudgeCall } from "./testing/index.ts";

// The runtime exports of each entry point. SPEC §2 names plus the extension points a user
// needs (templates, BaseMetric, createJudge, stores, reporters); everything else is internal.
// Adding a name here is a decision about the public API, not a formality.
const ENTRY_POINTS: Record<string, string[]> = {
  verdict: [
    "AnswerRelevancyMetric",
    "AnswerRelevancyTemplate",
    "BaseMetric",
    "BiasMetric",
    "BiasTemplate",
    "BudgetExhaustedError",
    "ConfigError",
    "ContextualPrecisionMetric",
    "ContextualPrecisionTemplate",
    "ContextualRecallMetric",
    "ContextualRecallTemplate",
    "ContextualRelevancyMetric",
    "ContextualRelevancyTemplate",
    "DatasetFileError",
    "EvalError",
    "EvaluationDataset",
    "FaithfulnessMetric",
    "FaithfulnessTemplate",
    "FineTuningReadError",
    "GEval",
    "GEvalTemplate",
    "G_EVAL_FIELDS",
    "Golden",
    "HallucinationMetric",
    "HallucinationTemplate",
    "JudgeCallError",
    "JudgeOutputError",
    "LLMTestCase",
    "MissingTestCaseParamsError",
    "MisuseMetric",
    "MisuseTemplate",
    "NonAdviceMetric",
    "NonAdviceTemplate",
    "PIILeakageMetric",
    "PIILeakageTemplate",
    "RoleViolationMetric",
    "RoleViolationTemplate",
    "StoreError",
    "SummarizationMetric",
    "SummarizationTemplate",
    "TestCaseBuildError",
    "ToxicityMetric",
    "ToxicityTemplate",
    "createJudge",
    "defineMetric",
    "evaluate",
    "image",
    "mm",
    "observe",
    "redactSecretText",
    "redactSecrets",
    "updateCurrentSpan",
    "updateCurrentTrace",
    "weightedScore",
    "z",
  ],
  "verdict/stores": [
    "MemoryRunStore",
    "PostgresRunStore",
    "SqliteRunStore",
    "openStore",
    "readTestResults",
  ],
  "verdict/reporters": [
    "createConsoleReporter",
    "createHtmlReporter",
    "createJUnitReporter",
    "createJsonReporter",
    "createMarkdownReporter",
    "createProgressReporter",
    "parseJsonReport",
    "renderCostEstimate",
    "renderJsonReport",
    "renderMarkdownReport",
  ],
  "verdict/calibrate": ["calibrate"],
  "verdict/finetune": ["createEvaluationCallback", "evaluateCheckpoints"],
  "verdict/testing": ["MockJudge", "reply", "startFakeOpenAIServer"],
  "verdict/testing/store-contract": [
    "describeStoreContract",
    "makeRunOwner",
    "makeStoredJudgeBatch",
    "makeStoredRun",
    "makeStoredTestResult",
    "makeSummary",
  ],
  "verdict/testing/metric-contract": [
    "describeCustomMetricContract",
    "describeMetricContract",
    "opinionMetricContract",
  ],
  "verdict/vitest": ["VerdictReporter", "assertTest", "toPass"],
};

const MODULES: Record<string, () => Promise<Record<string, unknown>>> = {
  verdict: () => import("./index.ts"),
  "verdict/stores": () => import("./store/index.ts"),
  "verdict/reporters": () => import("./report/index.ts"),
  "verdict/calibrate": () => import("./calibrate/index.ts"),
  "verdict/finetune": () => import("./finetune/index.ts"),
  "verdict/testing": () => import("./testing/index.ts"),
  "verdict/testing/store-contract": () => import("./testing/store-contract.ts"),
  "verdict/testing/metric-contract": () => import("./testing/metric-contract.ts"),
  "verdict/vitest": () => import("./vitest/index.ts"),
};

describe("the public API", () => {
  for (const [entry, expected] of Object.entries(ENTRY_POINTS)) {
    it(`${entry} exports exactly its planned names`, async () => {
      const actual = Object.keys(await (MODULES[entry] as () => Promise<object>)()).sort();
      expect(actual).toEqual([...expected].sort());
    });
  }
});

// Types have no runtime export to list: these fail `npm run typecheck` when a shape changes.
describe("the public types of token log-probabilities", () => {
  it("pass from the judge to a metric's step as planned", () => {
    type Candidate = { token: string; logprob: number };
    expectTypeOf<JudgeTokenLogprob>().toEqualTypeOf<{
      token: string;
      logprob: number;
      topLogprobs: Candidate[];
    }>();
    expectTypeOf<JudgeRequest["topLogprobs"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<JudgeOutput["logprobs"]>().toEqualTypeOf<JudgeTokenLogprob[] | undefined>();
    expectTypeOf<JudgeAnswerWithTokens<{ score: number }>>().toEqualTypeOf<{
      value: { score: number };
      logprobs: JudgeTokenLogprob[] | null;
      rawText: string;
    }>();
    expectTypeOf<ReturnType<MetricContext<object>["askWithTokens"]>>().toEqualTypeOf<
      Promise<JudgeAnswerWithTokens<unknown>>
    >();
    expectTypeOf<MockJudgeCall["topLogprobs"]>().toEqualTypeOf<number | null>();
    expectTypeOf<{ "7": Candidate[] }>().toExtend<FakeLogprobs>();
  });
});
