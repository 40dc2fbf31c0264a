// The training-loop callback inside a real TensorFlow.js `model.fit` (pure-JS CPU backend): a
// one-weight model learning f(x) = 2x + 1, whose `generate` answers each golden with the model's
// prediction — politely when it is right, rudely when it is wrong — scored by a scripted judge.
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { createEvaluationCallback } from "../../src/finetune/evaluation-callback.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { MemoryRunStore } from "../../src/store/memory-run-store.ts";
import { MockJudge } from "../../src/testing/mock-judge.ts";
import { answerFineTuningJudge, POLITE_ANSWER, RUDE_ANSWER } from "../fixtures/finetune-job.ts";

const XS = [0, 1, 2, 3, 4, 5];
const GOLDENS = XS.map((x) => ({ name: `f(${x})`, input: `What is f(${x})?` }));

beforeAll(async () => {
  // Production mode: no "install tfjs-node" banner in the test output.
  tf.enableProdMode();
  await tf.ready();
});

function tinyModel(): tf.Sequential {
  const model = tf.sequential();
  model.add(
    tf.layers.dense({
      units: 1,
      inputShape: [1],
      kernelInitializer: "zeros",
      biasInitializer: "zeros",
    }),
  );
  model.compile({ optimizer: tf.train.sgd(0.05), loss: "meanSquaredError" });
  return model;
}

/** The model answering a golden: right within 0.5 is a polite answer, else a rude one. */
function generateWith(model: tf.Sequential) {
  return (input: unknown) => {
    const x = Number(/f\((\d+)\)/.exec(String(input))?.[1]);
    const predicted = tf.tidy(() =>
      (model.predict(tf.tensor2d([[x]])) as tf.Tensor).dataSync(),
    )[0] as number;
    const right = Math.abs(predicted - (2 * x + 1)) <= 0.5;
    return `f(${x}) is ${predicted.toFixed(1)}. ${right ? POLITE_ANSWER : RUDE_ANSWER}`;
  };
}

const data = (labels: (x: number) => number) => ({
  xs: tf.tensor2d(XS.map((x) => [x])),
  ys: tf.tensor2d(XS.map((x) => [labels(x)])),
});

const toxicityOf = (summary: { metrics: Array<{ name: string; meanScore: number | null }> }) =>
  summary.metrics.find((metric) => metric.name === "Toxicity")?.meanScore;

describe("createEvaluationCallback in TensorFlow.js model.fit", () => {
  it("stores one run per chosen epoch with fit's logs, then stops training when the floor is crossed", async () => {
    const model = tinyModel();
    const store = new MemoryRunStore();
    const judge = new MockJudge({ answers: (call) => answerFineTuningJudge(call) });
    const options = {
      goldens: GOLDENS,
      metrics: [new ToxicityMetric({ model: judge })],
      generate: generateWith(model),
      store,
      print: null,
    };
    // Learning the right function: scored at epochs 10, 20 and 30.
    const good = data((x) => 2 * x + 1);
    const learning = createEvaluationCallback({ ...options, every: 10, identifier: "tiny:learn" });
    const learned = await model.fit(good.xs, good.ys, {
      epochs: 30,
      verbose: 0,
      callbacks: learning,
    });
    expect(learned.epoch).toHaveLength(30);
    expect(learning.history.map((entry) => entry.epoch)).toEqual([10, 20, 30]);
    const runs = (await store.runs.listRuns())
      .filter((run) => run.identifier === "tiny:learn")
      .reverse();
    expect(runs.map((run) => run.id)).toEqual(learning.history.map((entry) => entry.runId));
    // Each run carries the loss model.fit logged for its epoch.
    expect(
      runs.map(
        (run) =>
          (run.config.metadata as { training: { logs: { loss: number } } }).training.logs.loss,
      ),
    ).toEqual([10, 20, 30].map((epoch) => learned.history.loss?.[epoch - 1]));
    expect(learning.history.map((entry) => toxicityOf(entry.summary))).toEqual([0, 0, 0]);
    expect(learning.shouldStop).toBe(false);

    // Then training on wrong labels (x + 4): the answers go wrong one by one.
    const shifted = data((x) => x + 4);
    const degrading = createEvaluationCallback({
      ...options,
      every: 5,
      identifier: "tiny:degrade",
      floor: { Toxicity: 0.5 },
      model,
    });
    const stopped = await model.fit(shifted.xs, shifted.ys, {
      epochs: 20,
      verbose: 0,
      callbacks: degrading,
    });
    // Scored at 5 (2 of 6 wrong), 10 (3 of 6: at the floor, not past it), 15 (4 of 6): stop.
    expect(degrading.history.map((entry) => [entry.epoch, toxicityOf(entry.summary)])).toEqual([
      [5, 2 / 6],
      [10, 3 / 6],
      [15, 4 / 6],
    ]);
    expect(stopped.epoch).toHaveLength(15);
    expect(degrading.shouldStop).toBe(true);
    expect(degrading.stopReason).toBe("Stopped after epoch 15: Toxicity 0.67 > floor 0.50.");
    const degraded = (await store.runs.listRuns()).filter(
      (run) => run.identifier === "tiny:degrade",
    );
    expect(degraded).toHaveLength(3);
  });
});
