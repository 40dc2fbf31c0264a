// Fault figures of issue 9, items 4 and 8: `verdict view` is local-only (foreign Host refused,
// frame headers on every response, no 500 over a corpus of bad paths), and a run killed with
// SIGKILL is shown as interrupted, then resumes losing and re-paying nothing.
//
//   node --conditions=verdict-source bench/faults/dashboard-and-stale-runs.ts
//
// Real parts: the dashboard over HTTP (raw sockets, so requests go out byte for byte), child
// processes running evaluate() against the fake OpenAI server, node:sqlite.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reply, startFakeOpenAIServer } from "verdict/testing";
import { runCompare } from "../../src/cli/commands/compare.ts";
import { VIEW_HOST } from "../../src/cli/commands/view.ts";
import { MemoryRunStore } from "../../src/store/memory-run-store.ts";
import type { Store } from "../../src/store/run-store.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import type { RunsPage } from "../../src/view/api.ts";
import { createViewServer } from "../../src/view/server/view-server.ts";
import { toViewStore } from "../../src/view/server/view-store.ts";
import { makeAppFolder } from "../../test/fixtures/dashboard-runs.ts";
import {
  BAD_VIEW_REQUESTS,
  FOREIGN_HOSTS,
  type RawResponse,
  rawHttpRequest,
} from "../../test/fixtures/view-requests.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const CHILD_SCRIPT = "test/e2e/fixtures/evaluate-child.ts";
const CASES = 12;
/** After how many judge requests each run is killed: early, half-way, late. */
const KILL_AFTER = [3, 6, 9];

async function withViewServer<Result>(
  store: Store,
  use: (port: number) => Promise<Result>,
): Promise<Result> {
  // As installed: the app built (its pages are 503 until `npm run build` in a source checkout).
  const appFolder = makeAppFolder();
  const server = createViewServer({ store: toViewStore(store), log: () => {}, appFolder });
  await new Promise<void>((resolve) => server.listen(0, VIEW_HOST, () => resolve()));
  try {
    return await use((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(appFolder, { recursive: true, force: true });
  }
}

function hasFrameHeaders(response: RawResponse): boolean {
  return (
    /frame-ancestors 'none'/.test(response.headers["content-security-policy"] ?? "") &&
    response.headers["x-frame-options"] === "DENY" &&
    response.headers["x-content-type-options"] === "nosniff"
  );
}

async function measureDashboard(): Promise<FaultFigures["rows"]> {
  const store = new MemoryRunStore();
  await store.runs.startRun({
    id: "secret-run",
    identifier: "private-outputs",
    status: "completed",
    startedAt: new Date().toISOString(),
    endedAt: null,
    config: {},
    summary: null,
  });
  return withViewServer(store, async (port) => {
    const hosts = [...FOREIGN_HOSTS.map((host) => host.replaceAll("{port}", String(port))), null];
    let refused = 0;
    let foreignTotal = 0;
    const all: RawResponse[] = [];
    for (const host of hosts) {
      for (const target of ["/", "/runs/secret-run", "/api/runs"]) {
        const response = await rawHttpRequest({ port, target, host });
        all.push(response);
        foreignTotal += 1;
        if ([400, 421].includes(response.status) && !response.body.includes("private-outputs")) {
          refused += 1;
        }
      }
    }
    let loopbackServed = 0;
    const loopbackHosts = ["127.0.0.1", "localhost", "[::1]"].map((name) => `${name}:${port}`);
    for (const host of loopbackHosts) {
      const response = await rawHttpRequest({ port, target: "/api/runs", host });
      all.push(response);
      if (response.status === 200 && response.body.includes("private-outputs")) loopbackServed += 1;
    }
    const routes = [
      { target: "/" },
      { target: "/runs/secret-run" },
      { target: "/runs/missing" },
      { target: "/api/runs" },
      { target: "/api/runs/secret-run/cases" },
      { target: "/api/nope" },
      { target: "/", method: "HEAD" },
    ];
    for (const request of routes) all.push(await rawHttpRequest({ port, ...request }));
    let errors = 0;
    let unexpected = 0;
    for (const request of BAD_VIEW_REQUESTS) {
      const response = await rawHttpRequest({ port, ...request });
      all.push(response);
      if (response.status >= 500) errors += 1;
      if (![400, 404, 405].includes(response.status)) unexpected += 1;
    }
    const framed = all.filter(hasFrameHeaders).length;
    return [
      {
        figure: `verdict view: foreign Host refused (${hosts.length} hosts incl. DNS-rebinding names and none, × 3 routes)`,
        goal: "yes",
        measured: `${refused === foreignTotal ? "yes" : "no"}: ${refused}/${foreignTotal} refused; loopback served ${loopbackServed}/${loopbackHosts.length}`,
        pass: refused === foreignTotal && loopbackServed === loopbackHosts.length,
      },
      {
        figure:
          "verdict view: frame headers (CSP frame-ancestors 'none', X-Frame-Options DENY, nosniff) on every response",
        goal: "yes",
        measured: `${framed === all.length ? "yes" : "no"}: ${framed}/${all.length} responses`,
        pass: framed === all.length,
      },
      {
        figure: `verdict view: responses with status 500 over ${BAD_VIEW_REQUESTS.length} bad paths and methods`,
        goal: "0",
        measured: `${errors} (${BAD_VIEW_REQUESTS.length - unexpected}/${BAD_VIEW_REQUESTS.length} answered 400/404/405)`,
        pass: errors === 0 && unexpected === 0,
      },
    ];
  });
}

function runChild(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ["--conditions=verdict-source", CHILD_SCRIPT], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stdout: () => stdout };
}

interface KillOutcome {
  lost: number;
  rePaid: number;
  shownInterrupted: boolean;
  resumedCompleted: boolean;
}

async function killAndResume(killAfter: number): Promise<KillOutcome> {
  const server = await startFakeOpenAIServer({ latencyMs: 60 });
  const home = mkdtempSync(join(tmpdir(), "verdict-fault-stale-"));
  const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home };
  const databasePath = join(home, "verdict.db");
  const prompts = (index: number) =>
    server.requests.some(
      (request) =>
        request.prompt.includes(`output number ${index}\\"`) ||
        request.prompt.includes(`"output number ${index}"`),
    );
  try {
    server.setResponder(() => reply.json({ opinions: [] }));
    const first = runChild({ ...env, CASES: String(CASES) });
    while (server.stats().requests < killAfter)
      await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill("SIGKILL");
    await first.exited;

    const store = new SqliteRunStore({ path: databasePath });
    const killed = await store.runs.getRun("killed-run");
    const before = killed ? await store.runs.getTestResults(killed.id) : [];
    const listed = await withViewServer(
      store,
      async (port) =>
        JSON.parse((await rawHttpRequest({ port, target: "/api/runs" })).body) as RunsPage,
    );
    const row = listed.runs.find((run) => run.identifier === "killed-run");
    await store.close();
    let compared = "";
    await runCompare({
      baseline: "killed-run",
      candidate: "killed-run",
      cwd: home,
      env,
      stdout: { write: (text: string) => (compared += text) },
      stderr: { write: () => true },
    });
    const resume = 'evaluate({ identifier: "killed-run", resume: true, … })';
    const shownInterrupted =
      row?.status === "interrupted" &&
      row.stale?.resumeCommand === resume &&
      compared.includes(", interrupted)") &&
      compared.includes('Resume it with evaluate({ identifier: "killed-run", resume: true, … })');

    server.reset();
    const second = runChild({ ...env, CASES: String(CASES), RESUME: "1" });
    await second.exited;
    const after = new SqliteRunStore({ path: databasePath });
    const resumed = await after.runs.getRun("killed-run");
    const kept = resumed ? await after.runs.getTestResults(resumed.id) : [];
    await after.close();
    const keptJson = new Set(kept.map((stored) => JSON.stringify(stored)));
    return {
      lost: before.filter((stored) => !keptJson.has(JSON.stringify(stored))).length,
      rePaid: before.filter((stored) => prompts(stored.result.index)).length,
      shownInterrupted,
      resumedCompleted: resumed?.status === "completed" && kept.length === CASES,
    };
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function measureStaleRuns(): Promise<FaultFigures["rows"]> {
  const outcomes: KillOutcome[] = [];
  for (const killAfter of KILL_AFTER) outcomes.push(await killAndResume(killAfter));
  const lost = outcomes.reduce((sum, outcome) => sum + outcome.lost, 0);
  const rePaid = outcomes.reduce((sum, outcome) => sum + outcome.rePaid, 0);
  const shown = outcomes.filter((outcome) => outcome.shownInterrupted).length;
  const completed = outcomes.filter((outcome) => outcome.resumedCompleted).length;
  const runs = `${outcomes.length} runs of ${CASES} cases killed after ${KILL_AFTER.join("/")} requests`;
  return [
    {
      figure: `SIGKILL mid-run, then resume: finished cases lost (${runs})`,
      goal: "0",
      measured: `${lost} (${completed}/${outcomes.length} resumed runs completed)`,
      pass: lost === 0 && completed === outcomes.length,
    },
    {
      figure: "SIGKILL mid-run, then resume: judge calls re-paid for finished cases",
      goal: "0",
      measured: String(rePaid),
      pass: rePaid === 0,
    },
    {
      figure: "Killed run shown as interrupted, with the resume command (verdict view and compare)",
      goal: "yes",
      measured: `${shown === outcomes.length ? "yes" : "no"}: ${shown}/${outcomes.length}`,
      pass: shown === outcomes.length,
    },
  ];
}

/** The dashboard and stale-run figures of the fault bench. */
export async function measureDashboardAndStaleRuns(): Promise<FaultFigures> {
  return {
    title: "Dashboard local-only and stale runs (issue 9, items 4 and 8)",
    rows: [...(await measureDashboard()), ...(await measureStaleRuns())],
  };
}

if (isMainModule(import.meta.url)) reportAlone(await measureDashboardAndStaleRuns());
