import {
  formatPassRate,
  formatPlural,
  formatPValue,
  formatScore,
  MISSING_VALUE,
  showControlCharacters,
  showName,
} from "../../../report/format.ts";
import type { RunComparisonView } from "../../run-comparison-view.ts";
import { apiPath } from "../api-client.ts";
import { formatRateChange, formatScoreChange } from "../components/change-text.ts";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { TextBlock } from "../components/text-block.tsx";
import { casePath, comparePath, runPath } from "../router.ts";
import { useApi } from "../use-api.ts";
import { runTitle } from "./run-header.tsx";

type Change = RunComparisonView["changes"][number];
type MetricChange = RunComparisonView["metrics"][number];
type WordDiffPart = NonNullable<Change["outputDiff"]>[number];

const DIRECTION_WORDS: Record<NonNullable<MetricChange["direction"]>, string> = {
  better: "▲ better",
  worse: "▼ worse",
  same: "= same",
};

/**
 * Two runs side by side, with the numbers of `verdict compare`: per metric the baseline and
 * this run, the change in mean score and pass rate, and whether that is better or worse for
 * the metric (lower is better for Toxicity and Bias); then the cases whose verdict changed,
 * with both reasons.
 */
export function Comparison(props: { runId: string; baselineId: string; embedded?: boolean }) {
  const comparison = useApi<RunComparisonView>(
    apiPath("/api/compare", { run: props.runId, baseline: props.baselineId }),
  );
  if (comparison.error) return <ErrorNotice error={comparison.error} what="comparison" />;
  if (comparison.data === null) return <Loading what="comparison" />;
  const data = comparison.data;
  const Heading = props.embedded ? "h3" : "h2";
  return (
    <div class="comparison" data-compare-url={comparison.dataUrl}>
      <p class={`verdict ${data.regressed ? "verdict-fail" : "verdict-pass"}`}>
        <strong>{data.regressed ? "✗ REGRESSED" : "✓ NO REGRESSION"}</strong>{" "}
        <Link href={runPath(data.run.id)}>{`${runTitle(data.run)} (${data.run.shortId})`}</Link>{" "}
        against baseline{" "}
        <Link href={runPath(data.baseline.id)}>
          {`${runTitle(data.baseline)} (${showName(data.baseline.shortId)})`}
        </Link>
        {props.embedded && (
          <>
            {" · "}
            <Link href={comparePath(data.run.id, data.baseline.id)}>Open as its own page</Link>
          </>
        )}
      </p>
      <Heading>Metrics</Heading>
      <div class="table-scroll">
        <table class="data-table compare-table">
          <caption class="visually-hidden">Per-metric change from the baseline to this run</caption>
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col" class="numeric">
                Baseline
                <span class="column-note">mean · pass rate</span>
              </th>
              <th scope="col" class="numeric">
                This run
                <span class="column-note">mean · pass rate</span>
              </th>
              <th scope="col" class="numeric">
                Mean score
              </th>
              <th scope="col" class="numeric">
                Pass rate
              </th>
              <th scope="col">Change</th>
              <th scope="col">
                Paired tests
                <span class="column-note">
                  {data.alpha === null ? "off" : `significant when p < ${data.alpha}`}
                </span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.metrics.map((metric) => (
              <MetricChangeRow key={metric.name} metric={metric} />
            ))}
          </tbody>
        </table>
      </div>
      <UnmatchedCases label="the baseline" names={data.unmatched.baseline} />
      <UnmatchedCases label="this run" names={data.unmatched.candidate} />
      <Heading>Changed verdicts</Heading>
      {data.changes.length === 0 ? (
        <p class="empty">No test case changed its verdict.</p>
      ) : (
        <ChangedCases changes={data.changes} data={data} />
      )}
    </div>
  );
}

/** Green for a change the metric's direction calls better, red for worse (the sign says which). */
function changeClass(change: number | null, lowerIsBetter: boolean): string {
  if (change === null || Math.abs(change) < 0.00005) return "change-none";
  return change > 0 !== lowerIsBetter ? "change-good" : "change-bad";
}

function MetricChangeRow(props: { metric: MetricChange }) {
  const { metric } = props;
  const summary = (side: MetricChange["baseline"]) =>
    side === null
      ? MISSING_VALUE
      : `${formatScore(side.meanScore)} · ${formatPassRate(side.passRate)}`;
  const tone = metric.direction ?? "none";
  return (
    <tr class={`change-${tone}`}>
      <th scope="row">
        {showName(metric.name)}
        <span class="cell-note">
          {metric.lowerIsBetter ? "lower is better" : "higher is better"}
        </span>
      </th>
      <td class="numeric">{summary(metric.baseline)}</td>
      <td class="numeric">{summary(metric.candidate)}</td>
      <td class={`numeric ${changeClass(metric.meanScoreChange, metric.lowerIsBetter)}`}>
        {formatScoreChange(metric.meanScoreChange)}
      </td>
      <td class={`numeric ${changeClass(metric.passRateChange, false)}`}>
        {formatRateChange(metric.passRateChange)}
      </td>
      <td>
        <span class={`direction direction-${tone}`}>
          {metric.direction === null ? MISSING_VALUE : DIRECTION_WORDS[metric.direction]}
        </span>
        {metric.regressions.map((regression) => (
          <span class="cell-note" key={regression}>
            regression: {regression}
          </span>
        ))}
        {metric.notSignificant.map((text) => (
          <span class="cell-note" key={text}>
            within noise: {text}
          </span>
        ))}
      </td>
      <td>{describeTests(metric.tests)}</td>
    </tr>
  );
}

/** Cases one run has and the other does not: listed, not compared. */
function UnmatchedCases(props: { label: string; names: string[] }) {
  const { names } = props;
  if (names.length === 0) return null;
  const shown = names.slice(0, 10).join(", ");
  return (
    <p class="section-note">
      {`Only in ${props.label} (${names.length}, not compared): ${shown}${names.length > 10 ? ", …" : ""}`}
    </p>
  );
}

/** The paired tests of a metric, as `verdict compare` prints them (one-sided, "is it worse?"). */
function describeTests(tests: MetricChange["tests"]): string {
  if (tests === null) return "off (--no-stats)";
  const parts: string[] = [];
  if (tests.passFail) {
    parts.push(
      `pass/fail: ${tests.passFail.passToFail} pass→fail, ${tests.passFail.failToPass} fail→pass, ${formatPValue(tests.passFail.pValue)}`,
    );
  }
  if (tests.scores) {
    parts.push(`scores (${tests.scores.pairs} pairs): ${formatPValue(tests.scores.pValue)}`);
  }
  return parts.length === 0 ? "no paired cases" : parts.join("; ");
}

function ChangedCases(props: { changes: Change[]; data: RunComparisonView }) {
  const { data } = props;
  return (
    <>
      <p class="section-note">{formatPlural(props.changes.length, "verdict")} changed.</p>
      <ul class="changes">
        {props.changes.map((change) => (
          <li class="change" key={`${change.metric}\u0000${change.name}`}>
            <h4 class="change-title">
              {showName(change.name)} <span class="change-metric">{showName(change.metric)}</span>
            </h4>
            <div class="change-sides">
              <ChangeSide
                title="Baseline"
                runId={data.baseline.id}
                caseKey={change.baselineKey}
                verdict={change.from}
                score={change.baselineScore}
                reason={change.baselineReason}
                output={change.baselineOutput}
                diff={change.outputDiff}
                shows="removed"
                sameOutput={change.baselineOutput === change.candidateOutput}
              />
              <ChangeSide
                title="This run"
                runId={data.run.id}
                caseKey={change.runKey}
                verdict={change.to}
                score={change.candidateScore}
                reason={change.candidateReason}
                output={change.candidateOutput}
                diff={change.outputDiff}
                shows="added"
                sameOutput={change.baselineOutput === change.candidateOutput}
              />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

const VERDICT_TONES: Record<string, string> = { passed: "pass", failed: "fail", errored: "error" };

function ChangeSide(props: {
  title: string;
  runId: string;
  caseKey: string | null;
  verdict: string;
  score: number | null;
  reason: string | null;
  output: string | null;
  diff: WordDiffPart[] | null;
  /** Which changed words this side has: the baseline's removed ones, or this run's added ones. */
  shows: "removed" | "added";
  sameOutput: boolean;
}) {
  return (
    <div class="change-side">
      <p class="change-side-title">
        {props.title}:{" "}
        <span class={`badge badge-${VERDICT_TONES[props.verdict] ?? "neutral"}`}>
          {props.verdict}
        </span>{" "}
        score {formatScore(props.score)}
        {props.caseKey !== null && (
          <>
            {" · "}
            <Link href={casePath(props.runId, props.caseKey)}>open case</Link>
          </>
        )}
      </p>
      <p class="change-output-label">
        Output
        {props.sameOutput
          ? " (the same in both runs)"
          : props.diff !== null
            ? props.shows === "removed"
              ? " (words this run no longer has are struck through)"
              : " (words this run added are underlined)"
            : ""}
      </p>
      <OutputText output={props.output} diff={props.diff} shows={props.shows} />
      <p class="change-output-label">Reason</p>
      <p class="reason">{props.reason ?? "No reason given."}</p>
    </div>
  );
}

/** One side's output, its changed words marked (`<del>` removed, `<ins>` added) when diffed. */
function OutputText(props: {
  output: string | null;
  diff: WordDiffPart[] | null;
  shows: "removed" | "added";
}) {
  if (props.output === null) return <p class="text text-missing">no output</p>;
  if (props.diff === null) return <TextBlock text={props.output} />;
  const hidden = props.shows === "removed" ? "added" : "removed";
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box is reached by keyboard
    <pre class="text change-output" tabIndex={0}>
      {props.diff
        .filter((part) => part.kind !== hidden)
        .map((part, index) => {
          const text = showControlCharacters(part.text);
          if (part.kind === "same") return text;
          return part.kind === "removed" ? (
            <del class="diff-removed" key={index}>
              {text}
            </del>
          ) : (
            <ins class="diff-added" key={index}>
              {text}
            </ins>
          );
        })}
    </pre>
  );
}
