import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answerFineTuningJudge,
  FINETUNE_GOLDENS,
  FINETUNE_JOB_ID,
  RISE_AND_FALL_TOXICITY,
  riseAndFallCheckpoints,
} from "../../test/fixtures/finetune-job.ts";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { FineTuningReadError } from "../errors/fine-tuning-read-error.ts";
import { AnswerRelevancyMetric } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { SqliteRunStore } from "../store/sqlite-run-store.ts";
import type { FakeFineTuningJobOptions } from "../testing/fake-fine-tuning.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../testing/fake-openai-server.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import type { Trend } from "../view/api.ts";
import { createViewServer } from "../view/server/view-server.ts";
import { checkpointMetadataOf } from "./checkpoint-runs.ts";
import { evaluateCheckpoints } from "./evaluate-checkpoints.ts";
import type { EvaluateCheckpointsOptions } from "./evaluate-checkpoints-options.ts";
import { createOpenAIFineTuningSource } from "./openai-fine-tuning-source.ts";

const IDENTIFIER = `finetune:${FINETUNE_JOB_ID}`;
const CHECKPOINT_MODEL = (step: number) =>
  `ft:gpt-4.1-mini-2025-04-14:verdict-fake::risefall01:ckpt-step-${step}`;

let server: FakeOpenAIServer;
let folder: string;
let store: SqliteRunStore;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
  folder = mkdtempSync(path.join(tmpdir(), "verdict-finetune-"));
  store = new SqliteRunStore({ path: path.join(folder, "verdict.db") });
  env = { OPENAI_API_KEY: "sk-finetune-test-key-0001", OPENAI_BASE_URL: server.url };
});

afterEach(async () => {
  await store.close();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

function addJob(options: Partial<FakeFineTuningJobOptions> = {}): void {
  server.addFineTuningJob({
    id: FINETUNE_JOB_ID,
    checkpoints: riseAndFallCheckpoints(),
    ...options,
  });
}

/** A watch of the test job: in-process scripted judge, no real waits, output collected. */
function watch(options: Partial<EvaluateCheckpointsOptions> = {}) {
  const judge = new MockJudge({ answers: (call) => answerFineTuningJudge(call) });
  const delays: number[] = [];
  let printed = "";
  const run = evaluateCheckpoints({
    job: FINETUNE_JOB_ID,
    goldens: FINETUNE_GOLDENS,
    metrics: [new ToxicityMetric({ model: judge }), new AnswerRelevancyMetric({ model: judge })],
    store,
    env,
    handleInterrupt: false,
    pollIntervalMs: 1000,
    sleep: async ({ delayMs }) => {
      delays.push(delayMs);
    },
    print: (text) => {
      printed += text;
    },
    ...options,
  });
  return { run, judge, delays, printed: () => printed };
}

const generationModels = () =>
  server.requests
    .filter((request) => request.model.startsWith("ft:"))
    .map((request) => request.model);

describe("evaluateCheckpoints", () => {
  it("scores each checkpoint as it appears, stores a run per checkpoint, names the best, and finds the final model worse", async () => {
    addJob();
    const { run, delays, printed } = watch();
    const result = await run;
    expect(result.outcome).toBe("final-worse");
    expect(result.checkpoints.map((entry) => [entry.checkpoint.step, entry.epoch])).toEqual([
      [10, 1],
      [20, 2],
      [30, 3],
    ]);
    expect(
      result.checkpoints.map(
        (entry) => entry.summary.metrics.find((metric) => metric.name === "Toxicity")?.meanScore,
      ),
    ).toEqual(RISE_AND_FALL_TOXICITY);
    // Every golden went to every checkpoint's model, its input as the user message.
    expect(generationModels().sort()).toEqual(
      [10, 20, 30].flatMap((step) => Array(12).fill(CHECKPOINT_MODEL(step))).sort(),
    );
    expect(server.requests.find((request) => request.model.startsWith("ft:"))?.prompt).toMatch(
      /^Question \d+: how do I reset my password\?$/,
    );
    // One stored run per checkpoint, under the job's identifier, with the checkpoint in its metadata.
    const runs = (await store.runs.listRuns()).filter((stored) => stored.identifier === IDENTIFIER);
    expect(runs).toHaveLength(3);
    expect(runs.map((stored) => checkpointMetadataOf(stored)).reverse()).toEqual([
      expect.objectContaining({
        job: FINETUNE_JOB_ID,
        step: 10,
        epoch: 1,
        model: CHECKPOINT_MODEL(10),
        generation: { calls: 12, cacheHits: 0 },
      }),
      expect.objectContaining({
        step: 20,
        epoch: 2,
        trainingMetrics: { step: 20, train_loss: 0.61 },
      }),
      expect.objectContaining({ step: 30, epoch: 3, model: CHECKPOINT_MODEL(30) }),
    ]);
    expect(runs.every((stored) => stored.status === "completed")).toBe(true);
    // The best by Toxicity (the first metric), with its interval; the final model is step 30.
    expect(result.best?.evaluation.checkpoint.step).toBe(20);
    expect(result.best).toMatchObject({
      metric: "Toxicity",
      lowerIsBetter: true,
      meanScore: 0,
      meanScoreInterval: [0, 0],
    });
    expect(result.final?.checkpoint.step).toBe(30);
    const toxicity = result.comparison?.metrics.find((metric) => metric.name === "Toxicity");
    expect(toxicity?.regressions).toEqual([
      expect.stringMatching(/^pass rate 100\.0% → 8\.3% \(p < 0\.001\)$/),
      expect.stringMatching(/^mean score 0\.00 → 0\.92 \(lower is better\) \(p < 0\.001\)$/),
    ]);
    // The poll loop waited the base interval after each new checkpoint, and stopped once the job ended.
    expect(delays).toEqual([1000, 1000]);
    const output = printed();
    expect(output).toContain(
      "Best checkpoint by Toxicity (lower is better): step 20, epoch 2 (ft:",
    );
    expect(output).toContain("mean score 0.00 (95% CI 0.00–0.00), pass rate 100.0% (95% CI");
    expect(output).toContain(
      `The final model, step 30, epoch 3 (${CHECKPOINT_MODEL(30)}), is significantly worse than the best checkpoint on Toxicity: pass rate 100.0% → 8.3%`,
    );
    expect(output).toContain(
      `Compare them: verdict compare ${result.best?.evaluation.run.id} ${result.final?.run.id}`,
    );
    // A table after each checkpoint (1, 2, then 3 rows), and a last one marking best and final.
    expect(output.match(/\| Epoch \| Step \|/g)).toHaveLength(4);
    expect(output).toMatch(/\|\s+2 \|\s+20 \|\s+0\.61 \|\s+0\.00 \[0\.00–0\.00\] \|.*\| best\s+\|/);
  });

  it("shows the checkpoints as a trend in the dashboard's data", async () => {
    addJob();
    await watch().run;
    const view = createViewServer({ store, appFolder: null, log: () => {} });
    await new Promise<void>((resolve) => view.listen(0, "127.0.0.1", () => resolve()));
    try {
      const { port } = view.address() as AddressInfo;
      const response = await fetch(
        `http://127.0.0.1:${port}/api/trends?identifier=${encodeURIComponent(IDENTIFIER)}`,
      );
      const trend = (await response.json()) as Trend;
      expect(trend.metricNames).toEqual(["Toxicity", "Answer Relevancy"]);
      expect(trend.points.map((point) => point.metrics.Toxicity?.meanScore)).toEqual(
        RISE_AND_FALL_TOXICITY,
      );
      expect(trend.points.map((point) => point.metrics["Answer Relevancy"]?.meanScore)).toEqual([
        0.5,
        1,
        1 / 12,
      ]);
      expect(trend.points.every((point) => point.status === "completed")).toBe(true);
    } finally {
      view.closeAllConnections();
      await new Promise<void>((resolve) => view.close(() => resolve()));
    }
  });

  it("names the best by --metric-for-best, and judges the final model on it", async () => {
    addJob();
    const result = await watch({ metricForBest: "relevancy" }).run;
    expect(result.best).toMatchObject({
      metric: "Answer Relevancy",
      lowerIsBetter: false,
      meanScore: 1,
    });
    expect(result.best?.evaluation.checkpoint.step).toBe(20);
    expect(result.outcome).toBe("final-worse");
    await expect(watch({ metricForBest: "fluency" }).run).rejects.toThrow(
      'metricForBest "fluency" names none of the metrics scored: use one of "Toxicity", "Answer Relevancy".',
    );
  });

  it("after an interruption, scores only the checkpoints not stored yet", async () => {
    addJob();
    const controller = new AbortController();
    const first = await watch({
      signal: controller.signal,
      onCheckpoint: (evaluation) => {
        if (evaluation.checkpoint.step === 20) controller.abort();
      },
    }).run;
    expect(first.outcome).toBe("interrupted");
    expect(first.checkpoints.map((entry) => entry.checkpoint.step)).toEqual([10, 20]);
    expect(first.message).toContain("Interrupted: 2 checkpoints scored and stored.");
    server.reset();
    // No cache: a checkpoint scored again would call the model and the judge again.
    const second = watch({ cache: false });
    const result = await second.run;
    expect(result.outcome).toBe("final-worse");
    expect(result.checkpoints.map((entry) => [entry.checkpoint.step, entry.reused])).toEqual([
      [10, true],
      [20, true],
      [30, false],
    ]);
    expect(new Set(generationModels())).toEqual(new Set([CHECKPOINT_MODEL(30)]));
    expect(second.printed()).toContain(
      `Checkpoint step 10, epoch 1 (${CHECKPOINT_MODEL(10)}) was scored before`,
    );
    expect(
      (await store.runs.listRuns()).filter((stored) => stored.identifier === IDENTIFIER),
    ).toHaveLength(3);
    expect(result.best?.evaluation.run.id).toBe(first.checkpoints[1]?.run.id);
  });

  it("resumes a checkpoint whose run was cut short, keeping the cases it finished", async () => {
    addJob();
    const controller = new AbortController();
    let finishedInSecond = 0;
    // The watch scores the checkpoints in order, one run each: its second run is step 20's.
    const runIds: string[] = [];
    const first = await watch({
      signal: controller.signal,
      maxConcurrent: 1,
      onProgress: (event) => {
        if (event.type === "run-start") runIds.push(event.runId);
        if (event.type !== "test-case-end") return;
        if (event.runId === runIds[1] && ++finishedInSecond === 5) controller.abort();
      },
    }).run;
    expect(first.outcome).toBe("interrupted");
    const cut = await store.runs.getRun(IDENTIFIER);
    expect(cut?.id).toBe(runIds[1]);
    expect(cut?.status).toBe("interrupted");
    expect(checkpointMetadataOf(cut as NonNullable<typeof cut>)?.step).toBe(20);
    const kept = (await store.runs.getTestResults(cut?.id as string)).length;
    expect(kept).toBeGreaterThanOrEqual(5);
    expect(kept).toBeLessThan(12);
    const second = watch({ cache: false });
    const result = await second.run;
    expect(result.checkpoints.map((entry) => [entry.checkpoint.step, entry.reused])).toEqual([
      [10, true],
      [20, false],
      [30, false],
    ]);
    // The cut run is the one finished: no second run for step 20.
    expect(result.checkpoints[1]?.run.id).toBe(cut?.id);
    expect(
      (await store.runs.listRuns()).filter((stored) => stored.identifier === IDENTIFIER),
    ).toHaveLength(3);
    expect(await store.runs.getTestResults(cut?.id as string)).toHaveLength(12);
  });

  it("reports a failed job with its error, after scoring the checkpoints it published", async () => {
    addJob({
      failure: {
        afterCheckpoints: 1,
        message: "Training diverged at step 12.",
        code: "training_diverged",
      },
    });
    const { run, printed } = watch();
    const result = await run;
    expect(result.outcome).toBe("job-failed");
    expect(result.job).toMatchObject({ status: "failed", error: { code: "training_diverged" } });
    expect(result.checkpoints.map((entry) => entry.checkpoint.step)).toEqual([10]);
    expect(result.final).toBeNull();
    expect(result.message).toContain(
      `Fine-tuning job ${FINETUNE_JOB_ID} failed: Training diverged at step 12. (training_diverged). 1 checkpoint scored before it ended; there is no final model to judge.`,
    );
    expect(printed()).toContain("Best checkpoint by Toxicity");
  });

  it("backs off while nothing new appears, and starts again after a new checkpoint", async () => {
    addJob({ schedule: { everyPolls: 3 } });
    const { run, delays } = watch();
    const result = await run;
    expect(result.checkpoints).toHaveLength(3);
    // A checkpoint every third poll: after each that found nothing the wait grows by half
    // (1 s, 1.5 s); after a new checkpoint it is back to 1 s. The job ends at poll 9.
    expect(delays).toEqual([1000, 1500, 1000, 1000, 1500, 1000, 1000, 1500]);
  });

  it("reads the job again after a retryable failure, waiting as long as the provider asks", async () => {
    addJob();
    let failures = 2;
    const flaky: typeof fetch = async (input, init) => {
      if (failures-- > 0) {
        return new Response(JSON.stringify({ error: { message: "Server overloaded." } }), {
          status: 503,
          headers: { "retry-after": "7" },
        });
      }
      return fetch(input, init);
    };
    const { run, delays, printed } = watch({
      job: createOpenAIFineTuningSource({ jobId: FINETUNE_JOB_ID, env, fetch: flaky }),
    });
    const result = await run;
    expect(result.checkpoints).toHaveLength(3);
    expect(delays.slice(0, 2)).toEqual([7000, 7000]);
    expect(printed()).toContain(
      `Reading fine-tuning job "${FINETUNE_JOB_ID}" failed (HTTP 503): Server overloaded.. This is usually temporary. Reading it again in 7.0s.`,
    );
  });

  it("gives up after maxPollFailures failed reads in a row", async () => {
    const down: typeof fetch = async () => new Response("{}", { status: 500 });
    const { run, delays } = watch({
      job: createOpenAIFineTuningSource({ jobId: FINETUNE_JOB_ID, env, fetch: down }),
      maxPollFailures: 3,
    });
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FineTuningReadError);
    expect((error as Error).message).toContain("Gave up after 3 failed reads in a row");
    // The wait doubles after each failure.
    expect(delays).toEqual([1000, 2000]);
  });

  it("says what to do about an unknown job, a missing key, and bad options", async () => {
    const unknown = await watch({ job: "ftjob-missing" }).run.catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(ConfigError);
    expect((unknown as Error).message).toContain('No fine-tuning job "ftjob-missing"');
    env = { OPENAI_BASE_URL: server.url };
    await expect(watch().run).rejects.toThrow(
      `Watching fine-tuning job "${FINETUNE_JOB_ID}" needs OPENAI_API_KEY`,
    );
    env = { OPENAI_API_KEY: "sk-finetune-test-key-0001", OPENAI_BASE_URL: server.url };
    await expect(watch({ goldens: [] }).run).rejects.toThrow("needs goldens");
    await expect(watch({ pollIntervalMs: 0 }).run).rejects.toThrow(
      "pollIntervalMs must be more than 0",
    );
  });

  it("sends the system message with each golden; answers are cached by model, settings and prompt", async () => {
    addJob();
    await watch({ generation: { system: "You are the support bot." } }).run;
    expect(server.requests.filter((request) => request.model.startsWith("ft:"))[0]).toMatchObject({
      endpoint: "chat.completions",
      temperature: 0,
      prompt: expect.stringMatching(/^You are the support bot\.\nQuestion \d+: how do I reset/),
    });
    // Another watch of the same job (another identifier: nothing is "scored before"): the
    // checkpoints' answers come from the cache…
    server.reset();
    const again = await watch({
      identifier: "again",
      generation: { system: "You are the support bot." },
    }).run;
    expect(generationModels()).toEqual([]);
    expect(checkpointMetadataOf(again.checkpoints[0]?.run as never)?.generation).toEqual({
      calls: 0,
      cacheHits: 12,
    });
    // …but not for another system message.
    server.reset();
    await watch({ identifier: "other", generation: { system: "You are terse." } }).run;
    expect(generationModels()).toHaveLength(36);
  });

  it("stops with an error naming the checkpoint when its model cannot answer", async () => {
    server.addFineTuningJob({
      id: FINETUNE_JOB_ID,
      checkpoints: [
        {
          step: 10,
          answer: () =>
            reply.error(400, { message: "The prompt was flagged by the moderation system." }),
        },
      ],
    });
    const error = await watch().run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EvalError);
    expect((error as EvalError).code).toBe("FINE_TUNING");
    expect((error as Error).message).toContain(
      `Checkpoint step 10, epoch 1 (${CHECKPOINT_MODEL(10)}) could not answer the goldens (12 goldens failed): `,
    );
    expect((error as Error).message).toContain("The prompt was flagged by the moderation system.");
  });

  it("works without a store, comparing the runs it kept in memory", async () => {
    addJob();
    const result = await watch({ store: false }).run;
    expect(result.outcome).toBe("final-worse");
    expect(await store.runs.listRuns()).toHaveLength(0);
  });
});
