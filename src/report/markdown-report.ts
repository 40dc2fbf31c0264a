import { metricStatus } from "../results/case-metrics.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunReporter } from "../results/runner-events.ts";
import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  showName,
} from "./format.ts";
import { codeBlock, inlineText, MarkdownBudget, markdownTable } from "./markdown/markdown-text.ts";
import { gatherRunResults } from "./run-results.ts";
import { writeReportFile } from "./write-report-file.ts";

/** Options of {@link renderMarkdownReport}. */
export interface RenderMarkdownReportOptions {
  result: EvaluationResult;
  /** Said at the end, e.g. how to resume an interrupted run (the run-end event's message). */
  message?: string | null | undefined;
  /**
   * The most characters the report may take: failing cases that do not fit are listed by
   * name only. A GitHub job summary holds 1 MiB, a pull-request comment 65,536 characters.
   * @default 60000
   */
  maxLength?: number;
  /** Characters of a case's input or output shown (longer text is cut, with `…`). @default 1000 */
  maxFieldLength?: number;
}

/** Options of {@link createMarkdownReporter}. */
export interface MarkdownReporterOptions {
  /** Path of the Markdown file; missing folders are created. */
  file: string;
}

const DEFAULT_MAX_LENGTH = 60_000;
const DEFAULT_MAX_FIELD_LENGTH = 1000;
const MAX_NAME_LENGTH = 200;
const MAX_REASON_LENGTH = 600;
/** Failing cases listed by name, at most, once their details no longer fit. */
const MAX_NAMES_LISTED = 100;

/**
 * The totals of a run in plain words, e.g. `"1 of 15 test cases failed"`,
 * `"all 15 test cases passed"`, `"the run was interrupted: 9 of 15 test cases scored"`.
 */
export function describeRunTotals(result: EvaluationResult): string {
  const { status, testCases } = result.summary;
  const { total, passed, failed, unscored } = testCases;
  const scored = passed + failed;
  if (
    status === "interrupted" ||
    status === "quota-exhausted" ||
    status === "budget-exhausted" ||
    status === "failed"
  ) {
    const why = {
      interrupted: "the run was interrupted",
      "quota-exhausted": "the judge's quota ran out",
      "budget-exhausted": "the run's budget ran out",
      failed: "the run failed",
    }[status];
    const fails = failed > 0 ? `, ${formatCount(failed)} failed` : "";
    return `${why}: ${formatCount(scored)} of ${formatPlural(total, "test case")} scored${fails}`;
  }
  if (total === 0) return "no test case was evaluated";
  const parts: string[] = [];
  if (failed > 0)
    parts.push(`${formatCount(failed)} of ${formatPlural(total, "test case")} failed`);
  if (unscored > 0) parts.push(`${formatCount(unscored)} left unscored by judge errors`);
  if (parts.length === 0) {
    return total === 1 ? "the test case passed" : `all ${formatCount(total)} test cases passed`;
  }
  return parts.join(", ");
}

/**
 * Renders a run as GitHub-flavoured Markdown, what a reviewer reads in a job summary or a
 * pull-request comment: the totals in plain words, a table per metric (mean score, pass rate,
 * their 95% intervals, counts), then each failing case by name — where it is (file and line),
 * each metric's score, threshold and reason, its input, output and expected output — within
 * `maxLength` (the rest by name). Text from cases and the judge is shown, never rendered
 * (see `inlineText`, `codeBlock`), and secrets are masked.
 * @example
 * writeFileSync("summary.md", renderMarkdownReport({ result }));
 */
export function renderMarkdownReport(options: RenderMarkdownReportOptions): string {
  const { result } = options;
  const maxField = options.maxFieldLength ?? DEFAULT_MAX_FIELD_LENGTH;
  const failing = result.testResults.filter((testResult) => testResult.success === false);
  const ok =
    result.summary.status === "completed" &&
    failing.length === 0 &&
    result.summary.testCases.unscored === 0;
  const budget = new MarkdownBudget(options.maxLength ?? DEFAULT_MAX_LENGTH);
  const identifier =
    result.identifier === null ? "" : ` ${inlineText(result.identifier, MAX_NAME_LENGTH)}`;
  budget.add(
    `## ${ok ? "✅" : "❌"} verdict${identifier}: ${inlineText(describeRunTotals(result), 300)}`,
  );
  const fake = result.summary.fakeJudge === true || usesFakeJudge(result.testResults);
  if (fake) budget.add(`> [!WARNING]\n> ${inlineText(FAKE_JUDGE_NOTICE, 400)}`);
  budget.add(describeRun(result));
  if (result.summary.metrics.length > 0) budget.add(metricTable(result));
  if (failing.length > 0) {
    budget.add(`### Failing test cases (${formatCount(failing.length)})`);
    const listed: TestResult[] = [];
    for (const testResult of failing) {
      if (!budget.add(failingCase(testResult, maxField))) listed.push(testResult);
    }
    if (listed.length > 0) {
      const names = listed
        .slice(0, MAX_NAMES_LISTED)
        .map(
          (testResult) => `- ${inlineText(testResult.name, MAX_NAME_LENGTH)}${where(testResult)}`,
        );
      const more = listed.length - names.length;
      // Past the budget on purpose: what was left out must be said.
      return [
        budget.toString(),
        `${formatPlural(listed.length, "more failing test case")}, details left out to keep this short (see the JSON or HTML report):`,
        names.join("\n") + (more > 0 ? `\n- … and ${formatCount(more)} more` : ""),
        closing(options.message),
      ]
        .filter((part) => part !== "")
        .join("\n\n")
        .concat("\n");
    }
  }
  return [budget.toString(), closing(options.message)]
    .filter((part) => part !== "")
    .join("\n\n")
    .concat("\n");
}

/**
 * A reporter that writes {@link renderMarkdownReport} to `file` when the run ends (whatever its
 * status: an interrupted run's report shows what finished), creating the folder if needed.
 * @example
 * await evaluate({ testCases, metrics, reporters: [createMarkdownReporter({ file: "summary.md" })] });
 */
export function createMarkdownReporter(options: MarkdownReporterOptions): RunReporter {
  const results = gatherRunResults();
  return {
    onEvent(event) {
      results.observe(event);
      if (event.type !== "run-end") return;
      writeReportFile({
        file: options.file,
        text: renderMarkdownReport({ result: results.of(event).result, message: event.message }),
        kind: "Markdown",
      });
    },
  };
}

function describeRun(result: EvaluationResult): string {
  const { summary } = result;
  const { testCases } = summary;
  const counts = [
    `${formatCount(testCases.passed)} passed`,
    `${formatCount(testCases.failed)} failed`,
  ];
  if (testCases.unscored > 0) counts.push(`${formatCount(testCases.unscored)} unscored`);
  const judges = summary.judges?.length ? ` by ${inlineText(summary.judges.join(", "), 300)}` : "";
  return [
    `**${formatPlural(testCases.total, "test case")}**: ${counts.join(", ")}.`,
    `Run ${inlineText(result.testRunId, 100)}, ${inlineText(summary.status, 40)}, ${formatDuration(summary.durationMs)}; ${formatPlural(summary.judgeCalls, "judge call")}${judges} (${formatCount(summary.cacheHits)} from the cache), cost ${inlineText(formatCostUsd(summary.costUsd), 40)}.`,
  ].join("\n");
}

function metricTable(result: EvaluationResult): string {
  const rows = result.summary.metrics.map((metric) => {
    const meanInterval = formatScoreInterval(metric.meanScoreInterval);
    const rateInterval = formatRateInterval(metric.passRateInterval);
    return [
      `${inlineText(metric.name, MAX_NAME_LENGTH)} (${metric.lowerIsBetter ? "lower" : "higher"} is better)`,
      `${formatScore(metric.meanScore)}${meanInterval ? ` (${meanInterval})` : ""}`,
      `${inlineText(formatPassRate(metric.passRate), 20)}${rateInterval ? ` (${inlineText(rateInterval, 40)})` : ""}`,
      formatCount(metric.passed),
      formatCount(metric.failed),
      formatCount(metric.errored),
    ];
  });
  return markdownTable(
    [
      { header: "Metric" },
      { header: "Mean score (95% CI)", align: "right" },
      { header: "Pass rate (95% CI)", align: "right" },
      { header: "Passed", align: "right" },
      { header: "Failed", align: "right" },
      { header: "Errored", align: "right" },
    ],
    rows,
  );
}

/** ` — evals/chat.eval.ts:12`, where the case's test is, when known. */
function where(testResult: TestResult): string {
  if (testResult.file === undefined) return "";
  const line = testResult.line === undefined ? "" : `:${testResult.line}`;
  return ` — \`${showName(`${testResult.file}${line}`).replace(/`/g, "'")}\``;
}

const STATUS_WORDS = {
  passed: "passed",
  failed: "**failed**",
  errored: "**errored**",
  "score-only": "scored",
} as const;

function failingCase(testResult: TestResult, maxField: number): string {
  const trials = testResult.trials.length > 1 ? testResult.trials : null;
  const rows: Array<{ trial: string | null; metric: MetricData }> = trials
    ? trials
        .filter((trial) => trial.success !== true)
        .flatMap((trial) =>
          trial.metricsData.map((metric) => ({
            trial: `${trial.trial + 1}/${trials.length}`,
            metric,
          })),
        )
    : testResult.metricsData.map((metric) => ({ trial: null, metric }));
  const table = markdownTable(
    [
      ...(trials ? [{ header: "Trial" }] : []),
      { header: "Metric" },
      { header: "Result" },
      { header: "Score", align: "right" as const },
      { header: "Threshold", align: "right" as const },
      { header: "Reason" },
    ],
    rows.map(({ trial, metric }) => {
      const status = metricStatus(metric);
      const reason = status === "errored" ? (metric.error ?? "") : (metric.reason ?? "");
      return [
        ...(trial === null ? [] : [trial]),
        inlineText(metric.name, MAX_NAME_LENGTH),
        STATUS_WORDS[status],
        formatScore(metric.score),
        formatScore(metric.threshold),
        inlineText(reason, MAX_REASON_LENGTH),
      ];
    }),
  );
  const trialNote = trials
    ? ` (passed ${testResult.passedTrials} of ${formatPlural(trials.length, "trial")})`
    : "";
  const parts = [
    `#### ❌ ${inlineText(testResult.name, MAX_NAME_LENGTH)}${trialNote}${where(testResult)}`,
    table,
    `**Input**\n${codeBlock(testResult.input, maxField)}`,
    `**Output**\n${testResult.actualOutput === null ? "_(none)_" : codeBlock(testResult.actualOutput, maxField)}`,
  ];
  if (testResult.expectedOutput !== null) {
    parts.push(`**Expected output**\n${codeBlock(testResult.expectedOutput, maxField)}`);
  }
  return parts.join("\n\n");
}

function closing(message: string | null | undefined): string {
  if (message === null || message === undefined || message.trim() === "") return "";
  return message
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `> ${inlineText(line, 2000)}`)
    .join("\n>\n");
}
