import { useEffect, useRef, useState } from "preact/hooks";
import type { LiveEvent, RunRow } from "../api.ts";

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
  ended: boolean;
}

/**
 * Follows a running run over server-sent events (`/api/runs/:run/events`): keeps its latest
 * progress and calls `onChange` (at most every 500 ms, and once at the end) so the page asks
 * for fresh totals and rows. EventSource cannot send headers: the dashboard's cookie
 * authenticates it (see api-client.ts).
 */
export function useLiveRun(runId: string, active: boolean, onChange: () => void): LiveState {
  const [state, setState] = useState<LiveState>({
    connected: false,
    run: null,
    newCases: 0,
    ended: false,
  });
  const changed = useRef(onChange);
  changed.current = onChange;

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
    const parse = (event: MessageEvent<string>): LiveEvent | null => {
      try {
        return JSON.parse(event.data) as LiveEvent;
      } catch {
        return null;
      }
    };
    source.addEventListener("open", () =>
      setState((previous) => ({ ...previous, connected: true })),
    );
    source.addEventListener("progress", (event) => {
      const live = parse(event);
      if (live?.type === "progress") setState((previous) => ({ ...previous, run: live.run }));
      refreshSoon();
    });
    source.addEventListener("case", () => {
      setState((previous) => ({ ...previous, newCases: previous.newCases + 1 }));
      refreshSoon();
    });
    source.addEventListener("end", (event) => {
      const live = parse(event);
      source.close();
      setState((previous) => ({
        ...previous,
        connected: false,
        ended: true,
        run: live?.type === "end" ? live.run : previous.run,
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
