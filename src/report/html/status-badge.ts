import type { MetricStatus } from "../../results/case-metrics.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** How the HTML report names a status in its CSS classes: `badge-pass`, `case-fail`, `metric-error`. */
export type StatusClass = "pass" | "fail" | "error" | "score-only";

/** The class of each {@link MetricStatus}. */
export const STATUS_CLASSES: Record<MetricStatus, StatusClass> = {
  passed: "pass",
  failed: "fail",
  errored: "error",
  "score-only": "score-only",
};

/** Text labels, with a symbol for skimming. */
const STATUS_LABELS: Record<StatusClass, string> = {
  pass: "✓ PASS",
  fail: "✗ FAIL",
  error: "! ERROR",
  "score-only": "• SCORE ONLY",
};

/** A status as a badge: every status has a text label, never only a colour. */
export function renderStatusBadge(status: StatusClass): SafeHtml {
  return html`<span class="badge badge-${status}">${STATUS_LABELS[status]}</span>`;
}
