import { describe, expect, it } from "vitest";
import { usePostgres } from "./postgres-access.ts";
import { resolvePostgresConnection } from "./postgres-connection.ts";
import {
  isTransientPostgresFailure,
  type PostgresFailure,
  PostgresFailureError,
} from "./postgres-failure.ts";
import { postgresRetryDelayMs, retryPostgresCall } from "./postgres-retry.ts";

const failure = (code: string | null, message = "failed"): PostgresFailure => ({
  message,
  code,
  detail: null,
  statement: null,
});
const failing = (code: string | null, message?: string) =>
  new PostgresFailureError(failure(code, message));

describe("isTransientPostgresFailure", () => {
  it.each([
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"],
    ["ECONNRESET", "read ECONNRESET"],
    ["EPIPE", "write EPIPE"],
    ["ETIMEDOUT", "connect ETIMEDOUT"],
    ["EHOSTUNREACH", "connect EHOSTUNREACH"],
    ["57P01", "terminating connection due to administrator command"],
    ["57P02", "terminating connection due to crash of another server process"],
    ["57P03", "the database system is starting up"],
    ["53300", "sorry, too many clients already"],
    ["25006", "cannot execute INSERT in a read-only transaction"],
    ["08006", "connection failure"],
    ["08001", "could not connect"],
    ["08003", "connection does not exist"],
    ["08007", "transaction resolution unknown"],
    ["40001", "could not serialize access due to concurrent update"],
    ["40P01", "deadlock detected"],
    [null, "Connection terminated unexpectedly"],
    [null, "Client has encountered a connection error and is not queryable"],
    [null, "timeout exceeded when trying to connect"],
    [null, "Connection terminated due to connection timeout"],
    [null, "Query read timeout"],
  ])("retries %s (%s)", (code, message) => {
    expect(isTransientPostgresFailure(failure(code, message))).toBe(true);
  });

  it.each([
    ["23505", "duplicate key value violates unique constraint"],
    ["42601", "syntax error at or near"],
    ["42501", "permission denied for table runs"],
    ["42P01", 'relation "verdict.runs" does not exist'],
    ["28P01", "password authentication failed"],
    ["3D000", 'database "evals" does not exist'],
    ["57014", "canceling statement due to statement timeout"],
    ["08P01", "protocol violation"],
    ["22P02", "invalid input syntax"],
    ["ENOTFOUND", "getaddrinfo ENOTFOUND db.internal"],
    ["CLOSED", "the store is closed"],
    ["VERDICT_TLS_FILE", "cannot read the root certificate"],
    ["SELF_SIGNED_CERT_IN_CHAIN", "self-signed certificate in certificate chain"],
    [null, "The server does not support SSL connections"],
    [null, "Cannot read properties of undefined"],
  ])("does not retry %s (%s)", (code, message) => {
    expect(isTransientPostgresFailure(failure(code, message))).toBe(false);
  });
});

describe("postgresRetryDelayMs", () => {
  const policy = { retryForMs: 60_000, initialDelayMs: 100, maxDelayMs: 2000 };
  it("doubles from the first wait up to the longest, a random half of it taken away", () => {
    const longest = [1, 2, 3, 4, 5, 6, 7].map((retry) =>
      postgresRetryDelayMs({ retry, policy, random: () => 1 }),
    );
    expect(longest).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    const shortest = [1, 2, 6].map((retry) =>
      postgresRetryDelayMs({ retry, policy, random: () => 0 }),
    );
    expect(shortest).toEqual([50, 100, 1000]);
  });
});

/** A clock that moves only when the retries sleep. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (milliseconds: number) => {
      sleeps.push(milliseconds);
      now += milliseconds;
    },
    random: () => 1,
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

describe("retryPostgresCall", () => {
  const policy = { retryForMs: 10_000, initialDelayMs: 100, maxDelayMs: 2000 };

  it("runs a call again while the server is away, and returns once it is back", async () => {
    const clock = fakeClock();
    const failures = [
      failing("57P01", "terminating connection due to administrator command"),
      failing("ECONNREFUSED"),
      failing("ECONNREFUSED"),
      failing("57P03", "the database system is starting up"),
    ];
    let retries = 0;
    let attempts = 0;
    const result = await retryPostgresCall(
      async () => {
        attempts += 1;
        const next = failures.shift();
        if (next) throw next;
        return "stored";
      },
      policy,
      { ...clock, onRetry: () => (retries += 1) },
    );
    expect(result).toBe("stored");
    expect(attempts).toBe(5);
    expect(retries).toBe(4);
    expect(clock.sleeps).toEqual([100, 200, 400, 800]);
  });

  it("gives up once the bound has passed since the first failure, tries last at the bound, and says so", async () => {
    const clock = fakeClock();
    let attempts = 0;
    const error = await retryPostgresCall(
      async () => {
        attempts += 1;
        // The first try hangs a while before it fails: the bound counts from its failure.
        if (attempts === 1) clock.advance(30_000);
        throw failing("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432");
      },
      policy,
      clock,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresFailureError);
    const { failure: last } = error as PostgresFailureError;
    expect(last.code).toBe("ECONNREFUSED");
    expect(last.retried).toEqual({ attempts, elapsedMs: 10_000 });
    expect(clock.sleeps.reduce((sum, wait) => sum + wait, 0)).toBe(10_000);
    expect(clock.sleeps.at(-1)).toBeLessThanOrEqual(2000);
    expect(attempts).toBe(clock.sleeps.length + 1);
  });

  it("throws a refusal of the statement at once, without a retry", async () => {
    const clock = fakeClock();
    let attempts = 0;
    await expect(
      retryPostgresCall(
        async () => {
          attempts += 1;
          throw failing("23505", "duplicate key value violates unique constraint");
        },
        policy,
        clock,
      ),
    ).rejects.toThrow("duplicate key");
    await expect(
      retryPostgresCall(
        async () => {
          attempts += 1;
          throw new SyntaxError("Unexpected token");
        },
        policy,
        clock,
      ),
    ).rejects.toThrow(SyntaxError);
    expect(attempts).toBe(2);
    expect(clock.sleeps).toEqual([]);
  });

  it("never retries with retryForMs 0", async () => {
    const clock = fakeClock();
    let attempts = 0;
    const error = await retryPostgresCall(
      async () => {
        attempts += 1;
        throw failing("ECONNRESET");
      },
      { ...policy, retryForMs: 0 },
      clock,
    ).catch((caught: unknown) => caught);
    expect(attempts).toBe(1);
    expect((error as PostgresFailureError).failure.retried).toBeUndefined();
  });
});

describe("the StoreError of a call that ran out of retries", () => {
  const connection = resolvePostgresConnection({
    url: "postgres://evals:s3cret-Pa55@db.internal:5432/evals",
    env: {},
  });

  it("says what failed, that it was retried and for how long, and how to wait longer", async () => {
    const error = await usePostgres(connection, 'save test result 3 of run "r"', async () => {
      throw new PostgresFailureError({
        ...failure("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:5432"),
        retried: { attempts: 31, elapsedMs: 60_200 },
      });
    }).catch((caught: unknown) => caught);
    const { message } = error as Error;
    expect(message).toMatch(
      /^Could not save test result 3 of run "r" in the verdict store postgres:\/\/evals@db\.internal:5432\/evals \(schema verdict\): nothing answers at db\.internal:5432/,
    );
    expect(message).toContain("still failing after 31 tries over 60 s");
    expect(message).toContain("retryForMs");
    expect(message).not.toContain("s3cret");
  });

  it("says nothing of retries when the failure was not retried (a refusal, retryForMs 0)", async () => {
    const error = await usePostgres(connection, "list runs", async () => {
      throw failing("42501", "permission denied for table runs");
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain("lacks a privilege");
    expect((error as Error).message).not.toContain("tries");
  });
});
