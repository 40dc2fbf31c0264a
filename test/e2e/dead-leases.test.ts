// A run killed (SIGKILL) while it holds judge cache leases leaves them in the store for 30 s.
// A run beside it on the same machine takes them over at once, since the dead process is
// known to be gone: it finishes before the leases could have expired. SQLite and PostgreSQL.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import {
  type BesideKilledRun,
  DEFAULT_LEASE_MS,
  runBesideKilledRun,
} from "../fixtures/killed-lease-holder.ts";
import {
  postgresMissing,
  postgresSchemaUrl,
  postgresUrl,
} from "../fixtures/postgres-test-store.ts";

const CASES = 6;

function expectTakenOver(run: BesideKilledRun, expect: typeof import("vitest").expect) {
  expect(run.killedRequests).toBe(CASES);
  expect(run.code).toBe(0);
  expect(run.status).toBe("completed");
  // Every request the killed run had asked (and the steps after them) paid once, now.
  expect(run.judgeCalls).toBeGreaterThanOrEqual(CASES);
  // The killed run's leases were taken at its start or later, and live 30 s: ended before
  // that, the run beside it cannot have waited them out.
  expect(run.endedAt).toBeLessThan(run.killedStartedAt + DEFAULT_LEASE_MS);
}

describe.concurrent("a run beside one killed while it held judge cache leases", () => {
  it("takes the SQLite store's leases over at once", async ({ expect }) => {
    const home = mkdtempSync(join(tmpdir(), "verdict-dead-leases-"));
    try {
      const run = await runBesideKilledRun({ storeEnv: { VERDICT_HOME: home }, cases: CASES });
      expectTakenOver(run, expect);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it.skipIf(postgresUrl === null)(
    `takes the PostgreSQL store's leases over at once ${postgresMissing}`,
    async ({ expect }) => {
      const run = await runBesideKilledRun({
        storeEnv: { VERDICT_STORE: postgresSchemaUrl() },
        cases: CASES,
      });
      expectTakenOver(run, expect);
    },
  );
});
