import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../../errors/config-error.ts";
import { formatCostUsd, formatCount, MISSING_VALUE } from "../../report/format.ts";
import { escapeHtml } from "../../report/html/escape-html.ts";
import { renderHtmlReport } from "../../report/html-report.ts";
import type { EvaluationResult } from "../../results/evaluation-result.ts";
import { emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import type { RunStore, StoredRun } from "../../store/run-store.ts";
import { SqliteRunStore } from "../../store/sqlite-run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";

/** The dashboard only ever listens on the loopback interface: runs hold your outputs. */
export const VIEW_HOST = "127.0.0.1";

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** A stored run as the EvaluationResult the reports read. */
export function storedRunToResult(options: { store: RunStore; run: StoredRun }): EvaluationResult {
  const { run } = options;
  const testResults = options.store.getTestResults(run.id).map((stored) => stored.result);
  return {
    testRunId: run.id,
    identifier: run.identifier,
    testResults,
    summary:
      run.summary ??
      summarizeRun({
        status: run.status,
        testResults,
        total: testResults.length,
        spending: emptySpending(),
        durationMs: 0,
      }),
  };
}

function renderRunList(runs: readonly StoredRun[]): string {
  const text = (value: string) => escapeHtml({ text: value });
  const rows = runs
    .map((run) => {
      const cases = run.summary?.testCases;
      return `<tr>
<td><a href="/runs/${encodeURIComponent(run.id)}">${text(run.identifier ?? run.id)}</a></td>
<td>${text(run.status)}</td>
<td>${text(run.startedAt.replace("T", " ").replace(/\.\d+Z$/, " UTC"))}</td>
<td>${cases ? `${formatCount(cases.passed)} / ${formatCount(cases.total)}` : MISSING_VALUE}</td>
<td>${cases ? formatCount(cases.failed) : MISSING_VALUE}</td>
<td>${run.summary ? text(formatCostUsd(run.summary.costUsd)) : MISSING_VALUE}</td>
<td><code>${text(run.id)}</code></td>
</tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>verdict runs</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1f2328;background:#f6f7f9}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d8dde3}
th,td{text-align:left;padding:.5rem .75rem;border-bottom:1px solid #e5e8ec}
th{background:#eef1f4;font-weight:600}code{font-size:.85em;color:#57606a}
</style></head>
<body><h1>verdict runs</h1>
${
  runs.length === 0
    ? "<p>No runs stored yet. Run <code>verdict test run</code> or <code>evaluate()</code> first.</p>"
    : `<table><thead><tr><th>Run</th><th>Status</th><th>Started</th><th>Passed</th><th>Failed</th><th>Cost</th><th>Id</th></tr></thead>
<tbody>
${rows}
</tbody></table>`
}
</body></html>`;
}

/**
 * The dashboard's HTTP server: `/` lists the stored runs (newest first), `/runs/<id>` shows
 * one as the HTML report. It reads the store on every request, so new runs appear on reload.
 */
export function createViewServer(options: { store: RunStore; limit?: number }): Server {
  return createServer((request, response) => {
    const send = (status: number, body: string) => {
      response.writeHead(status, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": PAGE_POLICY,
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
      });
      response.end(body);
    };
    try {
      const url = new URL(request.url ?? "/", `http://${VIEW_HOST}`);
      if (request.method !== "GET") return send(405, "<p>Only GET is served.</p>");
      if (url.pathname === "/") {
        return send(200, renderRunList(options.store.listRuns({ limit: options.limit ?? 200 })));
      }
      const match = /^\/runs\/([^/]+)$/.exec(url.pathname);
      const run = match ? options.store.getRun(decodeURIComponent(match[1] as string)) : null;
      if (!run) return send(404, '<p>No such run. <a href="/">All runs</a></p>');
      return send(
        200,
        renderHtmlReport({ result: storedRunToResult({ store: options.store, run }) }),
      );
    } catch (error) {
      return send(500, `<p>${escapeHtml({ text: (error as Error).message })}</p>`);
    }
  });
}

/** Options of {@link runView}: the arguments of `verdict view`. */
export interface ViewCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default 4242; 0 picks a free port */
  port?: number;
  stdout?: CommandOutput;
  /** Stops the server (Ctrl-C does too). */
  signal?: AbortSignal;
}

/**
 * `verdict view`: serves the stored runs on 127.0.0.1 until interrupted.
 * @example
 * verdict view --port 4242   # then open http://127.0.0.1:4242
 */
export async function runView(options: ViewCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const store = SqliteRunStore.open({ env: options.env, cwd: options.cwd });
  const server = createViewServer({ store });
  const port = options.port ?? 4242;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, VIEW_HOST, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    store.close();
    throw error.code === "EADDRINUSE"
      ? new ConfigError(
          `Port ${port} is in use: pass --port with another number (0 picks a free one).`,
        )
      : error;
  });
  const address = server.address() as AddressInfo;
  stdout.write(
    `verdict view: http://${VIEW_HOST}:${address.port} (runs in ${store.path}); Ctrl-C stops it.\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    options.signal?.addEventListener("abort", stop, { once: true });
    process.once("SIGINT", stop);
  });
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  store.close();
  return EXIT_CODES.passed;
}
