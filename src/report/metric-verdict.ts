import { type MetricStatus, metricStatus } from "../results/case-metrics.ts";
import type { MetricData } from "../results/metric-data.ts";

/** A metric's verdict on one test case; `scored` means score-only (no threshold). */
export type MetricVerdict = "passed" | "failed" | "errored" | "scored";

/** How compare words each {@link MetricStatus}. */
const VERDICTS: Record<MetricStatus, MetricVerdict> = {
  passed: "passed",
  failed: "failed",
  errored: "errored",
  "score-only": "scored",
};

/** A metric's verdict on a case, as compare words it. */
export function verdictOf(data: MetricData): MetricVerdict {
  return VERDICTS[metricStatus(data)];
}
