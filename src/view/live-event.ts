import type { RunRow } from "./api.ts";
import type { CaseRow } from "./case-views.ts";

/**
 * A server-sent event of `/api/runs/:run/events` (`event: <type>`, `data: <json>`, `id: <results
 * version>`). On connecting: a `progress` event, then a `case` event for every case saved after
 * `?after=<version>` (or `Last-Event-ID`, which EventSource sends when it reconnects; without
 * either, only cases saved from now on), then `progress` and `case` events as cases finish (the
 * store is read every 300 ms), and `end` when the run stops running (completed, failed,
 * interrupted, or its process is gone), after which the server closes the stream. A run that
 * is not running gets `progress` and `end` at once. Comment lines keep the stream alive.
 *
 * A watch session's run (`RunRow.watchSession` is `"watching"`) that is the latest of its
 * identifier when the stream opens (or on a reconnection) is followed: when it stops running,
 * the stream sends `waiting` (its final row) instead of `end`, then `next` (the newer run's row)
 * as soon as the session's next run is stored, or `end` when the session's process is gone;
 * it closes after either.
 */
export type LiveEvent =
  | { type: "progress"; run: RunRow }
  | { type: "case"; case: CaseRow }
  | { type: "end"; run: RunRow }
  | { type: "waiting"; run: RunRow }
  | { type: "next"; run: RunRow };
