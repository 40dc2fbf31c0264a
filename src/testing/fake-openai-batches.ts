import {
  answerFakeOpenAIRequest,
  type FakeOpenAIScript,
  jsonOutcome,
  type Outcome,
} from "./answer-fake-openai-request.ts";
import {
  anthropicBatchObject,
  anthropicInvalid,
  anthropicResults,
  anthropicStatus,
  parseAnthropicBatch,
} from "./fake-anthropic-batches.ts";
import { anthropicErrorBody } from "./fake-anthropic-messages.ts";
import {
  type FakeBatch,
  type FakeBatchLine,
  type FakeBatchOptions,
  type FakeBatchRoute,
  type FakeBatchSummary,
  type FakeLineResult,
  FINAL_STATUSES,
} from "./fake-batch-record.ts";
import {
  fileObject,
  openAIBatchObject,
  openAIResultLines,
  parseLines,
  type StoredFile,
} from "./fake-openai-batch-format.ts";
import { errorBody } from "./fake-openai-replies.ts";

export type {
  FakeBatchInfo,
  FakeBatchOptions,
  FakeBatchRoute,
  FakeBatchSummary,
} from "./fake-batch-record.ts";

type Headers = Record<string, string | string[] | undefined>;

const ENDPOINTS = new Set(["/v1/responses", "/v1/chat/completions"]);

/** The batches of a fake server: OpenAI's Files and Batch APIs and Anthropic's Message Batches, in memory. */
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
    const routes: Array<[RegExp, string, FakeBatchRoute]> = [
      [/^\/v1\/files$/, "POST", "files.create"],
      [/^\/v1\/files\/[^/]+$/, "GET", "files.retrieve"],
      [/^\/v1\/files\/[^/]+\/content$/, "GET", "files.content"],
      [/^\/v1\/batches$/, "POST", "batches.create"],
      [/^\/v1\/batches$/, "GET", "batches.list"],
      [/^\/v1\/batches\/[^/]+$/, "GET", "batches.retrieve"],
      [/^\/v1\/batches\/[^/]+\/cancel$/, "POST", "batches.cancel"],
      [/^\/v1\/messages\/batches$/, "POST", "messages.batches.create"],
      [/^\/v1\/messages\/batches$/, "GET", "messages.batches.list"],
      [/^\/v1\/messages\/batches\/[^/]+$/, "GET", "messages.batches.retrieve"],
      [/^\/v1\/messages\/batches\/[^/]+\/results$/, "GET", "messages.batches.results"],
      [/^\/v1\/messages\/batches\/[^/]+\/cancel$/, "POST", "messages.batches.cancel"],
    ];
    return routes.find(([pattern, verb]) => verb === method && pattern.test(path))?.[2] ?? null;
  }

  /** Answers one files or batches request. */
  async answer(options: {
    route: FakeBatchRoute;
    pathname: string;
    search: URLSearchParams;
    body: Buffer | null;
    headers: Headers;
  }): Promise<Outcome> {
    const { route } = options;
    const anthropic = route.startsWith("messages.");
    const parts = options.pathname.split("/");
    const id = decodeURIComponent((anthropic ? parts[4] : parts[3]) ?? "");
    switch (route) {
      case "files.create":
        return await this.createFile(options);
      case "files.retrieve": {
        const file = this.files.get(id);
        return file ? jsonOutcome({ status: 200, body: fileObject(file) }) : notFound("file", id);
      }
      case "files.content": {
        const file = this.files.get(id);
        return file ? jsonl(file.content) : notFound("file", id);
      }
      case "batches.create":
        return this.createOpenAIBatch(options);
      case "messages.batches.create": {
        const lines = parseAnthropicBatch(options.body);
        if (!Array.isArray(lines)) return lines;
        const batch = this.addBatch({
          api: "anthropic",
          endpoint: "/v1/messages",
          lines,
          headers: options.headers,
        });
        batch.status = "in_progress";
        return jsonOutcome({ status: 200, body: anthropicBatchObject(batch) });
      }
      case "batches.list":
      case "messages.batches.list":
        return this.list({ api: anthropic ? "anthropic" : "openai", search: options.search });
      case "batches.retrieve":
      case "messages.batches.retrieve": {
        const batch = this.find({ id, anthropic });
        if (!batch) return notFound("batch", id, anthropic);
        batch.retrievals++;
        await this.settle(batch);
        return jsonOutcome({ status: 200, body: objectOf(batch) });
      }
      case "messages.batches.results": {
        const batch = this.find({ id, anthropic });
        if (!batch) return notFound("batch", id, anthropic);
        if (anthropicStatus(batch) !== "ended") {
          return anthropicInvalid(`Message batch ${id} has not ended yet.`);
        }
        return jsonl(anthropicResults(batch));
      }
      case "batches.cancel":
      case "messages.batches.cancel": {
        const batch = this.find({ id, anthropic });
        if (!batch) return notFound("batch", id, anthropic);
        if (FINAL_STATUSES.has(batch.status)) {
          const message = `Cannot cancel a batch with status '${batch.status}'.`;
          return anthropic ? anthropicInvalid(message) : invalid(message);
        }
        batch.status = "cancelling";
        batch.changedAt.cancelling_at = nowSeconds();
        return jsonOutcome({ status: 200, body: objectOf(batch) });
      }
    }
  }

  /** Every batch created since start or the last `reset()`, oldest first. */
  summaries(): FakeBatchSummary[] {
    return [...this.batchList.values()].map((batch) => ({
      id: batch.id,
      endpoint: batch.endpoint,
      status: batch.api === "anthropic" ? anthropicStatus(batch) : batch.status,
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

  private find(options: { id: string; anthropic: boolean }): FakeBatch | undefined {
    const batch = this.batchList.get(options.id);
    return batch !== undefined && (batch.api === "anthropic") === options.anthropic
      ? batch
      : undefined;
  }

  private list(options: { api: FakeBatch["api"]; search: URLSearchParams }): Outcome {
    const limit = Math.min(100, Number(options.search.get("limit") ?? 20) || 20);
    const all = [...this.batchList.values()].filter((batch) => batch.api === options.api).reverse();
    const after = options.search.get(options.api === "anthropic" ? "after_id" : "after");
    const from = after === null ? 0 : all.findIndex((batch) => batch.id === after) + 1;
    const page = all.slice(from, from + limit);
    return jsonOutcome({
      status: 200,
      body: {
        ...(options.api === "openai" ? { object: "list" } : {}),
        data: page.map(objectOf),
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: from + limit < all.length,
      },
    });
  }

  private async createFile(options: { body: Buffer | null; headers: Headers }): Promise<Outcome> {
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
    const stored = this.storeFile({ filename: file.name, purpose, content: await file.text() });
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

  private createOpenAIBatch(options: { body: Buffer | null; headers: Headers }): Outcome {
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
    const parsed = parseLines({ content: input.content, endpoint });
    const batch = this.addBatch({
      api: "openai",
      endpoint,
      lines: "errors" in parsed ? [] : parsed.lines,
      headers: options.headers,
    });
    batch.inputFileId = input.id;
    if ("errors" in parsed) {
      batch.status = "failed";
      batch.errors = parsed.errors;
      batch.changedAt.failed_at = nowSeconds();
    }
    return jsonOutcome({ status: 200, body: objectOf(batch) });
  }

  private addBatch(options: {
    api: FakeBatch["api"];
    endpoint: string;
    lines: FakeBatchLine[];
    headers: Headers;
  }): FakeBatch {
    this.batchSequence++;
    const number = this.batchSequence.toString(16).padStart(24, "0");
    const batch: FakeBatch = {
      ...options,
      id: options.api === "anthropic" ? `msgbatch_${number}` : `batch_${number}`,
      sequence: this.batchSequence,
      createdAtMs: Date.now(),
      status: "validating",
      results: [],
      changedAt: {},
      retrievals: 0,
      progress: 0,
      inputFileId: null,
      outputFileId: null,
      errorFileId: null,
      errors: null,
      origin: `http://${String(options.headers.host ?? "127.0.0.1")}`,
      settling: null,
    };
    this.batchList.set(batch.id, batch);
    return batch;
  }

  /** Moves a batch along its life as time passes; answers its lines when it ends. */
  private async settle(batch: FakeBatch): Promise<void> {
    if (batch.settling) return await batch.settling;
    if (FINAL_STATUSES.has(batch.status)) return;
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
      const answered = typeof expiry === "object" ? expiry.answeredLines : batch.lines.length;
      batch.settling = this.end({
        batch,
        status: expired ? "expired" : "completed",
        answered: expired ? Math.max(0, Math.min(answered, batch.lines.length)) : answered,
      });
      return await batch.settling;
    }
    batch.progress = share;
    batch.status = share < 0.1 ? "validating" : share < 0.9 ? "in_progress" : "finalizing";
    if (batch.status !== "validating") batch.changedAt.in_progress_at ??= nowSeconds();
  }

  /** Ends a batch: its first `answered` lines are answered, the rest end as the status says. */
  private async end(options: {
    batch: FakeBatch;
    status: string;
    answered: number;
  }): Promise<void> {
    const { batch, status, answered } = options;
    const results: FakeLineResult[] = [];
    for (const [index, line] of batch.lines.entries()) {
      if (index >= answered) {
        results.push({ kind: status === "cancelled" ? "cancelled" : "expired" });
        continue;
      }
      const outcome = await answerFakeOpenAIRequest({
        script: this.script,
        endpoint:
          line.url === "/v1/messages"
            ? "messages"
            : line.url === "/v1/responses"
              ? "responses"
              : "chat.completions",
        body: Buffer.from(JSON.stringify(line.body)),
        headers: batch.headers,
        method: "POST",
        pathname: line.url,
        batchId: batch.id,
      });
      this.onLine(outcome);
      // A dropped, cut, hung or unreadable answer has no place in a batch: the line fails as a
      // server error.
      results.push(
        outcome.kind === "send" && outcome.fault === undefined
          ? { kind: "answered", status: outcome.status, body: JSON.parse(outcome.body) as unknown }
          : {
              kind: "answered",
              status: 500,
              body:
                batch.api === "anthropic"
                  ? anthropicErrorBody({ status: 500 })
                  : errorBody({ status: 500 }),
            },
      );
    }
    batch.results = results;
    if (batch.api === "openai") this.writeOpenAIFiles(batch);
    batch.status = status;
    batch.changedAt[`${status}_at`] = nowSeconds();
  }

  /** Successes to the output file, failures (error answers, expired, cancelled) to the error file. */
  private writeOpenAIFiles(batch: FakeBatch): void {
    const { output, failures } = openAIResultLines(batch);
    const file = (content: string, suffix: string) =>
      content === ""
        ? null
        : this.storeFile({
            filename: `${batch.id}_${suffix}.jsonl`,
            purpose: "batch_output",
            content,
          }).id;
    batch.outputFileId = file(output, "output");
    batch.errorFileId = file(failures, "error");
  }
}

/** A batch as its API serves it. */
function objectOf(batch: FakeBatch): Record<string, unknown> {
  return batch.api === "anthropic" ? anthropicBatchObject(batch) : openAIBatchObject(batch);
}

function jsonl(content: string): Outcome {
  return {
    kind: "send",
    status: 200,
    contentType: "application/jsonl",
    body: content,
    headers: {},
    usage: null,
  };
}

function notFound(what: "file" | "batch", id: string, anthropic = false): Outcome {
  const message = `No such ${what}: ${id}`;
  const body = anthropic
    ? anthropicErrorBody({ status: 404, message })
    : errorBody({ status: 404, message });
  return jsonOutcome({ status: 404, body });
}

function invalid(message: string, status = 400): Outcome {
  return jsonOutcome({ status, body: errorBody({ status, message }) });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
