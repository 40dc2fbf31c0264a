import type { IncomingMessage, ServerResponse } from "node:http";
import type { CaseRow, LiveEvent } from "../api.ts";
import { toCaseRow } from "./case-rows.ts";
import type { ViewApi } from "./view-api.ts";
import type { ViewStore } from "./view-store.ts";

/** Options of {@link streamRunEvents}. */
export interface RunEventsOptions {
  api: ViewApi;
  store: ViewStore;
  /** The run's id (already found). */
  runId: string;
  request: IncomingMessage;
  response: ServerResponse;
  /** Headers of the stream (security headers included). */
  headers: Record<string, string>;
  /** Send the cases saved after this results version; `null`: only those saved from now on. */
  after: number | null;
  /** How often the store is read. @default 300 */
  pollIntervalMs?: number;
  /** How often a comment line keeps an idle stream open. @default 15000 */
  keepAliveMs?: number;
  /** Called when reading the store fails (the stream goes on and tries again). */
  onError: (error: unknown) => void;
}

/**
 * Serves `/api/runs/:run/events`: server-sent events while a run is running (see
 * `LiveEvent` in api.ts). The store is polled (its results version, then only the results
 * saved since), so a stream costs one small query per interval while nothing changes. The
 * stream ends with an `end` event when the run stops running, and its timer stops when the
 * client goes away.
 */
export async function streamRunEvents(options: RunEventsOptions): Promise<void> {
  const { api, store, runId, response } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 300;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    closed = true;
    clearTimeout(timer);
    clearInterval(keepAlive);
  };
  options.request.on("close", stop);
  response.on("close", stop);

  const send = (event: LiveEvent, id: number) => {
    if (closed) return;
    const data = JSON.stringify(event.type === "case" ? event.case : event.run);
    response.write(`event: ${event.type}\nid: ${id}\ndata: ${data}\n\n`);
  };
  const finish = () => {
    stop();
    response.end();
  };

  response.writeHead(200, {
    ...options.headers,
    "content-type": "text/event-stream; charset=utf-8",
    "x-accel-buffering": "no",
  });
  if (options.request.method === "HEAD") {
    finish();
    return;
  }
  // Tells EventSource how long to wait before reconnecting after a dropped connection.
  response.write(`retry: 2000\n\n`);

  const first = await api.findRun(runId);
  let seen = options.after ?? (await store.getTestResultsVersion(runId)).version;
  let lastProgress = JSON.stringify(first.row);
  send({ type: "progress", run: first.row }, seen);

  /** Sends a `case` event per result saved after `after`; returns the version reached. */
  async function sendChanged(after: number): Promise<number> {
    const version = (await store.getTestResultsVersion(runId)).version;
    const changed = await store.getTestResults(runId, { changedAfter: after });
    const loaded = await api.cache.load(runId);
    for (const { result } of changed) {
      const row: CaseRow = loaded.entry(String(result.index))?.row ?? toCaseRow(result, 0);
      send({ type: "case", case: row }, version);
    }
    return version;
  }

  const poll = async () => {
    if (closed) return;
    try {
      const version = (await store.getTestResultsVersion(runId)).version;
      if (version !== seen) seen = await sendChanged(seen);
      const shown = await api.findRun(runId);
      if (shown.liveness.status !== "running") {
        send({ type: "end", run: shown.row }, seen);
        finish();
        return;
      }
      const progress = JSON.stringify(shown.row);
      if (progress !== lastProgress) {
        lastProgress = progress;
        send({ type: "progress", run: shown.row }, seen);
      }
    } catch (error) {
      options.onError(error);
    }
    if (!closed) timer = setTimeout(poll, pollIntervalMs);
  };
  keepAlive = setInterval(() => {
    if (!closed) response.write(": keep-alive\n\n");
  }, keepAliveMs);
  keepAlive.unref();
  await poll();
}
