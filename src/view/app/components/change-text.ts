import { formatRatePoints, MISSING_VALUE } from "../../../report/format.ts";

/** A signed score change, `+0.05` / `−0.05` / `±0.00`, as `verdict compare` prints it. */
export function formatScoreChange(change: number | null): string {
  if (change === null) return MISSING_VALUE;
  const rounded = Number(change.toFixed(2));
  if (rounded === 0) return "±0.00";
  return `${rounded > 0 ? "+" : "−"}${Math.abs(change).toFixed(2)}`;
}

/** A signed pass-rate change in percentage points, `+3.3 pts` / `−3.3 pts`. */
export function formatRateChange(change: number | null): string {
  if (change === null) return MISSING_VALUE;
  const rounded = Number((change * 100).toFixed(1));
  if (rounded === 0) return "±0.0 pts";
  return `${rounded > 0 ? "+" : "−"}${formatRatePoints(Math.abs(change))}`;
}
