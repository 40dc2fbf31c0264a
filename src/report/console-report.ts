import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunReporter } from "../results/runner-events.ts";

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
}

/** Options of {@link formatCostUsd}. */
export interface FormatCostUsdOptions {
  /** USD; `null` when unknown. */
  costUsd: number | null;
}

/** Options of {@link formatDuration}. */
export interface FormatDurationOptions {
  durationMs: number;
}

const MAX_CELL_LENGTH = 200;
const MAX_FIELD_LENGTH = 1000;
const REASON_COLUMN_WIDTH = 60;
const ANSI_RESET = "\u001b[0m";
const STATUS_COLOURS = {
  PASS: "\u001b[32m",
  FAIL: "\u001b[31m",
  ERROR: "\u001b[33m",
  NONE: null,
} as const;
type MetricStatus = keyof typeof STATUS_COLOURS;
/** C0 and C1 controls but newline and tab: what terminals act on (cursor moves, colours, …). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Renders the end-of-run report as plain text: failing cases with their input, output and a
 * metrics table, passing cases on one line each, an aggregate table per metric, then totals
 * (test cases, judge calls, cache savings, tokens, cost, duration) and `message`.
 * Text from test cases and the judge is printed as is, except control characters, which are
 * replaced so that they cannot move the cursor or change colours.
 * @example
 * const result = await evaluate({ testCases, metrics });
 * console.log(renderConsoleReport({ result, display: "failing" }));
 */
export function renderConsoleReport(options: RenderConsoleReportOptions): string {
  const { result } = options;
  const display = options.display ?? "all";
  const color = options.color ?? false;
  const identifier = result.identifier === null ? "" : ` "${clean(result.identifier)}"`;
  const lines = [`Evaluation results: run ${clean(result.testRunId)}${identifier}`, ""];

  if (result.testResults.length === 0) lines.push("No test cases were evaluated.", "");
  let hidden = 0;
  for (const testResult of result.testResults) {
    if (!isShown({ testResult, display })) {
      hidden += 1;
      continue;
    }
    if (display === "all" && testResult.success === true) {
      lines.push(renderPassingLine({ testResult, color }));
    } else {
      if (lines.at(-1) !== "") lines.push("");
      lines.push(...renderTestCase({ testResult, color }), "");
    }
  }
  if (display === "all" && lines.at(-1) !== "") lines.push("");
  if (hidden > 0) {
    lines.push(`(${plural(hidden, "test case")} not shown: display "${display}")`, "");
  }

  lines.push(...renderAggregateMetrics({ result }), "", ...renderTotals({ result }));
  if (options.message !== undefined && options.message !== null && options.message !== "") {
    lines.push("", clean(options.message));
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
  return {
    onEvent(event) {
      if (event.type !== "run-end") return;
      stream.write(
        renderConsoleReport({ result: event.result, display, color, message: event.message }),
      );
    },
  };
}

/** Formats USD like `$0.0123`; `"unknown"` when `null`. */
export function formatCostUsd(options: FormatCostUsdOptions): string {
  const { costUsd } = options;
  if (costUsd === null) return "unknown";
  // A few cached tokens cost less than the last digit shown: "$0.0000" would read as free.
  if (costUsd > 0 && costUsd < 0.00005) return "<$0.0001";
  return `$${costUsd.toFixed(4)}`;
}

/** Formats a duration like `0.4s`, `12.3s`, `2m 05s` or `1h 02m 03s`. */
export function formatDuration(options: FormatDurationOptions): string {
  const milliseconds = Math.max(0, options.durationMs);
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(milliseconds / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = String(totalSeconds % 60).padStart(2, "0");
  if (hours === 0) return `${minutes}m ${seconds}s`;
  return `${hours}h ${String(minutes).padStart(2, "0")}m ${seconds}s`;
}

function renderPassingLine(options: { testResult: TestResult; color: boolean }): string {
  const { testResult } = options;
  const metrics = `passed ${plural(testResult.metricsData.length, "metric")}`;
  const trials =
    testResult.trials.length > 1
      ? ` in ${testResult.passedTrials}/${testResult.trials.length} trials`
      : "";
  return `${paint("✓", STATUS_COLOURS.PASS, options.color)} ${clean(testResult.name)} (${metrics}${trials})`;
}

function renderTestCase(options: { testResult: TestResult; color: boolean }): string[] {
  const { testResult, color } = options;
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
    { header: "Metric", align: "left" },
    { header: "Score", align: "right" },
    { header: "Threshold", align: "right" },
    { header: "Reason", align: "left", wrapWidth: REASON_COLUMN_WIDTH },
  ];
  const tableRows = rows.map(({ trial, metric }): Cell[] => {
    const status = statusOf(metric);
    const reason = status === "ERROR" ? (metric.error ?? "") : (metric.reason ?? "");
    return [
      ...(repeated ? [`${trial + 1}/${testResult.trials.length}`] : []),
      { text: status, colour: STATUS_COLOURS[status] },
      cellText(metric.name),
      metric.score === null ? "-" : metric.score.toFixed(2),
      metric.threshold === null ? "-" : metric.threshold.toFixed(2),
      cellText(reason),
    ];
  });
  lines.push(...renderTable({ columns, rows: tableRows, color, indent: "  " }));
  return lines;
}

function renderCaseHeader(options: { testResult: TestResult; color: boolean }): string {
  const { testResult, color } = options;
  const name = clean(testResult.name);
  if (testResult.trials.length > 1) {
    const marker = testResult.success === true ? "✓" : testResult.success === false ? "✗" : "•";
    const colour = testResult.success === false ? STATUS_COLOURS.FAIL : STATUS_COLOURS.PASS;
    const trials = `passed ${testResult.passedTrials}/${testResult.trials.length} trials`;
    return `${paint(marker, testResult.success === null ? null : colour, color)} ${name} (${trials})`;
  }
  const counts = { PASS: 0, FAIL: 0, ERROR: 0, NONE: 0 };
  for (const metric of testResult.metricsData) counts[statusOf(metric)] += 1;
  const total = testResult.metricsData.length;
  if (testResult.success === true) {
    return `${paint("✓", STATUS_COLOURS.PASS, color)} ${name} (passed ${counts.PASS} of ${plural(total, "metric")})`;
  }
  if (testResult.success === null)
    return `• ${name} (scored ${plural(total, "metric")}, no thresholds)`;
  const parts = [`failed ${counts.FAIL}`];
  if (counts.ERROR > 0) parts.push(`errored ${counts.ERROR}`);
  return `${paint("✗", STATUS_COLOURS.FAIL, color)} ${name} (${parts.join(", ")} of ${plural(total, "metric")})`;
}

function renderField(options: { label: string; text: string }): string[] {
  const [first = "", ...rest] = truncate(clean(options.text), MAX_FIELD_LENGTH).split("\n");
  return [`  ${options.label}: ${first}`, ...rest.map((line) => `    ${line}`)];
}

function renderAggregateMetrics(options: { result: EvaluationResult }): string[] {
  const metrics = options.result.summary.metrics;
  if (metrics.length === 0) return ["Aggregate metrics: none"];
  const rows = metrics.map((metric): Cell[] => {
    const counts = [
      `passed ${metric.passed}`,
      `failed ${metric.failed}`,
      `errored ${metric.errored}`,
    ];
    if (metric.scoreOnly > 0) counts.push(`score-only ${metric.scoreOnly}`);
    const rate = metric.passRate === null ? "-" : `${(metric.passRate * 100).toFixed(2)}%`;
    return [
      cellText(metric.name),
      metric.meanScore === null ? "-" : metric.meanScore.toFixed(2),
      `${rate} (${counts.join(", ")})`,
    ];
  });
  const columns: Column[] = [
    { header: "Metric", align: "left" },
    { header: "Mean score", align: "right" },
    { header: "Pass rate", align: "left" },
  ];
  return ["Aggregate metrics", ...renderTable({ columns, rows, color: false, indent: "" })];
}

function renderTotals(options: { result: EvaluationResult }): string[] {
  const { summary } = options.result;
  const { testCases, saved } = summary;
  const lines = [
    `Status: ${summary.status}`,
    `Test cases: ${count(testCases.passed)} passed, ${count(testCases.failed)} failed, ${count(testCases.unscored)} unscored (${count(testCases.total)} total)`,
    `Judge calls: ${count(summary.judgeCalls)} paid, ${count(summary.cacheHits)} cache hits, ${count(summary.sharedCalls)} shared`,
  ];
  if (summary.cacheHits + summary.sharedCalls > 0) {
    lines.push(
      `Saved by cache hits and shared calls: ${count(saved.judgeCalls)} judge calls, ${count(saved.inputTokens)} input + ${count(saved.outputTokens)} output tokens, ${formatCostUsd({ costUsd: saved.costUsd })}`,
    );
  }
  lines.push(
    `Tokens: ${count(summary.inputTokens)} input, ${count(summary.outputTokens)} output`,
    `Cost: ${formatCostUsd({ costUsd: summary.costUsd })}`,
    `Duration: ${formatDuration({ durationMs: summary.durationMs })}`,
  );
  return lines;
}

type Cell = string | { text: string; colour: string | null };
interface Column {
  header: string;
  align: "left" | "right";
  /** Longer cells wrap onto several lines. */
  wrapWidth?: number;
}

function renderTable(options: {
  columns: Column[];
  rows: Cell[][];
  color: boolean;
  indent: string;
}): string[] {
  const { columns, color, indent } = options;
  const rows = options.rows.map((row) =>
    columns.map((column, index) => {
      const cell = row[index] ?? "";
      const { text, colour } = typeof cell === "string" ? { text: cell, colour: null } : cell;
      const lines = column.wrapWidth === undefined ? [text] : wrap(text, column.wrapWidth);
      return { lines, colour };
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(
      length(column.header),
      ...rows.flatMap((row) => (row[index]?.lines ?? []).map((line) => length(line))),
    ),
  );
  const border = `${indent}+${widths.map((width) => "-".repeat(width + 2)).join("+")}+`;
  const renderLine = (cells: { text: string; colour: string | null }[]) =>
    `${indent}|${cells
      .map(({ text, colour }, index) => {
        const padding = " ".repeat(Math.max(0, (widths[index] ?? 0) - length(text)));
        const padded = columns[index]?.align === "right" ? padding + text : text + padding;
        return ` ${paint(padded, colour, color)} `;
      })
      .join("|")}|`;

  const lines = [
    border,
    renderLine(columns.map((column) => ({ text: column.header, colour: null }))),
    border,
  ];
  for (const row of rows) {
    const height = Math.max(1, ...row.map((cell) => cell.lines.length));
    for (let lineIndex = 0; lineIndex < height; lineIndex += 1) {
      lines.push(
        renderLine(row.map((cell) => ({ text: cell.lines[lineIndex] ?? "", colour: cell.colour }))),
      );
    }
  }
  if (rows.length > 0) lines.push(border);
  return lines;
}

function isShown(options: { testResult: TestResult; display: ConsoleReportDisplay }): boolean {
  const { success } = options.testResult;
  if (options.display === "failing") return success === false;
  if (options.display === "passing") return success === true;
  return true;
}

function statusOf(metric: MetricData): MetricStatus {
  if (metric.error !== null) return "ERROR";
  if (metric.success === true) return "PASS";
  if (metric.success === false) return "FAIL";
  return "NONE";
}

/**
 * Replaces C0 and C1 control characters (except newline and tab) with visible stand-ins, so
 * that text from test cases or the judge cannot move the cursor, clear the screen or change
 * colours. `\r\n` becomes `\n`; a lone `\r` becomes `␍`.
 */
function clean(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(CONTROL_CHARACTERS, (character) => {
    const code = character.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? "\u2421" : "\ufffd";
  });
}

/** One table cell: cleaned, on one line, at most {@link MAX_CELL_LENGTH} characters. */
function cellText(text: string): string {
  return truncate(clean(text).replace(/\s+/g, " ").trim(), MAX_CELL_LENGTH);
}

function truncate(text: string, maxLength: number): string {
  const characters = Array.from(text);
  if (characters.length <= maxLength) return text;
  return `${characters
    .slice(0, maxLength - 1)
    .join("")
    .trimEnd()}…`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    let rest = word;
    while (length(rest) > width) {
      if (line !== "") lines.push(line);
      line = "";
      const characters = Array.from(rest);
      lines.push(characters.slice(0, width).join(""));
      rest = characters.slice(width).join("");
    }
    if (line === "") line = rest;
    else if (length(line) + 1 + length(rest) <= width) line = `${line} ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/** Width in code points: right for Latin, emoji and CJK count as one column too few. */
function length(text: string): number {
  return Array.from(text).length;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

function plural(value: number, noun: string): string {
  return `${count(value)} ${noun}${value === 1 ? "" : "s"}`;
}

function paint(text: string, colour: string | null, color: boolean): string {
  return color && colour !== null ? `${colour}${text}${ANSI_RESET}` : text;
}

function supportsColour(stream: NodeJS.WritableStream): boolean {
  // Only a tty.WriteStream has hasColors(); it reads NO_COLOR, FORCE_COLOR and TERM.
  const terminal = stream as { hasColors?: unknown };
  return typeof terminal.hasColors === "function" && terminal.hasColors() === true;
}
