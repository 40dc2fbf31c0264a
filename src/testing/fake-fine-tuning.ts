import { errorBody, type FakeReply, type FakeResponder, reply } from "./fake-openai-replies.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

/** One checkpoint of a fake fine-tuning job. */
export interface FakeFineTuningCheckpoint {
  /** The training step it was saved at (OpenAI's `step_number`). */
  step: number;
  /**
   * Training metrics published with it, in OpenAI's names.
   * @default { step, train_loss } with a loss that falls with the step
   */
  metrics?: Record<string, number>;
  /**
   * How the checkpoint's model answers chat and responses calls once it is published: the same
   * text to every call, or a responder (which sees the request, prompt included).
   */
  answer: string | FakeResponder;
}

/**
 * When a fake job publishes its next checkpoint: after every `everyPolls` reads of the job
 * (`GET /v1/fine_tuning/jobs/:id`), every `everyMs` milliseconds since the job was added, or
 * only when the test calls `server.publishCheckpoint(jobId)` (`"manual"`, which every schedule
 * also allows).
 */
export type FakeFineTuningSchedule = { everyPolls: number } | { everyMs: number } | "manual";

/** A fake OpenAI fine-tuning job: checkpoints that appear over time, then success or failure. */
export interface FakeFineTuningJobOptions {
  /** The job id, e.g. `"ftjob-abc123"`. */
  id: string;
  /** The base model. @default "gpt-4.1-mini-2025-04-14" */
  model?: string;
  /** Published in this order; the job succeeds once the last is published. */
  checkpoints: FakeFineTuningCheckpoint[];
  /** @default { everyPolls: 1 } */
  schedule?: FakeFineTuningSchedule;
  /**
   * Makes the job fail once this many checkpoints are published (0: before any); the rest are
   * never published.
   */
  failure?: { afterCheckpoints: number; message?: string; code?: string };
}

/** What the fake server answers to a fine-tuning route. */
export interface FakeFineTuningAnswer {
  status: number;
  body: unknown;
}

interface JobState {
  options: FakeFineTuningJobOptions;
  fineTunedModel: string;
  addedAt: number;
  polls: number;
  published: Array<{ checkpoint: FakeFineTuningCheckpoint; createdAt: number }>;
  finishedAt: number | null;
}

const DEFAULT_BASE_MODEL = "gpt-4.1-mini-2025-04-14";

/**
 * The fine-tuning jobs of a fake OpenAI server: `GET /v1/fine_tuning/jobs/:id` and
 * `GET /v1/fine_tuning/jobs/:id/checkpoints` (newest first, paged with `limit` and `after`) as
 * OpenAI shapes them, and the answers of the checkpoints' models. A checkpoint's model is named
 * `ft:<base>:verdict-fake::<job suffix>:ckpt-step-<step>`; the final model (`fine_tuned_model`,
 * once the job succeeded) answers as the last checkpoint. A checkpoint model not published yet
 * answers 404 `model_not_found`, as OpenAI would.
 */
export class FakeFineTuning {
  private readonly jobs = new Map<string, JobState>();
  private readonly now: () => number;

  constructor(options: { jobs?: readonly FakeFineTuningJobOptions[]; now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
    for (const job of options.jobs ?? []) this.add(job);
  }

  /** Adds (or replaces) a job; its schedule starts now. */
  add(options: FakeFineTuningJobOptions): void {
    checkJob(options);
    const suffix = options.id.replace(/^ftjob-/, "").slice(0, 12) || "job";
    this.jobs.set(options.id, {
      options,
      fineTunedModel: `ft:${options.model ?? DEFAULT_BASE_MODEL}:verdict-fake::${suffix}`,
      addedAt: this.now(),
      polls: 0,
      published: [],
      finishedAt: null,
    });
  }

  /** Publishes the job's next checkpoint now; returns its model, or `null` when none is left. */
  publishNext(jobId: string): string | null {
    const job = this.jobs.get(jobId);
    if (job === undefined) {
      throw new Error(`publishCheckpoint: no fake fine-tuning job "${jobId}"; add it first.`);
    }
    const before = job.published.length;
    this.publishUpTo(job, before + 1);
    const added = job.published[before];
    return added === undefined ? null : modelOf(job, added.checkpoint);
  }

  /** Starts every job's schedule again: nothing published, no polls counted. */
  reset(): void {
    for (const job of this.jobs.values()) {
      job.addedAt = this.now();
      job.polls = 0;
      job.published = [];
      job.finishedAt = null;
    }
  }

  /** Answers `GET /v1/fine_tuning/jobs/:id` or `…/checkpoints` (404 for another path). */
  answerRoute(options: { pathname: string; query: URLSearchParams }): FakeFineTuningAnswer {
    const match = /^\/v1\/fine_tuning\/jobs\/([^/]+)(\/checkpoints)?\/?$/.exec(options.pathname);
    if (match === null) {
      const message = `Invalid URL (GET ${options.pathname})`;
      return { status: 404, body: errorBody({ status: 404, message }) };
    }
    const jobId = decodeURIComponent(match[1] as string);
    const job = this.jobs.get(jobId);
    if (job === undefined) {
      return {
        status: 404,
        body: errorBody({
          status: 404,
          code: "fine_tune_not_found",
          message: `Could not find fine tune job: ${jobId}`,
        }),
      };
    }
    if (match[2] === undefined) {
      job.polls += 1;
      this.advance(job);
      return { status: 200, body: this.jobObject(job) };
    }
    this.advance(job);
    return { status: 200, body: this.checkpointPage(job, options.query) };
  }

  /** The reply of a checkpoint's model to a model call, or `undefined` for any other model. */
  replyFor(request: FakeOpenAIRequest): FakeReply | FakeResponder | undefined {
    for (const job of this.jobs.values()) {
      this.advance(job);
      const last = job.published.at(-1);
      if (last !== undefined && job.finishedAt !== null && request.model === job.fineTunedModel) {
        return answerOf(last.checkpoint);
      }
      for (const checkpoint of job.options.checkpoints) {
        if (request.model !== modelOf(job, checkpoint)) continue;
        const published = job.published.some((entry) => entry.checkpoint === checkpoint);
        return published ? answerOf(checkpoint) : reply.modelNotFound(request.model);
      }
    }
    return undefined;
  }

  private advance(job: JobState): void {
    const schedule = job.options.schedule ?? { everyPolls: 1 };
    if (schedule === "manual") return;
    const due =
      "everyPolls" in schedule
        ? Math.floor(job.polls / schedule.everyPolls)
        : Math.floor((this.now() - job.addedAt) / schedule.everyMs);
    this.publishUpTo(job, due);
  }

  private publishUpTo(job: JobState, count: number): void {
    const { checkpoints, failure } = job.options;
    const limit = Math.min(checkpoints.length, failure?.afterCheckpoints ?? checkpoints.length);
    while (job.published.length < Math.min(count, limit)) {
      const checkpoint = checkpoints[job.published.length] as FakeFineTuningCheckpoint;
      job.published.push({ checkpoint, createdAt: Math.floor(this.now() / 1000) });
    }
    const failed = failure !== undefined && job.published.length >= failure.afterCheckpoints;
    if (job.finishedAt === null && (failed || job.published.length === checkpoints.length)) {
      job.finishedAt = Math.floor(this.now() / 1000);
    }
  }

  private jobObject(job: JobState): Record<string, unknown> {
    const { options } = job;
    const failed =
      options.failure !== undefined && job.published.length >= options.failure.afterCheckpoints;
    const succeeded = !failed && job.published.length === options.checkpoints.length;
    return {
      object: "fine_tuning.job",
      id: options.id,
      model: options.model ?? DEFAULT_BASE_MODEL,
      created_at: Math.floor(job.addedAt / 1000),
      finished_at: job.finishedAt,
      fine_tuned_model: succeeded ? job.fineTunedModel : null,
      organization_id: "org-verdict-fake",
      result_files: [],
      status: failed ? "failed" : succeeded ? "succeeded" : "running",
      validation_file: null,
      training_file: "file-verdict-fake",
      hyperparameters: {
        n_epochs: options.checkpoints.length,
        batch_size: 1,
        learning_rate_multiplier: 1,
      },
      trained_tokens: succeeded ? 1000 * options.checkpoints.length : null,
      error: failed
        ? {
            code: options.failure?.code ?? "invalid_training_file",
            message:
              options.failure?.message ??
              "The job failed due to an invalid training file: line 3 is not valid JSON.",
            param: "training_file",
          }
        : null,
      seed: 42,
      estimated_finish: null,
      method: { type: "supervised" },
    };
  }

  private checkpointPage(job: JobState, query: URLSearchParams): Record<string, unknown> {
    const limit = Math.max(1, Math.min(100, Number(query.get("limit") ?? 10) || 10));
    const newestFirst = job.published.map((entry) => this.checkpointObject(job, entry)).reverse();
    const after = query.get("after");
    const start =
      after === null ? 0 : newestFirst.findIndex((checkpoint) => checkpoint.id === after) + 1;
    const data = newestFirst.slice(start, start + limit);
    return {
      object: "list",
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: start + limit < newestFirst.length,
    };
  }

  private checkpointObject(
    job: JobState,
    entry: JobState["published"][number],
  ): { id: string } & Record<string, unknown> {
    const { checkpoint } = entry;
    return {
      object: "fine_tuning.job.checkpoint",
      id: `ftckpt_${job.options.id.replace(/^ftjob-/, "")}_${checkpoint.step}`,
      created_at: entry.createdAt,
      fine_tuned_model_checkpoint: modelOf(job, checkpoint),
      fine_tuning_job_id: job.options.id,
      step_number: checkpoint.step,
      metrics: checkpoint.metrics ?? {
        step: checkpoint.step,
        train_loss: Math.round((10 / (10 + checkpoint.step)) * 1000) / 1000,
      },
    };
  }
}

function modelOf(job: JobState, checkpoint: FakeFineTuningCheckpoint): string {
  return `${job.fineTunedModel}:ckpt-step-${checkpoint.step}`;
}

function answerOf(checkpoint: FakeFineTuningCheckpoint): FakeReply | FakeResponder {
  return typeof checkpoint.answer === "string" ? reply.text(checkpoint.answer) : checkpoint.answer;
}

function checkJob(options: FakeFineTuningJobOptions): void {
  if (typeof options.id !== "string" || options.id === "") {
    throw new Error('A fake fine-tuning job needs an id, e.g. { id: "ftjob-abc123", … }.');
  }
  const steps = options.checkpoints.map((checkpoint) => checkpoint.step);
  if (
    steps.some(
      (step, index) => !Number.isInteger(step) || step < 1 || step <= (steps[index - 1] ?? 0),
    )
  ) {
    throw new Error(
      `The checkpoints of fake job "${options.id}" need whole, increasing steps of at least 1; got ${steps.join(", ")}.`,
    );
  }
  const schedule = options.schedule;
  if (schedule !== undefined && schedule !== "manual") {
    const every = "everyPolls" in schedule ? schedule.everyPolls : schedule.everyMs;
    if (!(every > 0)) {
      throw new Error(`The schedule of fake job "${options.id}" needs a positive interval.`);
    }
  }
}
