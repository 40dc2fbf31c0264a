import type { CalibrationReport } from "../../results/calibration-report.ts";
import { FAKE_JUDGE_NOTICE } from "../../results/fake-judge-notice.ts";

/** The `format` field that marks a file as a verdict calibration report. */
export const CALIBRATION_JSON_FORMAT = "verdict-calibration";
/** The version of the calibration JSON layout that this verdict writes. */
export const CALIBRATION_JSON_VERSION = 1;

/**
 * A calibration report as pretty JSON: `"format": "verdict-calibration"` and `"version": 1`
 * first, then — when scores came from the fake judge — a `"notice"` that they are not real,
 * then every field of the {@link CalibrationReport}.
 * @example
 * writeFileSync("calibration.json", renderCalibrationJson({ report }));
 */
export function renderCalibrationJson(options: { report: CalibrationReport }): string {
  const { report } = options;
  const document = {
    format: CALIBRATION_JSON_FORMAT,
    version: CALIBRATION_JSON_VERSION,
    ...(report.fakeJudge ? { notice: FAKE_JUDGE_NOTICE } : {}),
    ...report,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
