import type { PostgresConnection } from "./postgres-connection.ts";
import { isTransientPostgresFailure, PostgresFailureError } from "./postgres-failure.ts";

/** How the PostgreSQL store retries statements that failed for a passing reason. */
export interface PostgresRetryPolicy {
  /**
   * How long a call goes on retrying after its first failure before it gives up with a
   * `StoreError`; `0` never retries. (The store's default: `DEFAULT_RETRY_FOR_MS`, 60 s.)
   */
  retryForMs: number;
  /** The wait before the first retry; it doubles with each further one (the store's: 100). */
  initialDelayMs: number;
  /** The longest wait between two tries (the store's: 2000). */
  maxDelayMs: number;
}

/** The waits between tries of a store's calls (how long it retries is `retryForMs`). */
export const POSTGRES_RETRY_DELAYS: Readonly<Omit<PostgresRetryPolicy, "retryForMs">> =
  Object.freeze({ initialDelayMs: 100, maxDelayMs: 2000 });

/** The retry policy of a store on `connection`: its `retryForMs`, the store's waits. */
export function postgresRetryPolicy(connection: PostgresConnection): PostgresRetryPolicy {
  return { ...POSTGRES_RETRY_DELAYS, retryForMs: connection.spec.retryForMs };
}

/** What {@link retryPostgresCall} waits with and reads the time from, for tests. */
export interface PostgresRetryClock {
  /** @default setTimeout */
  sleep?: (milliseconds: number) => Promise<void>;
  /** @default Date.now */
  now?: () => number;
  /** @default Math.random */
  random?: () => number;
}

/** Whether `error` is a failure of the driver or the server that may pass (see `isTransientPostgresFailure`). */
export function isTransientPostgresError(error: unknown): boolean {
  return error instanceof PostgresFailureError && isTransientPostgresFailure(error.failure);
}

/**
 * The wait before retry number `retry` (1-based): exponential from `initialDelayMs`, capped at
 * `maxDelayMs`, of which a random half is taken away ("equal jitter"), so that the many calls
 * a restart breaks at once do not all come back at the same instant.
 */
export function postgresRetryDelayMs(options: {
  retry: number;
  policy: PostgresRetryPolicy;
  random: () => number;
}): number {
  const { retry, policy, random } = options;
  const full = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, retry - 1));
  return full / 2 + (full / 2) * random();
}

const defaultSleep = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * Runs `operation`, and runs it again while it fails for a passing reason (a restart, a
 * failover, a connection lost or refused, a deadlock: see `isTransientPostgresFailure`), with
 * growing jittered waits, until `policy.retryForMs` has passed since its first failure. Other
 * failures are thrown at once. When the bound runs out, the last failure is thrown with
 * `failure.retried` set, for the message to say so. The operation must be safe to repeat:
 * what it writes is keyed so that a second write changes nothing more, and a transaction cut
 * mid-way has been rolled back by the server, so it is run again whole.
 */
export async function retryPostgresCall<Result>(
  operation: () => Promise<Result>,
  policy: PostgresRetryPolicy,
  clock: PostgresRetryClock & {
    /** Told before each retry: the operation then runs again after a failure. */
    onRetry?: (() => void) | undefined;
  } = {},
): Promise<Result> {
  const sleep = clock.sleep ?? defaultSleep;
  const now = clock.now ?? Date.now;
  const random = clock.random ?? Math.random;
  let firstFailure: number | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isTransientPostgresError(error) || policy.retryForMs <= 0) throw error;
      const failed = error as PostgresFailureError;
      firstFailure ??= now();
      const elapsed = now() - firstFailure;
      const left = policy.retryForMs - elapsed;
      if (left <= 0) {
        throw new PostgresFailureError(
          { ...failed.failure, retried: { attempts: attempt, elapsedMs: elapsed } },
          { cause: failed.cause },
        );
      }
      // The last try comes at the bound itself, not a wait before it.
      await sleep(Math.min(left, postgresRetryDelayMs({ retry: attempt, policy, random })));
      clock.onRetry?.();
    }
  }
}
