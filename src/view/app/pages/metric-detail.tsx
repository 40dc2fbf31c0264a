import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatScore,
  formatScoreAgainstThreshold,
  formatTokens,
  MISSING_VALUE,
  showName,
} from "../../../report/format.ts";
import type { JudgeCallView, MetricDetailView, StepTable } from "../../case-views.ts";
import { MetricOutcomeBadge } from "../components/status-badge.tsx";
import { TextBlock } from "../components/text-block.tsx";

const SOURCE_LABELS: Record<JudgeCallView["source"], string> = {
  judge: "judge (paid)",
  cache: "cache hit",
  shared: "shared call",
};

function scoreText(metric: MetricDetailView): string {
  if (metric.score === null) return `score ${MISSING_VALUE}`;
  if (metric.threshold === null) return `score ${formatScore(metric.score)} (no threshold)`;
  return formatScoreAgainstThreshold(metric.score, metric.threshold);
}

/**
 * One metric on a case: outcome, score against threshold, reason or error, judge and spend;
 * the judge's steps as tables (opinion / statement → verdict → reason); every judge call.
 */
export function MetricDetail(props: { metric: MetricDetailView }) {
  const { metric } = props;
  const tone =
    metric.error !== null
      ? "error"
      : metric.success === false
        ? "fail"
        : metric.success
          ? "pass"
          : "none";
  return (
    <article class={`metric metric-${tone}`}>
      <div class="metric-header">
        <h3 class="metric-name">{showName(metric.name)}</h3>
        <MetricOutcomeBadge success={metric.success} error={metric.error} />
        <span class="metric-score">
          <strong>{scoreText(metric)}</strong>
          {metric.lowerIsBetter ? " · lower is better" : " · higher is better"}
        </span>
      </div>
      {metric.reason !== null && <p class="metric-reason">{metric.reason}</p>}
      {metric.error !== null && <p class="error-message">{metric.error}</p>}
      <dl class="metric-facts">
        <div>
          <dt>Judge</dt>
          <dd>{metric.evaluationModel ?? MISSING_VALUE}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCostUsd(metric.costUsd)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{formatTokens(metric.inputTokens, metric.outputTokens)}</dd>
        </div>
      </dl>
      {metric.steps.map((step, index) =>
        "rows" in step ? (
          <StepTableView key={index} step={step} lowerIsBetter={metric.lowerIsBetter} />
        ) : (
          <div class="step" key={index}>
            <p class="step-label">{step.label}</p>
            <TextBlock text={step.text} />
          </div>
        ),
      )}
      {metric.calls.length > 0 && <JudgeCalls metricName={metric.name} calls={metric.calls} />}
    </article>
  );
}

function StepTableView(props: { step: StepTable; lowerIsBetter: boolean }) {
  const { step } = props;
  const flagged = step.flaggedVerdict ?? (props.lowerIsBetter ? "yes" : "no");
  return (
    <div class="table-scroll step">
      <table class="data-table step-table">
        <caption>{step.label}</caption>
        <thead>
          <tr>
            <th scope="col" class="numeric">
              #
            </th>
            {step.columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {step.rows.map((row, rowIndex) => (
            <tr key={rowIndex}>
              <td class="numeric">{rowIndex + 1}</td>
              {row.map((cell, cellIndex) => (
                <td key={cellIndex} class={verdictClass(step.columns[cellIndex], cell, flagged)}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Colours a verdict cell — the word itself is always shown. `flagged` is the verdict that
 * counts against the output: "yes" for a toxic opinion, "no" for an irrelevant statement or
 * a contradicted context.
 */
function verdictClass(column: string | undefined, cell: string, flagged: string) {
  if (column !== "verdict") return undefined;
  const word = cell.trim().toLowerCase();
  if (word !== "yes" && word !== "no") return "verdict-cell";
  return `verdict-cell ${word === flagged ? "verdict-cell-bad" : "verdict-cell-good"}`;
}

function JudgeCalls(props: { metricName: string; calls: JudgeCallView[] }) {
  return (
    <details class="judge-calls" open>
      <summary>Judge calls ({formatCount(props.calls.length)})</summary>
      <div class="table-scroll">
        <table class="data-table">
          <caption class="visually-hidden">Judge calls of {showName(props.metricName)}</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Model</th>
              <th scope="col">Source</th>
              <th scope="col" class="numeric">
                Tokens
              </th>
              <th scope="col" class="numeric">
                Cost
              </th>
              <th scope="col" class="numeric">
                Latency
              </th>
            </tr>
          </thead>
          <tbody>
            {props.calls.flatMap((call, index) => [
              <tr key={`call-${index}`}>
                <td>{call.step}</td>
                <td>{call.model === null ? MISSING_VALUE : showName(call.model)}</td>
                <td>{SOURCE_LABELS[call.source] ?? call.source}</td>
                <td class="numeric">{formatTokens(call.inputTokens, call.outputTokens)}</td>
                <td class="numeric">{formatCostUsd(call.costUsd)}</td>
                <td class="numeric">
                  {call.latencyMs === null ? MISSING_VALUE : formatDuration(call.latencyMs)}
                </td>
              </tr>,
              <tr key={`text-${index}`} class="judge-call-text-row">
                <td colSpan={6}>
                  <JudgeCallText call={call} />
                </td>
              </tr>,
            ])}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** The first 12 hex digits of a hash: enough to tell texts apart on screen. */
function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

/**
 * A judge call's prompt and raw answer, collapsed until asked for; when the store keeps only
 * their hashes (or the result is older than kept prompts), says so.
 */
function JudgeCallText(props: { call: JudgeCallView }) {
  const { call } = props;
  if (call.promptHash === undefined && call.answerHash === undefined) {
    return (
      <p class="cell-note">
        Prompt and answer not recorded (stored by a verdict that did not keep them).
      </p>
    );
  }
  if (call.prompt === null && call.answer === null) {
    return (
      <p class="cell-note">
        Prompt and answer not kept: this run kept only their SHA-256 (prompt{" "}
        <code>{shortHash(call.promptHash ?? "")}</code>, answer{" "}
        <code>{shortHash(call.answerHash ?? "")}</code>; keepJudgeText: "hash").
      </p>
    );
  }
  return (
    <details class="judge-call-text">
      <summary>Prompt and answer of this {call.step} call</summary>
      <p class="step-label">
        Prompt <span class="cell-note">SHA-256 {shortHash(call.promptHash ?? "")}</span>
      </p>
      <TextBlock text={call.prompt} missing="not kept" />
      <p class="step-label">
        Raw answer <span class="cell-note">SHA-256 {shortHash(call.answerHash ?? "")}</span>
      </p>
      <TextBlock text={call.answer} missing="not kept" />
    </details>
  );
}
