import { describeThresholdRule } from "../../../report/calibration/describe-calibration.ts";
import { formatCount, formatPassRate, formatScore } from "../../../report/format.ts";
import type { CalibrationReport, ThresholdChoice } from "../../../results/calibration-report.ts";

/** A count of the confusion matrix, with whether people and the metric agree on those rows. */
function MatrixCell(props: { count: number; agree: boolean }) {
  return (
    <td class={`numeric ${props.agree ? "matrix-agree" : "matrix-disagree"}`}>
      <span class="matrix-count">{formatCount(props.count)}</span>
      <span class="cell-note">{props.agree ? "✓ agree" : "✗ disagree"}</span>
    </td>
  );
}

/** The scored rows by people's label (rows of the table) and the metric's call (columns). */
export function ConfusionMatrix(props: { report: CalibrationReport }) {
  const { confusion, labels } = props.report;
  const calledPositive = confusion.truePositive + confusion.falsePositive;
  const calledNegative = confusion.falseNegative + confusion.trueNegative;
  return (
    <section aria-labelledby="confusion-heading">
      <h2 id="confusion-heading">Confusion matrix</h2>
      <div class="table-scroll table-fit">
        <table class="data-table confusion-table">
          <caption class="visually-hidden">
            Scored rows by people's label (rows) and the metric's call (columns)
          </caption>
          <thead>
            <tr>
              <th scope="col">Rows</th>
              <th scope="col" class="numeric">
                Metric: positive
              </th>
              <th scope="col" class="numeric">
                Metric: negative
              </th>
              <th scope="col" class="numeric">
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">People: positive</th>
              <MatrixCell count={confusion.truePositive} agree />
              <MatrixCell count={confusion.falseNegative} agree={false} />
              <td class="numeric">{formatCount(labels.positive)}</td>
            </tr>
            <tr>
              <th scope="row">People: negative</th>
              <MatrixCell count={confusion.falsePositive} agree={false} />
              <MatrixCell count={confusion.trueNegative} agree />
              <td class="numeric">{formatCount(labels.negative)}</td>
            </tr>
            <tr>
              <th scope="row">Total</th>
              <td class="numeric">{formatCount(calledPositive)}</td>
              <td class="numeric">{formatCount(calledNegative)}</td>
              <td class="numeric">{formatCount(calledPositive + calledNegative)}</td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ThresholdRow(props: { label: string; choice: ThresholdChoice | null; current: number }) {
  const { choice } = props;
  if (choice === null) {
    return (
      <tr>
        <th scope="row">{props.label}</th>
        <td class="numeric" colSpan={6}>
          no threshold defines it (the scored rows have one class only)
        </td>
      </tr>
    );
  }
  const isCurrent = Math.abs(choice.threshold - props.current) < 1e-12;
  return (
    <tr>
      <th scope="row">
        {props.label}
        {isCurrent && <span class="cell-note">the threshold it ran with</span>}
      </th>
      <td class="numeric">{formatScore(choice.threshold)}</td>
      <td class="numeric">{formatScore(choice.kappa)}</td>
      <td class="numeric">{formatScore(choice.f1)}</td>
      <td class="numeric">{formatPassRate(choice.accuracy)}</td>
      <td class="numeric">{formatPassRate(choice.precision)}</td>
      <td class="numeric">{formatPassRate(choice.recall)}</td>
    </tr>
  );
}

/** The thresholds that maximise κ and F1 over the scored rows, with what each would give. */
export function ThresholdTable(props: { report: CalibrationReport }) {
  const { report } = props;
  const { metric } = report;
  return (
    <section aria-labelledby="thresholds-heading">
      <h2 id="thresholds-heading">Best thresholds</h2>
      <p class="section-note">
        {describeThresholdRule(metric)}; it ran at {formatScore(metric.threshold)}. Pass the
        threshold you pick as the metric's <code>threshold</code>.
      </p>
      <div class="table-scroll table-fit">
        <table class="data-table thresholds-table">
          <caption class="visually-hidden">
            The thresholds that maximise Cohen's κ and F1, and the figures each gives
          </caption>
          <thead>
            <tr>
              <th scope="col">Maximises</th>
              <th scope="col" class="numeric">
                Threshold
              </th>
              <th scope="col" class="numeric">
                κ
              </th>
              <th scope="col" class="numeric">
                F1
              </th>
              <th scope="col" class="numeric">
                Accuracy
              </th>
              <th scope="col" class="numeric">
                Precision
              </th>
              <th scope="col" class="numeric">
                Recall
              </th>
            </tr>
          </thead>
          <tbody>
            <ThresholdRow label="Cohen's κ" choice={report.bestKappa} current={metric.threshold} />
            <ThresholdRow label="F1" choice={report.bestF1} current={metric.threshold} />
          </tbody>
        </table>
      </div>
    </section>
  );
}
