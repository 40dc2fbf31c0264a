// The team's PostgreSQL store through a blip mid-run: a restart (pg_ctl restart -m fast), the
// server down for a few seconds, backends terminated mid-statement. evaluate() and `verdict
// test run` must complete with every result stored once, no test errored by the store, and
// at most the judge requests in flight at the blip paid twice. A server of its own, since it
// is restarted and stopped (the shared one of the global setup serves other tests meanwhile).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../../src/store/postgres-run-store.ts";
import { type BlipRunOutcome, runThroughBlip } from "../fixtures/postgres-blip-run.ts";
import {
  findPostgresBinaries,
  POSTGRES_TEST_PASSWORD,
  type PostgresCluster,
  startPostgresCluster,
} from "../fixtures/postgres-cluster.ts";

const missing = findPostgresBinaries() === null;

function expectSurvived(outcome: BlipRunOutcome, expectedExit = 0): void {
  const shown = `exit ${outcome.exitCode}\n${outcome.stdout}\n${outcome.stderr}`;
  expect(outcome.exitCode, shown).toBe(expectedExit);
  expect(outcome.storedRuns, shown).toBe(1);
  expect(outcome.storedStatus, shown).toBe("completed");
  expect(outcome.lost, shown).toBe(0);
  expect(outcome.duplicated, shown).toBe(0);
  expect(outcome.errored, shown).toBe(0);
  expect(outcome.stderr, shown).not.toMatch(/Could not|StoreError|not stored/);
  expect(`${outcome.stdout}${outcome.stderr}`).not.toContain(POSTGRES_TEST_PASSWORD);
  // Paid twice: at most the requests that were in flight when the server went away.
  expect(outcome.judgeRequests - outcome.distinctRequests, shown).toBeLessThanOrEqual(
    outcome.inFlightAtBlip,
  );
}

describe.skipIf(missing && !process.env.CI)(
  `a PostgreSQL blip mid-run ${missing ? "(skipped: PostgreSQL is not installed)" : ""}`,
  () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("evaluate() completes through a restart of the server", async () => {
      const outcome = await runThroughBlip({
        cluster,
        front: "evaluate",
        blip: { kind: "restart" },
        cases: 24,
        blipAfterRequests: 20,
      });
      expectSurvived(outcome);
    });

    it("evaluate() completes through the server down for 2.5 s", async () => {
      const outcome = await runThroughBlip({
        cluster,
        front: "evaluate",
        blip: { kind: "outage", downMs: 2500 },
        cases: 24,
        blipAfterRequests: 20,
      });
      expectSurvived(outcome);
      // It waited for the server rather than finishing without it.
      expect(outcome.wallMs).toBeGreaterThan(2500);
    });

    it("evaluate() completes when its backends are terminated mid-statement", async () => {
      const outcome = await runThroughBlip({
        cluster,
        front: "evaluate",
        blip: { kind: "terminate", times: 3, everyMs: 150 },
        cases: 24,
        blipAfterRequests: 20,
      });
      expectSurvived(outcome);
    });

    it("opens a store in a joining process once the server is back; a first open fails at once", async () => {
      const url = `${cluster.url}?schema=joining_${process.pid}`;
      await cluster.stopServer();
      let stopped = true;
      try {
        await expect(PostgresRunStore.open({ url, env: {} })).rejects.toThrow(/nothing answers/);
        const opening = PostgresRunStore.open({ url, env: {}, retryOpen: true });
        opening.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await cluster.startServer();
        stopped = false;
        const store = await opening;
        expect(await store.runs.listRuns()).toEqual([]);
        await store.close();
      } finally {
        if (stopped) await cluster.startServer();
      }
    });

    it("verdict test run completes through a restart, no test errored", async () => {
      const outcome = await runThroughBlip({
        cluster,
        front: "test-run",
        blip: { kind: "restart" },
        cases: 24,
        blipAfterRequests: 30,
      });
      expectSurvived(outcome);
      expect(outcome.stdout).toContain("Test cases: 24 passed, 0 failed, 0 unscored (24 total)");
    });

    it("verdict test run completes through the server down for 2.5 s", async () => {
      const outcome = await runThroughBlip({
        cluster,
        front: "test-run",
        blip: { kind: "outage", downMs: 2500 },
        cases: 24,
        blipAfterRequests: 30,
      });
      expectSurvived(outcome);
      expect(outcome.stdout).toContain("Test cases: 24 passed, 0 failed, 0 unscored (24 total)");
    });
  },
);
