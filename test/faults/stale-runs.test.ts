// A run whose process is killed (SIGKILL: no handler runs, nothing is written on the way out)
// must not look like it is still running: `verdict view` and `verdict compare` show it as
// interrupted with the command that resumes it, and resuming loses nothing and pays nothing twice.
// Real parts throughout: a child process, the fake OpenAI server over HTTP, node:sqlite, the
// dashboard over HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCompare } from "../../src/cli/commands/compare.ts";
import { VIEW_HOST } from "../../src/cli/commands/view.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import type { RunDetail, RunRow, RunsPage } from "../../src/view/api.ts";
import { createViewServer } from "../../src/view/server/view-server.ts";
import { runNode } from "../e2e/run-node.ts";

const CASES = 12;
const RESUME_COMMAND = 'evaluate({ identifier: "killed-run", resume: true, … })';

let server: FakeOpenAIServer;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  home = mkdtempSync(join(tmpdir(), "verdict-stale-"));
  env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake", VERDICT_HOME: home };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const runChild = (extra: NodeJS.ProcessEnv = {}) =>
  runNode({
    args: ["test/e2e/fixtures/evaluate-child.ts"],
    env: { ...process.env, ...env, CASES: String(CASES), ...extra },
  });

async function waitForRequests(count: number): Promise<void> {
  while (server.stats().requests < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The dashboard over the real store file, as `verdict view` serves it; returns an API answer. */
async function viewApi<Value>(
  target: string,
  options: { now?: () => number; isProcessAlive?: (pid: number) => boolean } = {},
): Promise<Value> {
  const store = new SqliteRunStore({ path: join(home, "verdict.db") });
  const view = createViewServer({ store, appFolder: null, ...options });
  await new Promise<void>((resolve) => view.listen(0, VIEW_HOST, () => resolve()));
  try {
    const { port } = view.address() as AddressInfo;
    const response = await fetch(`http://${VIEW_HOST}:${port}${target}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Value;
  } finally {
    view.closeAllConnections();
    await new Promise<void>((resolve) => view.close(() => resolve()));
    await store.close();
  }
}

async function compareOutput(): Promise<string> {
  let stdout = "";
  const code = await runCompare({
    baseline: "killed-run",
    candidate: "killed-run",
    cwd: home,
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => true },
  });
  expect(code).toBe(0);
  return stdout;
}

describe("a run killed with SIGKILL", () => {
  it("is shown as interrupted with its resume command, and resuming loses and re-pays nothing", async () => {
    // A slow judge: one call per case (no opinions: no verdict step), one case at a time.
    server.setLatency(80);
    server.setResponder(() => reply.json({ opinions: [] }));
    const first = runChild();
    await waitForRequests(3);

    // While its process lives, the run is running.
    const listed = async (
      options: Parameters<typeof viewApi>[1] = {},
    ): Promise<RunRow | undefined> =>
      (await viewApi<RunsPage>("/api/runs", options)).runs.find(
        (run) => run.identifier === "killed-run",
      );
    const whileAlive = await listed();
    expect(whileAlive?.status).toBe("running");
    expect(whileAlive?.stale).toBeNull();

    await waitForRequests(6);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();

    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    const killed = await store.runs.getRun("killed-run");
    const finishedBefore = await store.runs.getTestResults(killed?.id ?? "");
    await store.close();
    expect(killed?.status).toBe("running");
    expect(killed?.owner).toMatchObject({ pid: first.child.pid, hostname: hostname() });
    expect(finishedBefore.length).toBeGreaterThanOrEqual(4);
    expect(finishedBefore.length).toBeLessThan(CASES);

    // The dashboard: its list and the run's page say interrupted, why, and how to resume.
    const row = await listed();
    expect(row?.status).toBe("interrupted");
    expect(row?.stale).toEqual({
      reason: `process ${first.child.pid} on ${hostname()} is gone`,
      resumeCommand: RESUME_COMMAND,
    });
    const page = await viewApi<RunDetail>(`/api/runs/${encodeURIComponent(killed?.id ?? "")}`);
    expect(page.run.status).toBe("interrupted");
    expect(page.notice).toContain(`Resume it with ${RESUME_COMMAND}`);

    // Seen from another machine (its pid cannot be checked), the silent heartbeat tells the same.
    const heartbeatAt = Date.parse(killed?.owner?.heartbeatAt ?? "");
    const elsewhere = { isProcessAlive: () => true };
    expect((await listed({ ...elsewhere, now: () => heartbeatAt + 30_000 }))?.status).toBe(
      "running",
    );
    expect(
      (await listed({ ...elsewhere, now: () => heartbeatAt + 180_000 }))?.stale?.reason,
    ).toMatch(/^no heartbeat for 180 s/);

    // compare says it too.
    const compared = await compareOutput();
    expect(compared).toContain(`(${killed?.startedAt}, interrupted)`);
    expect(compared).toContain(`Resume it with ${RESUME_COMMAND}.`);

    // Resume: every finished case kept, none asked again.
    server.reset();
    const second = runChild({ RESUME: "1" });
    expect(await second.exited).toBe(0);
    expect(JSON.parse(second.output().stdout)).toEqual({
      status: "completed",
      judgeCalls: CASES - finishedBefore.length,
    });
    expect(server.stats().requests).toBe(CASES - finishedBefore.length);
    // Each unfinished case was asked for, and no finished one.
    const asked = (index: number) =>
      server.requests.some(
        (request) =>
          request.prompt.includes(`output number ${index}\\"`) ||
          request.prompt.includes(`"output number ${index}"`),
      );
    const finishedIndexes = new Set(finishedBefore.map(({ result }) => result.index));
    for (let index = 0; index < CASES; index++) {
      expect(asked(index), `case ${index}`).toBe(!finishedIndexes.has(index));
    }
    const after = new SqliteRunStore({ path: join(home, "verdict.db") });
    const resumed = await after.runs.getRun("killed-run");
    const finishedAfter = await after.runs.getTestResults(resumed?.id ?? "");
    await after.close();
    expect(resumed).toMatchObject({ id: killed?.id, status: "completed" });
    expect(finishedAfter).toHaveLength(CASES);
    for (const stored of finishedBefore) expect(finishedAfter).toContainEqual(stored);

    const listAfter = await listed();
    expect(listAfter?.status).toBe("completed");
    expect(listAfter?.stale).toBeNull();
  });
});
