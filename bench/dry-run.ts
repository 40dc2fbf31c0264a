// The dry run's estimate against what the run then spends, and a budget that stops a run
// (issue 24): a suite of 200 cases × Toxicity, Bias, Answer Relevancy on the realistic fake
// judge (bench/realistic-judge.ts) over HTTP (AI SDK OpenAI provider, gpt-4.1's price), each
// source in a fresh SQLite store: evaluate({ dryRun: true }) first, then the real run.
//   node --conditions=verdict-source bench/dry-run.ts [--cases 200] [--sources generated,nq,…]
// Sources: "generated" (bench-cases.ts), and the human-labelled samples of ../shared/data/ read
// in place when present (never copied): nq, wikiqa, davidson, hatexplain, ethos, babe, bbq,
// crows, redditbias. Writes bench/results/dry-run.{md,json}; exits 1 when a goal is missed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  type CostEstimate,
  type EvaluationResult,
  evaluate,
  type LLMTestCaseFields,
  ToxicityMetric,
} from "verdict";
import { startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

const SHARED = fileURLToPath(new URL("../../shared/data/", import.meta.url));
const FILES: Record<string, string> = {
  nq: "answer_relevancy/nq_open_pairs.jsonl",
  wikiqa: "answer_relevancy/wikiqa_pairs.jsonl",
  davidson: "toxicity/davidson_hate_offensive.jsonl",
  hatexplain: "toxicity/hatexplain.jsonl",
  ethos: "toxicity/ethos_binary.jsonl",
  babe: "bias/babe_sg2.jsonl",
  bbq: "bias/bbq_ambiguous.jsonl",
  crows: "bias/crows_pairs.jsonl",
  redditbias: "bias/redditbias.jsonl",
};
/** The goal: the estimate within ±15% of what the run spends. */
const TOLERANCE = 0.15;

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "200" },
    sources: { type: "string", default: ["generated", ...Object.keys(FILES)].join(",") },
    out: { type: "string", default: fileURLToPath(new URL("results/", import.meta.url)) },
  },
});
const count = Number(values.cases);

function casesOf(source: string): LLMTestCaseFields[] | null {
  if (source === "generated") return generateCases(count);
  const file = FILES[source];
  if (file === undefined)
    throw new Error(
      `Unknown source "${source}": use generated or ${Object.keys(FILES).join(", ")}.`,
    );
  const path = join(SHARED, file);
  if (!existsSync(path)) return null;
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, count)
    .map((line) => {
      const row = JSON.parse(line) as { id: string; input: string; actual_output: string };
      return { name: row.id, input: row.input, actualOutput: row.actual_output };
    });
}

const server = await startFakeOpenAIServer({ respond: realisticJudge });
const homes: string[] = [];
function environment(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "verdict-dry-run-bench-"));
  homes.push(home);
  return { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench", VERDICT_HOME: home };
}
const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];
// Some texts make the fake judge answer malformed items: they are re-asked, then errored.
const quiet = { display: "none" as const, handleInterrupt: false, ignoreErrors: true };

interface Comparison {
  source: string;
  cases: number;
  figures: Array<{ name: string; estimate: CostEstimate["total"]["judgeCalls"]; actual: number }>;
}

async function compare(source: string, testCases: LLMTestCaseFields[]) {
  const env = environment();
  const estimate = await evaluate({ testCases, metrics: metrics(), env, dryRun: true, ...quiet });
  server.reset();
  const result = await evaluate({ testCases, metrics: metrics(), env, ...quiet });
  const { summary } = result;
  if (server.stats().requests !== summary.judgeCalls) {
    throw new Error(
      `${source}: the run reports ${summary.judgeCalls} calls, the server saw ${server.stats().requests}.`,
    );
  }
  // Again, the cache full: what is left is what the run could not score (malformed answers
  // are never cached), which a second run asks again.
  const again = await evaluate({ testCases, metrics: metrics(), env, dryRun: true, ...quiet });
  server.reset();
  const rerun = await evaluate({ testCases, metrics: metrics(), env, ...quiet });
  const { total } = estimate;
  const cost = total.costUsd ?? { low: Number.NaN, expected: Number.NaN, high: Number.NaN };
  const comparison: Comparison = {
    source,
    cases: testCases.length,
    figures: [
      { name: "judge calls", estimate: total.judgeCalls, actual: summary.judgeCalls },
      { name: "input tokens", estimate: total.inputTokens, actual: summary.inputTokens },
      { name: "output tokens", estimate: total.outputTokens, actual: summary.outputTokens },
      {
        name: "tokens",
        estimate: {
          low: total.inputTokens.low + total.outputTokens.low,
          expected: total.inputTokens.expected + total.outputTokens.expected,
          high: total.inputTokens.high + total.outputTokens.high,
        },
        actual: summary.inputTokens + summary.outputTokens,
      },
      { name: "cost (USD)", estimate: cost, actual: summary.costUsd ?? Number.NaN },
    ],
  };
  return {
    comparison,
    result,
    rerun: { estimate: again.total.judgeCalls, actual: rerun.summary.judgeCalls },
  };
}

const error = (estimate: number, actual: number) => estimate / actual - 1;
const percent = (value: number) => `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)}%`;
const number = (value: number) =>
  value < 10 ? value.toFixed(4) : Math.round(value).toLocaleString("en-US");

const comparisons: Comparison[] = [];
let generated: { testCases: LLMTestCaseFields[]; result: EvaluationResult } | null = null;
const reruns: Array<{
  source: string;
  estimate: CostEstimate["total"]["judgeCalls"];
  actual: number;
}> = [];
for (const source of values.sources.split(",").map((name) => name.trim())) {
  const testCases = casesOf(source);
  if (testCases === null) {
    process.stdout.write(`(${source}: ${FILES[source]} is absent from ../shared/data: skipped)\n`);
    continue;
  }
  const { comparison, result, rerun } = await compare(source, testCases);
  comparisons.push(comparison);
  reruns.push({ source, ...rerun });
  if (source === "generated") generated = { testCases, result };
}

// The budget: 40% of the generated suite's cost, then a resume with twice the cost.
const budgetRows: Array<{ figure: string; goal: string; measured: string; pass: boolean }> = [];
if (generated !== null) {
  const { testCases } = generated;
  const fullCost = generated.result.summary.costUsd ?? Number.NaN;
  const fullCalls = generated.result.summary.judgeCalls;
  const env = environment();
  server.reset();
  const maxCostUsd = fullCost * 0.4;
  const first = await evaluate({
    testCases,
    metrics: metrics(),
    env,
    identifier: "budget",
    budget: { maxCostUsd },
    ...quiet,
  });
  const firstRequests = server.stats().requests;
  server.reset();
  const second = await evaluate({
    testCases,
    metrics: metrics(),
    env,
    identifier: "budget",
    resume: true,
    budget: { maxCostUsd: fullCost * 2 },
    ...quiet,
  });
  const secondRequests = server.stats().requests;
  const spent = first.summary.budget?.spentCostUsd ?? Number.NaN;
  budgetRows.push(
    {
      figure: `budget of 40% of the run's cost ($${maxCostUsd.toFixed(4)}): spent`,
      goal: "≤ 100% of the budget",
      measured: `$${spent.toFixed(4)} (${((spent / maxCostUsd) * 100).toFixed(1)}%), status ${first.summary.status}`,
      pass: spent <= maxCostUsd && first.summary.status === "budget-exhausted",
    },
    {
      figure: "cases finished and stored when it stopped",
      goal: "every finished case kept",
      measured: `${first.testResults.length}/${testCases.length} (the run's cost: ${(((first.summary.costUsd ?? 0) / fullCost) * 100).toFixed(1)}%)`,
      pass:
        first.testResults.length > 0 &&
        first.testResults.every((result) =>
          result.metricsData.every((metric) => metric.score !== null),
        ),
    },
    {
      figure: "resume with 2× the cost: judge calls of both parts",
      goal: `${fullCalls} (one whole run: nothing paid twice)`,
      measured: `${firstRequests} + ${secondRequests} = ${firstRequests + secondRequests}; status ${second.summary.status}, ${second.testResults.length} cases`,
      pass:
        firstRequests + secondRequests === fullCalls &&
        second.summary.status === "completed" &&
        second.testResults.length === testCases.length,
    },
  );
}

await server.close();
for (const home of homes) rmSync(home, { recursive: true, force: true });

const lines = [
  `## Dry run against the run: ${count} cases × Toxicity, Bias, Answer Relevancy, realistic fake judge, gpt-4.1 prices`,
  "",
  "Each source in a fresh SQLite store: the dry run first (empty cache), then the run. Error = estimate ÷ spent − 1 (goal: within ±15%); range: whether what was spent falls in the estimate's low–high.",
  "",
  "| source | figure | estimate | range (low–high) | spent | error | in range |",
  "| --- | --- | --- | --- | --- | --- | --- |",
];
let pass = true;
for (const comparison of comparisons) {
  for (const figure of comparison.figures) {
    const deviation = error(figure.estimate.expected, figure.actual);
    const within = Math.abs(deviation) <= TOLERANCE;
    const inRange = figure.estimate.low <= figure.actual && figure.actual <= figure.estimate.high;
    if (!within) pass = false;
    lines.push(
      `| ${comparison.source} (${comparison.cases}) | ${figure.name} | ${number(figure.estimate.expected)} | ${number(figure.estimate.low)}–${number(figure.estimate.high)} | ${number(figure.actual)} | ${percent(deviation)} ${within ? "✓" : "✗"} | ${inRange ? "yes" : "no"} |`,
    );
  }
}
lines.push(
  "",
  "The same suite again, the judge cache holding the run's answers: judge calls expected by the dry run (range) and made by the run (the requests whose answers the run could not use, never cached).",
  "",
  "| source | expected | range | made | |",
  "| --- | --- | --- | --- | --- |",
);
for (const rerun of reruns) {
  const ok =
    rerun.estimate.low <= rerun.actual &&
    rerun.actual <= rerun.estimate.high &&
    (rerun.actual === 0 ? rerun.estimate.expected === 0 : true);
  if (!ok) pass = false;
  lines.push(
    `| ${rerun.source} | ${rerun.estimate.expected.toFixed(1)} | ${rerun.estimate.low}–${rerun.estimate.high} | ${rerun.actual} | ${ok ? "✓" : "✗"} |`,
  );
}
if (budgetRows.length > 0) {
  lines.push(
    "",
    "## A budget of 40% of the generated suite's cost, then a resume",
    "",
    "| figure | goal | measured | |",
    "| --- | --- | --- | --- |",
  );
  for (const row of budgetRows) {
    lines.push(`| ${row.figure} | ${row.goal} | ${row.measured} | ${row.pass ? "✓" : "✗"} |`);
    if (!row.pass) pass = false;
  }
}
const text = `${lines.join("\n")}\n`;
process.stdout.write(text);
mkdirSync(values.out, { recursive: true });
writeFileSync(join(values.out, "dry-run.md"), text);
writeFileSync(
  join(values.out, "dry-run.json"),
  `${JSON.stringify({ cases: count, tolerance: TOLERANCE, comparisons, reruns, budget: budgetRows }, null, 2)}\n`,
);
if (!pass) process.exitCode = 1;
