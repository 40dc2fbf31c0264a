import { failureOf, type PostgresAccess, UNIQUE_VIOLATION } from "./postgres-access.ts";
import type { StoreCalibrations } from "./run-store.ts";
import { checkCalibrationNames } from "./stored-names.ts";
import { toCalibrationReport } from "./stored-rows.ts";

/** The calibration reports of the PostgreSQL store, each linked to the run that scored its rows. */
export function createPostgresCalibrations(access: PostgresAccess): StoreCalibrations {
  const calibrations = access.table("calibrations");
  return {
    saveCalibration: async (report) => {
      checkCalibrationNames(report);
      const action = `save calibration "${report.id}"`;
      const json = access.json(action, report);
      await access.use(action, async () => {
        let saved: number;
        try {
          const [inserted] = await access.run([
            {
              text: `INSERT INTO ${calibrations} (id, run_id, created_at, metric, report)
                     SELECT $1, id, $3, $4, $5 FROM ${access.table("runs")} WHERE id = $2`,
              values: [report.id, report.runId, report.createdAt, report.metric.name, json],
            },
          ]);
          saved = inserted?.rowCount ?? 0;
        } catch (error) {
          if (failureOf(error).code !== UNIQUE_VIOLATION) throw error;
          throw access.failure(
            action,
            "a calibration with this id already exists: choose another id",
          );
        }
        if (saved === 0) {
          throw access.failure(
            action,
            `there is no run "${report.runId}" to link it to: store the run that scored the rows first`,
          );
        }
      });
    },

    getCalibration: (id) =>
      access.use(`read calibration "${id}"`, async () => {
        const [found] = await access.run([
          { text: `SELECT report FROM ${calibrations} WHERE id = $1`, values: [id] },
        ]);
        const row = found?.rows[0];
        return row === undefined ? null : toCalibrationReport(row);
      }),

    listCalibrations: async (options = {}) => {
      const { limit } = options;
      if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
        throw access.failure("list calibrations", "limit must be a non-negative integer");
      }
      return access.use("list calibrations", async () => {
        const [found] = await access.run([
          {
            text: `SELECT report FROM ${calibrations}
                   WHERE $1::text IS NULL OR run_id = $1
                   ORDER BY created_at DESC, seq DESC LIMIT $2`,
            values: [options.runId ?? null, limit ?? null],
          },
        ]);
        return (found?.rows ?? []).map(toCalibrationReport);
      });
    },
  };
}
