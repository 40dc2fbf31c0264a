// SIGTERM (how CI services, Kubernetes and `docker stop` cancel a job) and SIGHUP (a closed
// terminal) stop a run as Ctrl-C does: real signals to real processes, an evaluate() script and
// `verdict test run`, each against a slow fake OpenAI server of its own, in a store of its own.
// Ctrl-C itself is covered by evaluate-http.test.ts and cli-test-run.test.ts.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { STOP_SIGNALS } from "../../src/evaluate/cancel-on-interrupt.ts";
import {
  makeStoppedRunProject,
  STOPPED_RUN_CASES,
  stopEvaluateRun,
  stopTestRun,
} from "../fixtures/stopped-runs.ts";

let project: string;

describe.concurrent("a run stopped by SIGTERM or SIGHUP", () => {
  beforeAll(() => {
    project = makeStoppedRunProject();
  });
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    const code = STOP_SIGNALS[signal];

    it(`evaluate(): ${signal} stores the run interrupted, says how to resume, exits ${code}`, async ({
      expect,
    }) => {
      const home = join(project, `evaluate-${signal}`);
      const run = await stopEvaluateRun({ signal, home });
      expect(run.code).toBe(code);
      expect(JSON.parse(run.stdout).status).toBe("interrupted");
      expect(run.stderr).toMatch(
        /Run interrupted: \d+\/12 test cases finished and stored\. Resume with evaluate\(\{ identifier: "killed-run", resume: true/,
      );
      expect(run.stored.statuses).toEqual(["interrupted"]);
      expect(run.stored.results).toBeGreaterThan(0);
      expect(run.stored.results).toBeLessThan(STOPPED_RUN_CASES.evaluate);
    });

    it(`verdict test run: ${signal} stores the run interrupted, prints the report, writes --output, exits ${code}`, async ({
      expect,
    }) => {
      const report = join(project, `report-${signal}.json`);
      const run = await stopTestRun({
        project,
        signal,
        home: join(project, `test-run-${signal}`),
        report,
      });
      expect(run.code).toBe(code);
      expect(run.stdout).toContain("Status: interrupted");
      expect(run.stdout).toMatch(
        /Run interrupted: \d+ test cases? finished and stored\. .*Resume with: verdict test run --identifier ci-job --resume/,
      );
      expect(run.stdout).toContain(`Report written to ${report}`);
      expect(run.report?.summary.status).toBe("interrupted");
      expect(run.stored.statuses).toEqual(["interrupted"]);
      expect(run.stored.results).toBe(run.report?.testResults.length);
      expect(run.stored.results).toBeGreaterThan(0);
      expect(run.stored.results).toBeLessThan(STOPPED_RUN_CASES.testRun);
    });
  }

  it("verdict test run: SIGTERM to its whole process group (its Vitest workers too) still stores what finished", async ({
    expect,
  }) => {
    const run = await stopTestRun({
      project,
      signal: "SIGTERM",
      home: join(project, "test-run-group"),
      report: join(project, "report-group.json"),
      group: true,
    });
    expect(run.code).toBe(143);
    expect(run.stdout).toContain("Status: interrupted");
    expect(run.report?.summary.status).toBe("interrupted");
    expect(run.stored.statuses).toEqual(["interrupted"]);
    expect(run.stored.results).toBeGreaterThan(0);
    expect(run.stored.results).toBeLessThan(STOPPED_RUN_CASES.testRun);
  });
});
