import type { StoreCalibrations } from "./run-store.ts";
import type { SqliteAccess } from "./sqlite-access.ts";
import { SQLITE_CONSTRAINT, sqliteCode } from "./sqlite-failure.ts";
import { checkCalibrationNames } from "./stored-names.ts";
import { toCalibrationReport } from "./stored-rows.ts";

/** The calibration reports of the SQLite store, each linked to the run that scored its rows. */
export function createSqliteCalibrations(access: SqliteAccess): StoreCalibrations {
  return {
    saveCalibration: async (report) => {
      checkCalibrationNames(report);
      const action = `save calibration "${report.id}"`;
      access.use(action, (statements) => {
        if (statements.runById.get(report.runId) === undefined) {
          throw access.failure(
            action,
            `there is no run "${report.runId}" to link it to: store the run that scored the rows first`,
          );
        }
        try {
          statements.saveCalibration.run(
            report.id,
            report.runId,
            report.createdAt,
            report.metric.name,
            access.json(action, report),
          );
        } catch (error) {
          if (sqliteCode(error) !== SQLITE_CONSTRAINT) throw error;
          throw access.failure(
            action,
            "a calibration with this id already exists: choose another id",
          );
        }
      });
    },

    getCalibration: async (id) =>
      access.use(`read calibration "${id}"`, (statements) => {
        const row = statements.calibrationById.get(id);
        return row === undefined ? null : toCalibrationReport(row);
      }),

    listCalibrations: async (options = {}) =>
      access.use("list calibrations", (statements) => {
        const limit = options.limit ?? -1;
        if (options.limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
          throw access.failure("list calibrations", "limit must be a non-negative integer");
        }
        const rows =
          options.runId === undefined
            ? statements.calibrationsNewestFirst.all(limit)
            : statements.calibrationsOfRun.all(options.runId, limit);
        return rows.map(toCalibrationReport);
      }),
  };
}
