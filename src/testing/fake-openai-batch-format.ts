import {
  type FakeBatch,
  type FakeBatchLine,
  type FakeLineResult,
  FINAL_STATUSES,
} from "./fake-batch-record.ts";

/** A file of the fake Files API. */
export interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  createdAt: number;
  content: string;
}

const WINDOW_SECONDS = 24 * 60 * 60;

/** The lines of an ended OpenAI batch's output file (successes) and error file (the rest), as JSONL. */
export function openAIResultLines(batch: FakeBatch): { output: string; failures: string } {
  const output: string[] = [];
  const failures: string[] = [];
  batch.lines.forEach((line, index) => {
    const result = batch.results[index] as FakeLineResult;
    const id = `batch_req_${batch.sequence.toString(16)}_${index.toString(16).padStart(8, "0")}`;
    if (result.kind !== "answered") {
      const error =
        result.kind === "cancelled"
          ? {
              code: "batch_cancelled",
              message: "This request was not executed because the batch was cancelled.",
            }
          : {
              code: "batch_expired",
              message: "This request could not be executed before the completion window expired.",
            };
      failures.push(JSON.stringify({ id, custom_id: line.customId, response: null, error }));
      return;
    }
    const record = JSON.stringify({
      id,
      custom_id: line.customId,
      response: { status_code: result.status, request_id: `req_fake_${id}`, body: result.body },
      error: null,
    });
    (result.status >= 200 && result.status < 300 ? output : failures).push(record);
  });
  const jsonl = (lines: string[]) => lines.map((text) => `${text}\n`).join("");
  return { output: jsonl(output), failures: jsonl(failures) };
}

export function parseLines(options: {
  content: string;
  endpoint: string;
}):
  | { lines: FakeBatchLine[] }
  | { errors: Array<{ code: string; message: string; line: number | null }> } {
  const lines: FakeBatchLine[] = [];
  const errors: Array<{ code: string; message: string; line: number | null }> = [];
  const seen = new Set<string>();
  const texts = options.content.split("\n").filter((text) => text.trim() !== "");
  if (texts.length === 0) {
    return { errors: [{ code: "empty_file", message: "The input file is empty.", line: null }] };
  }
  texts.forEach((text, index) => {
    const number = index + 1;
    const fail = (code: string, message: string) => errors.push({ code, message, line: number });
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      fail("invalid_json_line", "This line is not valid JSON.");
      return;
    }
    if (!isObject(line) || typeof line.custom_id !== "string" || line.custom_id === "") {
      fail("missing_required_parameter", "Missing 'custom_id'.");
      return;
    }
    if (seen.has(line.custom_id)) {
      fail(
        "duplicate_custom_id",
        "The custom_id for this request is a duplicate of another request.",
      );
      return;
    }
    if (line.method !== "POST" || line.url !== options.endpoint) {
      fail("mismatched_endpoint", `The line's method and url must be POST ${options.endpoint}.`);
      return;
    }
    seen.add(line.custom_id);
    lines.push({ customId: line.custom_id, url: line.url, body: line.body });
  });
  return errors.length > 0 ? { errors } : { lines };
}

export function openAIBatchObject(batch: FakeBatch): Record<string, unknown> {
  const createdAt = Math.floor(batch.createdAtMs / 1000);
  const ended = FINAL_STATUSES.has(batch.status);
  const completed = batch.results.filter(
    (result) => result.kind === "answered" && result.status >= 200 && result.status < 300,
  ).length;
  const total = batch.lines.length;
  // Counts grow with time while it runs, for progress displays; the answers are made at the end.
  const running = Math.min(total, Math.floor(total * Math.max(0, (batch.progress - 0.1) / 0.8)));
  const at = (name: string) => batch.changedAt[name] ?? null;
  return {
    id: batch.id,
    object: "batch",
    endpoint: batch.endpoint,
    errors:
      batch.errors === null
        ? null
        : { object: "list", data: batch.errors.map((error) => ({ ...error, param: null })) },
    input_file_id: batch.inputFileId,
    completion_window: "24h",
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: createdAt,
    in_progress_at: at("in_progress_at"),
    expires_at: createdAt + WINDOW_SECONDS,
    finalizing_at: null,
    completed_at: at("completed_at"),
    failed_at: at("failed_at"),
    expired_at: at("expired_at"),
    cancelling_at: at("cancelling_at"),
    cancelled_at: at("cancelled_at"),
    request_counts: ended
      ? { total, completed, failed: batch.status === "failed" ? 0 : total - completed }
      : { total, completed: running, failed: 0 },
    metadata: null,
  };
}

export function fileObject(file: StoredFile): Record<string, unknown> {
  return {
    id: file.id,
    object: "file",
    bytes: Buffer.byteLength(file.content),
    created_at: file.createdAt,
    expires_at: file.createdAt + 30 * WINDOW_SECONDS,
    filename: file.filename,
    purpose: file.purpose,
    status: "processed",
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
