/** The files and batches routes of the fake server: OpenAI's, then Anthropic's. */
export type FakeBatchRoute =
  | "files.create"
  | "files.retrieve"
  | "files.content"
  | "batches.create"
  | "batches.retrieve"
  | "batches.cancel"
  | "batches.list"
  | "messages.batches.create"
  | "messages.batches.retrieve"
  | "messages.batches.results"
  | "messages.batches.cancel"
  | "messages.batches.list";

/** A batch as the `expire` option sees it. */
export interface FakeBatchInfo {
  id: string;
  /** 1 for the first batch created since start (or the last `reset()`), 2 for the next… */
  sequence: number;
  /** `"/v1/responses"`, `"/v1/chat/completions"` or (Anthropic) `"/v1/messages"`. */
  endpoint: string;
  lines: number;
}

/** How the fake server runs batches (`POST /v1/batches`, `POST /v1/messages/batches`). */
export interface FakeBatchOptions {
  /**
   * Time from a batch's creation to its end: an OpenAI batch reads `validating`, then
   * `in_progress` (with growing counts), then `finalizing`, then `completed`; an Anthropic one
   * `in_progress`, then `ended`. Its lines are answered at the end.
   * @default 0 (done at the first retrieval)
   */
  completionDelayMs?: number;
  /**
   * Makes a batch expire instead of completing: `true` answers none of its lines, and
   * `{ answeredLines: n }` answers its first n; the others end as expired.
   * @default never
   */
  expire?: (batch: FakeBatchInfo) => boolean | { answeredLines: number };
}

/** A batch as a test checks it (`server.batches()`). */
export interface FakeBatchSummary {
  id: string;
  endpoint: string;
  /** In the provider's words (OpenAI: `completed`…; Anthropic: `in_progress`, `ended`…). */
  status: string;
  lines: number;
  /** Status requests (`GET …/batches/:id`) so far. */
  retrievals: number;
}

/** One request of a batch. */
export interface FakeBatchLine {
  customId: string;
  /** `"/v1/responses"`, `"/v1/chat/completions"` or `"/v1/messages"`. */
  url: string;
  body: unknown;
}

/** What became of one line when its batch ended. */
export type FakeLineResult =
  | { kind: "answered"; status: number; body: unknown }
  | { kind: "expired" }
  | { kind: "cancelled" };

/** A batch of either API, as the fake server keeps it. */
export interface FakeBatch {
  api: "openai" | "anthropic";
  id: string;
  sequence: number;
  endpoint: string;
  createdAtMs: number;
  /**
   * In OpenAI's words, whatever the API: `validating`, `in_progress`, `finalizing`,
   * `completed`, `failed`, `expired`, `cancelling`, `cancelled`.
   */
  status: string;
  lines: FakeBatchLine[];
  /** The headers of the request that made it, passed on to its lines (keys redacted there). */
  headers: Record<string, string | string[] | undefined>;
  /** Each line's outcome, once ended. */
  results: FakeLineResult[];
  /** Unix seconds of each change (`in_progress_at`, `completed_at`, `cancelling_at`…). */
  changedAt: Record<string, number>;
  retrievals: number;
  /** The share of its time to completion gone at the last retrieval, for growing counts. */
  progress: number;
  /** OpenAI: the input file; the output and error files once ended. */
  inputFileId: string | null;
  outputFileId: string | null;
  errorFileId: string | null;
  /** OpenAI: why the input did not validate. */
  errors: Array<{ code: string; message: string; line: number | null }> | null;
  /** Anthropic: where `results_url` points (the server's own origin). */
  origin: string;
  /** Set while its lines are being answered. */
  settling: Promise<void> | null;
}

/** Statuses after which a batch no longer changes. */
export const FINAL_STATUSES = new Set(["completed", "failed", "expired", "cancelled"]);
