/**
 * The dashboard's HTTP server (`verdict view`), on node:http rather than a framework: the
 * routes are a dozen GETs, the request checks that matter (Host against DNS rebinding, method,
 * hostile paths, the token) come first and are our own code either way, and server-sent events
 * are a few writes on the response. A framework would add a dependency and a layer between
 * those checks and the socket, for routing this file does in one function.
 */
import { readFile } from "node:fs/promises";
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { hostname } from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { StoreError } from "../../errors/store-error.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import type { RunLivenessOptions } from "../../store/run-liveness.ts";
import { findAppFolder, readAppFile } from "./app-files.ts";
import { readCaseImage } from "./case-images.ts";
import { EXPORT_FORMATS, type ExportFormat, exportRun } from "./export-run.ts";
import { streamRunEvents } from "./live-events.ts";
import { type ApiRoute, parseViewRequest, type ViewRoute } from "./parse-view-request.ts";
import { RunResultsCache } from "./run-results-cache.ts";
import {
  maskTokenInTarget,
  OneTimeLogin,
  presentedToken,
  tokenCookie,
  tokensMatch,
} from "./view-access.ts";
import { noticeOf, ViewApi } from "./view-api.ts";
import { BadQueryError, NotFoundError } from "./view-errors.ts";
import { integerParameter } from "./view-query.ts";
import type { ViewStore } from "./view-store.ts";

/** What the app's pages (and every other answer) may load: its own scripts, styles and data. */
export const VIEW_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A served image may be an SVG: opened on its own, it can run nothing and load nothing. */
const IMAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

/**
 * Headers on every response, refusals and errors included: the strict policy, no framing
 * (clickjacking), no content sniffing, no referrer leaving the machine, nothing cached.
 */
export const VIEW_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": VIEW_CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};

/** What a page answers when the app was not built. */
export const APP_NOT_BUILT =
  "The dashboard's app is not built here (no dist/view-app/index.html): run npm run build, then reload. The JSON API under /api/ works meanwhile.\n";

/** Options of {@link createViewServer}. */
export interface ViewServerOptions {
  /** Any store: its reads are awaited, so an asynchronous store serves as well. */
  store: ViewStore;
  /**
   * When set, every request (pages, files, API) must carry it: `Authorization: Bearer`,
   * `?token=`, or the cookie set after one of those. Compared in constant time; never logged.
   */
  token?: string | null;
  /**
   * With `token`: a code that, once, in `?login=` of an address, is answered with the token's
   * cookie and a redirect to the same address without it. What `verdict view --open` opens, so
   * that the token itself never sits in a browser's command line for other users to read.
   */
  loginCode?: string | null;
  /**
   * Whether the `Host` header must name the loopback interface with the server's port
   * (against DNS rebinding). Off only for a server on another interface, which a token guards.
   * @default true
   */
  checkHost?: boolean;
  /** The app's built files. @default `<package root>/dist/view-app`, `null` when not built */
  appFolder?: string | null;
  /** Image files of cases are served only from inside this folder. @default process.cwd() */
  projectRoot?: string;
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
  /** How often live event streams read the store. @default 300 */
  pollIntervalMs?: number;
  /** Cases held in memory over all runs read. @default 30000 (about 250 MB: a case with two metrics takes about 8.5 kB) */
  cacheMaxCases?: number;
}

type Headers = Record<string, string>;

/**
 * The dashboard's HTTP server: the JSON API of api.ts under `/api/`, the app's pages (its
 * index.html for `/`, `/runs/:run`, `/runs/:run/cases/:key`, `/compare`, `/calibrations`,
 * `/calibrations/:id`) and its built files.
 * Requests are checked before the store is read ({@link parseViewRequest}): a foreign `Host`
 * is 421 (DNS rebinding), a missing or wrong token 401, a bad method 405, a bad path 400, an
 * unknown page, run, calibration or route 404 (JSON under `/api/`); a bad query parameter is 400, a store
 * that cannot be read 503, and only a fault of verdict's own is 500 (logged, secrets and the
 * token masked). Every response carries {@link VIEW_SECURITY_HEADERS}.
 */
export function createViewServer(options: ViewServerOptions): Server {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const token = options.token ?? null;
  const login = new OneTimeLogin(token === null ? null : (options.loginCode ?? null));
  const appFolder = options.appFolder === undefined ? findAppFolder() : options.appFolder;
  const projectRoot = options.projectRoot ?? process.cwd();
  const liveness = (): RunLivenessOptions => ({
    now: (options.now ?? Date.now)(),
    hostname: options.hostname ?? hostname(),
    ...(options.isProcessAlive ? { isProcessAlive: options.isProcessAlive } : {}),
  });
  const api = new ViewApi({
    store: options.store,
    liveness,
    cache: new RunResultsCache({
      store: options.store,
      ...(options.cacheMaxCases === undefined ? {} : { maxCases: options.cacheMaxCases }),
    }),
  });

  const logFault = (request: IncomingMessage, error: unknown) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const target = JSON.stringify(maskTokenInTarget(request.url ?? "").slice(0, 200));
    const line = `verdict view: internal error on ${request.method} ${target}: ${text}`;
    const masked = redactSecretText(line, { env: options.env ?? process.env });
    log(token === null ? masked : masked.replaceAll(token, "***"));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const extra: Headers = {};
    const send = (status: number, body: string | Buffer, type: string, headers: Headers = {}) => {
      response.writeHead(status, {
        ...VIEW_SECURITY_HEADERS,
        ...extra,
        "content-type": type,
        "content-length": String(Buffer.byteLength(body)),
        ...headers,
      });
      response.end(body);
    };
    const sendText = (status: number, text: string, headers: Headers = {}) =>
      send(status, text.endsWith("\n") ? text : `${text}\n`, "text/plain; charset=utf-8", headers);
    const sendJson = (status: number, value: unknown) =>
      send(status, JSON.stringify(value), "application/json; charset=utf-8");

    const parsed = parseViewRequest({
      method: request.method,
      target: request.url,
      host: request.headers.host,
      port: request.socket.localPort ?? 0,
      checkHost: options.checkHost !== false,
    });
    if (parsed.refusal?.status === 421) return sendText(421, parsed.refusal.reason);
    if (token !== null) {
      const query = parsed.query ?? new URLSearchParams((request.url ?? "").split("?")[1] ?? "");
      const location = login.take(request.url ?? "/", query);
      if (location !== null) {
        return send(303, "", "text/plain; charset=utf-8", {
          location,
          "set-cookie": tokenCookie(token),
        });
      }
      const presented = presentedToken(request, query);
      if (presented === null || !tokensMatch(presented.token, token)) {
        const reason =
          presented === null
            ? "This dashboard needs its token: open it with ?token=<token> (the one verdict view was given by --token-file, VERDICT_VIEW_TOKEN or --token), or send Authorization: Bearer <token>."
            : "Wrong token: use the one verdict view was given (by --token-file, VERDICT_VIEW_TOKEN or --token).";
        const headers = { "www-authenticate": 'Bearer realm="verdict view"' };
        return (request.url ?? "").startsWith("/api/")
          ? send(401, JSON.stringify({ error: reason }), "application/json; charset=utf-8", headers)
          : sendText(401, reason, headers);
      }
      if (presented.from !== "cookie") extra["set-cookie"] = tokenCookie(token);
    }
    if (parsed.refusal) {
      if (parsed.refusal.status === 405) extra.allow = "GET, HEAD";
      return parsed.refusal.api === true
        ? sendJson(parsed.refusal.status, { error: parsed.refusal.reason })
        : sendText(parsed.refusal.status, parsed.refusal.reason);
    }
    const { route, query } = parsed;
    const isApi = route.kind === "api";
    try {
      if (route.kind === "api") return await serveApi(route.route, query);
      return await servePage(route);
    } catch (error) {
      if (response.headersSent) {
        if (!(error instanceof NotFoundError || error instanceof StoreError))
          logFault(request, error);
        response.end();
        return;
      }
      const answer = (status: number, message: string) =>
        isApi ? sendJson(status, { error: message }) : sendText(status, message);
      if (error instanceof NotFoundError) return answer(404, error.message);
      if (error instanceof BadQueryError) return answer(400, error.message);
      if (error instanceof StoreError) {
        return answer(503, `The verdict store could not be read: ${error.message}`);
      }
      logFault(request, error);
      return answer(500, "Internal error: see the terminal running verdict view.");
    }

    async function servePage(page: Exclude<ViewRoute, { kind: "api" }>) {
      if (page.kind === "page" && (page.page === "run" || page.page === "case")) {
        // A link to a run that is not there is a 404 at once, not an app page that says so.
        if ((await options.store.getRun(page.runId)) === null) {
          return sendText(404, "No such run: see the list of runs at /.");
        }
      }
      if (page.kind === "page" && page.page === "calibration") {
        if ((await options.store.getCalibration(page.calibrationId)) === null) {
          return sendText(404, "No such calibration: see the list at /calibrations.");
        }
      }
      if (appFolder === null) return sendText(503, APP_NOT_BUILT);
      if (page.kind === "file") {
        const file = await readAppFile(appFolder, page.path);
        if (file === null) return sendText(404, "No such file.");
        // Vite names built files by their content's hash: they may be kept.
        const cache =
          page.path[0] === "assets"
            ? { "cache-control": "private, max-age=31536000, immutable" }
            : {};
        return send(200, file.body, file.contentType, cache);
      }
      const index = await readFile(path.join(appFolder, "index.html")).catch(() => null);
      if (index === null) return sendText(503, APP_NOT_BUILT);
      return send(200, index, "text/html; charset=utf-8");
    }

    async function serveApi(apiRoute: ApiRoute, parameters: URLSearchParams) {
      switch (apiRoute.api) {
        case "runs":
          return sendJson(200, await api.runs(parameters));
        case "identifiers":
          return sendJson(200, await api.identifiers());
        case "trends":
          return sendJson(200, await api.trends(parameters));
        case "compare":
          return sendJson(200, await api.compare(parameters));
        case "run":
          return sendJson(200, await api.runDetail(apiRoute.runId));
        case "cases":
          return sendJson(200, await api.cases(apiRoute.runId, parameters));
        case "case":
          return sendJson(200, await api.caseDetail(apiRoute.runId, apiRoute.caseKey));
        case "calibrations":
          return sendJson(200, await api.calibrations(parameters));
        case "calibration":
          return sendJson(200, await api.calibration(apiRoute.calibrationId));
        case "image": {
          const loaded = await api.loadRun(apiRoute.runId);
          const image = loaded.entry(apiRoute.caseKey)?.result.images[apiRoute.number - 1];
          if (image === undefined) {
            throw new NotFoundError(`No image ${apiRoute.number} on case ${apiRoute.caseKey}.`);
          }
          const served = await readCaseImage({ image, projectRoot });
          return send(200, Buffer.from(served.data), served.mediaType, {
            "content-security-policy": IMAGE_CONTENT_SECURITY_POLICY,
          });
        }
        case "export": {
          const format = parameters.get("format");
          if (!(EXPORT_FORMATS as readonly (string | null)[]).includes(format)) {
            throw new BadQueryError(
              `format must be one of ${EXPORT_FORMATS.join(", ")}; got ${JSON.stringify(format?.slice(0, 50) ?? null)}.`,
            );
          }
          const { shown, result } = await api.evaluationResult(apiRoute.runId);
          const exported = exportRun({
            shown,
            result,
            format: format as ExportFormat,
            notice: noticeOf(shown),
          });
          return send(200, exported.body, exported.contentType, {
            "content-disposition": `attachment; filename="${exported.fileName}"`,
            ...(exported.contentSecurityPolicy === null
              ? {}
              : { "content-security-policy": exported.contentSecurityPolicy }),
          });
        }
        case "events": {
          const shown = await api.findRun(apiRoute.runId);
          const lastEventId = request.headers["last-event-id"];
          const afterText =
            parameters.get("after") ?? (typeof lastEventId === "string" ? lastEventId : null);
          const after =
            afterText === null
              ? null
              : integerParameter(new URLSearchParams({ after: afterText }), "after", {
                  min: 0,
                  max: Number.MAX_SAFE_INTEGER,
                  fallback: 0,
                });
          return streamRunEvents({
            api,
            store: options.store,
            runId: shown.run.id,
            request,
            response,
            headers: { ...VIEW_SECURITY_HEADERS, ...extra },
            after,
            ...(options.pollIntervalMs === undefined
              ? {}
              : { pollIntervalMs: options.pollIntervalMs }),
            onError: (error) => {
              if (!(error instanceof StoreError || error instanceof NotFoundError)) {
                logFault(request, error);
              }
            },
          });
        }
      }
    }
  };

  // requireHostHeader off: a request without Host gets our 421 and headers, not Node's bare 400.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      logFault(request, error);
      if (!response.headersSent) {
        response.writeHead(500, {
          ...VIEW_SECURITY_HEADERS,
          "content-type": "text/plain; charset=utf-8",
        });
      }
      response.end();
    });
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
