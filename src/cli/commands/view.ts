import { createServer, type Server, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import { ConfigError } from "../../errors/config-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { formatCostUsd, formatCount, MISSING_VALUE } from "../../report/format.ts";
import { escapeHtml } from "../../report/html/escape-html.ts";
import { HTML_REPORT_CONTENT_SECURITY_POLICY, renderHtmlReport } from "../../report/html-report.ts";
import type { EvaluationResult, RunStatus } from "../../results/evaluation-result.ts";
import { emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { type RunLiveness, runLiveness } from "../../store/run-liveness.ts";
import type { RunStore, StoredRun } from "../../store/run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { openCommandStore } from "../open-command-store.ts";
import { parseViewRequest } from "./parse-view-request.ts";

/** The dashboard only ever listens on the loopback interface: runs hold your outputs. */
export const VIEW_HOST = "127.0.0.1";

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * Headers on every response, refusals and errors included: no framing (clickjacking), no
 * content sniffing, no referrer leaving the machine, nothing cached, nothing loaded but the
 * page's own styles and data: images.
 */
export const VIEW_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": `${HTML_REPORT_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
};

/** Options of {@link createViewServer}. */
export interface ViewServerOptions {
  store: RunStore;
  /** @default 200 */
  limit?: number;
  /** Now, in ms since the epoch: a running run with an older heartbeat shows as interrupted. @default Date.now */
  now?: () => number;
  /** @default os.hostname() */
  hostname?: string;
  /** @default process.kill(pid, 0) */
  isProcessAlive?: (pid: number) => boolean;
  /** Where an internal fault is logged, secrets masked. @default stderr */
  log?: (message: string) => void;
  /** Whose secret values are masked in logged faults. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** A stored run as the EvaluationResult the reports read; a stale run's status is `interrupted`. */
export function storedRunToResult(options: {
  store: RunStore;
  run: StoredRun;
  status?: RunStatus;
}): EvaluationResult {
  const { run } = options;
  const testResults = options.store.getTestResults(run.id).map((stored) => stored.result);
  const status = options.status ?? run.status;
  return {
    testRunId: run.id,
    identifier: run.identifier,
    testResults,
    summary:
      run.summary === null
        ? summarizeRun({
            status,
            testResults,
            total: testResults.length,
            spending: emptySpending(),
            durationMs: 0,
          })
        : { ...run.summary, status },
  };
}

function describeStale(liveness: RunLiveness): string {
  return `This run's process is gone (${liveness.reason}): it was interrupted. Resume it with ${liveness.resumeCommand}`;
}

function renderRunList(runs: ReadonlyArray<{ run: StoredRun; liveness: RunLiveness }>): string {
  const text = (value: string) => escapeHtml({ text: value });
  const rows = runs
    .map(({ run, liveness }) => {
      const cases = run.summary?.testCases;
      const status = liveness.stale
        ? `${text(liveness.status)}<br><small>${text(`${liveness.reason}; resume: `)}<code>${text(liveness.resumeCommand ?? "")}</code></small>`
        : text(liveness.status);
      return `<tr>
<td><a href="/runs/${encodeURIComponent(run.id)}">${text(run.identifier ?? run.id)}</a></td>
<td>${status}</td>
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
 * A `running` run whose process is gone shows as `interrupted`, with the command that resumes
 * it. Requests are checked before the store is read ({@link parseViewRequest}): a foreign
 * `Host` is 421 (DNS rebinding), a bad method 405, a bad path 400, an unknown page or run 404;
 * a store that cannot be read is 503, and only a fault of verdict's own is 500 (logged,
 * secrets masked). Every response carries {@link VIEW_SECURITY_HEADERS}.
 */
export function createViewServer(options: ViewServerOptions): Server {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const livenessOptions = () => ({
    now: (options.now ?? Date.now)(),
    hostname: options.hostname ?? hostname(),
    ...(options.isProcessAlive ? { isProcessAlive: options.isProcessAlive } : {}),
  });
  // requireHostHeader off: a request without Host gets our 421 and headers, not Node's bare 400.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    const send = (status: number, body: string, type = "text/html") => {
      response.writeHead(status, {
        ...VIEW_SECURITY_HEADERS,
        "content-type": `${type}; charset=utf-8`,
      });
      response.end(body);
    };
    try {
      const parsed = parseViewRequest({
        method: request.method,
        target: request.url,
        host: request.headers.host,
        port: request.socket.localPort ?? 0,
      });
      if (parsed.refusal) {
        if (parsed.refusal.status === 405) response.setHeader("allow", "GET, HEAD");
        return send(parsed.refusal.status, `${parsed.refusal.reason}\n`, "text/plain");
      }
      const { route } = parsed;
      if (route.page === "runs") {
        const liveness = livenessOptions();
        const runs = options.store
          .listRuns({ limit: options.limit ?? 200 })
          .map((run) => ({ run, liveness: runLiveness(run, liveness) }));
        return send(200, renderRunList(runs));
      }
      const run = options.store.getRun(route.runId);
      if (!run) return send(404, '<p>No such run. <a href="/">All runs</a></p>');
      const liveness = runLiveness(run, livenessOptions());
      return send(
        200,
        renderHtmlReport({
          result: storedRunToResult({ store: options.store, run, status: liveness.status }),
          startedAt: run.startedAt,
          notice: liveness.stale ? describeStale(liveness) : null,
        }),
      );
    } catch (error) {
      if (error instanceof StoreError) {
        return send(503, `The verdict store could not be read: ${error.message}\n`, "text/plain");
      }
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      log(
        `verdict view: internal error on ${request.method} ${JSON.stringify(request.url?.slice(0, 200))}: ${redactSecretText(text, { env: options.env ?? process.env })}`,
      );
      return send(500, "Internal error: see the terminal running verdict view.\n", "text/plain");
    }
  });
  // Requests Node's parser rejects (a raw NUL or space in the path, oversized headers) get the
  // same headers and a short reason rather than Node's bare default answer.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    const body = "Malformed request.\n";
    const headers = Object.entries({
      ...VIEW_SECURITY_HEADERS,
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      connection: "close",
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}\r\n${body}`);
  });
  return server;
}

/** Options of {@link runView}: the arguments of `verdict view`. */
export interface ViewCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default 4242; 0 picks a free port */
  port?: number;
  stdout?: CommandOutput;
  /** @default process.stderr */
  stderr?: CommandOutput;
  /** Stops the server (Ctrl-C does too). */
  signal?: AbortSignal;
}

/**
 * `verdict view`: serves the stored runs on 127.0.0.1 until interrupted. Where there is no
 * store yet it creates nothing: it says how to record a first run and returns 2.
 * @example
 * verdict view --port 4242   # then open http://127.0.0.1:4242
 */
export async function runView(options: ViewCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const found = openCommandStore({ env: options.env, cwd: options.cwd });
  if ("missingFile" in found) {
    (options.stderr ?? process.stderr).write(
      `No verdict store here yet (looked for ${found.missingFile}): nothing to show. Record a run first with ` +
        '"verdict test run" (or evaluate() in a script), then run "verdict view" again; ' +
        "set VERDICT_HOME if your runs are stored elsewhere (or VERDICT_STORE for a team's PostgreSQL store).\n",
    );
    return EXIT_CODES.usage;
  }
  const { store, where } = found;
  const server = createViewServer({ store, env: options.env });
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
    `verdict view: http://${VIEW_HOST}:${address.port} (runs in ${where}); Ctrl-C stops it.\n`,
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
