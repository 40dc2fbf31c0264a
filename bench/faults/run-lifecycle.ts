// Fault figures of issue 19, items 6, 7 and 9: the run's life.
// - A resume whose default store cannot be opened (each way a store breaks) stops before any
//   judge call, for evaluate() and for `verdict test run --resume`.
// - SIGTERM and SIGHUP stop a run as Ctrl-C does: the run stored interrupted, the end report
//   and the --output file written, exit 143 / 129; evaluate() and `verdict test run` (also
//   with the signal sent to its whole process group).
// - A run beside one killed (SIGKILL) while it held judge cache leases: how long it stalls on
//   them, on SQLite and (when installed) PostgreSQL.
//
//   node --conditions=verdict-source bench/faults/run-lifecycle.ts
//
// Real parts: child processes (evaluate() scripts, the verdict program and its Vitest workers),
// real signals, the fake OpenAI server over HTTP, node:sqlite, a throw-away PostgreSQL server.
// Under root the read-only stores are opened by a program running as `nobody`.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STOP_SIGNALS } from "../../src/evaluate/cancel-on-interrupt.ts";
import { runBesideKilledRun } from "../../test/fixtures/killed-lease-holder.ts";
import {
  findPostgresBinaries,
  startPostgresCluster,
} from "../../test/fixtures/postgres-cluster.ts";
import {
  makeResumeProject,
  resumeOnUnopenableStore,
} from "../../test/fixtures/resume-on-unopenable-store.ts";
import {
  makeStoppedRunProject,
  type StoppedRun,
  stopEvaluateRun,
  stopTestRun,
} from "../../test/fixtures/stopped-runs.ts";
import { removeUnopenableStore, UNOPENABLE_STORES } from "../../test/fixtures/unopenable-stores.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

type Row = FaultFigures["rows"][number];

/** Cases of the runs beside a killed one: each holds a lease when it is killed. */
const LEASE_CASES = 8;
/** The goal: a run beside a killed one stalls less than this on the dead leases. */
const STALL_GOAL_MS = 2000;

async function resumeRows(): Promise<Row[]> {
  const project = makeResumeProject();
  const rows: Row[] = [];
  try {
    for (const kind of UNOPENABLE_STORES) {
      const evaluate = await resumeOnUnopenableStore({ project, kind, via: "evaluate" });
      const testRun = await resumeOnUnopenableStore({ project, kind, via: "test run" });
      removeUnopenableStore(evaluate.home);
      removeUnopenableStore(testRun.home);
      const storeError = (text: string) =>
        /StoreError|Could not open the verdict store/.test(text) &&
        text.includes("A resumed run reads its finished cases from this store");
      const evaluateStopped = evaluate.code !== 0 && storeError(evaluate.stderr);
      const testRunStopped = testRun.code === 2 && storeError(testRun.stderr);
      const as = evaluate.unprivileged ? " (as nobody: root passes permissions)" : "";
      rows.push({
        figure: `resume with a ${kind}${as}: judge calls before the error`,
        goal: "0, StoreError (evaluate) / exit 2 (test run)",
        measured:
          `evaluate: ${evaluate.judgeRequests} calls, ${evaluateStopped ? "StoreError" : `exit ${evaluate.code}, no StoreError`}; ` +
          `test run --resume: ${testRun.judgeRequests} calls, exit ${testRun.code}`,
        pass:
          evaluate.judgeRequests === 0 &&
          testRun.judgeRequests === 0 &&
          evaluateStopped &&
          testRunStopped,
      });
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  return rows;
}

function describeStopped(run: StoppedRun, options: { testRun: boolean }): string {
  const parts = [
    `exit ${run.code}`,
    `stored ${run.stored.statuses.join(", ") || "nothing"} (${run.stored.results} finished case${run.stored.results === 1 ? "" : "s"})`,
    /Run interrupted: .*finished and stored/.test(`${run.stdout}\n${run.stderr}`)
      ? "report printed"
      : "no report",
  ];
  if (options.testRun) {
    parts.push(run.report ? `--output written (${run.report.summary.status})` : "no --output");
  }
  return parts.join(", ");
}

function stoppedWell(run: StoppedRun, code: number, options: { testRun: boolean }): boolean {
  return (
    run.code === code &&
    run.stored.statuses.length === 1 &&
    run.stored.statuses[0] === "interrupted" &&
    run.stored.results > 0 &&
    /Run interrupted: .*finished and stored/.test(`${run.stdout}\n${run.stderr}`) &&
    (!options.testRun ||
      (run.report?.summary.status === "interrupted" &&
        run.report.testResults.length === run.stored.results))
  );
}

async function signalRows(): Promise<Row[]> {
  const project = makeStoppedRunProject();
  const rows: Row[] = [];
  try {
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      const code = STOP_SIGNALS[signal];
      const evaluate = await stopEvaluateRun({ signal, home: join(project, `e-${signal}`) });
      rows.push({
        figure: `evaluate() stopped by ${signal}`,
        goal: `exit ${code}, stored interrupted, report printed`,
        measured: describeStopped(evaluate, { testRun: false }),
        pass: stoppedWell(evaluate, code, { testRun: false }),
      });
      for (const group of [false, true]) {
        if (group && signal !== "SIGTERM") continue;
        const run = await stopTestRun({
          project,
          signal,
          group,
          home: join(project, `t-${signal}-${group}`),
          report: join(project, `report-${signal}-${group}.json`),
        });
        rows.push({
          figure: `verdict test run stopped by ${signal}${group ? " sent to its process group" : ""}`,
          goal: `exit ${code}, stored interrupted, report printed, --output written`,
          measured: describeStopped(run, { testRun: true }),
          pass: stoppedWell(run, code, { testRun: true }),
        });
      }
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  return rows;
}

/** How much longer a run beside a killed one takes than the same run alone on its store. */
async function stallRow(name: string, storeEnv: () => NodeJS.ProcessEnv): Promise<Row> {
  const alone = await runBesideKilledRun({ storeEnv: storeEnv(), cases: LEASE_CASES, alone: true });
  const beside = await runBesideKilledRun({ storeEnv: storeEnv(), cases: LEASE_CASES });
  const stallMs = beside.endedAt - beside.startedAt - (alone.endedAt - alone.startedAt);
  const completed = beside.status === "completed" && alone.status === "completed";
  return {
    figure: `${name}: stall of a run beside one SIGKILLed holding ${beside.killedRequests} leases`,
    goal: `< ${STALL_GOAL_MS} ms (leases live 30 s)`,
    measured: `${Math.max(0, stallMs)} ms (${beside.endedAt - beside.startedAt} ms against ${alone.endedAt - alone.startedAt} ms alone)${completed ? "" : `, status ${beside.status}`}`,
    pass: completed && stallMs < STALL_GOAL_MS,
  };
}

async function leaseRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const homes: string[] = [];
  try {
    rows.push(
      await stallRow("SQLite", () => {
        const home = mkdtempSync(join(tmpdir(), "verdict-lease-bench-"));
        homes.push(home);
        return { VERDICT_HOME: home };
      }),
    );
  } finally {
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
  if (findPostgresBinaries() === null) {
    rows.push({
      figure: "PostgreSQL: stall of a run beside a SIGKILLed one",
      goal: `< ${STALL_GOAL_MS} ms`,
      measured: "not measured: PostgreSQL is not installed",
      pass: true,
    });
    return rows;
  }
  const cluster = await startPostgresCluster({ fast: false });
  try {
    let schemas = 0;
    rows.push(
      await stallRow("PostgreSQL", () => {
        schemas += 1;
        return { VERDICT_STORE: `${cluster.url}?schema=lease_bench_${schemas}` };
      }),
    );
  } finally {
    await cluster.stop();
  }
  return rows;
}

/** The figures of the run's life: resume, signals, dead leases. */
export async function measureRunLifecycle(): Promise<FaultFigures> {
  return {
    title: "The run's life: resume without a store, stop signals, leases of dead processes",
    rows: [...(await resumeRows()), ...(await signalRows()), ...(await leaseRows())],
  };
}

if (isMainModule(import.meta.url)) reportAlone(await measureRunLifecycle());
