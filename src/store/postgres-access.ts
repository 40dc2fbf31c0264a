import { StoreError } from "../errors/store-error.ts";
import type { PostgresConnection } from "./postgres-connection.ts";
import { describePostgresFailure, PostgresFailureError } from "./postgres-failure.ts";
import type { PostgresPool, PostgresResult, PostgresStatement } from "./postgres-pool.ts";
import {
  type PostgresRetryClock,
  postgresRetryPolicy,
  retryPostgresCall,
} from "./postgres-retry.ts";
import { storeFailure } from "./store-failure.ts";
import { toStoredJson } from "./stored-json.ts";

/** What the parts of the PostgreSQL store (runs, shards, calibrations, judge cache) share. */
export interface PostgresAccess {
  /**
   * Runs statements on one connection (see `PostgresPool.run`), again (whole) while they fail
   * for a passing reason, up to the store's `retryForMs`; fails with a `PostgresFailureError`.
   */
  run(
    statements: readonly PostgresStatement[],
    options?: {
      atomic?: boolean;
      /** Told when the statements run again after a passing failure (see `retryPostgresCall`). */
      onRetry?: () => void;
    },
  ): Promise<PostgresResult[]>;
  /** Runs SQL text of several statements in one round trip (see `PostgresPool.runScript`), retried as `run` is. */
  runScript(text: string): Promise<PostgresResult[]>;
  /** A string as an SQL literal, for {@link PostgresAccess.runScript}. */
  literal(value: string): string;
  /**
   * Runs an operation once the store is known to be open, turning its failure into a
   * `StoreError` that names `action` and says what to do.
   */
  use<Result>(action: string, operation: () => Promise<Result>): Promise<Result>;
  /** A table's name, qualified with the store's schema. */
  table(name: string): string;
  /** The JSON text stored for a value, secrets masked; a `StoreError` naming `action` if it is not JSON. */
  json(action: string, value: unknown): string;
  /** A `StoreError`: could not `action` in the store, because `reason`. */
  failure(action: string, reason: string, cause?: unknown): StoreError;
}

/** SQLSTATE of a unique constraint's refusal. */
export const UNIQUE_VIOLATION = "23505";

/** The SQLSTATE (or Node's code) of a failed call, and which statement of the batch failed. */
export function failureOf(error: unknown): { code: string | null; statement: number | null } {
  return error instanceof PostgresFailureError
    ? { code: error.failure.code, statement: error.failure.statement }
    : { code: null, statement: null };
}

/** `Could not … in the verdict store postgres://…: reason.`, secrets masked. */
export function postgresStoreFailure(
  connection: PostgresConnection,
  action: string,
  reason: string,
  cause?: unknown,
): StoreError {
  return storeFailure({ store: `the verdict store ${connection.target}`, action, reason, cause });
}

/** Runs `operation`, turning what it throws into a `StoreError` that says what to do. */
export async function usePostgres<Result>(
  connection: PostgresConnection,
  action: string,
  operation: () => Promise<Result>,
): Promise<Result> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    if (error instanceof PostgresFailureError) {
      const reason = describePostgresFailure(error.failure, connection);
      const { retried } = error.failure;
      const after =
        retried === undefined
          ? ""
          : `; still failing after ${retried.attempts} tries over ${Math.round(retried.elapsedMs / 1000)} s ` +
            "(a call retries a lost connection for retryForMs, 60 s unless set: raise it, or ?retry_for_ms= in the URL, to wait out longer outages)";
      throw postgresStoreFailure(connection, action, `${reason}${after}`, error);
    }
    const reason =
      error instanceof SyntaxError
        ? `it holds malformed JSON (${error.message})`
        : (error as Error).message;
    throw postgresStoreFailure(connection, action, reason, error);
  }
}

/** The access of a store over `pool`, its tables in `connection.schema`. */
export function createPostgresAccess(options: {
  pool: PostgresPool;
  connection: PostgresConnection;
  /** The retries' waits and time, for tests. */
  clock?: PostgresRetryClock;
}): PostgresAccess {
  const { pool, connection } = options;
  const policy = postgresRetryPolicy(connection);
  const retried = <Result>(operation: () => Promise<Result>, onRetry?: () => void) =>
    retryPostgresCall(operation, policy, { ...options.clock, onRetry });
  const quoted = `"${connection.schema}"`;
  const failure = (action: string, reason: string, cause?: unknown) =>
    postgresStoreFailure(connection, action, reason, cause);
  return {
    run: (statements, runOptions = {}) =>
      retried(
        () => pool.run(statements, { atomic: runOptions.atomic ?? false }),
        runOptions.onRetry,
      ),
    runScript: (text) => retried(() => pool.runScript(text)),
    literal: (value) => pool.literal(value),
    use: (action, operation) => {
      if (pool.closed) {
        return Promise.reject(failure(action, "the store is closed: open a new PostgresRunStore"));
      }
      return usePostgres(connection, action, operation);
    },
    table: (name) => `${quoted}.${name}`,
    json: (action, value) => {
      try {
        return toStoredJson(value);
      } catch (error) {
        throw failure(action, (error as Error).message, error);
      }
    },
    failure,
  };
}
