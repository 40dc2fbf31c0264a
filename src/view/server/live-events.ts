import type { IncomingMessage, ServerResponse } from "node:http";
import type { StoredRun } from "../../store/run-store.ts";
import type { CaseRow } from "../case-views.ts";
import type { LiveEvent } from "../live-event.ts";
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
 * client goes away. The latest run of a `verdict test run --watch` session is followed: once
 * it stops running the stream says it is `waiting`, then announces the session's `next` run
 * (or `end`s when the session is over).
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
    const data = JSON.stringify("case" in event ? event.case : event.run);
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
  // A page open on a watch session's latest run (or one reconnecting, which was following it)
  // follows the session; one opened on an older run of it stays there.
  const identifier = first.run.identifier;
  const follows =
    identifier !== null &&
    first.row.watchSession !== null &&
    (options.after !== null || (await store.getRun(identifier))?.id === runId);
  let waiting = false;

  /** The session's run after this one, once it is stored. */
  async function nextRun(): Promise<StoredRun | null> {
    if (identifier === null) return null;
    const latest = await store.getRun(identifier);
    return latest !== null && latest.id !== runId && latest.startedAt >= first.run.startedAt
      ? latest
      : null;
  }

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
        if (!follows || shown.row.watchSession !== "watching") {
          send({ type: "end", run: shown.row }, seen);
          finish();
          return;
        }
        const next = await nextRun();
        if (next !== null) {
          send({ type: "next", run: (await api.show(next)).row }, seen);
          finish();
          return;
        }
        if (!waiting) {
          waiting = true;
          send({ type: "waiting", run: shown.row }, seen);
        }
      }
      const progress = JSON.stringify(shown.row);
      if (!waiting && progress !== lastProgress) {
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
