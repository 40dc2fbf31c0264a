import {
  formatPassRate,
  formatScore,
  formatScoreInterval,
  showName,
} from "../../../report/format.ts";
import type { CalibrationsPage } from "../../calibration-views.ts";
import { apiPath } from "../api-client.ts";
import { Link } from "../components/link.tsx";
import { TimeText } from "../components/time-text.tsx";
import { calibrationPath, calibrationsPath } from "../router.ts";
import { useApi } from "../use-api.ts";

const SHOWN = 10;

/**
 * The calibrations whose rows this run scored (`verdict calibrate` stores its run), each a
 * link to its page; nothing for a run that scored none (most runs).
 */
export function RunCalibrations(props: { runId: string }) {
  const calibrations = useApi<CalibrationsPage>(
    apiPath("/api/calibrations", { runId: props.runId, limit: SHOWN + 1 }),
  );
  const list = calibrations.data?.calibrations ?? [];
  if (list.length === 0) return null;
  return (
    <section aria-labelledby="run-calibrations-heading">
      <h2 id="run-calibrations-heading">Calibrations</h2>
      <p class="section-note">
        This run scored labelled rows for <code>verdict calibrate</code>: how its metric agrees with
        people.
      </p>
      <ul class="run-calibrations">
        {list.slice(0, SHOWN).map((calibration) => (
          <li key={calibration.id}>
            <Link href={calibrationPath(calibration.id)}>
              {`${showName(calibration.metric)} against human labels`}
            </Link>
            {` · Cohen's κ ${formatScore(calibration.kappa)}`}
            {calibration.kappaCi !== null &&
              ` (95% CI ${formatScoreInterval(calibration.kappaCi)})`}
            {` · accuracy ${formatPassRate(calibration.accuracy)} · computed `}
            <TimeText iso={calibration.createdAt} withSeconds={false} />
          </li>
        ))}
      </ul>
      {list.length > SHOWN && (
        <p class="section-note">
          <Link href={calibrationsPath(props.runId)}>All calibrations of this run</Link>
        </p>
      )}
    </section>
  );
}
