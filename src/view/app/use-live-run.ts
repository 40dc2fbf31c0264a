import { useEffect, useRef, useState } from "preact/hooks";
import type { RunRow } from "../api.ts";

/** At most one refresh per this many ms while cases pour in (a fast run ends 50 cases/s). */
const REFRESH_INTERVAL_MS = 500;

/** What {@link useLiveRun} reports. */
export interface LiveState {
  /** `true` while the event stream is open. */
  connected: boolean;
  /** The run as of the latest event (progress, spend), before the page reloads its data. */
  run: RunRow | null;
  /** Cases finished since the page opened. */
  newCases: number;
  /** The run ended while the page followed it (not set for a run that had ended before). */
  ended: boolean;
  /** The run ended and its watch session goes on: its next run will open in its place. */
  waiting: boolean;
}

/**
 * Follows a running run over server-sent events (`/api/runs/:run/events`): keeps its latest
 * progress and calls `onChange` (at most every 500 ms, and once at the end) so the page asks
 * for fresh totals and rows. For a `verdict test run --watch` session's latest run, it then
 * waits, and calls `onNext` with the session's next run when it starts. EventSource cannot
 * send headers: the dashboard's cookie authenticates it (see api-client.ts).
 */
export function useLiveRun(
  runId: string,
  active: boolean,
  onChange: () => void,
  onNext: (run: RunRow) => void = () => {},
): LiveState {
  const [state, setState] = useState<LiveState>({
    connected: false,
    run: null,
    newCases: 0,
    ended: false,
    waiting: false,
  });
  const changed = useRef(onChange);
  changed.current = onChange;
  const next = useRef(onNext);
  next.current = onNext;

  useEffect(() => {
    if (!active) return;
    const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
    let timer: ReturnType<typeof setTimeout> | null = null;
    let lastRefresh = 0;
    const refreshSoon = () => {
      if (timer !== null) return;
      const wait = Math.max(0, lastRefresh + REFRESH_INTERVAL_MS - Date.now());
      timer = setTimeout(() => {
        timer = null;
        lastRefresh = Date.now();
        changed.current();
      }, wait);
    };
    // The data of `progress`, `waiting`, `next` and `end` is the run's row (see LiveEvent).
    const rowOf = (event: MessageEvent<string>): RunRow | null => {
      try {
        return JSON.parse(event.data) as RunRow;
      } catch {
        return null;
      }
    };
    source.addEventListener("open", () =>
      setState((previous) => ({ ...previous, connected: true })),
    );
    // Whether the page saw the run running or waiting: an `end` then means it just ended.
    let followed = false;
    source.addEventListener("progress", (event) => {
      const run = rowOf(event);
      if (run !== null) {
        followed ||= run.status === "running";
        setState((previous) => ({ ...previous, run }));
      }
      refreshSoon();
    });
    source.addEventListener("waiting", (event) => {
      const run = rowOf(event);
      followed = true;
      setState((previous) => ({ ...previous, waiting: true, run: run ?? previous.run }));
      refreshSoon();
    });
    source.addEventListener("next", (event) => {
      const run = rowOf(event);
      source.close();
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (run !== null) next.current(run);
    });
    source.addEventListener("case", () => {
      setState((previous) => ({ ...previous, newCases: previous.newCases + 1 }));
      refreshSoon();
    });
    source.addEventListener("end", (event) => {
      const run = rowOf(event);
      source.close();
      setState((previous) => ({
        ...previous,
        connected: false,
        ended: followed,
        waiting: false,
        run: run ?? previous.run,
      }));
      if (timer !== null) clearTimeout(timer);
      timer = null;
      changed.current();
    });
    source.addEventListener("error", () => {
      // EventSource reconnects by itself; show the stream as down meanwhile.
      setState((previous) => ({ ...previous, connected: source.readyState === EventSource.OPEN }));
    });
    return () => {
      source.close();
      if (timer !== null) clearTimeout(timer);
    };
  }, [runId, active]);

  return state;
}
