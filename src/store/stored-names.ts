import { ConfigError } from "../errors/config-error.ts";
import type { CalibrationReport } from "../results/calibration-report.ts";
import type { StoredRun } from "./run-store.ts";

/**
 * The names every store keeps as text of its own — a run's id and identifier, a calibration's
 * id, run id and metric name — may not hold NUL (U+0000): PostgreSQL's text refuses it where
 * SQLite takes it, and a run that one store keeps must fit every other (`verdict store
 * import`). Results hold NUL freely: they are stored as JSON, where it is written `\u0000`.
 */

/** What `verdict store import` writes for a NUL of a name stored before NUL was refused. */
export const NUL_REPLACEMENT = "\uFFFD";

/**
 * Refuses a name holding NUL, e.g. `checkStoredName("run identifier", identifier)`.
 * @throws ConfigError naming `what` and saying to remove the NUL.
 */
export function checkStoredName(what: string, value: string | null | undefined): void {
  if (value === null || value === undefined || !value.includes("\u0000")) return;
  throw new ConfigError(
    `The ${what} ${JSON.stringify(value)} holds the NUL character (\\u0000), which no verdict store keeps in a name: remove it (or replace it, e.g. with "-").`,
  );
}

/**
 * Refuses a run whose id or identifier holds NUL, before a store writes anything.
 * @throws ConfigError naming the field and saying to remove the NUL.
 */
export function checkRunNames(run: Pick<StoredRun, "id" | "identifier">): void {
  checkStoredName("run id", run.id);
  checkStoredName("run identifier", run.identifier);
}

/**
 * Refuses a calibration report whose id, run id or metric name holds NUL.
 * @throws ConfigError naming the field and saying to remove the NUL.
 */
export function checkCalibrationNames(report: CalibrationReport): void {
  checkStoredName("calibration id", report.id);
  checkStoredName("run id", report.runId);
  checkStoredName("metric name", report.metric.name);
}

/** `text` with each NUL replaced by {@link NUL_REPLACEMENT}: the same text, the same name. */
export function replaceNul(text: string): string {
  return text.replaceAll("\u0000", NUL_REPLACEMENT);
}
