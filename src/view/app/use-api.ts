import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, fetchJson } from "./api-client.ts";

/** What {@link useApi} gives a page. */
export interface ApiState<T> {
  /** The latest answer; kept while the next one loads, so a table does not blink on a filter. */
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** The URL `data` answers (a test or bench waits for it to match the newest request). */
  dataUrl: string | null;
  /** Asks again (the same URL), e.g. when a live run changed. */
  reload: () => void;
}

/**
 * GETs `url` (an `/api/…` path; `null` fetches nothing) whenever it changes. A newer request
 * aborts the older one, so answers never arrive out of order.
 */
export function useApi<T>(url: string | null): ApiState<T> {
  const [state, setState] = useState<Omit<ApiState<T>, "reload">>({
    data: null,
    error: null,
    loading: url !== null,
    dataUrl: null,
  });
  const [generation, setGeneration] = useState(0);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => {
    controller.current?.abort();
    if (url === null) {
      setState({ data: null, error: null, loading: false, dataUrl: null });
      return;
    }
    const current = new AbortController();
    controller.current = current;
    setState((previous) => ({ ...previous, loading: true }));
    fetchJson<T>(url, current.signal).then(
      (data) => {
        if (!current.signal.aborted) setState({ data, error: null, loading: false, dataUrl: url });
      },
      (error: unknown) => {
        if (current.signal.aborted) return;
        const apiError =
          error instanceof ApiError ? error : new ApiError(0, (error as Error).message);
        setState((previous) => ({ ...previous, error: apiError, loading: false }));
      },
    );
    return () => current.abort();
  }, [url, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}
