import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  answerFakeOpenAIRequest,
  type Endpoint,
  type FakeOpenAIScript,
  jsonOutcome,
  type Outcome,
} from "./answer-fake-openai-request.ts";
import { FakeFineTuning, type FakeFineTuningJobOptions } from "./fake-fine-tuning.ts";
import {
  type FakeBatchOptions,
  FakeBatchService,
  type FakeBatchSummary,
} from "./fake-openai-batches.ts";
import { errorBody, type FakeReply, type FakeResponder } from "./fake-openai-replies.ts";
import { createFaultInjector, type FakeFaults } from "./fault-injector.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";
import { sendFakeOutcome, statusKey, untilGone } from "./send-fake-outcome.ts";

export type {
  FakeFineTuningCheckpoint,
  FakeFineTuningJobOptions,
  FakeFineTuningSchedule,
} from "./fake-fine-tuning.ts";
export type {
  FakeBatchInfo,
  FakeBatchOptions,
  FakeBatchSummary,
} from "./fake-openai-batches.ts";

export {
  type FakeAnswerReplyOptions,
  type FakeCutReplyOptions,
  type FakeErrorReplyOptions,
  type FakeFinishReason,
  type FakeNotJsonReplyOptions,
  type FakeReply,
  type FakeResponder,
  reply,
} from "./fake-openai-replies.ts";
export type { FakeFaults, FakeRateLimitHint } from "./fault-injector.ts";
export type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Answers consumed in order, one per model call, before `respond` is consulted. */
  replies?: Array<FakeReply | FakeResponder>;
  /** Answers model calls once `replies` is empty. @default none: the default answer, see `reply.fill()` */
  respond?: FakeResponder;
  /** Delay before every answer, errors and drops included. @default 0 */
  latencyMs?: number;
  /**
   * Seeded random faults: a share of model calls answered 429 (with a Retry-After hint of
   * your choice), 503, 500, dropped, cut short after their headers, or answered 200 with a
   * body that is not JSON; the same ones for the same seed. @default none
   */
  faults?: FakeFaults;
  /**
   * How batches (`POST /v1/files` + `POST /v1/batches`) run: how long until they end, and
   * which expire. Each line is answered as the same request sent directly would be (replies,
   * responder, faults). @default each batch ends at its first retrieval, every line answered
   */
  batches?: FakeBatchOptions;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** Port to listen on. @default 0 (an ephemeral port) */
  port?: number;
  /**
   * Fine-tuning jobs served at `GET /v1/fine_tuning/jobs/:id` and `…/checkpoints`: checkpoints
   * that appear on a schedule, a job that succeeds or fails, and checkpoint models that answer
   * as scripted. @default none
   */
  fineTuningJobs?: FakeFineTuningJobOptions[];
  /** The clock of fine-tuning schedules given in milliseconds. @default Date.now */
  now?: () => number;
}

/** Counters since start (or the last `reset()`); `GET /stats` serves the same object. */
export interface FakeOpenAIServerStats {
  /** HTTP requests under `/v1`, whatever their fate. */
  requests: number;
  /**
   * Per endpoint: `responses`, `chat.completions`, `models`, `files.create`, `files.retrieve`,
   * `files.content`, `batches.create`, `batches.retrieve`, `batches.cancel`, `batches.list`,
   * `fine_tuning.jobs`, `fine_tuning.checkpoints`, `unknown`.
   */
  byEndpoint: Record<string, number>;
  /**
   * Per HTTP status (`"200"`, `"429"`…), and the broken answers: `"dropped"` (connection
   * destroyed without an answer), `"cut"` (200 and headers sent, then the connection destroyed
   * mid-body), `"not-json"` (a 200 whose body is not JSON), `"hung"` (never answered).
   */
  byStatus: Record<string, number>;
  /** Requests received and not yet answered. */
  inFlight: number;
  peakInFlight: number;
  /** Batch lines answered (each also counted in `requests` of the server, not in these stats' `requests`). */
  batchLines: number;
  /** Estimated tokens (4 characters a token, 85 an image) of successful answers, batch lines included. */
  inputTokens: number;
  outputTokens: number;
}

/** A running fake OpenAI-compatible server. Made with {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:43123/v1`: what `baseURL` takes. */
  readonly url: string;
  /** Every well-formed model call, in arrival order. */
  readonly requests: FakeOpenAIRequest[];
  /** A snapshot of the counters. */
  stats(): FakeOpenAIServerStats;
  /** Adds answers to the queue, consumed one per model call. */
  enqueue(...replies: Array<FakeReply | FakeResponder>): void;
  /** Changes the delay before every answer, from the next answer on. */
  setLatency(latencyMs: number): void;
  /** Replaces the responder used once the queue is empty; `undefined` gives the default answer. */
  setResponder(respond: FakeResponder | undefined): void;
  /** Every batch created since start (or the last `reset()`), oldest first, with its status. */
  batches(): FakeBatchSummary[];
  /** Replaces how batches run (see `batches`), for batches that have not ended yet too. */
  setBatchOptions(options: FakeBatchOptions): void;
  /** Replaces the seeded faults (see `faults`), from the next call on; `undefined` for none. */
  setFaults(faults: FakeFaults | undefined): void;
  /** Adds (or replaces) a fine-tuning job (see `fineTuningJobs`); its schedule starts now. */
  addFineTuningJob(job: FakeFineTuningJobOptions): void;
  /**
   * Publishes a job's next checkpoint now, whatever its schedule; returns the checkpoint's
   * model, or `null` when every checkpoint is published (or the job failed).
   */
  publishCheckpoint(jobId: string): string | null;
  /**
   * Clears recorded requests, counters, queued replies, files and batches, and restarts the
   * faults' draws and the fine-tuning jobs' schedules; keeps responder, faults, jobs, latency
   * and batch options.
   */
  reset(): void;
  /** Stops listening and closes every connection, idle keep-alive ones included. */
  close(): Promise<void>;
}

interface ServerState extends FakeOpenAIScript {
  latencyMs: number;
  stats: FakeOpenAIServerStats;
  closing: AbortController;
  batches: FakeBatchService;
}

// Request bodies past this size are refused: they carry images as data URLs, not gigabytes.
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Starts an OpenAI-compatible HTTP server on 127.0.0.1 that answers `POST /v1/responses` and
 * `POST /v1/chat/completions` (JSON or server-sent events) with scripted replies, or by default
 * with a deterministic value for the JSON schema asked for (see `reply.fill()`). It records every
 * request and also serves `GET /v1/models`, `GET /stats`, and fine-tuning jobs
 * (`GET /v1/fine_tuning/jobs/:id` and `…/checkpoints`, see `fineTuningJobs`) whose checkpoint
 * models answer as scripted.
 * @example
 * const server = await startFakeOpenAIServer({ replies: [reply.rateLimit({ retryAfterSeconds: 1 })] });
 * const openai = createOpenAI({ baseURL: server.url, apiKey: "test" });
 * await generateText({ model: openai("gpt-4.1"), prompt: "Hi" }); // 429, then the default answer
 * await server.close();
 */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const state: ServerState = {
    queue: [...(options.replies ?? [])],
    respond: options.respond,
    latencyMs: options.latencyMs ?? 0,
    requests: [],
    stats: emptyStats({ inFlight: 0 }),
    sequence: 0,
    faults: options.faults === undefined ? undefined : createFaultInjector(options.faults),
    fineTuning: new FakeFineTuning({
      jobs: options.fineTuningJobs ?? [],
      ...(options.now === undefined ? {} : { now: options.now }),
    }),
    closing: new AbortController(),
    batches: undefined as unknown as FakeBatchService,
  };
  state.batches = new FakeBatchService({
    batches: options.batches ?? {},
    script: state,
    onLine: (outcome) => {
      const stats = state.stats;
      stats.batchLines++;
      if (outcome.kind === "send" && outcome.usage !== null) {
        stats.inputTokens += outcome.usage.inputTokens;
        stats.outputTokens += outcome.usage.outputTokens;
      }
    },
  });
  const server = createServer((request, response) => {
    // Nothing a client sends may crash the process that runs the tests.
    handle({ state, request, response }).catch(() => response.destroy());
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
    requests: state.requests,
    stats: () => structuredClone(state.stats),
    enqueue: (...replies) => {
      state.queue.push(...replies);
    },
    setLatency: (latencyMs) => {
      state.latencyMs = latencyMs;
    },
    setResponder: (respond) => {
      state.respond = respond;
    },
    batches: () => state.batches.summaries(),
    setBatchOptions: (batchOptions) => {
      state.batches.options = batchOptions;
    },
    setFaults: (faults) => {
      state.faults = faults === undefined ? undefined : createFaultInjector(faults);
    },
    addFineTuningJob: (job) => state.fineTuning.add(job),
    publishCheckpoint: (jobId) => state.fineTuning.publishNext(jobId),
    reset: () => {
      state.faults?.reset();
      state.fineTuning.reset();
      state.requests.length = 0;
      state.queue.length = 0;
      state.sequence = 0;
      state.batches.reset();
      state.stats = emptyStats({ inFlight: state.stats.inFlight });
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        state.closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function emptyStats(options: { inFlight: number }): FakeOpenAIServerStats {
  return {
    requests: 0,
    byEndpoint: {},
    byStatus: {},
    inFlight: options.inFlight,
    peakInFlight: options.inFlight,
    batchLines: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
}

function increment(options: { counts: Record<string, number>; key: string }): void {
  options.counts[options.key] = (options.counts[options.key] ?? 0) + 1;
}

async function handle(options: {
  state: ServerState;
  request: IncomingMessage;
  response: ServerResponse;
}): Promise<void> {
  const { state, request, response } = options;
  const url = new URL(request.url ?? "/", "http://fake.invalid");
  const method = request.method ?? "GET";
  if (method === "GET" && url.pathname === "/stats") {
    sendFakeOutcome({ response, outcome: jsonOutcome({ status: 200, body: state.stats }) });
    return;
  }
  const batchRoute = FakeBatchService.routeOf({ method, pathname: url.pathname });
  const endpoint = routeOf({ method, pathname: url.pathname });
  const stats = state.stats;
  stats.requests++;
  increment({ counts: stats.byEndpoint, key: batchRoute ?? endpoint });
  stats.inFlight++;
  stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
  try {
    let outcome: Outcome;
    try {
      const body = await readBody({ request });
      outcome =
        batchRoute !== null
          ? await state.batches.answer({
              route: batchRoute,
              pathname: url.pathname,
              search: url.searchParams,
              body,
              headers: request.headers,
            })
          : await answerFakeOpenAIRequest({
              script: state,
              endpoint,
              body,
              headers: request.headers,
              method,
              pathname: url.pathname,
              query: url.searchParams,
            });
    } catch (error) {
      const message = `The fake OpenAI server failed: ${error instanceof Error ? error.message : String(error)}`;
      outcome = jsonOutcome({ status: 500, body: errorBody({ status: 500, message }) });
    }
    if (state.latencyMs > 0) {
      await sleep(state.latencyMs, undefined, { signal: state.closing.signal });
    }
    // A client that has gone away gets no answer, and no status is counted for it.
    if (response.destroyed || request.socket.destroyed) return;
    // Counters go to the stats object current at answer time, so reset() mid-flight is clean.
    const current = state.stats;
    if (outcome.kind === "drop") {
      increment({ counts: current.byStatus, key: "dropped" });
      request.socket.destroy();
      return;
    }
    increment({ counts: current.byStatus, key: statusKey(outcome) });
    if (outcome.kind === "hang") {
      await untilGone({ response, closing: state.closing.signal });
      return;
    }
    if (outcome.usage !== null) {
      current.inputTokens += outcome.usage.inputTokens;
      current.outputTokens += outcome.usage.outputTokens;
    }
    sendFakeOutcome({ response, outcome });
  } finally {
    state.stats.inFlight = Math.max(0, state.stats.inFlight - 1);
  }
}

function routeOf(options: { method: string; pathname: string }): Endpoint {
  const path = options.pathname.replace(/\/+$/, "");
  if (options.method === "POST" && path === "/v1/responses") return "responses";
  if (options.method === "POST" && path === "/v1/chat/completions") return "chat.completions";
  if (options.method === "POST" && path === "/v1/messages") return "messages";
  if (options.method === "GET" && path === "/v1/models") return "models";
  if (options.method === "GET" && /^\/v1\/fine_tuning\/jobs\/[^/]+$/.test(path)) {
    return "fine_tuning.jobs";
  }
  if (options.method === "GET" && /^\/v1\/fine_tuning\/jobs\/[^/]+\/checkpoints$/.test(path)) {
    return "fine_tuning.checkpoints";
  }
  return "unknown";
}

async function readBody(options: { request: IncomingMessage }): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of options.request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_BODY_BYTES ? null : Buffer.concat(chunks);
}
