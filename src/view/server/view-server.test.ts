import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DASHBOARD_RUNS, makeAppFolder } from "../../../test/fixtures/dashboard-runs.ts";
import { useDashboards } from "../../../test/fixtures/dashboard-server.ts";
import {
  BAD_VIEW_REQUESTS,
  FOREIGN_HOSTS,
  type RawResponse,
  rawHttpRequest,
} from "../../../test/fixtures/view-requests.ts";
import { StoreError } from "../../errors/store-error.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { makeStoredRun, makeStoredTestResult, makeSummary } from "../../testing/store-contract.ts";
import { isLoopbackHost, parseViewRequest } from "./parse-view-request.ts";
import { TOKEN_COOKIE } from "./view-access.ts";
import {
  APP_NOT_BUILT,
  createViewServer,
  VIEW_CONTENT_SECURITY_POLICY,
  type ViewServerOptions,
} from "./view-server.ts";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const dashboard = useDashboards();

/** A server over a memory store (for tests that replace store methods). */
async function serve(store: MemoryRunStore, options: Partial<ViewServerOptions> = {}) {
  const appFolder = makeAppFolder();
  const server = createViewServer({ store, appFolder, log: () => {}, ...options });
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
    rmSync(appFolder, { recursive: true, force: true });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { address, port } = server.address() as AddressInfo;
  return { address, port, base: `http://127.0.0.1:${port}` };
}

async function storeWithOneRun(): Promise<MemoryRunStore> {
  const store = new MemoryRunStore();
  await store.runs.startRun(
    makeStoredRun({ id: "run-1", identifier: "nightly", summary: makeSummary() }),
  );
  await store.runs.saveTestResult("run-1", makeStoredTestResult(0));
  return store;
}

function expectSecurityHeaders(headers: Record<string, string | undefined>, where: string) {
  expect(headers["content-security-policy"], where).toMatch(/frame-ancestors 'none'/);
  expect(headers["content-security-policy"], where).toMatch(/default-src 'none'/);
  expect(headers["x-frame-options"], where).toBe("DENY");
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(headers["referrer-policy"], where).toBe("no-referrer");
}

const headersOf = (response: Response) => Object.fromEntries(response.headers.entries());

describe("verdict view: the app's pages and files", () => {
  it("serves index.html for every app route, and the built files, under the strict policy", async () => {
    const { base } = await dashboard();
    const run = DASHBOARD_RUNS.candidate;
    for (const target of [
      "/",
      `/runs/${run}`,
      "/runs/nightly",
      `/runs/${run}/cases/1`,
      `/compare?run=${run}&baseline=${DASHBOARD_RUNS.baseline}`,
      `/runs/${run}?baseline=${DASHBOARD_RUNS.baseline}`,
    ]) {
      const response = await fetch(`${base}${target}`);
      expect(response.status, target).toBe(200);
      expect(response.headers.get("content-type"), target).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy"), target).toBe(
        VIEW_CONTENT_SECURITY_POLICY,
      );
      expect(await response.text(), target).toContain('<div id="app">');
    }
    const script = await fetch(`${base}/assets/app-1234.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect(await script.text()).toContain('console.log("app")');
    const style = await fetch(`${base}/assets/app-1234.css`);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await fetch(`${base}/favicon.svg`)).headers.get("content-type")).toBe("image/svg+xml");
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${base}/index.html`)).status).toBe(404);
  });

  it("answers 404 for a page of a run that does not exist", async () => {
    const { base } = await dashboard();
    expect((await fetch(`${base}/runs/missing`)).status).toBe(404);
    expect((await fetch(`${base}/runs/missing/cases/0`)).status).toBe(404);
  });

  it("says to build the app when it is not built, while the API works", async () => {
    const { base } = await dashboard({ appFolder: null });
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toBe(APP_NOT_BUILT);
    expect(APP_NOT_BUILT).toContain("npm run build");
    expect((await fetch(`${base}/assets/app-1234.js`)).status).toBe(503);
    expect((await fetch(`${base}/api/runs`)).status).toBe(200);
  });

  it("serves HEAD with the headers and no body", async () => {
    const { port } = await dashboard();
    for (const target of ["/", "/api/runs", `/api/runs/${DASHBOARD_RUNS.running}/events`]) {
      const response = await rawHttpRequest({ port, method: "HEAD", target });
      expect(response.status, target).toBe(200);
      expect(response.body, target).toBe("");
      expectSecurityHeaders(response.headers, `HEAD ${target}`);
    }
  });
});

describe("verdict view: local only", () => {
  it("answers 127.0.0.1, localhost and [::1] with its own port, in any case", async () => {
    const { port } = await serve(await storeWithOneRun());
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LocalHost:${port}`,
    ]) {
      const response = await rawHttpRequest({ port, target: "/api/runs", host });
      expect(response.status, host).toBe(200);
      expect(response.body, host).toContain("nightly");
    }
  });

  it("refuses every foreign Host (DNS rebinding) before reading the store, and a missing one", async () => {
    const store = await storeWithOneRun();
    const reads: string[] = [];
    store.listRuns = async () => {
      reads.push("listRuns");
      return [];
    };
    store.getRun = async () => {
      reads.push("getRun");
      return null;
    };
    const { port } = await serve(store);
    const hosts = [...FOREIGN_HOSTS.map((host) => host.replaceAll("{port}", String(port))), null];
    for (const host of hosts) {
      for (const target of ["/", "/runs/run-1", "/api/runs", "/api/runs/run-1/cases"]) {
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

describe("verdict view: with a token", () => {
  const TOKEN = "s3cret-token-0123456789abcdef";

  it("refuses every page, file and API route without the token, and serves them with it", async () => {
    const logged: string[] = [];
    const { base, port } = await dashboard({ token: TOKEN, log: (line) => logged.push(line) });
    const targets = ["/", "/assets/app-1234.js", "/favicon.svg", "/api/runs", "/api/nope", "/nope"];
    for (const target of targets) {
      const bare = await fetch(`${base}${target}`);
      expect(bare.status, target).toBe(401);
      expect(bare.headers.get("www-authenticate"), target).toContain("Bearer");
      expectSecurityHeaders(headersOf(bare), target);
      const wrong = await fetch(`${base}${target}`, {
        headers: { authorization: "Bearer wrong-token-0123456789" },
      });
      expect(wrong.status, target).toBe(401);
      expect(await wrong.text(), target).not.toContain(TOKEN);
    }
    expect(await (await fetch(`${base}/api/runs`)).json()).toEqual({
      error: expect.stringContaining("?token="),
    });
    const byHeader = await fetch(`${base}/api/runs`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(byHeader.status).toBe(200);
    const byQuery = await fetch(`${base}/?token=${TOKEN}`);
    expect(byQuery.status).toBe(200);
    // The page's own requests (scripts, images, events) then carry the cookie set here.
    const cookie = byQuery.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(new RegExp(`^${TOKEN_COOKIE}=${TOKEN}; HttpOnly; SameSite=Strict`));
    const withCookie = await fetch(`${base}/assets/app-1234.js`, {
      headers: { cookie: cookie.split(";")[0] as string },
    });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("set-cookie")).toBeNull();
    // Even a foreign Host passes the Host check of a loopback server only with the token…
    const foreign = await rawHttpRequest({ port, target: "/api/runs", host: "evil.example" });
    expect(foreign.status).toBe(421);
    expect(logged.join("\n")).not.toContain(TOKEN);
  });

  it("checks the token instead of the Host on another interface", async () => {
    const { port } = await dashboard({ token: TOKEN, checkHost: false });
    const named = await rawHttpRequest({
      port,
      target: `/api/runs?token=${TOKEN}`,
      host: "build-box.lan:4242",
    });
    expect(named.status).toBe(200);
    const without = await rawHttpRequest({ port, target: "/api/runs", host: "build-box.lan:4242" });
    expect(without.status).toBe(401);
  });

  it("never logs the token, even from the query of a request that failed", async () => {
    const store = await storeWithOneRun();
    store.listRuns = async () => {
      throw new TypeError(`boom ${TOKEN}`);
    };
    const logged: string[] = [];
    const { base } = await serve(store, {
      token: TOKEN,
      log: (line) => logged.push(line),
      env: {},
    });
    const response = await fetch(`${base}/api/runs?token=${TOKEN}&q=x`);
    expect(response.status).toBe(500);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("token=***");
    expect(logged[0]).not.toContain(TOKEN);
  });
});

describe("verdict view: headers and bad requests", () => {
  it("sends the policy, frame, sniffing and referrer headers on every kind of response", async () => {
    const { port } = await dashboard();
    const run = DASHBOARD_RUNS.candidate;
    const requests = [
      { target: "/", status: 200 },
      { target: `/runs/${run}`, status: 200 },
      { target: "/assets/app-1234.js", status: 200 },
      { target: "/api/runs", status: 200 },
      { target: `/api/runs/${run}/cases/1`, status: 200 },
      { target: `/api/runs/${run}/cases/1/images/1`, status: 200 },
      { target: `/api/runs/${run}/export?format=csv`, status: 200 },
      { target: `/api/runs/${run}/export?format=html`, status: 200 },
      { target: `/api/runs/${run}/events`, status: 200 },
      { target: "/api/runs?limit=0", status: 400 },
      { target: "/runs/missing", status: 404 },
      { target: "/api/runs/missing", status: 404 },
      { target: "/api/nope", status: 404 },
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
    const { port } = await dashboard();
    expect(BAD_VIEW_REQUESTS.length).toBeGreaterThanOrEqual(100);
    const statuses = new Map<number, number>();
    const api: RawResponse[] = [];
    for (const request of BAD_VIEW_REQUESTS) {
      const response = await rawHttpRequest({ port, ...request });
      const where = `${request.method} ${JSON.stringify(request.target.slice(0, 60))}`;
      expect([400, 404, 405], where).toContain(response.status);
      expectSecurityHeaders(response.headers, where);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (request.target.startsWith("/api/") && response.status !== 405) api.push(response);
    }
    // Each kind of refusal occurs: the corpus exercises every branch.
    expect([...statuses.keys()].sort()).toEqual([400, 404, 405]);
    // The API answers its refusals as JSON.
    for (const response of api) {
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(JSON.parse(response.body)).toEqual({ error: expect.any(String) });
    }
  });

  it("names the problem of each bad path, and reads the routes", () => {
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
    expect(parse("/api/runs/x/y").refusal).toMatchObject({ status: 404, api: true });
    expect(parse("/", "DELETE").refusal).toMatchObject({ status: 405 });
    expect(parse("/runs/na%C3%AFve?x=%").route).toEqual({
      kind: "page",
      page: "run",
      runId: "naïve",
    });
    expect(parse("/?refresh=1").route).toEqual({ kind: "page", page: "runs" });
    expect(parse("/api/runs/r%201/cases/7/images/2").route).toEqual({
      kind: "api",
      route: { api: "image", runId: "r 1", caseKey: "7", number: 2 },
    });
    expect(parse("/api/runs?q=a%26b&limit=5").query?.get("q")).toBe("a&b");
  });

  it("finds a run whose id needs percent-encoding, and refuses one with a slash as a path", async () => {
    const store = new MemoryRunStore();
    await store.runs.startRun(makeStoredRun({ id: "run ü 1", identifier: null }));
    await store.runs.startRun(makeStoredRun({ id: "run/2", identifier: null }));
    const { base } = await serve(store);
    expect((await fetch(`${base}/api/runs/${encodeURIComponent("run ü 1")}`)).status).toBe(200);
    expect((await fetch(`${base}/runs/${encodeURIComponent("run ü 1")}`)).status).toBe(200);
    expect((await fetch(`${base}/api/runs/${encodeURIComponent("run/2")}`)).status).toBe(400);
  });

  it("is 503 when the store cannot be read, and 500 only for its own faults, logged without secrets", async () => {
    const store = await storeWithOneRun();
    const logged: string[] = [];
    store.getRun = async (id: string) => {
      if (id === "locked") throw new StoreError("Could not read run: the store stayed locked.");
      throw new TypeError("boom with key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789");
    };
    const { port } = await serve(store, { log: (message) => logged.push(message), env: {} });
    const locked = await rawHttpRequest({ port, target: "/api/runs/locked" });
    expect(locked.status).toBe(503);
    expect(JSON.parse(locked.body).error).toContain("stayed locked");
    const lockedPage = await rawHttpRequest({ port, target: "/runs/locked" });
    expect(lockedPage.status).toBe(503);
    expect(lockedPage.body).toContain("stayed locked");
    const broken = await rawHttpRequest({ port, target: "/api/runs/other" });
    expect(broken.status).toBe(500);
    expect(broken.body).not.toContain("boom");
    expectSecurityHeaders(broken.headers, "500");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(
      'internal error on GET "/api/runs/other": TypeError: boom with key',
    );
    expect(logged[0]).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });
});
