import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BAD_VIEW_REQUESTS,
  FOREIGN_HOSTS,
  rawHttpRequest,
} from "../../../test/fixtures/view-requests.ts";
import { StoreError } from "../../errors/store-error.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import {
  makeRunOwner,
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "../../store/run-store-contract.ts";
import { isLoopbackHost, parseViewRequest } from "./parse-view-request.ts";
import { createViewServer, runView, VIEW_HOST, type ViewServerOptions } from "./view.ts";

const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(store: MemoryRunStore, options: Partial<ViewServerOptions> = {}) {
  const server = createViewServer({ store, ...options });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, VIEW_HOST, () => resolve()));
  const { address, port } = server.address() as AddressInfo;
  return { address, port, base: `http://${VIEW_HOST}:${port}` };
}

function storeWithOneRun(): MemoryRunStore {
  const store = new MemoryRunStore();
  store.startRun(makeStoredRun({ id: "run-1", identifier: "nightly", summary: makeSummary() }));
  store.saveTestResult("run-1", makeStoredTestResult(0));
  return store;
}

function expectSecurityHeaders(headers: Record<string, string | undefined>, where: string) {
  expect(headers["content-security-policy"], where).toMatch(/frame-ancestors 'none'/);
  expect(headers["content-security-policy"], where).toMatch(/default-src 'none'/);
  expect(headers["x-frame-options"], where).toBe("DENY");
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(headers["referrer-policy"], where).toBe("no-referrer");
}

describe("verdict view without a store", () => {
  it("creates nothing, says how to record a first run, and returns 2", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "verdict-view-empty-"));
    let errors = "";
    let printed = "";
    try {
      const code = await runView({
        cwd,
        env: {},
        port: 0,
        stdout: { write: (text: string) => (printed += text) },
        stderr: { write: (text: string) => (errors += text) },
      });
      expect(code).toBe(2);
      expect(readdirSync(cwd)).toEqual([]);
      expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
      expect(errors).toContain(
        `No verdict store here yet (looked for ${path.join(cwd, ".verdict", "verdict.db")})`,
      );
      expect(errors).toContain('Record a run first with "verdict test run"');
      expect(printed).toBe("");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("verdict view", () => {
  it("lists stored runs and shows one as the HTML report, with everything escaped", async () => {
    const store = new MemoryRunStore();
    const run = makeStoredRun({ id: "run-1", identifier: "nightly <b>", summary: makeSummary() });
    store.startRun(run);
    store.saveTestResult(
      run.id,
      makeStoredTestResult(0, { actualOutput: '<script>alert("x")</script>' }),
    );
    const { address, base } = await serve(store);
    expect(address).toBe("127.0.0.1");

    const list = await fetch(`${base}/`);
    expect(list.status).toBe(200);
    expect(list.headers.get("content-security-policy")).toContain("default-src 'none'");
    const listHtml = await list.text();
    expect(listHtml).toContain('href="/runs/run-1"');
    expect(listHtml).toContain("nightly &lt;b&gt;");

    const report = await (await fetch(`${base}/runs/run-1`)).text();
    expect(report).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(report).not.toContain('<script>alert("x")');
  });

  it("answers 404 for an unknown run and says when there are no runs", async () => {
    const { base } = await serve(new MemoryRunStore());
    expect((await fetch(`${base}/runs/missing`)).status).toBe(404);
    expect(await (await fetch(`${base}/`)).text()).toContain("No runs stored yet");
  });

  it("serves HEAD with the headers and no body", async () => {
    const { port } = await serve(storeWithOneRun());
    const response = await rawHttpRequest({ port, method: "HEAD", target: "/runs/run-1" });
    expect(response.status).toBe(200);
    expect(response.body).toBe("");
    expectSecurityHeaders(response.headers, "HEAD");
  });
});

describe("verdict view: local only", () => {
  it("answers 127.0.0.1, localhost and [::1] with its own port, in any case", async () => {
    const { port } = await serve(storeWithOneRun());
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LocalHost:${port}`,
    ]) {
      const response = await rawHttpRequest({ port, target: "/", host });
      expect(response.status, host).toBe(200);
      expect(response.body, host).toContain("nightly");
    }
  });

  it("refuses every foreign Host (DNS rebinding) before reading the store, and a missing one", async () => {
    const store = storeWithOneRun();
    const reads: string[] = [];
    store.listRuns = () => {
      reads.push("listRuns");
      return [];
    };
    store.getRun = () => {
      reads.push("getRun");
      return null;
    };
    const { port } = await serve(store);
    const hosts = [...FOREIGN_HOSTS.map((host) => host.replaceAll("{port}", String(port))), null];
    for (const host of hosts) {
      for (const target of ["/", "/runs/run-1"]) {
        const response = await rawHttpRequest({ port, target, host });
        const where = `Host ${JSON.stringify(host)} ${target}`;
        expect([400, 421], where).toContain(response.status);
        expect(response.body, where).not.toContain("nightly");
        expect(response.body.length, where).toBeLessThan(200);
        expectSecurityHeaders(response.headers, where);
      }
    }
    expect(reads).toEqual([]);
  });

  it("accepts only the loopback names with the request's own port", () => {
    expect(isLoopbackHost("127.0.0.1:4242", 4242)).toBe(true);
    expect(isLoopbackHost("[::1]:4242", 4242)).toBe(true);
    expect(isLoopbackHost("localhost", 80)).toBe(true);
    expect(isLoopbackHost("localhost", 4242)).toBe(false);
    expect(isLoopbackHost("127.0.0.1:4243", 4242)).toBe(false);
    expect(isLoopbackHost("evil.example:4242", 4242)).toBe(false);
    expect(isLoopbackHost(undefined, 4242)).toBe(false);
  });
});

describe("verdict view: headers and bad requests", () => {
  it("sends the frame, sniffing and referrer headers on every kind of response", async () => {
    const { port } = await serve(storeWithOneRun());
    const requests = [
      { target: "/", status: 200 },
      { target: "/runs/run-1", status: 200 },
      { target: "/runs/missing", status: 404 },
      { target: "/nope", status: 404 },
      { target: "/runs/%E0%A4%A", status: 400 },
      { target: "/", method: "POST", status: 405 },
      { target: "/", host: "evil.example", status: 421 },
      { target: "/runs/a\u0000b", status: 400 },
    ];
    for (const { status, ...request } of requests) {
      const response = await rawHttpRequest({ port, ...request });
      const where = JSON.stringify(request);
      expect(response.status, where).toBe(status);
      expectSecurityHeaders(response.headers, where);
    }
  });

  it("answers a corpus of malformed paths, unknown routes and wrong methods with 400, 404 or 405", async () => {
    const { port } = await serve(storeWithOneRun());
    expect(BAD_VIEW_REQUESTS.length).toBeGreaterThanOrEqual(100);
    const statuses = new Map<number, number>();
    for (const request of BAD_VIEW_REQUESTS) {
      const response = await rawHttpRequest({ port, ...request });
      const where = `${request.method} ${JSON.stringify(request.target.slice(0, 60))}`;
      expect([400, 404, 405], where).toContain(response.status);
      expectSecurityHeaders(response.headers, where);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
    // Each kind of refusal occurs: the corpus exercises every branch.
    expect([...statuses.keys()].sort()).toEqual([400, 404, 405]);
  });

  it("names the problem of each bad path", () => {
    const parse = (target: string, method = "GET") =>
      parseViewRequest({ method, target, host: "127.0.0.1:1", port: 1 });
    expect(parse("/runs/%E0%A4%A").refusal).toMatchObject({
      status: 400,
      reason: /percent-encoding/,
    });
    expect(parse("/runs/a%00b").refusal).toMatchObject({ status: 400, reason: /control/ });
    expect(parse("/runs/%2e%2e").refusal).toMatchObject({ status: 400, reason: /\.\./ });
    expect(parse("/runs/a%2fb").refusal).toMatchObject({ status: 400, reason: /slash/ });
    expect(parse(`/runs/${"a".repeat(3000)}`).refusal).toMatchObject({
      status: 400,
      reason: /too long/,
    });
    expect(parse("http://evil.example/").refusal).toMatchObject({ status: 400 });
    expect(parse("/runs/x/y").refusal).toMatchObject({ status: 404 });
    expect(parse("/", "DELETE").refusal).toMatchObject({ status: 405 });
    expect(parse("/runs/na%C3%AFve?x=%").route).toEqual({ page: "run", runId: "naïve" });
    expect(parse("/?refresh=1").route).toEqual({ page: "runs" });
  });

  it("finds a run whose id needs percent-encoding", async () => {
    const store = new MemoryRunStore();
    store.startRun(makeStoredRun({ id: "run/ü 1", identifier: null }));
    const { base } = await serve(store);
    const list = await (await fetch(`${base}/`)).text();
    expect(list).toContain(`href="/runs/${encodeURIComponent("run/ü 1")}"`);
    // An id with a slash is refused as a path (encoded slash) rather than looked up.
    expect((await fetch(`${base}/runs/${encodeURIComponent("run/ü 1")}`)).status).toBe(400);
  });

  it("is 503 when the store cannot be read, and 500 only for its own faults, logged without secrets", async () => {
    const store = storeWithOneRun();
    const logged: string[] = [];
    store.getRun = (id: string) => {
      if (id === "locked") throw new StoreError("Could not read run: the store stayed locked.");
      throw new TypeError("boom with key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789");
    };
    const { port } = await serve(store, { log: (message) => logged.push(message), env: {} });
    const locked = await rawHttpRequest({ port, target: "/runs/locked" });
    expect(locked.status).toBe(503);
    expect(locked.body).toContain("stayed locked");
    const broken = await rawHttpRequest({ port, target: "/runs/other" });
    expect(broken.status).toBe(500);
    expect(broken.body).not.toContain("boom");
    expectSecurityHeaders(broken.headers, "500");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('internal error on GET "/runs/other": TypeError: boom with key');
    expect(logged[0]).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });
});

describe("verdict view: runs whose process is gone", () => {
  const heartbeatAt = "2025-01-01T10:00:30.000Z";

  function storeWithRunningRun(config: Record<string, unknown> = {}) {
    const store = new MemoryRunStore();
    store.startRun(
      makeStoredRun({
        id: "run-1",
        identifier: "nightly",
        config,
        owner: makeRunOwner({ heartbeatAt }),
      }),
    );
    store.saveTestResult("run-1", makeStoredTestResult(0));
    return store;
  }

  it("shows a running run whose pid is gone as interrupted, with the resume command", async () => {
    const { base } = await serve(storeWithRunningRun(), {
      now: () => Date.parse(heartbeatAt) + 5_000,
      hostname: "build-host",
      isProcessAlive: () => false,
    });
    const list = await (await fetch(`${base}/`)).text();
    expect(list).toContain("<td>interrupted<br><small>process 4242 on build-host is gone");
    expect(list).toContain("evaluate({ identifier: &quot;nightly&quot;, resume: true, … })");
    const page = await (await fetch(`${base}/runs/run-1`)).text();
    expect(page).toContain("INTERRUPTED");
    expect(page).toContain("process 4242 on build-host is gone");
    expect(page).toContain(
      "Resume it with evaluate({ identifier: &quot;nightly&quot;, resume: true, … })",
    );
  });

  it("shows a run with a silent heartbeat as interrupted, and a live one as running", async () => {
    let now = Date.parse(heartbeatAt) + 60_000;
    const { base } = await serve(storeWithRunningRun({ runner: "vitest" }), {
      now: () => now,
      hostname: "laptop",
      isProcessAlive: () => true,
    });
    const live = await (await fetch(`${base}/`)).text();
    expect(live).toContain("<td>running</td>");
    expect(live).not.toContain("interrupted");
    // Another host's heartbeat: 2 minutes plus the 10-minute clock skew allowance.
    now = Date.parse(heartbeatAt) + 780_000;
    const stale = await (await fetch(`${base}/`)).text();
    expect(stale).toContain("no heartbeat for 780 s from process 4242 on build-host");
    expect(stale).toContain("verdict test run --identifier nightly");
  });
});
