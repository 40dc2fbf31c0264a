// Judge calls per test case of each built-in metric, next to deepeval's count for the same
// metric on the same case (docs/metrics.md quotes the figures). Every metric scores ~20
// realistic cases through evaluate() against the fake OpenAI server answering as a judge that
// reads the prompts (bench/realistic-judge.ts), without a cache, so every call is counted.
//   node --conditions=verdict-source bench/metric-calls.ts [--cases 20]
// Prints a markdown table; exits 1 when a metric makes more calls than deepeval on any case.
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  type BaseMetric,
  BiasMetric,
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  evaluate,
  HallucinationMetric,
  type LLMTestCaseFields,
  type MetricData,
  ToxicityMetric,
} from "verdict";
import { startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

/** A metric, and deepeval's LLM calls per `measure()` on a case, from deepeval's source. */
interface Counted {
  create: () => BaseMetric<object>;
  /** How deepeval counts (shown in the table). */
  deepevalRule: string;
  /** deepeval's calls on a case, from what the steps found (its extraction is the same). */
  deepevalCalls: (testCase: LLMTestCaseFields, data: MetricData) => number;
}

const model = "gpt-4.1";
const found = (data: MetricData, label: string) =>
  (data.steps?.find((step) => step.label === label)?.value as unknown[] | undefined)?.length ?? 0;

// deepeval (a2e0d4c): Toxicity/Bias/Answer Relevancy extract, judge the items unless none was
// found, and always ask the reason; Contextual Relevancy asks once per node, then the reason;
// Contextual Precision, Contextual Recall and Hallucination ask all verdicts in one call, then
// the reason.
const METRICS: Record<string, Counted> = {
  Toxicity: {
    create: () => new ToxicityMetric({ model }),
    deepevalRule: "opinions + verdicts (when any) + reason",
    deepevalCalls: (_case, data) => 2 + (found(data, "Opinions") > 0 ? 1 : 0),
  },
  Bias: {
    create: () => new BiasMetric({ model }),
    deepevalRule: "opinions + verdicts (when any) + reason",
    deepevalCalls: (_case, data) => 2 + (found(data, "Opinions") > 0 ? 1 : 0),
  },
  "Answer Relevancy": {
    create: () => new AnswerRelevancyMetric({ model }),
    deepevalRule: "statements + verdicts (when any) + reason",
    deepevalCalls: (_case, data) => 2 + (found(data, "Statements") > 0 ? 1 : 0),
  },
  "Contextual Relevancy": {
    create: () => new ContextualRelevancyMetric({ model }),
    deepevalRule: "one verdict call per node + reason",
    deepevalCalls: (testCase) => (testCase.retrievalContext?.length ?? 0) + 1,
  },
  "Contextual Precision": {
    create: () => new ContextualPrecisionMetric({ model }),
    deepevalRule: "verdicts + reason",
    deepevalCalls: () => 2,
  },
  "Contextual Recall": {
    create: () => new ContextualRecallMetric({ model }),
    deepevalRule: "verdicts + reason",
    deepevalCalls: () => 2,
  },
  Hallucination: {
    create: () => new HallucinationMetric({ model }),
    deepevalRule: "verdicts + reason",
    deepevalCalls: () => 2,
  },
};

/**
 * The bench cases with a retriever's nodes (two on the topic and one beside it, the stray one
 * ranked first in a quarter of them) and, in a third of them, an expected sentence that no node
 * supports.
 */
function ragCases(count: number): LLMTestCaseFields[] {
  return generateCases(count).map((testCase, index) => {
    const [studied = "", summary = "", related = ""] = testCase.context ?? [];
    const stray = `Opening hours of the library: 9 to 5 (case ${index + 1}).`;
    const expected = String(testCase.expectedOutput);
    return {
      ...testCase,
      expectedOutput:
        index % 3 === 1 ? `${expected} The archive notes when it was first described.` : expected,
      retrievalContext:
        index % 4 === 1
          ? [stray, summary, studied]
          : [summary, index % 3 === 0 ? stray : studied, related],
    };
  });
}

const { values } = parseArgs({ options: { cases: { type: "string", default: "20" } } });
const caseCount = Number(values.cases);
if (!Number.isInteger(caseCount) || caseCount < 1) {
  process.stderr.write(`--cases must be a whole number of at least 1; got "${values.cases}".\n`);
  process.exit(2);
}
const cases = ragCases(caseCount);
const server = await startFakeOpenAIServer({ respond: realisticJudge });
const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" };
const rows: string[] = [];
let over = 0;
try {
  for (const [name, counted] of Object.entries(METRICS)) {
    server.reset();
    const result = await evaluate({
      testCases: cases,
      metrics: [counted.create()],
      store: false,
      cache: false,
      env,
      display: "none",
      handleInterrupt: false,
    });
    let verdictCalls = 0;
    let deepevalCalls = 0;
    let casesOver = 0;
    for (const [index, testResult] of result.testResults.entries()) {
      const data = testResult.metricsData[0] as MetricData;
      if (data.error) throw new Error(`${name} failed on case ${index + 1}: ${data.error}`);
      const theirs = counted.deepevalCalls(cases[index] as LLMTestCaseFields, data);
      verdictCalls += data.judgeCalls;
      deepevalCalls += theirs;
      if (data.judgeCalls > theirs) casesOver += 1;
    }
    over += casesOver;
    const mean = (total: number) => (total / cases.length).toFixed(2);
    rows.push(
      `| ${name} | ${mean(verdictCalls)} | ${mean(deepevalCalls)} (${counted.deepevalRule}) | ${(server.stats().requests / cases.length).toFixed(2)} | ${casesOver} |`,
    );
  }
} finally {
  await server.close();
}
process.stdout.write(
  [
    `Judge calls per test case, ${cases.length} realistic cases (3 retrieved nodes each), realistic fake judge, no cache:`,
    "",
    "| metric | verdict | deepeval | requests the server saw per case | cases where verdict calls more |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n"),
);
process.exit(over > 0 ? 1 : 0);
