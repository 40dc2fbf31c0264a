import { metricStatus } from "../results/case-metrics.ts";
import type { EvaluationResult, TestResult } from "../results/evaluation-result.ts";
import { FAKE_JUDGE_NOTICE, usesFakeJudge } from "../results/fake-judge-notice.ts";
import type { MetricData } from "../results/metric-data.ts";
import type { RunReporter } from "../results/runner-events.ts";
import {
  formatCostUsd,
  formatCount,
  formatPlural,
  formatRateInterval,
  formatScore,
  formatScoreAgainstThreshold,
  toOneLine,
} from "./format.ts";
import { escapeXml, renderXmlAttributes } from "./junit/escape-xml.ts";
import { gatherRunResults } from "./run-results.ts";
import { truncateText } from "./truncate-text.ts";
import { writeReportFile } from "./write-report-file.ts";

/** Options of {@link renderJUnitReport}. */
export interface RenderJUnitReportOptions {
  result: EvaluationResult;
  /**
   * Name of `<testsuites>` and first part of every `classname` (`<suiteName>.<metric>`), which
   * tells runs apart when a CI job collects several reports.
   * @default the run's identifier, else "verdict"
   */
  suiteName?: string;
  /**
   * What the run said at its end (the run-end event's message), e.g. how to resume it: an
   * incomplete run's `<error>` says it.
   */
  message?: string | null | undefined;
}

/** Options of {@link createJUnitReporter}. */
export interface JUnitReporterOptions {
  /** Path of the XML file; missing folders are created. */
  file: string;
  /** @default the run's identifier, else "verdict" */
  suiteName?: string;
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** One `<testcase>`: its name, its wall time and what goes inside it. */
interface JUnitCase {
  name: string;
  /** Seconds; `null` when unknown (results from before verdict timed cases). */
  seconds: number | null;
  body: string[];
  outcome: "passed" | "failure" | "error" | "skipped";
  /** The test file, relative to the project, and the test's line, when known. */
  file?: string | undefined;
  line?: number | undefined;
}

const MAX_MESSAGE_LENGTH = 300;
/**
 * Renders an evaluation result as JUnit XML for CI test views (GitLab, Jenkins, GitHub test
 * reporter actions, Azure Pipelines).
 *
 * Layout: one `<testsuite>` per metric, one `<testcase>` per test case (per trial with
 * `repeat` > 1) named `"<case> › <metric>"`, with `classname` `"<suiteName>.<metric>"`. CI views
 * summarise per suite (GitHub, Azure) or per class (Jenkins, GitLab), so this gives each
 * metric's pass count at a glance, and a regression in one metric is not buried among the
 * others' results.
 *
 * A failed threshold is a `<failure type="Threshold">` with the reason; a metric that could not
 * be scored is an `<error>`; a score-only result (threshold `null`) passes, with its score in
 * `<system-out>`. A metric that was not run on a case (another test asserts other metrics, or
 * `skipOnMissingParams` left it out) has no `<testcase>` for that case: nothing ran, so there
 * is nothing to report. A run that did not complete adds a `run` suite with one `<error>`
 * saying how many cases were left unscored, so that CI does not show a half-finished run as
 * green. Times are real: a `<testcase>` takes its test case's wall time (a case's metrics run
 * side by side, so each took at most that long; with `repeat`, the case's time split evenly
 * over its trials), a `<testsuite>` the sum of its test cases', and `<testsuites>` the run's
 * duration. Cases of results stored before verdict timed them show 0.
 * @example
 * writeFileSync("junit.xml", renderJUnitReport({ result }));
 */
export function renderJUnitReport(options: RenderJUnitReportOptions): string {
  const { result } = options;
  const suiteName = options.suiteName ?? result.identifier ?? "verdict";
  const metricNames = collectMetricNames(result);
  const casesByMetric = new Map<string, JUnitCase[]>(metricNames.map((name) => [name, []]));
  const duplicateNames = findDuplicateNames(result.testResults);

  for (const [position, testResult] of result.testResults.entries()) {
    // Told apart by their place in the run, counted from 1 as a reader counts.
    const caseName = duplicateNames.has(testResult.name)
      ? `${testResult.name} #${position + 1}`
      : testResult.name;
    const runCount = Math.max(1, testResult.trials.length);
    const seconds =
      testResult.durationMs === undefined ? null : testResult.durationMs / 1000 / runCount;
    const runs =
      testResult.trials.length > 0
        ? testResult.trials.map((trial) => ({
            label: ` › trial ${trial.trial + 1}/${testResult.trials.length}`,
            metricsData: trial.metricsData,
          }))
        : [{ label: "", metricsData: testResult.metricsData }];
    for (const run of runs) {
      const seen = new Map<string, number>();
      for (const metric of run.metricsData) {
        const occurrence = (seen.get(metric.name) ?? 0) + 1;
        seen.set(metric.name, occurrence);
        const metricLabel = occurrence === 1 ? metric.name : `${metric.name} (${occurrence})`;
        casesByMetric.get(metric.name)?.push({
          name: `${caseName} › ${metricLabel}${run.label}`,
          seconds,
          file: testResult.file,
          line: testResult.line,
          ...describeMetric(metric),
        });
      }
    }
  }

  const properties = renderProperties(result);
  // A metric of the summary that no case ran (all its cases unscored) has no suite.
  const suites = metricNames
    .filter((name) => (casesByMetric.get(name) ?? []).length > 0)
    .map((name) =>
      renderSuite({
        name,
        classname: `${suiteName}.${name}`,
        cases: casesByMetric.get(name) ?? [],
        properties,
      }),
    );
  const runProblem = describeIncompleteRun(result, options.message ?? null);
  if (runProblem !== null) {
    suites.push(
      renderSuite({
        name: "run",
        classname: `${suiteName}.run`,
        cases: [runProblem],
        properties,
      }),
    );
  }

  const totals = suites.reduce(
    (sum, suite) => ({
      tests: sum.tests + suite.counts.tests,
      failures: sum.failures + suite.counts.failures,
      errors: sum.errors + suite.counts.errors,
      skipped: sum.skipped + suite.counts.skipped,
    }),
    { tests: 0, failures: 0, errors: 0, skipped: 0 },
  );
  const attributes = renderXmlAttributes({
    name: suiteName,
    ...totals,
    time: formatSeconds(result.summary.durationMs / 1000),
  });
  const fakeJudge = usesFakeJudge(result.testResults);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // "--" may not appear in an XML comment; the notice has none.
    ...(fakeJudge ? [`<!-- ${FAKE_JUDGE_NOTICE} -->`] : []),
    `<testsuites${attributes}>`,
    ...suites.flatMap((suite) => suite.lines),
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * A reporter that writes {@link renderJUnitReport} to `file` when the run ends, creating the
 * folder if needed.
 * @example
 * await evaluate({ testCases, metrics, reporters: [createJUnitReporter({ file: "reports/junit.xml" })] });
 */
export function createJUnitReporter(options: JUnitReporterOptions): RunReporter {
  const results = gatherRunResults();
  return {
    onEvent(event) {
      results.observe(event);
      if (event.type !== "run-end") return;
      const text = renderJUnitReport({
        result: results.of(event).result,
        message: event.message,
        ...(options.suiteName === undefined ? {} : { suiteName: options.suiteName }),
      });
      writeReportFile({ file: options.file, text, kind: "JUnit" });
    },
  };
}

function describeMetric(metric: MetricData): Pick<JUnitCase, "body" | "outcome"> {
  const output = systemOut(metric);
  const status = metricStatus(metric);
  if (status === "errored") {
    const message = truncateText(toOneLine(metric.error ?? ""), MAX_MESSAGE_LENGTH);
    return {
      outcome: "error",
      body: [
        `<error${renderXmlAttributes({ message, type: "MetricError" })}>${escapeXml(metric.error ?? "")}</error>`,
        output,
      ],
    };
  }
  if (status === "failed") {
    const message =
      metric.score === null || metric.threshold === null
        ? "failed"
        : formatScoreAgainstThreshold(metric.score, metric.threshold);
    const details = [metric.reason ?? "(no reason given)"];
    if (metric.verboseLogs.trim() !== "") details.push("", metric.verboseLogs);
    return {
      outcome: "failure",
      body: [
        `<failure${renderXmlAttributes({ message, type: "Threshold" })}>${escapeXml(details.join("\n"))}</failure>`,
        output,
      ],
    };
  }
  return { outcome: "passed", body: [output] };
}

/** What a reader of a passing case needs too: score, threshold, reason and the judge's cost. */
function systemOut(metric: MetricData): string {
  const threshold =
    metric.threshold === null
      ? "score only, no threshold"
      : `threshold ${formatScore(metric.threshold)}`;
  const lines = [
    `Score: ${formatScore(metric.score)} (${threshold}${metric.strictMode ? ", strict mode" : ""})`,
  ];
  if (metric.reason !== null) lines.push(`Reason: ${metric.reason}`);
  const cached =
    metric.cachedJudgeCalls > 0 ? `, ${formatCount(metric.cachedJudgeCalls)} cached` : "";
  lines.push(
    `Judge: ${metric.evaluationModel ?? "unknown"}, ${formatPlural(metric.judgeCalls, "call")}${cached}, cost ${formatCostUsd(metric.evaluationCost)}`,
  );
  return `<system-out>${escapeXml(lines.join("\n"))}</system-out>`;
}

function describeIncompleteRun(
  result: EvaluationResult,
  endMessage: string | null,
): JUnitCase | null {
  const { status, testCases } = result.summary;
  if (status === "completed" && testCases.unscored === 0) return null;
  const message = `run ${status}: ${formatCount(testCases.unscored)} of ${formatPlural(testCases.total, "test case")} unscored`;
  // The run's own words say how to resume it (the command, or evaluate()'s options).
  const advice =
    endMessage !== null && endMessage.trim() !== ""
      ? endMessage.trim()
      : "To score the rest, run it again with the same identifier and resume: verdict test run --identifier NAME --resume, or evaluate({ identifier, resume: true }).";
  return {
    name: "run status",
    seconds: null,
    outcome: "error",
    body: [
      `<error${renderXmlAttributes({ message, type: "IncompleteRun" })}>${escapeXml(`${message}.\n${advice}`)}</error>`,
    ],
  };
}

function renderSuite(options: {
  name: string;
  classname: string;
  cases: JUnitCase[];
  properties: string[];
}): { lines: string[]; counts: Counts } {
  const { cases } = options;
  const counts: Counts = {
    tests: cases.length,
    failures: cases.filter((testCase) => testCase.outcome === "failure").length,
    errors: cases.filter((testCase) => testCase.outcome === "error").length,
    skipped: cases.filter((testCase) => testCase.outcome === "skipped").length,
  };
  const seconds = cases.reduce((sum, testCase) => sum + (testCase.seconds ?? 0), 0);
  const lines = [
    `  <testsuite${renderXmlAttributes({ name: options.name, ...counts, time: formatSeconds(seconds) })}>`,
    ...options.properties.map((line) => `    ${line}`),
  ];
  for (const testCase of cases) {
    const attributes = renderXmlAttributes({
      classname: options.classname,
      name: testCase.name,
      time: formatSeconds(testCase.seconds ?? 0),
      // Read by GitLab, Jenkins and GitHub test-report actions to link a case to its source.
      ...(testCase.file === undefined ? {} : { file: testCase.file }),
      ...(testCase.line === undefined ? {} : { line: testCase.line }),
    });
    lines.push(`    <testcase${attributes}>`);
    lines.push(...testCase.body.map((line) => `      ${line}`));
    lines.push("    </testcase>");
  }
  lines.push("  </testsuite>");
  return { lines, counts };
}

/** JUnit's `time`: seconds with millisecond precision. */
function formatSeconds(seconds: number): string {
  return seconds.toFixed(3);
}

function renderProperties(result: EvaluationResult): string[] {
  const values: Array<[string, string]> = [["verdict.testRunId", result.testRunId]];
  if (result.identifier !== null) values.push(["verdict.identifier", result.identifier]);
  values.push(["verdict.status", result.summary.status]);
  if (usesFakeJudge(result.testResults)) values.push(["verdict.fakeJudge", FAKE_JUDGE_NOTICE]);
  // Flaky cases of a repeat run: passed some trials, failed others.
  for (const flaky of result.summary.flakyCases ?? []) {
    values.push([
      "verdict.flakyCase",
      `#${flaky.position} ${flaky.name}: passed ${flaky.passedTrials}/${flaky.trials} trials (95% CI ${formatRateInterval(flaky.passRateInterval)})`,
    ]);
  }
  return [
    "<properties>",
    ...values.map(([name, value]) => `  <property${renderXmlAttributes({ name, value })}/>`),
    "</properties>",
  ];
}

function collectMetricNames(result: EvaluationResult): string[] {
  const names = new Set(result.summary.metrics.map((metric) => metric.name));
  for (const testResult of result.testResults) {
    for (const run of [testResult, ...testResult.trials]) {
      for (const metric of run.metricsData) names.add(metric.name);
    }
  }
  return [...names];
}

function findDuplicateNames(testResults: readonly TestResult[]): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { name } of testResults) {
    if (seen.has(name)) duplicates.add(name);
    seen.add(name);
  }
  return duplicates;
}
