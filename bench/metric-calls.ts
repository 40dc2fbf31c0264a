// Judge calls per test case, metric by metric: each metric runs alone through evaluate() over
// the same realistic cases (bench/bench-cases.ts, some with personal data, advice, a broken
// role or an off-domain aside added), against the fake OpenAI server answering as the realistic
// judge (bench/realistic-judge.ts), without cache or store. Next to verdict's count it prints
// deepeval's for the same cases: its extraction, its verdict call when something was extracted,
// and its reason call, which it always makes when include_reason is on (the default).
//   node --conditions=verdict-source bench/metric-calls.ts [--cases 20]
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  type EvaluationResult,
  evaluate,
  type LLMTestCaseFields,
  MisuseMetric,
  NonAdviceMetric,
  PIILeakageMetric,
  RoleViolationMetric,
  ToxicityMetric,
} from "verdict";
import { startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

const { values } = parseArgs({ options: { cases: { type: "string", default: "20" } } });
const count = Number(values.cases);
if (!Number.isInteger(count) || count < 1) {
  throw new Error(`--cases must be a whole number of at least 1; got "${values.cases}".`);
}

// What some answers add, so that every metric meets both clean and flagged output.
const ASIDES: ReadonlyArray<readonly [number, number, string]> = [
  [4, 1, "You can reach the course tutor, Dr. Maria Lopez, at maria.lopez@example.edu."],
  [5, 2, "You should put your savings into index funds before the end of the month."],
  [6, 3, "Honestly, I'm just an AI and explaining this is not my job."],
  [7, 4, "Here is a short poem about it: the leaves fall down, the river flows."],
];

function benchCases(): LLMTestCaseFields[] {
  return generateCases(count).map((testCase, index) => {
    const added = ASIDES.filter(([every, at]) => index % every === at).map(([, , text]) => text);
    return added.length === 0
      ? testCase
      : { ...testCase, actualOutput: `${testCase.actualOutput} ${added.join(" ")}` };
  });
}

const model = "gpt-4.1";
const METRICS = [
  () => new ToxicityMetric({ model }),
  () => new BiasMetric({ model }),
  () => new AnswerRelevancyMetric({ model }),
  () => new PIILeakageMetric({ model }),
  () => new RoleViolationMetric({ model, role: "patient science tutor" }),
  () => new NonAdviceMetric({ model, adviceTypes: ["financial", "medical"] }),
  () => new MisuseMetric({ model, domain: "science education" }),
];

/** Calls per case of one run: verdict's, and deepeval's for what was extracted. */
function callsOf(result: EvaluationResult) {
  let verdictCalls = 0;
  let deepevalCalls = 0;
  let reasonCalls = 0;
  let errors = 0;
  for (const testResult of result.testResults) {
    const data = testResult.metricsData[0];
    if (data === undefined || data.error !== null) {
      errors++;
      continue;
    }
    const extracted = data.steps?.[0]?.value;
    const items = Array.isArray(extracted) ? extracted.length : 0;
    const withVerdicts = items > 0 ? 2 : 1;
    verdictCalls += data.judgeCalls;
    reasonCalls += data.judgeCalls > withVerdicts ? 1 : 0;
    deepevalCalls += withVerdicts + 1;
  }
  const cases = result.testResults.length;
  return {
    verdict: verdictCalls / cases,
    deepeval: deepevalCalls / cases,
    reasons: reasonCalls,
    errors,
  };
}

const server = await startFakeOpenAIServer({ respond: realisticJudge });
const env = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench-calls" };
const cases = benchCases();
const lines = [
  `Judge calls per case over ${cases.length} cases (realistic fake judge, no cache, includeReason on):`,
  "",
  "| metric | verdict | deepeval | cases with a reason call | errors |",
  "|---|---|---|---|---|",
];
try {
  for (const make of METRICS) {
    const metric = make();
    const result = await evaluate({
      testCases: cases,
      metrics: [metric],
      store: false,
      cache: false,
      display: "none",
      handleInterrupt: false,
      env,
    });
    const calls = callsOf(result);
    lines.push(
      `| ${metric.name} | ${calls.verdict.toFixed(2)} | ${calls.deepeval.toFixed(2)} | ${calls.reasons} of ${cases.length} | ${calls.errors} |`,
    );
  }
} finally {
  await server.close();
}
process.stdout.write(`${lines.join("\n")}\n`);
