import { createOpenAI } from "@ai-sdk/openai";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { FineTuningReadError } from "../errors/fine-tuning-read-error.ts";
import { retryAfterFromHeaders } from "../judge/classify-judge-error.ts";
import { PROVIDERS } from "../judge/providers.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import type {
  FineTuningCheckpoint,
  FineTuningJobSource,
  FineTuningJobState,
} from "./fine-tuning-job.ts";

/** Options of {@link createOpenAIFineTuningSource}. */
export interface OpenAIFineTuningSourceOptions {
  /** The job id, `ftjob-…`. */
  jobId: string;
  /**
   * Where `OPENAI_API_KEY` and `OPENAI_BASE_URL` are read.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv | undefined;
  /** @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
}

// OpenAI keeps the checkpoints of the last epochs only: a page of 100 holds them all, and
// `has_more` is followed anyway.
const PAGE_SIZE = 100;

/**
 * Reads an OpenAI fine-tuning job (`GET /fine_tuning/jobs/:id` and its checkpoints) and
 * makes each checkpoint's model with `@ai-sdk/openai` (`openai.chat(model)`), with the key and
 * base URL of `OPENAI_API_KEY` and `OPENAI_BASE_URL`. A 429, a 5xx or a dropped connection is
 * a retryable {@link FineTuningReadError}; a rejected key or an unknown job is a `ConfigError`.
 * @example
 * const source = createOpenAIFineTuningSource({ jobId: "ftjob-abc123" });
 * const job = await source.getJob({});
 */
export function createOpenAIFineTuningSource(
  options: OpenAIFineTuningSourceOptions,
): FineTuningJobSource {
  const env = options.env ?? process.env;
  const info = PROVIDERS.openai;
  const apiKey = env[info.apiKeyVariable]?.trim();
  if (!apiKey) {
    throw new ConfigError(
      `Watching fine-tuning job "${options.jobId}" needs ${info.apiKeyVariable}: set it in the ` +
        "environment or in .env / .env.local in the working directory.",
    );
  }
  const baseURL = (env[info.baseUrlVariable]?.trim() || info.defaultBaseUrl).replace(/\/+$/, "");
  // Masked in everything verdict writes, as a judge's key is, wherever the key came from.
  registerSecretValues([apiKey]);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const provider = createOpenAI({ apiKey, baseURL });
  const jobPath = `/fine_tuning/jobs/${encodeURIComponent(options.jobId)}`;
  const read = (path: string, signal: AbortSignal | undefined) =>
    readJson({ fetch: fetchImpl, url: `${baseURL}${path}`, apiKey, jobId: options.jobId, signal });
  return {
    jobId: options.jobId,
    provider: "openai",
    async getJob({ signal }) {
      return toJobState(await read(jobPath, signal), options.jobId);
    },
    async listCheckpoints({ signal }) {
      const checkpoints: FineTuningCheckpoint[] = [];
      let after: string | null = null;
      for (;;) {
        const query = `?limit=${PAGE_SIZE}${after === null ? "" : `&after=${encodeURIComponent(after)}`}`;
        const page = (await read(`${jobPath}/checkpoints${query}`, signal)) as {
          data?: unknown;
          has_more?: unknown;
        };
        const data = Array.isArray(page.data) ? page.data : [];
        checkpoints.push(...data.map((entry) => toCheckpoint(entry, options.jobId)));
        const last = checkpoints.at(-1);
        if (page.has_more !== true || last === undefined || data.length === 0) return checkpoints;
        after = last.id;
      }
    },
    languageModel: (model) => provider.chat(model),
  };
}

async function readJson(options: {
  fetch: typeof fetch;
  url: string;
  apiKey: string;
  jobId: string;
  signal: AbortSignal | undefined;
}): Promise<unknown> {
  const { url, jobId } = options;
  let response: Response;
  try {
    response = await options.fetch(url, {
      headers: { authorization: `Bearer ${options.apiKey}` },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted) {
      throw new EvalError("ABORTED", `Reading fine-tuning job "${jobId}" was cancelled.`);
    }
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw new FineTuningReadError(
      `Could not reach ${url} to read fine-tuning job "${jobId}" (${typeof code === "string" ? `${code}, ` : ""}no HTTP status): check the network and OPENAI_BASE_URL.`,
      { status: null, retryable: true, cause: error },
    );
  }
  const text = await response.text();
  if (response.ok) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new FineTuningReadError(
        `${url} answered fine-tuning job "${jobId}" with a body that is not JSON: is OPENAI_BASE_URL an OpenAI-compatible API?`,
        { status: response.status, retryable: false, cause: error },
      );
    }
  }
  const said = providerMessage(text);
  const { status } = response;
  if (status === 401 || status === 403) {
    throw new ConfigError(
      `OpenAI rejected the key reading fine-tuning job "${jobId}" (HTTP ${status})${said}. Check OPENAI_API_KEY: it must belong to the organization and project that own the job.`,
    );
  }
  if (status === 404) {
    throw new ConfigError(
      `No fine-tuning job "${jobId}" at ${url} (HTTP 404)${said}. Check the job id (ftjob-…, as "openai api fine_tuning.jobs.list" or the dashboard shows it) and that OPENAI_API_KEY belongs to the project that owns it.`,
    );
  }
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  throw new FineTuningReadError(
    `Reading fine-tuning job "${jobId}" failed (HTTP ${status})${said}.${retryable ? " This is usually temporary." : ""}`,
    { status, retryable, retryAfterMs: retryAfterFromHeaders(response.headers, Date.now()) },
  );
}

function providerMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string" && message.trim() !== "") return `: ${message.slice(0, 300)}`;
  } catch {}
  return "";
}

function toJobState(body: unknown, jobId: string): FineTuningJobState {
  const job = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof job.status !== "string") {
    throw new FineTuningReadError(
      `The answer for fine-tuning job "${jobId}" has no status: is OPENAI_BASE_URL an OpenAI-compatible API?`,
      { status: 200, retryable: false },
    );
  }
  const error = job.error as { code?: unknown; message?: unknown } | null | undefined;
  return {
    id: typeof job.id === "string" ? job.id : jobId,
    status: job.status,
    baseModel: typeof job.model === "string" ? job.model : null,
    fineTunedModel: typeof job.fine_tuned_model === "string" ? job.fine_tuned_model : null,
    error:
      typeof error === "object" && error !== null && typeof error.message === "string"
        ? { code: typeof error.code === "string" ? error.code : null, message: error.message }
        : null,
  };
}

function toCheckpoint(entry: unknown, jobId: string): FineTuningCheckpoint {
  const checkpoint = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
    string,
    unknown
  >;
  const { id, fine_tuned_model_checkpoint: model, step_number: step } = checkpoint;
  if (typeof id !== "string" || typeof model !== "string" || typeof step !== "number") {
    throw new FineTuningReadError(
      `A checkpoint of fine-tuning job "${jobId}" lacks id, fine_tuned_model_checkpoint or step_number: ${JSON.stringify(entry).slice(0, 200)}`,
      { status: 200, retryable: false },
    );
  }
  const metrics = checkpoint.metrics;
  const trainingMetrics: Record<string, number> = {};
  if (typeof metrics === "object" && metrics !== null) {
    for (const [name, value] of Object.entries(metrics)) {
      if (typeof value === "number" && Number.isFinite(value)) trainingMetrics[name] = value;
    }
  }
  const createdAt = typeof checkpoint.created_at === "number" ? checkpoint.created_at * 1000 : 0;
  return { id, model, step, createdAt: new Date(createdAt).toISOString(), trainingMetrics };
}
