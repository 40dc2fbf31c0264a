// Judge calls per test case, per metric, next to deepeval's count for the same metric on the
// same cases: each metric alone through evaluate() (no cache, so every call is paid) over ~20
// realistic cases, against the fake OpenAI server answering as the realistic judge
// (bench/realistic-judge.ts), over HTTP through the AI SDK's OpenAI provider.
//
//   node --conditions=verdict-source bench/metric-calls.ts [--cases 20] [--metric Faithfulness]
//
// deepeval's count is read from its source per measure() (async mode, include_reason=True),
// from what verdict's run extracted on the case (so both count the same items): a metric adds
// its row to METRICS below with `deepevalCalls`.
import { parseArgs } from "node:util";
import {
  type BaseMetric,
  evaluate,
  FaithfulnessMetric,
  type LLMTestCaseFields,
  type MetricData,
  SummarizationMetric,
} from "verdict";
import { startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

/** One metric of the table: how to make it, its cases, and deepeval's calls on one case. */
interface MetricRow {
  name: string;
  create: () => BaseMetric<object>;
  /** The bench case as this metric's test case (fields it needs). */
  testCase: (testCase: LLMTestCaseFields) => LLMTestCaseFields;
  /** deepeval's LLM calls for one measure(), from its source, given what verdict's run found. */
  deepevalCalls: (data: MetricData) => number;
  /** How deepeval's count is made, for the table. */
  deepevalFormula: string;
}

/** The length of a list step of a result (`"Claims"`, …), 0 when absent. */
function stepLength(data: MetricData, label: string): number {
  const value = data.steps?.find((step) => step.label === label)?.value;
  return Array.isArray(value) ? value.length : 0;
}

const model = "gpt-4.1";
const METRICS: MetricRow[] = [
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
];

const { values } = parseArgs({
  options: { cases: { type: "string", default: "20" }, metric: { type: "string" } },
});
const count = Number(values.cases);
if (!Number.isInteger(count) || count < 1) throw new Error("--cases must be a whole number ≥ 1");
const rows = METRICS.filter(
  (row) => values.metric === undefined || row.name.toLowerCase() === values.metric.toLowerCase(),
);
if (rows.length === 0) throw new Error(`--metric ${values.metric}: no such metric in the table`);

const server = await startFakeOpenAIServer({ respond: realisticJudge });
const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" };
const mean = (numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0) / numbers.length;
const lines = [
  `Judge calls per test case, ${count} realistic cases each (the realistic fake judge, no cache):`,
  "",
  "| metric | verdict: calls per case (min–max) | deepeval: calls per case | deepeval's count |",
  "|---|---|---|---|",
];
try {
  for (const row of rows) {
    server.reset();
    const result = await evaluate({
      testCases: generateCases(count).map(row.testCase),
      metrics: [row.create()],
      env,
      store: false,
      display: "none",
      handleInterrupt: false,
    });
    const data = result.testResults.map((test) => test.metricsData[0] as MetricData);
    const failed = data.filter((item) => item.error !== null);
    if (failed.length > 0) throw new Error(`${row.name}: ${failed[0]?.error}`);
    const ours = data.map((item) => item.judgeCalls);
    const theirs = data.map(row.deepevalCalls);
    if (server.stats().requests !== ours.reduce((sum, n) => sum + n, 0)) {
      throw new Error(`${row.name}: the server saw other requests than the metric counted`);
    }
    lines.push(
      `| ${row.name} | ${mean(ours).toFixed(2)} (${Math.min(...ours)}–${Math.max(...ours)}) | ${mean(theirs).toFixed(2)} | ${row.deepevalFormula} |`,
    );
    if (ours.some((calls, index) => calls > (theirs[index] ?? 0))) {
      lines.push(`| ↳ ${row.name} made more calls than deepeval on some case |  |  |  |`);
      process.exitCode = 1;
    }
  }
  // Faithfulness and Summarization of a summary against its one source ask the same truth,
  // claim and verdict questions: run together, the judge answers each once.
  const faithfulness = METRICS.find((row) => row.name === "Faithfulness");
  const summarization = METRICS.find((row) => row.name === "Summarization");
  if (values.metric === undefined && faithfulness && summarization) {
    server.reset();
    const result = await evaluate({
      testCases: generateCases(count)
        .map(summarization.testCase)
        .map((testCase) => ({ ...testCase, retrievalContext: [String(testCase.input)] })),
      metrics: [faithfulness.create(), summarization.create()],
      env,
      store: false,
      display: "none",
      handleInterrupt: false,
    });
    const deepeval = result.testResults.map(
      (test) =>
        faithfulness.deepevalCalls(test.metricsData[0] as MetricData) +
        summarization.deepevalCalls(test.metricsData[1] as MetricData),
    );
    lines.push(
      `| Faithfulness + Summarization of a summary, \`retrievalContext: [input]\` | ${(server.stats().requests / count).toFixed(2)} (shared: ${(result.summary.sharedCalls / count).toFixed(2)}) | ${mean(deepeval).toFixed(2)} | the two counts added: deepeval shares nothing |`,
    );
  }
} finally {
  await server.close();
}
process.stdout.write(`${lines.join("\n")}\n`);
