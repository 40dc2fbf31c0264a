import type { CalibrationReport } from "../results/calibration-report.ts";
import { calibrationReportSchema } from "../results/calibration-schema.ts";
import type { RunStatus } from "../results/evaluation-result.ts";
import type { JudgeTokenLogprob } from "../results/judge-token-logprob.ts";
import { evaluationSummarySchema, testResultSchema } from "../results/result-schema.ts";
import { redactSecrets } from "../secrets/redact-secrets.ts";
import { shardedRunOwner } from "./run-shards.ts";
import type {
  RunOwner,
  StoredJudgeBatch,
  StoredRun,
  StoredRunPart,
  StoredTestResult,
} from "./run-store.ts";
import { fromStoredLogprobs, type StoredLogprobs } from "./stored-logprobs.ts";

/**
 * A row as a SQL store reads it. The SQLite and PostgreSQL stores name their columns alike, so
 * one set of readers turns rows of either into stored runs, parts and results.
 */
export type StoreRow = Record<string, unknown>;

/**
 * What a SQL store writes of a run's header, in its column order (id, identifier, status,
 * started_at, ended_at, config, summary, owner pid, host and heartbeat, shard count): the
 * write side of {@link toStoredRun}. `json` writes a value as the store keeps JSON; the
 * configuration is masked first.
 */
export function runHeaderValues(
  run: StoredRun,
  json: (value: unknown) => string,
): Array<string | number | null> {
  return [
    run.id,
    run.identifier,
    run.status,
    run.startedAt,
    run.endedAt,
    json(redactSecrets(run.config)),
    run.summary === null ? null : json(run.summary),
    run.owner?.pid ?? null,
    run.owner?.hostname ?? null,
    run.owner?.heartbeatAt ?? null,
    run.shards?.count ?? null,
  ];
}

export function text(row: StoreRow, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new TypeError(`column ${column} is not text`);
  return value;
}

export function textOrNull(row: StoreRow, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

/**
 * A judge cache row's `logprobs` column (the JSON of {@link StoredLogprobs}) as a cached
 * answer's field: none when the column is null, as in entries written before it existed.
 */
export function storedLogprobs(row: StoreRow): { logprobs?: JudgeTokenLogprob[] } {
  const logprobs = textOrNull(row, "logprobs");
  return logprobs === null
    ? {}
    : { logprobs: fromStoredLogprobs(JSON.parse(logprobs) as StoredLogprobs) };
}

/** A number column; PostgreSQL's 64-bit integers arrive as decimal text. */
export function numberOrNull(row: StoreRow, column: string): number | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "string" && /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(value)) {
    return Number(value);
  }
  throw new TypeError(`column ${column} is not a number`);
}

/** The owner of a run or a part from `owner_pid`, `owner_hostname` and `heartbeat_at`. */
export function toRunOwner(row: StoreRow): RunOwner | null {
  const pid = numberOrNull(row, "owner_pid");
  const hostname = textOrNull(row, "owner_hostname");
  const heartbeatAt = textOrNull(row, "heartbeat_at");
  if (pid === null || hostname === null || heartbeatAt === null) return null;
  return { pid, hostname, heartbeatAt };
}

function toSummary(row: StoreRow) {
  const summary = textOrNull(row, "summary");
  // Read through the result schema: summaries stored by older versions get today's fields.
  return summary === null ? null : evaluationSummarySchema.parse(JSON.parse(summary));
}

/** A shard's part, from a `run_parts` row. */
export function toStoredRunPart(row: StoreRow): StoredRunPart {
  return {
    shard: numberOrNull(row, "shard") ?? 0,
    status: text(row, "status") as RunStatus,
    startedAt: text(row, "started_at"),
    endedAt: textOrNull(row, "ended_at"),
    summary: toSummary(row),
    owner: toRunOwner(row),
  };
}

/**
 * A run's header from a `runs` row. A sharded run (`shard_count` set) gets its parts (read
 * from `run_parts` by `partsOf`) and the owner they give it.
 */
export function toStoredRun(row: StoreRow, partsOf: (runId: string) => StoredRunPart[]): StoredRun {
  const run: StoredRun = {
    id: text(row, "id"),
    identifier: textOrNull(row, "identifier"),
    status: text(row, "status") as RunStatus,
    startedAt: text(row, "started_at"),
    endedAt: textOrNull(row, "ended_at"),
    config: JSON.parse(text(row, "config")) as Record<string, unknown>,
    summary: toSummary(row),
    owner: toRunOwner(row),
  };
  const count = numberOrNull(row, "shard_count");
  if (count === null) return run;
  const parts = partsOf(run.id);
  return { ...run, owner: shardedRunOwner(parts), shards: { count, parts } };
}

/** A stored test result from a `test_results` row (`fingerprint`, `result`). */
export function toStoredTestResult(row: StoreRow): StoredTestResult {
  return {
    fingerprint: text(row, "fingerprint"),
    // Read through the result schema: results stored by older versions get today's fields.
    result: testResultSchema.parse(JSON.parse(text(row, "result"))),
  };
}

/** A calibration report from its `report` column, read through the schema (a report written by a later version keeps the fields this one knows). */
export function toCalibrationReport(row: StoreRow): CalibrationReport {
  return calibrationReportSchema.parse(JSON.parse(text(row, "report")));
}

/** A judge batch from a `judge_batches` row. */
export function toStoredJudgeBatch(row: StoreRow): StoredJudgeBatch {
  return {
    id: text(row, "id"),
    provider: text(row, "provider"),
    judge: text(row, "judge"),
    requestKeys: JSON.parse(text(row, "request_keys")) as string[],
    state: text(row, "state") as StoredJudgeBatch["state"],
    providerStatus: text(row, "provider_status"),
    createdAt: text(row, "created_at"),
    updatedAt: text(row, "updated_at"),
  };
}
