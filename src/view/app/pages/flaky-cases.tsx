import {
  formatPassRate,
  formatPlural,
  formatRateInterval,
  showName,
} from "../../../report/format.ts";
import type { FlakyCaseView } from "../../api.ts";
import { Link } from "../components/link.tsx";
import { casePath } from "../router.ts";

/**
 * The cases of a `repeat` run that passed some trials and failed others, as every report lists
 * them: passes k/n and the 95% Wilson interval of the case's pass rate, each a link to its case
 * (whose page shows every trial). Nothing when the run has none.
 */
export function FlakyCases(props: { runId: string; cases: FlakyCaseView[] }) {
  const { cases } = props;
  if (cases.length === 0) return null;
  return (
    <section aria-labelledby="flaky-heading">
      <h2 id="flaky-heading">Flaky cases</h2>
      <p class="section-note">
        Passed some trials and failed others: {formatPlural(cases.length, "case")}. Their verdicts
        depend on the judge's draw; the interval is where each case's true pass rate lies (95%).
      </p>
      <div class="table-scroll">
        <table class="data-table flaky-table">
          <caption class="visually-hidden">
            Flaky cases: trials passed and the 95% interval of each case's pass rate
          </caption>
          <thead>
            <tr>
              <th scope="col" class="numeric">
                #
              </th>
              <th scope="col">Case</th>
              <th scope="col" class="numeric">
                Trials passed
              </th>
              <th scope="col" class="numeric">
                Pass rate
              </th>
              <th scope="col" class="numeric">
                95% CI
              </th>
            </tr>
          </thead>
          <tbody>
            {cases.map((flaky) => (
              <tr key={flaky.key}>
                <td class="numeric">{flaky.position}</td>
                <th scope="row">
                  <Link href={casePath(props.runId, flaky.key)} class="case-link">
                    {showName(flaky.name)}
                  </Link>
                </th>
                <td class="numeric">
                  {flaky.passedTrials}/{flaky.trials}
                </td>
                <td class="numeric">{formatPassRate(flaky.passedTrials / flaky.trials)}</td>
                <td class="numeric">{formatRateInterval(flaky.passRateInterval)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
