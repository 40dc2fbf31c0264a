// `verdict test run --watch` as a developer runs it: the program on a terminal (or with stdin a
// pipe) in a project of its own, the real AI SDK provider over HTTP to the fake OpenAI server,
// the real SQLite store, and the dashboard's server over that store. Each scenario has its own
// project (a save in one must not re-run another) and server (to count its judge calls).

import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import type { TestResult } from "../../src/results/evaluation-result.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { createViewServer } from "../../src/view/server/view-server.ts";
import { toViewStore } from "../../src/view/server/view-store.ts";
import { openEvents } from "../fixtures/live-events.ts";
import {
  editFile,
  makeWatchProject,
  startWatch,
  WATCHED_FILES,
  type WatchProcess,
  WRONG_EXPECTATION,
  watchJudge,
} from "../fixtures/watch-session.ts";
import { fakeJudgeEnv, projectRoot } from "./run-node.ts";

const TIMEOUT_MS = 180_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A project, its store's folder and a fake OpenAI server of the scenario's own. */
async function scenario(): Promise<{ project: string; home: string; server: FakeOpenAIServer }> {
  const server = await startFakeOpenAIServer({ respond: watchJudge });
  const project = makeWatchProject();
  cleanups.push(() => rmSync(project, { recursive: true, force: true }));
  cleanups.push(() => server.close());
  return { project, home: join(project, ".verdict"), server };
}

/** The store's runs, oldest first, each with its results. */
async function storedRuns(home: string) {
  const store = new SqliteRunStore({ path: join(home, "verdict.db") });
  try {
    const runs = (await store.runs.listRuns()).reverse();
    return await Promise.all(
      runs.map(async (run) => ({
        run,
        results: (await store.runs.getTestResults(run.id)).map(({ result }) => result),
      })),
    );
  } finally {
    await store.close();
  }
}

/** Judge calls a case paid for (not answered by the cache or a shared call). */
function paidCalls(result: TestResult): number {
  return result.metricsData.reduce(
    (total, metric) => total + metric.judgeCalls - metric.cachedJudgeCalls,
    0,
  );
}

/** The dashboard's server (`verdict view`) over the session's store, on an ephemeral port. */
async function startDashboard(home: string, project: string): Promise<string> {
  const store = new SqliteRunStore({ path: join(home, "verdict.db") });
  const server: Server = createViewServer({
    store: toViewStore(store),
    appFolder: null,
    projectRoot: project,
    pollIntervalMs: 50,
    log: () => {},
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Resolves once the server holds a judge call it has not answered yet. */
async function waitForJudgeCall(server: FakeOpenAIServer, watch: WatchProcess): Promise<void> {
  for (let waited = 0; server.stats().inFlight === 0; waited += 50) {
    if (waited > 60_000) throw new Error(`No judge call came:\n${watch.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.concurrent("verdict test run --watch", () => {
  it(
    "on a save, re-runs only that file, pays only for its changed case, the dashboard follows; q exits 0",
    async ({ expect }) => {
      const { project, home, server } = await scenario();
      const watch = startWatch({ project, home, serverUrl: server.url, terminal: true });
      cleanups.push(() => void watch.child.kill("SIGKILL"));
      await watch.waitFor(/Watching for changes .*press q to quit/);
      expect(watch.output()).toMatch(/Run 1 · 2 files: 5 cases, 5 passed, 0 failed/);

      const [first] = await storedRuns(home);
      expect(first?.run.identifier).toMatch(/^watch-\d{8}-\d{6}-[0-9a-f]{4}$/);
      expect(first?.run.status).toBe("completed");
      expect(first?.results).toHaveLength(5);
      expect(first?.run.config).toMatchObject({ watch: true });

      // The run's page is open: its event stream follows the session.
      const dashboard = await startDashboard(home, project);
      const stream = openEvents(`${dashboard}/api/runs/${first?.run.id}/events`);
      cleanups.push(() => stream.close());
      await stream.waitFor((events) => events.some((event) => event.type === "waiting"), 30_000);

      const requestsBefore = server.requests.length;
      const mark = watch.output().length;
      // One expected output changes: the case now contradicts it.
      editFile({
        project,
        file: WATCHED_FILES.answers,
        from: '"Paris.", "Paris"',
        to: `"Paris.", "${WRONG_EXPECTATION}"`,
      });
      await watch.waitFor(/Run 2[^\n]*\n(?:[^\n]*\n)*?\s+Means over the suite[^\n]*\n/, {
        from: mark,
      });
      const summary = watch.output().slice(mark);
      expect(summary).toContain(
        `Run 2 · ${WATCHED_FILES.answers} changed · 1 file re-run: 3 cases, 2 passed, 1 failed`,
      );
      expect(summary).toMatch(/Judge calls: 1 paid \(\$[\d.]+\), \d+ cache hits, \d+ shared/);
      expect(summary).toContain(
        `Flipped: "What is the capital of France?" (${WATCHED_FILES.answers}) passed → failed`,
      );
      expect(summary).toMatch(/Means over the suite: Correctness \[GEval\] 0\.90 → 0\.63/);

      // Only the saved file ran, as a new run under the session's identifier.
      const runs = await storedRuns(home);
      expect(runs).toHaveLength(2);
      const second = runs[1];
      expect(second?.run.identifier).toBe(first?.run.identifier);
      expect(second?.run.config).toMatchObject({ files: [WATCHED_FILES.answers], watch: true });
      expect(second?.results.map((result) => result.file)).toEqual([
        WATCHED_FILES.answers,
        WATCHED_FILES.answers,
        WATCHED_FILES.answers,
      ]);
      // The cache answered the unchanged cases: they paid nothing; the edited one paid its score.
      const paid = Object.fromEntries(
        (second?.results ?? []).map((result) => [result.name, paidCalls(result)]),
      );
      expect(paid).toEqual({
        "What is the capital of France?": 1,
        "What is the capital of Italy?": 0,
        "What is the capital of Spain?": 0,
      });
      const sent = server.requests.slice(requestsBefore);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.prompt).toContain(WRONG_EXPECTATION);

      // The stream announced the session's next run, then closed.
      await stream.done;
      const next = stream.events.at(-1);
      expect(next?.type).toBe("next");
      expect((next?.data as { id?: string } | undefined)?.id).toBe(second?.run.id);

      const beforeQuit = watch.output().length;
      watch.type("q");
      expect(await watch.exited).toBe(0);
      expect(watch.output().slice(beforeQuit)).not.toMatch(/Error|Interrupted/);
      expect((await storedRuns(home)).map(({ run }) => run.status)).toEqual([
        "completed",
        "completed",
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    "Ctrl-C during a re-run stores it as interrupted and exits 130",
    async ({ expect }) => {
      const { project, home, server } = await scenario();
      const watch = startWatch({ project, home, serverUrl: server.url, terminal: true });
      cleanups.push(() => void watch.child.kill("SIGKILL"));
      await watch.waitFor(/Watching for changes/);
      // The judge turns slow: the re-run is still waiting on it when Ctrl-C comes.
      server.setLatency(60_000);
      editFile({
        project,
        file: WATCHED_FILES.answers,
        from: '"Rome.", "Rome"',
        to: `"Rome.", "${WRONG_EXPECTATION}"`,
      });
      await waitForJudgeCall(server, watch);
      watch.type("\u0003");
      expect(await watch.exited).toBe(130);
      expect(watch.output()).toContain("Interrupted");
      const runs = await storedRuns(home);
      expect(runs.map(({ run }) => run.status)).toEqual(["completed", "interrupted"]);
      expect(runs[1]?.run.identifier).toBe(runs[0]?.run.identifier);
    },
    TIMEOUT_MS,
  );

  it(
    "q during the suite's first run stops it, stores it as interrupted, and exits 0",
    async ({ expect }) => {
      const { project, home, server } = await scenario();
      server.setLatency(60_000);
      const watch = startWatch({ project, home, serverUrl: server.url, terminal: true });
      cleanups.push(() => void watch.child.kill("SIGKILL"));
      await waitForJudgeCall(server, watch);
      watch.type("q");
      expect(await watch.exited).toBe(0);
      expect(watch.output()).not.toContain("Watching for changes");
      const runs = await storedRuns(home);
      expect(runs.map(({ run }) => run.status)).toEqual(["interrupted"]);
    },
    TIMEOUT_MS,
  );

  it(
    "with stdin not a terminal, re-runs on saves (of the Vitest config too), and exits 143 on SIGTERM",
    async ({ expect }) => {
      const { project, home, server } = await scenario();
      const watch = startWatch({
        project,
        home,
        serverUrl: server.url,
        terminal: false,
        args: ["--identifier", "my-loop"],
      });
      cleanups.push(() => void watch.child.kill("SIGKILL"));
      await watch.waitFor(/Watching for changes .*type q and Enter to quit/);
      const mark = watch.output().length;
      editFile({
        project,
        file: WATCHED_FILES.greetings,
        from: "Good morning",
        to: "Good evening",
      });
      await watch.waitFor(/Run 2[^\n]*\n(?:[^\n]*\n)*?\s+Means over the suite[^\n]*\n/, {
        from: mark,
      });
      expect(watch.output().slice(mark)).toContain(
        `Run 2 · ${WATCHED_FILES.greetings} changed · 1 file re-run: 2 cases, 2 passed, 0 failed`,
      );
      // Between saves, the session keeps its latest run's heartbeat, for the dashboard.
      const latestHeartbeat = async () =>
        (await storedRuns(home)).at(-1)?.run.owner?.heartbeatAt ?? "";
      const heard = await latestHeartbeat();
      for (let waited = 0; (await latestHeartbeat()) === heard; waited += 500) {
        if (waited > 30_000) throw new Error(`No heartbeat after ${heard}:\n${watch.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(Date.parse(await latestHeartbeat())).toBeGreaterThan(Date.parse(heard));
      // Saving the Vitest config restarts Vitest: the session runs the whole suite again.
      const restart = watch.output().length;
      editFile({
        project,
        file: WATCHED_FILES.vitestConfig,
        from: "600_000",
        to: "900_000",
      });
      await watch.waitFor(/Run 3[^\n]*\n(?:[^\n]*\n)*?\s+Means over the suite[^\n]*\n/, {
        from: restart,
      });
      expect(watch.output().slice(restart)).toContain(
        "Run 3 · the Vitest configuration changed · every file re-run · 2 files re-run: 5 cases, 5 passed, 0 failed",
      );
      watch.child.kill("SIGTERM");
      expect(await watch.exited).toBe(143);
      const runs = await storedRuns(home);
      expect(runs.map(({ run }) => [run.identifier, run.status])).toEqual([
        ["my-loop", "completed"],
        ["my-loop", "completed"],
        ["my-loop", "completed"],
      ]);
      expect(runs[1]?.results.map((result) => result.file)).toEqual([
        WATCHED_FILES.greetings,
        WATCHED_FILES.greetings,
      ]);
    },
    TIMEOUT_MS,
  );

  it("refuses --watch with --shard, --resume, --output, --dry-run or a budget, saying why", async ({
    expect,
  }) => {
    const { project, home, server } = await scenario();
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ["--conditions=verdict-source", join(projectRoot, "src/cli/main.ts"), ...args],
          { cwd: project, env: fakeJudgeEnv({ serverUrl: server.url, home }) },
        );
        let stderr = "";
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
        });
        child.on("close", (code) => resolve({ code, stderr }));
      });
    const [shard, resume, output, dryRun, maxCost, maxTokens] = await Promise.all([
      run(["test", "run", "--watch", "--shard", "1/2"]),
      run(["test", "run", "--watch", "--identifier", "x", "--resume"]),
      run(["test", "run", "--watch", "--output", "json"]),
      run(["test", "run", "--watch", "--dry-run"]),
      run(["test", "run", "--watch", "--max-cost", "1"]),
      run(["test", "run", "--watch", "--max-tokens", "1000"]),
    ]);
    for (const [result, flag] of [
      [shard, "--shard"],
      [resume, "--resume"],
      [output, "--output"],
      [dryRun, "--dry-run"],
      [maxCost, "--max-cost"],
      [maxTokens, "--max-tokens"],
    ] as const) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--watch cannot be used with ${flag}:`);
    }
    expect(server.requests).toHaveLength(0);
  });
});
