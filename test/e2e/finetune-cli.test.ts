// `verdict finetune watch` as a user runs it: a child process watching a job on the fake
// OpenAI server (its checkpoints answer the goldens, the judge is the same server), with its
// SQLite store in a VERDICT_HOME of its own; stopped with SIGINT or SIGKILL, and started again.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { checkpointMetadataOf } from "../../src/finetune/checkpoint-runs.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import type { FakeFineTuningJobOptions } from "../../src/testing/fake-fine-tuning.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  FINETUNE_GOLDENS,
  fineTuningJudgeResponder,
  riseAndFallCheckpoints,
} from "../fixtures/finetune-job.ts";
import { type NodeRun, projectRoot, runNode } from "./run-node.ts";

const MAIN = path.join(projectRoot, "src", "cli", "main.ts");

interface Setup {
  server: FakeOpenAIServer;
  project: string;
  env: NodeJS.ProcessEnv;
  /** Starts `verdict finetune watch <job> …` in the project. */
  watch: (extra?: string[], jobId?: string) => NodeRun;
  store: () => SqliteRunStore;
}

/**
 * A fake server with one job, and a project folder with the goldens and a store of its own;
 * removed when the test ends.
 */
async function setup(context: TestContext, job: FakeFineTuningJobOptions): Promise<Setup> {
  const server = await startFakeOpenAIServer({
    fineTuningJobs: [job],
    respond: fineTuningJudgeResponder,
  });
  const project = mkdtempSync(path.join(tmpdir(), "verdict-finetune-cli-"));
  writeFileSync(path.join(project, "goldens.json"), JSON.stringify(FINETUNE_GOLDENS));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(OPENAI|ANTHROPIC|GOOGLE|AZURE|OLLAMA|VERDICT)_/.test(key)) env[key] = value;
  }
  Object.assign(env, {
    OPENAI_API_KEY: "sk-finetune-cli-test-0001",
    OPENAI_BASE_URL: server.url,
    VERDICT_HOME: path.join(project, ".verdict"),
  });
  const opened: SqliteRunStore[] = [];
  context.onTestFinished(async () => {
    for (const store of opened) await store.close();
    await server.close();
    rmSync(project, { recursive: true, force: true });
  });
  return {
    server,
    project,
    env,
    watch: (extra = [], jobId = job.id) =>
      runNode({
        args: [
          MAIN,
          "finetune",
          "watch",
          jobId,
          "--goldens",
          "goldens.json",
          "--metrics",
          "toxicity,relevancy",
          "--judge",
          "gpt-4.1",
          "--poll-interval",
          "0.05",
          ...extra,
        ],
        env,
        cwd: project,
      }),
    store: () => {
      const store = new SqliteRunStore({ path: path.join(project, ".verdict", "verdict.db") });
      opened.push(store);
      return store;
    },
  };
}

/** Waits until the child printed something matching `pattern` (or ended, which fails). */
async function waitForOutput(run: NodeRun, pattern: RegExp): Promise<void> {
  let ended = false;
  void run.exited.then(() => {
    ended = true;
  });
  while (!pattern.test(run.output().stdout)) {
    if (ended) {
      throw new Error(
        `the watch ended before printing ${pattern}:\n${run.output().stdout}\n${run.output().stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The checkpoint models the server was asked to answer with, from request `from` on. */
function generationModels(server: FakeOpenAIServer, from = 0): string[] {
  return server.requests
    .slice(from)
    .filter((request) => request.model.startsWith("ft:"))
    .map((request) => request.model.replace(/^.*:ckpt-step-/, "step "));
}

/** The table row of the checkpoint at `step` (epoch = step / 10). */
const rowOf = (step: number) => new RegExp(`\\|\\s+${step / 10} \\|\\s+${step} \\|`);

describe.concurrent("verdict finetune watch", () => {
  it("scores the three checkpoints, stores a run each, names the best, and exits 1 because the final model is worse", async (context) => {
    const { watch, store } = await setup(context, {
      id: "ftjob-cli-full",
      checkpoints: riseAndFallCheckpoints(),
    });
    const { code, stdout, stderr } = await watch().finished;
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(stdout).toContain("Best checkpoint by Toxicity (lower is better): step 20, epoch 2 (");
    expect(stdout).toMatch(
      /The final model, step 30, epoch 3 \(.*\), is significantly worse than the best checkpoint on Toxicity/,
    );
    for (const step of [10, 20, 30]) expect(stdout).toMatch(rowOf(step));
    const runs = (await store().runs.listRuns())
      .filter((run) => run.identifier === "finetune:ftjob-cli-full")
      .reverse();
    expect(runs.map((run) => [run.status, checkpointMetadataOf(run)?.step])).toEqual([
      ["completed", 10],
      ["completed", 20],
      ["completed", 30],
    ]);
    expect(runs.map((run) => run.summary?.metrics[0]?.meanScore)).toEqual([0.5, 0, 11 / 12]);
  });

  it("stopped by Ctrl-C after checkpoint 2 (exit 130), then started again: scores checkpoint 3 alone", async (context) => {
    const { server, watch, store } = await setup(context, {
      id: "ftjob-cli-sigint",
      checkpoints: riseAndFallCheckpoints(),
      schedule: "manual",
    });
    server.publishCheckpoint("ftjob-cli-sigint");
    server.publishCheckpoint("ftjob-cli-sigint");
    const first = watch();
    await waitForOutput(first, rowOf(20));
    first.child.kill("SIGINT");
    const stopped = await first.finished;
    expect(stopped.stderr).toBe("");
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toContain("Interrupted: 2 checkpoints scored and stored.");
    expect(generationModels(server).filter((model) => model === "step 30")).toEqual([]);
    server.publishCheckpoint("ftjob-cli-sigint");
    const before = server.requests.length;
    // No cache: a checkpoint scored again would ask its model again.
    const second = await watch(["--no-cache"]).finished;
    expect(second.stderr).toBe("");
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/Checkpoint step 10, epoch 1 \(.*\) was scored before/);
    expect(second.stdout).toMatch(/Checkpoint step 20, epoch 2 \(.*\) was scored before/);
    expect(new Set(generationModels(server, before))).toEqual(new Set(["step 30"]));
    expect(
      (await store().runs.listRuns())
        .filter((run) => run.identifier === "finetune:ftjob-cli-sigint")
        .map((run) => checkpointMetadataOf(run)?.step),
    ).toEqual([30, 20, 10]);
  });

  it("killed with SIGKILL after checkpoint 2, then started again: scores checkpoint 3 alone", async (context) => {
    const { server, watch, store } = await setup(context, {
      id: "ftjob-cli-sigkill",
      checkpoints: riseAndFallCheckpoints(),
      schedule: "manual",
    });
    server.publishCheckpoint("ftjob-cli-sigkill");
    server.publishCheckpoint("ftjob-cli-sigkill");
    const first = watch();
    await waitForOutput(first, rowOf(20));
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();
    server.publishCheckpoint("ftjob-cli-sigkill");
    const before = server.requests.length;
    const second = await watch(["--no-cache"]).finished;
    expect(second.code).toBe(1);
    expect(new Set(generationModels(server, before))).toEqual(new Set(["step 30"]));
    const runs = (await store().runs.listRuns()).filter(
      (run) => run.identifier === "finetune:ftjob-cli-sigkill",
    );
    expect(runs.map((run) => [run.status, checkpointMetadataOf(run)?.step])).toEqual([
      ["completed", 30],
      ["completed", 20],
      ["completed", 10],
    ]);
  });

  it("reports a failed job with its error and exits 1", async (context) => {
    const { watch } = await setup(context, {
      id: "ftjob-cli-failed",
      checkpoints: riseAndFallCheckpoints(),
      failure: { afterCheckpoints: 1, message: "The training file has 3 invalid lines." },
    });
    const { code, stdout } = await watch().finished;
    expect(code).toBe(1);
    expect(stdout).toContain(
      "Fine-tuning job ftjob-cli-failed failed: The training file has 3 invalid lines. (invalid_training_file). 1 checkpoint scored before it ended",
    );
    expect(stdout).toMatch(rowOf(10));
  });

  it("exits 2 saying what to do for an unknown metric, job or goldens file", async (context) => {
    const { watch } = await setup(context, {
      id: "ftjob-cli-known",
      checkpoints: riseAndFallCheckpoints(),
    });
    const [unknownMetric, unknownJob, noGoldens] = await Promise.all([
      watch(["--metrics", "toxicity,fluency"]).finished,
      watch([], "ftjob-nope").finished,
      watch(["--goldens", "missing.json"]).finished,
    ]);
    expect(unknownMetric.code).toBe(2);
    expect(unknownMetric.stderr).toContain('--metrics names an unknown metric "fluency"');
    expect(unknownJob.code).toBe(2);
    expect(unknownJob.stderr).toContain('No fine-tuning job "ftjob-nope"');
    expect(noGoldens.code).toBe(2);
    expect(noGoldens.stderr).toContain('Dataset file "');
    expect(noGoldens.stderr).toContain('missing.json" does not exist');
  });
});
