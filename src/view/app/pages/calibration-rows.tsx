import { lineOf, placeOf } from "../../../report/calibration/describe-calibration.ts";
import { formatCount, formatScore, showName } from "../../../report/format.ts";
import type { CalibrationReport } from "../../../results/calibration-report.ts";
import type { CalibrationDetail } from "../../calibration-views.ts";
import { Link } from "../components/link.tsx";
import { TextBlock } from "../components/text-block.tsx";
import { casePath } from "../router.ts";

/**
 * The rows the metric got wrong, most confident first: input, output, people's label, the
 * metric's call and score, the judge's reason, and a link to the row's case in the run.
 */
export function WrongRows(props: { detail: CalibrationDetail }) {
  const { report, run, disagreementKeys } = props.detail;
  const shown = report.disagreements.length;
  const side = (positive: boolean) => (positive ? "positive" : "negative");
  return (
    <section aria-labelledby="wrong-heading">
      <h2 id="wrong-heading">
        Rows the metric got wrong ({formatCount(report.disagreementCount)})
      </h2>
      {report.disagreementCount === 0 ? (
        <p class="empty">
          {report.rows.scored === 0
            ? "No row was scored."
            : "None: the metric agreed with people on every scored row."}
        </p>
      ) : (
        <p class="section-note">
          {shown < report.disagreementCount
            ? `The ${formatCount(shown)} most confident (score farthest from the threshold) of ${formatCount(report.disagreementCount)}.`
            : "Most confident first (score farthest from the threshold)."}
        </p>
      )}
      {shown > 0 && (
        <ol class="wrong-rows">
          {report.disagreements.map((example, index) => {
            const key = disagreementKeys[index] ?? null;
            return (
              <li class="wrong-row" key={example.row}>
                <h3>{showName(example.name)}</h3>
                <p class="case-facts">
                  <span>{lineOf(example)}</span>
                  <span>
                    people: {side(example.expected)} (label "{example.label}")
                  </span>
                  <span>metric: {side(example.predicted)}</span>
                  <span>score {formatScore(example.score)}</span>
                  {run !== null && key !== null && (
                    <Link href={casePath(run.id, key)}>open the case in its run</Link>
                  )}
                </p>
                <div class="fields">
                  <div class="field">
                    <h4>Input</h4>
                    <TextBlock text={example.input} />
                  </div>
                  <div class="field">
                    <h4>Output</h4>
                    <TextBlock text={example.actualOutput} />
                  </div>
                </div>
                {example.reason !== null && (
                  <>
                    <h4>The judge's reason</h4>
                    <p class="metric-reason">{example.reason}</p>
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** The rows the metric did not score, with why. */
export function UnscoredRows(props: { report: CalibrationReport }) {
  const { report } = props;
  if (report.unscored.length === 0) return null;
  return (
    <section aria-labelledby="unscored-heading">
      <h2 id="unscored-heading">Rows not scored ({formatCount(report.rows.unscored)})</h2>
      <ul class="unscored-rows">
        {report.unscored.map((row) => (
          <li key={row.row}>
            <strong>{placeOf(row)}</strong>: <span class="error-message">{row.error}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
