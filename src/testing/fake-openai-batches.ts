import {
  answerFakeOpenAIRequest,
  type FakeOpenAIScript,
  jsonOutcome,
  type Outcome,
} from "./answer-fake-openai-request.ts";
import { errorBody } from "./fake-openai-replies.ts";

/** The files and batches routes of the fake server. */
export type FakeBatchRoute =
  | "files.create"
  | "files.retrieve"
  | "files.content"
  | "batches.create"
  | "batches.retrieve"
  | "batches.cancel"
  | "batches.list";

/** A batch as the `expire` option sees it. */
export interface FakeBatchInfo {
  id: string;
  /** 1 for the first batch created since start (or the last `reset()`), 2 for the next… */
  sequence: number;
  /** `"/v1/responses"` or `"/v1/chat/completions"`. */
  endpoint: string;
  lines: number;
}

/** How the fake server runs batches (`POST /v1/batches`). */
export interface FakeBatchOptions {
  /**
   * Time from a batch's creation to its end: it reads `validating`, then `in_progress` (with
   * growing counts), then `finalizing`, then `completed`, and its lines are answered then.
   * @default 0 (done at the first retrieval)
   */
  completionDelayMs?: number;
  /**
   * Makes a batch expire instead of completing: `true` answers none of its lines, and
   * `{ answeredLines: n }` answers its first n; the others end with `batch_expired`.
   * @default never
   */
  expire?: (batch: FakeBatchInfo) => boolean | { answeredLines: number };
}

/** A batch as a test checks it (`server.batches()`). */
export interface FakeBatchSummary {
  id: string;
  endpoint: string;
  status: string;
  lines: number;
  /** `GET /v1/batches/:id` calls so far. */
  retrievals: number;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  createdAt: number;
  content: string;
}

interface BatchLine {
  custom_id: string;
  method: string;
  url: string;
  body: unknown;
}

interface FakeBatch {
  id: string;
  sequence: number;
  endpoint: string;
  inputFileId: string;
  createdAtMs: number;
  status: string;
  lines: BatchLine[];
  headers: Record<string, string | string[] | undefined>;
  counts: { total: number; completed: number; failed: number };
  outputFileId: string | null;
  errorFileId: string | null;
  errors: Array<{ code: string; message: string; line: number | null }> | null;
  endedAt: Record<string, number>;
  retrievals: number;
  settling: Promise<void> | null;
}

const ENDPOINTS = new Set(["/v1/responses", "/v1/chat/completions"]);
const WINDOW_SECONDS = 24 * 60 * 60;
const FINAL = new Set(["completed", "failed", "expired", "cancelled"]);

/** The files and batches of a fake server: OpenAI's Files and Batch APIs, in memory. */
export class FakeBatchService {
  options: FakeBatchOptions;
  private readonly script: FakeOpenAIScript;
  private readonly onLine: (outcome: Outcome) => void;
  private readonly files = new Map<string, StoredFile>();
  private readonly batchList = new Map<string, FakeBatch>();
  private fileSequence = 0;
  private batchSequence = 0;

  /** `onLine` is told of every answered line, to count it. */
  constructor(options: {
    batches: FakeBatchOptions;
    script: FakeOpenAIScript;
    onLine: (outcome: Outcome) => void;
  }) {
    this.options = options.batches;
    this.script = options.script;
    this.onLine = options.onLine;
  }

  /** The route of a request, or `null` when it is not a files or batches route. */
  static routeOf(options: { method: string; pathname: string }): FakeBatchRoute | null {
    const { method } = options;
    const path = options.pathname.replace(/\/+$/, "");
    if (path === "/v1/files") return method === "POST" ? "files.create" : null;
    if (/^\/v1\/files\/[^/]+$/.test(path)) return method === "GET" ? "files.retrieve" : null;
    if (/^\/v1\/files\/[^/]+\/content$/.test(path))
      return method === "GET" ? "files.content" : null;
    if (path === "/v1/batches") {
      return method === "POST" ? "batches.create" : method === "GET" ? "batches.list" : null;
    }
    if (/^\/v1\/batches\/[^/]+$/.test(path)) return method === "GET" ? "batches.retrieve" : null;
    if (/^\/v1\/batches\/[^/]+\/cancel$/.test(path)) {
      return method === "POST" ? "batches.cancel" : null;
    }
    return null;
  }

  /** Answers one files or batches request. */
  async answer(options: {
    route: FakeBatchRoute;
    pathname: string;
    search: URLSearchParams;
    body: Buffer | null;
    headers: Record<string, string | string[] | undefined>;
  }): Promise<Outcome> {
    const id = decodeURIComponent(options.pathname.split("/")[3] ?? "");
    switch (options.route) {
      case "files.create":
        return await this.createFile(options);
      case "files.retrieve": {
        const file = this.files.get(id);
        return file ? jsonOutcome({ status: 200, body: fileObject(file) }) : notFound("file", id);
      }
      case "files.content": {
        const file = this.files.get(id);
        if (!file) return notFound("file", id);
        return {
          kind: "send",
          status: 200,
          contentType: "application/jsonl",
          body: file.content,
          headers: {},
          usage: null,
        };
      }
      case "batches.create":
        return this.createBatch(options);
      case "batches.list": {
        const limit = Math.min(100, Number(options.search.get("limit") ?? 20) || 20);
        const all = [...this.batchList.values()].reverse();
        const after = options.search.get("after");
        const from = after === null ? 0 : all.findIndex((batch) => batch.id === after) + 1;
        const page = all.slice(from, from + limit);
        const data = page.map((batch) => batchObject(batch));
        return jsonOutcome({
          status: 200,
          body: {
            object: "list",
            data,
            first_id: page[0]?.id ?? null,
            last_id: page.at(-1)?.id ?? null,
            has_more: from + limit < all.length,
          },
        });
      }
      case "batches.retrieve": {
        const batch = this.batchList.get(id);
        if (!batch) return notFound("batch", id);
        batch.retrievals++;
        await this.settle(batch);
        return jsonOutcome({ status: 200, body: batchObject(batch) });
      }
      case "batches.cancel": {
        const batch = this.batchList.get(id);
        if (!batch) return notFound("batch", id);
        if (FINAL.has(batch.status)) {
          return invalid(`Cannot cancel a batch with status '${batch.status}'.`);
        }
        batch.status = "cancelling";
        batch.endedAt.cancelling_at = nowSeconds();
        return jsonOutcome({ status: 200, body: batchObject(batch) });
      }
    }
  }

  /** Every batch created since start or the last `reset()`, oldest first. */
  summaries(): FakeBatchSummary[] {
    return [...this.batchList.values()].map((batch) => ({
      id: batch.id,
      endpoint: batch.endpoint,
      status: batch.status,
      lines: batch.lines.length,
      retrievals: batch.retrievals,
    }));
  }

  /** Forgets every file and batch. */
  reset(): void {
    this.files.clear();
    this.batchList.clear();
    this.fileSequence = 0;
    this.batchSequence = 0;
  }

  private async createFile(options: {
    body: Buffer | null;
    headers: Record<string, string | string[] | undefined>;
  }): Promise<Outcome> {
    const contentType = String(options.headers["content-type"] ?? "");
    if (options.body === null) return invalid("The file is too large.", 413);
    if (!contentType.startsWith("multipart/form-data")) {
      return invalid("Files must be uploaded as multipart/form-data.");
    }
    let form: FormData;
    try {
      form = await new Request("http://fake.invalid/", {
        method: "POST",
        headers: { "content-type": contentType },
        body: new Uint8Array(options.body),
      }).formData();
    } catch {
      return invalid("The multipart body could not be read.");
    }
    const file = form.get("file");
    const purpose = form.get("purpose");
    if (typeof file === "string" || file === null) {
      return invalid("Missing required parameter: 'file'.");
    }
    if (purpose !== "batch") return invalid("'purpose' must be 'batch' for this fake server.");
    const stored = this.storeFile({
      filename: file.name,
      purpose,
      content: await file.text(),
    });
    return jsonOutcome({ status: 200, body: fileObject(stored) });
  }

  private storeFile(options: { filename: string; purpose: string; content: string }): StoredFile {
    this.fileSequence++;
    const stored: StoredFile = {
      id: `file-${this.fileSequence.toString(16).padStart(24, "0")}`,
      createdAt: nowSeconds(),
      ...options,
    };
    this.files.set(stored.id, stored);
    return stored;
  }

  private createBatch(options: {
    body: Buffer | null;
    headers: Record<string, string | string[] | undefined>;
  }): Outcome {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(options.body?.toString("utf8") ?? "") as Record<string, unknown>;
    } catch {
      return invalid("We could not parse the JSON body of your request.");
    }
    const endpoint = request.endpoint;
    if (typeof endpoint !== "string" || !ENDPOINTS.has(endpoint)) {
      return invalid("'endpoint' must be '/v1/responses' or '/v1/chat/completions'.");
    }
    if (request.completion_window !== "24h") return invalid("'completion_window' must be '24h'.");
    const input = this.files.get(String(request.input_file_id));
    if (!input) return notFound("file", String(request.input_file_id));
    this.batchSequence++;
    const batch: FakeBatch = {
      id: `batch_${this.batchSequence.toString(16).padStart(24, "0")}`,
      sequence: this.batchSequence,
      endpoint,
      inputFileId: input.id,
      createdAtMs: Date.now(),
      status: "validating",
      lines: [],
      headers: options.headers,
      counts: { total: 0, completed: 0, failed: 0 },
      outputFileId: null,
      errorFileId: null,
      errors: null,
      endedAt: {},
      retrievals: 0,
      settling: null,
    };
    const parsed = parseLines({ content: input.content, endpoint });
    if ("errors" in parsed) {
      batch.status = "failed";
      batch.errors = parsed.errors;
      batch.endedAt.failed_at = nowSeconds();
    } else {
      batch.lines = parsed.lines;
      batch.counts.total = parsed.lines.length;
    }
    this.batchList.set(batch.id, batch);
    return jsonOutcome({ status: 200, body: batchObject(batch) });
  }

  /** Moves a batch along its life as time passes; answers its lines when it ends. */
  private async settle(batch: FakeBatch): Promise<void> {
    if (batch.settling) return await batch.settling;
    if (FINAL.has(batch.status)) return;
    if (batch.status === "cancelling") {
      batch.settling = this.end({ batch, status: "cancelled", answered: 0 });
      return await batch.settling;
    }
    const delay = Math.max(0, this.options.completionDelayMs ?? 0);
    const share = delay === 0 ? 1 : (Date.now() - batch.createdAtMs) / delay;
    if (share >= 1) {
      const expiry = this.options.expire?.({
        id: batch.id,
        sequence: batch.sequence,
        endpoint: batch.endpoint,
        lines: batch.lines.length,
      });
      const expired = expiry !== undefined && expiry !== false;
      const answered =
        typeof expiry === "object"
          ? Math.max(0, Math.min(expiry.answeredLines, batch.lines.length))
          : 0;
      batch.settling = expired
        ? this.end({ batch, status: "expired", answered })
        : this.end({ batch, status: "completed", answered: batch.lines.length });
      return await batch.settling;
    }
    batch.status = share < 0.1 ? "validating" : share < 0.9 ? "in_progress" : "finalizing";
    if (batch.status !== "validating") batch.endedAt.in_progress_at ??= nowSeconds();
    // Counts grow with time, for progress displays; the answers are made at the end.
    batch.counts.completed = Math.min(
      batch.counts.total,
      Math.floor(batch.counts.total * Math.max(0, (share - 0.1) / 0.8)),
    );
  }

  /** Ends a batch: its first `answered` lines are answered, the rest end as the status says. */
  private async end(options: {
    batch: FakeBatch;
    status: string;
    answered: number;
  }): Promise<void> {
    const { batch, status, answered } = options;
    const output: string[] = [];
    const failures: string[] = [];
    const counts = { total: batch.lines.length, completed: 0, failed: 0 };
    for (const [index, line] of batch.lines.entries()) {
      const id = `batch_req_${batch.sequence.toString(16)}_${index.toString(16).padStart(8, "0")}`;
      if (index >= answered) {
        const code = status === "cancelled" ? "batch_cancelled" : "batch_expired";
        const message =
          status === "cancelled"
            ? "This request was not executed because the batch was cancelled."
            : "This request could not be executed before the completion window expired.";
        failures.push(
          JSON.stringify({
            id,
            custom_id: line.custom_id,
            response: null,
            error: { code, message },
          }),
        );
        counts.failed++;
        continue;
      }
      const outcome = await this.answerLine({ batch, line });
      this.onLine(outcome);
      const ok = outcome.kind === "send" && outcome.status >= 200 && outcome.status < 300;
      const statusCode = outcome.kind === "send" ? outcome.status : 500;
      const body =
        outcome.kind === "send"
          ? (JSON.parse(outcome.body) as unknown)
          : errorBody({ status: 500 });
      const record = JSON.stringify({
        id,
        custom_id: line.custom_id,
        response: { status_code: statusCode, request_id: `req_fake_${id}`, body },
        error: null,
      });
      if (ok) {
        output.push(record);
        counts.completed++;
      } else {
        failures.push(record);
        counts.failed++;
      }
    }
    const jsonl = (lines: string[]) => lines.map((line) => `${line}\n`).join("");
    if (output.length > 0) {
      batch.outputFileId = this.storeFile({
        filename: `${batch.id}_output.jsonl`,
        purpose: "batch_output",
        content: jsonl(output),
      }).id;
    }
    if (failures.length > 0) {
      batch.errorFileId = this.storeFile({
        filename: `${batch.id}_error.jsonl`,
        purpose: "batch_output",
        content: jsonl(failures),
      }).id;
    }
    batch.counts = counts;
    batch.status = status;
    batch.endedAt[`${status}_at`] = nowSeconds();
  }

  /** One line, answered as the server answers the same request sent directly. */
  private async answerLine(options: { batch: FakeBatch; line: BatchLine }): Promise<Outcome> {
    const { line } = options;
    const endpoint = line.url === "/v1/responses" ? "responses" : "chat.completions";
    return await answerFakeOpenAIRequest({
      script: this.script,
      endpoint,
      body: Buffer.from(JSON.stringify(line.body)),
      headers: options.batch.headers,
      method: line.method,
      pathname: line.url,
      batchId: options.batch.id,
    });
  }
}

function parseLines(options: {
  content: string;
  endpoint: string;
}):
  | { lines: BatchLine[] }
  | { errors: Array<{ code: string; message: string; line: number | null }> } {
  const lines: BatchLine[] = [];
  const errors: Array<{ code: string; message: string; line: number | null }> = [];
  const seen = new Set<string>();
  const texts = options.content.split("\n").filter((text) => text.trim() !== "");
  if (texts.length === 0) {
    return { errors: [{ code: "empty_file", message: "The input file is empty.", line: null }] };
  }
  texts.forEach((text, index) => {
    const number = index + 1;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      errors.push({
        code: "invalid_json_line",
        message: "This line is not valid JSON.",
        line: number,
      });
      return;
    }
    if (!isObject(line) || typeof line.custom_id !== "string" || line.custom_id === "") {
      errors.push({
        code: "missing_required_parameter",
        message: "Missing 'custom_id'.",
        line: number,
      });
      return;
    }
    if (seen.has(line.custom_id)) {
      errors.push({
        code: "duplicate_custom_id",
        message: `The custom_id for this request is a duplicate of another request.`,
        line: number,
      });
      return;
    }
    if (line.method !== "POST" || line.url !== options.endpoint) {
      errors.push({
        code: "mismatched_endpoint",
        message: `The line's method and url must be POST ${options.endpoint}.`,
        line: number,
      });
      return;
    }
    seen.add(line.custom_id);
    lines.push({ custom_id: line.custom_id, method: "POST", url: line.url, body: line.body });
  });
  return errors.length > 0 ? { errors } : { lines };
}

function batchObject(batch: FakeBatch): Record<string, unknown> {
  const createdAt = Math.floor(batch.createdAtMs / 1000);
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
    in_progress_at: batch.endedAt.in_progress_at ?? null,
    expires_at: createdAt + WINDOW_SECONDS,
    finalizing_at: null,
    completed_at: batch.endedAt.completed_at ?? null,
    failed_at: batch.endedAt.failed_at ?? null,
    expired_at: batch.endedAt.expired_at ?? null,
    cancelling_at: batch.endedAt.cancelling_at ?? null,
    cancelled_at: batch.endedAt.cancelled_at ?? null,
    request_counts: { ...batch.counts },
    metadata: null,
  };
}

function fileObject(file: StoredFile): Record<string, unknown> {
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

function notFound(what: "file" | "batch", id: string): Outcome {
  const message = `No such ${what}: ${id}`;
  return jsonOutcome({ status: 404, body: errorBody({ status: 404, message }) });
}

function invalid(message: string, status = 400): Outcome {
  return jsonOutcome({ status, body: errorBody({ status, message }) });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
