import { countMetricStatuses, type MetricStatus, metricStatus } from "../results/case-metrics.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunReporter } from "../results/runner-events.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { type Cell, type Column, paint, renderTable } from "./console/render-table.ts";
import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPassRate,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
  showControlCharacters,
  showName,
  toOneLine,
} from "./format.ts";
import { gatherRunResults } from "./run-results.ts";
import { truncateText } from "./truncate-text.ts";

/** Which test cases the console report shows in full. */
export type ConsoleReportDisplay = "all" | "failing" | "passing";

/** Options of {@link renderConsoleReport}. */
export interface RenderConsoleReportOptions {
  result: EvaluationResult;
  /**
   * `"all"`: failing and score-only cases in full, passing ones on one line each;
   * `"failing"`: failing cases only; `"passing"`: passing cases only, in full.
   * @default "all"
   */
  display?: ConsoleReportDisplay;
  /**
   * ANSI colours for PASS, FAIL and ERROR.
   * @default false
   */
  color?: boolean;
  /** Printed last, e.g. how to resume an interrupted run. */
  message?: string | null;
  /**
   * Cases of a run that kept its summary only (`keepResults: false`) that are not in
   * `result.testResults` because the display does not show them: counted as not shown.
   * @default 0
   */
  omitted?: number;
  /**
   * The terminal's width in columns: tables narrow to fit it, wrapping metric names and
   * reasons (never cutting them).
   * @default 80
   */
  width?: number;
}

/** Options of {@link createConsoleReporter}. */
export interface ConsoleReporterOptions {
  /** @default process.stdout */
  stream?: NodeJS.WritableStream;
  /** @default "all" */
  display?: ConsoleReportDisplay;
  /**
   * ANSI colours.
   * @default whether the stream is a terminal that supports colours (honours NO_COLOR and FORCE_COLOR)
   */
  color?: boolean;
  /**
   * Columns to fit the tables in.
   * @default the terminal's width when the stream is one, else `COLUMNS`, else 80
   */
  width?: number;
}

const MAX_CELL_LENGTH = 200;
const MAX_FIELD_LENGTH = 1000;
/** Reasons wrap at this width even on a wide terminal: long lines are hard to read. */
const REASON_COLUMN_WIDTH = 100;
const DEFAULT_WIDTH = 80;
/** Below this, tables are laid out as if for it (their fixed columns alone take about 50). */
const MIN_WIDTH = 60;
const STATUS_COLOURS = {
  PASS: "\u001b[32m",
  FAIL: "\u001b[31m",
  ERROR: "\u001b[33m",
  NONE: null,
} as const;
type StatusLabel = keyof typeof STATUS_COLOURS;
/** How the console labels each {@link MetricStatus}. */
const STATUS_LABELS: Record<MetricStatus, StatusLabel> = {
  passed: "PASS",
  failed: "FAIL",
  errored: "ERROR",
  "score-only": "NONE",
};

/**
 * Renders the end-of-run report as plain text: failing cases with their input, output and a
 * metrics table, passing cases on one line each, an aggregate table per metric, then totals
 * (test cases, judge calls, cache savings, tokens, cost, duration) and `message`.
 * Text from test cases and the judge is printed as is, except control and bidi characters,
 * shown as `<U+XXXX>` so that they can neither move the cursor or change colours nor reorder
 * what is read; names (run, case, metric) are kept on one line.
 * @example
 * const result = await evaluate({ testCases, metrics });
 * console.log(renderConsoleReport({ result, display: "failing" }));
 */
export function renderConsoleReport(options: RenderConsoleReportOptions): string {
  const { result } = options;
  const display = options.display ?? "all";
  const color = options.color ?? false;
  const width = Math.max(MIN_WIDTH, options.width ?? DEFAULT_WIDTH);
  const identifier = result.identifier === null ? "" : ` "${showName(result.identifier)}"`;
  const lines = [`Evaluation results: run ${showName(result.testRunId)}${identifier}`, ""];
  // Said first and last: whichever end of the output a user reads, they see it.
  const fakeJudge =
    result.summary.fakeJudge === true || usesFakeJudge(result.testResults)
      ? `! ${FAKE_JUDGE_NOTICE}`
      : null;
  if (fakeJudge !== null) lines.push(fakeJudge, "");

  const omitted = options.omitted ?? 0;
  if (result.testResults.length === 0 && omitted === 0) {
    lines.push("No test cases were evaluated.", "");
  }
  let hidden = omitted;
  for (const testResult of result.testResults) {
    if (!isShown({ testResult, display })) {
      hidden += 1;
      continue;
    }
    if (display === "all" && testResult.success === true) {
      lines.push(renderPassingLine({ testResult, color }));
    } else {
      if (lines.at(-1) !== "") lines.push("");
      lines.push(...renderTestCase({ testResult, color, width }), "");
    }
  }
  if (display === "all" && lines.at(-1) !== "") lines.push("");
  if (hidden > 0) {
    lines.push(`(${formatPlural(hidden, "test case")} not shown: display "${display}")`, "");
  }

  lines.push(...renderAggregateMetrics({ result, width }), "", ...renderTotals({ result }));
  if (fakeJudge !== null) lines.push("", fakeJudge);
  if (options.message !== undefined && options.message !== null && options.message !== "") {
    lines.push("", showControlCharacters(options.message));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A reporter that prints {@link renderConsoleReport} when the run ends.
 * @example
 * await evaluate({ testCases, metrics, reporters: [createConsoleReporter({ display: "failing" })] });
 */
export function createConsoleReporter(options: ConsoleReporterOptions = {}): RunReporter {
  const stream = options.stream ?? process.stdout;
  const display = options.display ?? "all";
  const color = options.color ?? supportsColour(stream);
  // A run that keeps no results: only the cases the display shows are kept until the end.
  const results = gatherRunResults({ keep: (testResult) => isShown({ testResult, display }) });
  return {
    onEvent(event) {
      results.observe(event);
      if (event.type !== "run-end") return;
      // Read when the run ends: the terminal may have been resized meanwhile.
      const width = options.width ?? terminalWidth(stream);
      const { result, omitted } = results.of(event);
      stream.write(
        redactSecretText(
          renderConsoleReport({
            result,
            omitted,
            display,
            color,
            message: event.message,
            width,
          }),
        ),
      );
    },
  };
}

function renderPassingLine(options: { testResult: TestResult; color: boolean }): string {
  const { testResult } = options;
  const metrics = `passed ${formatPlural(testResult.metricsData.length, "metric")}`;
  const trials =
    testResult.trials.length > 1
      ? ` in ${testResult.passedTrials}/${testResult.trials.length} trials`
      : "";
  return `${paint("✓", STATUS_COLOURS.PASS, options.color)} ${showName(testResult.name)} (${metrics}${trials})`;
}

function renderTestCase(options: {
  testResult: TestResult;
  color: boolean;
  width: number;
}): string[] {
  const { testResult, color, width } = options;
  const repeated = testResult.trials.length > 1;
  const rows: { trial: number; metric: MetricData }[] = [];
  if (repeated) {
    // Passing trials add nothing to understanding a failure; their count is in the header.
    for (const trial of testResult.trials) {
      if (trial.success === true) continue;
      for (const metric of trial.metricsData) rows.push({ trial: trial.trial, metric });
    }
  } else {
    for (const metric of testResult.metricsData) rows.push({ trial: 0, metric });
  }

  const lines = [renderCaseHeader({ testResult, color })];
  lines.push(...renderField({ label: "Input", text: testResult.input }));
  lines.push(...renderField({ label: "Actual output", text: testResult.actualOutput ?? "(none)" }));
  if (testResult.expectedOutput !== null) {
    lines.push(...renderField({ label: "Expected output", text: testResult.expectedOutput }));
  }
  const columns: Column[] = [
    ...(repeated ? [{ header: "Trial", align: "right" as const }] : []),
    { header: "Status", align: "left" },
    { header: "Metric", align: "left", wrap: true },
    { header: "Score", align: "right" },
    { header: "Threshold", align: "right" },
    { header: "Reason", align: "left", wrap: true, maxWidth: REASON_COLUMN_WIDTH },
  ];
  const tableRows = rows.map(({ trial, metric }): Cell[] => {
    const status = STATUS_LABELS[metricStatus(metric)];
    const reason = status === "ERROR" ? (metric.error ?? "") : (metric.reason ?? "");
    return [
      ...(repeated ? [`${trial + 1}/${testResult.trials.length}`] : []),
      { text: status, colour: STATUS_COLOURS[status] },
      cellText(metric.name),
      formatScore(metric.score),
      formatScore(metric.threshold),
      // Wrapped to fit, never cut: the reason is what a reader of a failure needs.
      showControlCharacters(toOneLine(reason)),
    ];
  });
  lines.push(...renderTable({ columns, rows: tableRows, color, indent: "  ", width }));
  return lines;
}

function renderCaseHeader(options: { testResult: TestResult; color: boolean }): string {
  const { testResult, color } = options;
  const name = showName(testResult.name);
  if (testResult.trials.length > 1) {
    const marker = testResult.success === true ? "✓" : testResult.success === false ? "✗" : "•";
    const colour = testResult.success === false ? STATUS_COLOURS.FAIL : STATUS_COLOURS.PASS;
    const trials = `passed ${testResult.passedTrials}/${testResult.trials.length} trials`;
    return `${paint(marker, testResult.success === null ? null : colour, color)} ${name} (${trials})`;
  }
  const counts = countMetricStatuses(testResult.metricsData);
  const total = testResult.metricsData.length;
  if (testResult.success === true) {
    return `${paint("✓", STATUS_COLOURS.PASS, color)} ${name} (passed ${counts.passed} of ${formatPlural(total, "metric")})`;
  }
  if (testResult.success === null)
    return `• ${name} (scored ${formatPlural(total, "metric")}, no thresholds)`;
  const parts = [`failed ${counts.failed}`];
  if (counts.errored > 0) parts.push(`errored ${counts.errored}`);
  return `${paint("✗", STATUS_COLOURS.FAIL, color)} ${name} (${parts.join(", ")} of ${formatPlural(total, "metric")})`;
}

function renderField(options: { label: string; text: string }): string[] {
  const [first = "", ...rest] = truncateText(
    showControlCharacters(options.text),
    MAX_FIELD_LENGTH,
  ).split("\n");
  return [`  ${options.label}: ${first}`, ...rest.map((line) => `    ${line}`)];
}

function renderAggregateMetrics(options: { result: EvaluationResult; width: number }): string[] {
  const metrics = options.result.summary.metrics;
  if (metrics.length === 0) return ["Aggregate metrics: none"];
  const rows = metrics.map((metric): Cell[] => {
    const counts = [
      `passed ${metric.passed}`,
      `failed ${metric.failed}`,
      `errored ${metric.errored}`,
    ];
    if (metric.scoreOnly > 0) counts.push(`score-only ${metric.scoreOnly}`);
    const meanInterval = formatScoreInterval(metric.meanScoreInterval);
    const rateInterval = formatRateInterval(metric.passRateInterval);
    return [
      cellText(metric.name),
      `${formatScore(metric.meanScore)}${meanInterval ? ` [${meanInterval}]` : ""}`,
      `${formatPassRate(metric.passRate)}${rateInterval ? ` [${rateInterval}]` : ""} (${counts.join(", ")})`,
    ];
  });
  const columns: Column[] = [
    { header: "Metric", align: "left", wrap: true },
    { header: "Mean score", align: "right" },
    { header: "Pass rate", align: "left", wrap: true },
  ];
  const withIntervals = metrics.some(
    (metric) => metric.meanScoreInterval || metric.passRateInterval,
  );
  return [
    withIntervals ? "Aggregate metrics ([low–high]: 95% confidence interval)" : "Aggregate metrics",
    ...renderTable({ columns, rows, color: false, indent: "", width: options.width }),
    ...renderFlakyCases({ result: options.result }),
  ];
}

/** Cases of a `repeat` run that passed some trials and failed others. */
function renderFlakyCases(options: { result: EvaluationResult }): string[] {
  const flaky = options.result.summary.flakyCases ?? [];
  if (flaky.length === 0) return [];
  return [
    "",
    `Flaky cases (passed some trials, failed others): ${formatCount(flaky.length)}`,
    ...flaky.map(
      (entry) =>
        `  #${entry.position} ${showName(entry.name)}: passed ${entry.passedTrials}/${entry.trials} trials (95% CI ${formatRateInterval(entry.passRateInterval)})`,
    ),
  ];
}

/**
 * `Test cases: 1 passed, 2 failed (3 total); in 2 of them a metric errored and is unscored`.
 * A metric that errored leaves its case unscored (the run exits 3): the line never says
 * "0 unscored" then.
 */
function renderCaseTotals(testCases: EvaluationResult["summary"]["testCases"]): string {
  const counts = [
    `${formatCount(testCases.passed)} passed`,
    `${formatCount(testCases.failed)} failed`,
  ];
  if (testCases.unscored > 0 || !testCases.errored) {
    counts.push(`${formatCount(testCases.unscored)} unscored`);
  }
  const errored = testCases.errored
    ? `; in ${formatCount(testCases.errored)} of them a metric errored and is unscored`
    : "";
  return `Test cases: ${counts.join(", ")} (${formatCount(testCases.total)} total)${errored}`;
}

function renderTotals(options: { result: EvaluationResult }): string[] {
  const { summary } = options.result;
  const { testCases, saved } = summary;
  const lines = [
    `Status: ${summary.status}`,
    renderCaseTotals(testCases),
    `Judge calls: ${formatCount(summary.judgeCalls)} paid, ${formatCount(summary.cacheHits)} cache hits, ${formatCount(summary.sharedCalls)} shared`,
  ];
  if (summary.cacheHits + summary.sharedCalls > 0) {
    lines.push(
      `Saved by cache hits and shared calls: ${formatCount(saved.judgeCalls)} judge calls, ${formatCount(saved.inputTokens)} input + ${formatCount(saved.outputTokens)} output tokens, ${formatCostUsd(saved.costUsd)}`,
    );
  }
  lines.push(
    `Tokens: ${formatCount(summary.inputTokens)} input, ${formatCount(summary.outputTokens)} output`,
    `Cost: ${formatCostUsd(summary.costUsd)}`,
  );
  const { budget } = summary;
  if (budget !== undefined) {
    const caps = [
      ...(budget.maxCostUsd === null
        ? []
        : [`${formatCostUsd(budget.spentCostUsd)} of ${formatCostUsd(budget.maxCostUsd)}`]),
      ...(budget.maxTokens === null
        ? []
        : [
            `${formatCount(Math.round(budget.spentTokens))} of ${formatCount(budget.maxTokens)} tokens`,
          ]),
    ];
    lines.push(`Budget: ${caps.join(", ")} spent (the run's earlier parts included)`);
  }
  lines.push(`Duration: ${formatDuration(summary.durationMs)}`);
  return lines;
}

function isShown(options: { testResult: TestResult; display: ConsoleReportDisplay }): boolean {
  const { success } = options.testResult;
  if (options.display === "failing") return success === false;
  if (options.display === "passing") return success === true;
  return true;
}

/** One table cell: cleaned, on one line, at most {@link MAX_CELL_LENGTH} characters. */
function cellText(text: string): string {
  return truncateText(toOneLine(showControlCharacters(text)), MAX_CELL_LENGTH);
}

/** The terminal's columns; `COLUMNS` or 80 when the stream is not a terminal (CI logs, pipes). */
export function terminalWidth(stream: NodeJS.WritableStream): number {
  const { isTTY, columns } = stream as { isTTY?: unknown; columns?: unknown };
  if (isTTY === true && typeof columns === "number" && columns > 0) return columns;
  const fromEnvironment = Number(process.env.COLUMNS);
  return Number.isSafeInteger(fromEnvironment) && fromEnvironment > 0
    ? fromEnvironment
    : DEFAULT_WIDTH;
}

function supportsColour(stream: NodeJS.WritableStream): boolean {
  // Only a tty.WriteStream has hasColors(); it reads NO_COLOR, FORCE_COLOR and TERM.
  const terminal = stream as { hasColors?: unknown };
  return typeof terminal.hasColors === "function" && terminal.hasColors() === true;
}
