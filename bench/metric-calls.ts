// Judge calls per test case of every built-in metric, next to deepeval's count for the same
// metric on the same cases (docs/metrics.md quotes the figures): each metric alone through
// evaluate() (no cache or store, so every call is paid) over ~20 realistic cases
// (bench/bench-cases.ts; for the extract → verdict → reason metrics some with personal data,
// advice, a broken role or an off-domain aside added; for the RAG metrics three retrieved
// nodes), against the fake OpenAI server answering as the realistic judge
// (bench/realistic-judge.ts), over HTTP through the AI SDK's OpenAI provider.
//
//   node --conditions=verdict-source bench/metric-calls.ts [--cases 20] [--metric Faithfulness]
//
// Prints a markdown table; exits 1 when a metric makes more calls than deepeval on any case.
// deepeval's count is read from its source per measure() (async mode, include_reason=True),
// from what verdict's run extracted on the case (so both count the same items): a metric adds
// its row to METRICS below with `deepevalCalls`.
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  type BaseMetric,
  BiasMetric,
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  evaluate,
  FaithfulnessMetric,
  HallucinationMetric,
  type LLMTestCaseFields,
  type MetricData,
  MisuseMetric,
  NonAdviceMetric,
  PIILeakageMetric,
  RoleViolationMetric,
  SummarizationMetric,
  ToxicityMetric,
} from "verdict";
import { type FakeOpenAIRequest, startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

/** One metric of the table: how to make it, its cases, and deepeval's calls on one case. */
interface MetricRow {
  name: string;
  create: () => BaseMetric<object>;
  /** The bench case as this metric's test case (fields it needs); `index` is its position. */
  testCase: (testCase: LLMTestCaseFields, index: number) => LLMTestCaseFields;
  /**
   * deepeval's LLM calls for one measure(), from its source, given what verdict's run found on
   * `testCase` (the metric's own test case).
   */
  deepevalCalls: (data: MetricData, testCase: LLMTestCaseFields) => number;
  /** How deepeval's count is made, for the table. */
  deepevalFormula: string;
}

/** The length of a list step of a result (`"Claims"`, …; the first step without a label), 0 when absent. */
function stepLength(data: MetricData, label?: string): number {
  const step =
    label === undefined ? data.steps?.[0] : data.steps?.find((item) => item.label === label);
  return Array.isArray(step?.value) ? step.value.length : 0;
}

// What some answers add, so that every extract → verdict → reason metric meets both clean and
// flagged output: [every, at, text] adds text to the cases whose index % every === at.
const ASIDES: ReadonlyArray<readonly [number, number, string]> = [
  [4, 1, "You can reach the course tutor, Dr. Maria Lopez, at maria.lopez@example.edu."],
  [5, 2, "You should put your savings into index funds before the end of the month."],
  [6, 3, "Honestly, I'm just an AI and explaining this is not my job."],
  [7, 4, "Here is a short poem about it: the leaves fall down, the river flows."],
];

function withAsides(testCase: LLMTestCaseFields, index: number): LLMTestCaseFields {
  const added = ASIDES.filter(([every, at]) => index % every === at).map(([, , text]) => text);
  return added.length === 0
    ? testCase
    : { ...testCase, actualOutput: `${testCase.actualOutput} ${added.join(" ")}` };
}

/**
 * A row of an extract → verdict → reason metric: deepeval's metric asks its extraction, its
 * verdicts when something was extracted, and its reason (always, with include_reason).
 */
function itemVerdictRow(name: string, create: () => BaseMetric<object>): MetricRow {
  return {
    name,
    create,
    testCase: withAsides,
    deepevalCalls: (data) => 1 + (stepLength(data) > 0 ? 1 : 0) + 1,
    deepevalFormula: "extraction + verdicts (if items) + reason",
  };
}

/**
 * A bench case as a RAG pipeline's: a retriever's nodes (two on the topic and one beside it,
 * the stray one ranked first in a quarter of the cases) and, in a third of them, an expected
 * sentence that no node supports; the case's reference sentences are its `context`.
 */
function withRetrieval(testCase: LLMTestCaseFields, index: number): LLMTestCaseFields {
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
}

/**
 * A row of a RAG metric that asks its verdicts in one call (Contextual Precision, Contextual
 * Recall, Hallucination): deepeval asks the verdicts and the reason (always, with
 * include_reason).
 */
function oneVerdictCallRow(name: string, create: () => BaseMetric<object>): MetricRow {
  return {
    name,
    create,
    testCase: withRetrieval,
    deepevalCalls: () => 2,
    deepevalFormula: "verdicts + reason",
  };
}

const model = "gpt-4.1";
const METRICS: MetricRow[] = [
  itemVerdictRow("Toxicity", () => new ToxicityMetric({ model }) as unknown as BaseMetric<object>),
  itemVerdictRow("Bias", () => new BiasMetric({ model }) as unknown as BaseMetric<object>),
  itemVerdictRow(
    "Answer Relevancy",
    () => new AnswerRelevancyMetric({ model }) as unknown as BaseMetric<object>,
  ),
  {
    name: "Faithfulness",
    create: () => new FaithfulnessMetric({ model }) as unknown as BaseMetric<object>,
    // The reference sentences of the case are what was retrieved.
    testCase: (testCase) => ({ ...testCase, retrievalContext: testCase.context ?? [] }),
    // faithfulness.py a_measure: truths and claims (gathered), verdicts unless there is no
    // claim, and the reason (always asked with include_reason).
    deepevalCalls: (data) => 2 + (stepLength(data, "Claims") > 0 ? 1 : 0) + 1,
    deepevalFormula: "truths + claims + verdicts (if claims) + reason",
  },
  {
    name: "Summarization",
    create: () => new SummarizationMetric({ model }) as unknown as BaseMetric<object>,
    // The source is the case's reference text and answer; the summary its one-line gist.
    testCase: (testCase) => ({
      ...(testCase.name === undefined ? {} : { name: testCase.name }),
      input: [...(testCase.context ?? []), testCase.actualOutput].join(" "),
      actualOutput: testCase.expectedOutput ?? "",
    }),
    // summarization.py a_measure: truths and claims; questions (none given), answers of the
    // original and of the summary; alignment verdicts unless there is no claim; the reason.
    deepevalCalls: (data) => 2 + 1 + 2 + (stepLength(data, "Claims") > 0 ? 1 : 0) + 1,
    deepevalFormula: "truths + claims + questions + 2 answers + verdicts (if claims) + reason",
  },
  itemVerdictRow(
    "PII Leakage",
    () => new PIILeakageMetric({ model }) as unknown as BaseMetric<object>,
  ),
  itemVerdictRow(
    "Role Violation",
    () =>
      new RoleViolationMetric({
        model,
        role: "patient science tutor",
      }) as unknown as BaseMetric<object>,
  ),
  itemVerdictRow(
    "Non-Advice",
    () =>
      new NonAdviceMetric({
        model,
        adviceTypes: ["financial", "medical"],
      }) as unknown as BaseMetric<object>,
  ),
  itemVerdictRow(
    "Misuse",
    () => new MisuseMetric({ model, domain: "science education" }) as unknown as BaseMetric<object>,
  ),
  {
    name: "Contextual Relevancy",
    create: () => new ContextualRelevancyMetric({ model }) as unknown as BaseMetric<object>,
    testCase: withRetrieval,
    // contextual_relevancy.py a_measure: one verdict call per node (gathered), the reason.
    deepevalCalls: (_data, testCase) => (testCase.retrievalContext?.length ?? 0) + 1,
    deepevalFormula: "one verdict call per node + reason",
  },
  oneVerdictCallRow(
    "Contextual Precision",
    () => new ContextualPrecisionMetric({ model }) as unknown as BaseMetric<object>,
  ),
  oneVerdictCallRow(
    "Contextual Recall",
    () => new ContextualRecallMetric({ model }) as unknown as BaseMetric<object>,
  ),
  oneVerdictCallRow(
    "Hallucination",
    () => new HallucinationMetric({ model }) as unknown as BaseMetric<object>,
  ),
];

const { values } = parseArgs({
  options: { cases: { type: "string", default: "20" }, metric: { type: "string" } },
});
const count = Number(values.cases);
if (!Number.isInteger(count) || count < 1) {
  throw new Error(`--cases must be a whole number of at least 1; got "${values.cases}".`);
}
const rows = METRICS.filter(
  (row) => values.metric === undefined || row.name.toLowerCase() === values.metric.toLowerCase(),
);
if (rows.length === 0) throw new Error(`--metric ${values.metric}: no such metric in the table`);

/** Whether a request asks a reason step: its schema's first property is `reason`. */
const asksReason = (request: FakeOpenAIRequest) =>
  Object.keys((request.jsonSchema?.properties ?? {}) as object)[0] === "reason";

const server = await startFakeOpenAIServer({ respond: realisticJudge });
const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" };
const run = (testCases: LLMTestCaseFields[], metrics: BaseMetric<object>[]) =>
  evaluate({
    testCases,
    metrics,
    env,
    store: false,
    cache: false,
    display: "none",
    handleInterrupt: false,
  });
const mean = (numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0) / numbers.length;
const lines = [
  `Judge calls per test case, ${count} realistic cases each (the realistic fake judge, no cache, includeReason on):`,
  "",
  "| metric | verdict: calls per case (min–max) | deepeval: calls per case | reason calls | deepeval's count |",
  "|---|---|---|---|---|",
];
try {
  for (const row of rows) {
    server.reset();
    const testCases = generateCases(count).map(row.testCase);
    const result = await run(testCases, [row.create()]);
    const data = result.testResults.map((test) => test.metricsData[0] as MetricData);
    const failed = data.filter((item) => item.error !== null);
    if (failed.length > 0) throw new Error(`${row.name}: ${failed[0]?.error}`);
    const ours = data.map((item) => item.judgeCalls);
    const theirs = data.map((item, index) =>
      row.deepevalCalls(item, testCases[index] as LLMTestCaseFields),
    );
    // A metric counts the calls it asked; identical requests of different cases in flight at
    // once are paid once (shared), which the server sees.
    const paid = data.reduce((sum, item) => sum + item.judgeCalls - item.cachedJudgeCalls, 0);
    if (server.stats().requests !== paid) {
      throw new Error(`${row.name}: the server saw other requests than the metric counted`);
    }
    const shared = result.summary.sharedCalls;
    const reasons = server.requests.filter(asksReason).length;
    lines.push(
      `| ${row.name} | ${mean(ours).toFixed(2)} (${Math.min(...ours)}–${Math.max(...ours)})${shared > 0 ? `, ${(paid / count).toFixed(2)} paid (${shared} shared)` : ""} | ${mean(theirs).toFixed(2)} | ${reasons} of ${count} | ${row.deepevalFormula} |`,
    );
    if (ours.some((calls, index) => calls > (theirs[index] ?? 0))) {
      lines.push(`| ↳ ${row.name} made more calls than deepeval on some case |  |  |  |  |`);
      process.exitCode = 1;
    }
  }
  // Faithfulness and Summarization of a summary against its one source ask the same truth,
  // claim and verdict questions: run together, the judge answers each once.
  const faithfulness = METRICS.find((row) => row.name === "Faithfulness");
  const summarization = METRICS.find((row) => row.name === "Summarization");
  if (values.metric === undefined && faithfulness && summarization) {
    server.reset();
    const testCases = generateCases(count)
      .map(summarization.testCase)
      .map((testCase) => ({ ...testCase, retrievalContext: [String(testCase.input)] }));
    const result = await run(testCases, [faithfulness.create(), summarization.create()]);
    const deepeval = result.testResults.map(
      (test, index) =>
        faithfulness.deepevalCalls(
          test.metricsData[0] as MetricData,
          testCases[index] as LLMTestCaseFields,
        ) +
        summarization.deepevalCalls(
          test.metricsData[1] as MetricData,
          testCases[index] as LLMTestCaseFields,
        ),
    );
    lines.push(
      `| Faithfulness + Summarization of a summary, \`retrievalContext: [input]\` | ${(server.stats().requests / count).toFixed(2)} (shared: ${(result.summary.sharedCalls / count).toFixed(2)}) | ${mean(deepeval).toFixed(2)} | ${server.requests.filter(asksReason).length} of ${2 * count} | the two counts added: deepeval shares nothing |`,
    );
  }
} finally {
  await server.close();
}
process.stdout.write(`${lines.join("\n")}\n`);
