import { describe, expect, it } from "vitest";
import {
  answerFineTuningJudge,
  FINETUNE_GOLDENS,
  POLITE_ANSWER,
  RUDE_ANSWER,
} from "../../test/fixtures/finetune-job.ts";
import { ContextualRecallMetric } from "../metrics/contextual-recall/contextual-recall-metric.ts";
import { HallucinationMetric } from "../metrics/hallucination/hallucination-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { createEvaluationCallback, type EvaluationCallbackOptions } from "./evaluation-callback.ts";

/** A model that is rude to the first `rude` goldens (by number); the loop changes `rude`. */
function trainee(initialRude: number) {
  const state = { rude: initialRude };
  const generate = (input: unknown) => {
    const question = Number(/Question (\d+)/.exec(String(input))?.[1]);
    return question <= state.rude ? RUDE_ANSWER : POLITE_ANSWER;
  };
  return { state, generate };
}

function setup(
  options: Partial<EvaluationCallbackOptions> & { generate: EvaluationCallbackOptions["generate"] },
) {
  const store = new MemoryRunStore();
  const judge = new MockJudge({ answers: (call) => answerFineTuningJudge(call) });
  let printed = "";
  const callback = createEvaluationCallback({
    goldens: FINETUNE_GOLDENS,
    metrics: [new ToxicityMetric({ model: judge })],
    store,
    print: (text) => {
      printed += text;
    },
    ...options,
  });
  return { callback, store, printed: () => printed };
}

const toxicityOf = (summary: { metrics: Array<{ name: string; meanScore: number | null }> }) =>
  summary.metrics.find((metric) => metric.name === "Toxicity")?.meanScore;

describe("createEvaluationCallback in a hand-written loop", () => {
  it("scores every chosen epoch in a stored run, with the epoch and its logs, and prints the table", async () => {
    const { state, generate } = trainee(12);
    const { callback, store, printed } = setup({ generate, every: 2, identifier: "tiny-run" });
    for (let epoch = 0; epoch < 6; epoch++) {
      state.rude = 12 - 2 * (epoch + 1);
      await callback.onEpochEnd(epoch, { loss: 1 / (epoch + 1), acc: 0.5 + epoch / 20, note: "x" });
    }
    expect(callback.history.map((entry) => entry.epoch)).toEqual([2, 4, 6]);
    // Rude to 8, 4, then 0 of the 12 goldens.
    expect(callback.history.map((entry) => toxicityOf(entry.summary))).toEqual([8 / 12, 4 / 12, 0]);
    expect(callback.history[0]?.logs).toEqual({ loss: 0.5, acc: 0.55 });
    const runs = (await store.runs.listRuns()).reverse();
    expect(runs.map((run) => run.identifier)).toEqual(["tiny-run", "tiny-run", "tiny-run"]);
    expect(runs.map((run) => run.config.metadata)).toEqual([
      { training: { epoch: 2, logs: { loss: 0.5, acc: 0.55 } } },
      { training: { epoch: 4, logs: { loss: 0.25, acc: 0.65 } } },
      { training: { epoch: 6, logs: { loss: 1 / 6, acc: 0.75 } } },
    ]);
    expect(runs.map((run) => run.id)).toEqual(callback.history.map((entry) => entry.runId));
    expect(callback.shouldStop).toBe(false);
    const output = printed();
    expect(output.match(/\| Epoch \|\s+loss \|/g)).toHaveLength(3);
    expect(output).toMatch(/\|\s+6 \| 0\.1667 \|\s+0\.75 \|\s+0\.00 \[0\.00–0\.00\] \|/);
  });

  it("stops training when a metric crosses its floor: shouldStop, stopTraining, and no more scores", async () => {
    const { state, generate } = trainee(0);
    const model = { stopTraining: false };
    const { callback, printed } = setup({ generate, floor: { toxicity: 0.3 }, model });
    let epochs = 0;
    for (let epoch = 0; epoch < 10 && !callback.shouldStop; epoch++) {
      state.rude = 2 * epoch;
      await callback.onEpochEnd(epoch, { loss: 0.1 * epoch });
      epochs += 1;
    }
    // Rude to 0, 2, 4 goldens: 4/12 = 0.33 crosses 0.3 at the third epoch.
    expect(epochs).toBe(3);
    expect(model.stopTraining).toBe(true);
    expect(callback.stopReason).toBe("Stopped after epoch 3: Toxicity 0.33 > floor 0.30.");
    expect(callback.history.at(-1)?.belowFloor).toEqual(["Toxicity 0.33 > floor 0.30"]);
    expect(printed()).toContain("below floor");
    await callback.onEpochEnd(3, {});
    expect(callback.history).toHaveLength(3);
  });

  it("scores epochs one after another even when the loop does not wait", async () => {
    const { generate } = trainee(3);
    const { callback } = setup({ generate });
    await Promise.all([callback.onEpochEnd(0), callback.onEpochEnd(1), callback.onEpochEnd(2)]);
    expect(callback.history.map((entry) => entry.epoch)).toEqual([1, 2, 3]);
  });

  it("refuses bad options and a bad epoch, saying what it takes", async () => {
    const { generate } = trainee(0);
    expect(() => setup({ generate, every: 0 })).toThrow(
      "every must be a whole number of at least 1",
    );
    expect(() => setup({ generate, floor: { fluency: 0.5 } })).toThrow(
      'floor "fluency" names none of the metrics scored: use one of "Toxicity".',
    );
    expect(() => setup({ generate, model: {} as { stopTraining: boolean } })).toThrow(
      "model must be a TensorFlow.js model",
    );
    expect(() => setup({ generate, goldens: [] })).toThrow("needs goldens");
    const { callback } = setup({ generate });
    await expect(callback.onEpochEnd(-1)).rejects.toThrow(
      "onEpochEnd needs the zero-based index of the epoch that ended",
    );
  });
});

describe("createEvaluationCallback with the RAG metrics", () => {
  it("scores what the model retrieved and answered against each golden's references", async () => {
    const goldens = [1, 2, 3].map((number) => ({
      input: `Question ${number}?`,
      expectedOutput: `Answer ${number}. Source ${number}.`,
      context: [`The answer to question ${number} is ${number}.`],
    }));
    const judge = new MockJudge({
      answers: (call) => {
        if (call.kind === "reason")
          return { reason: "The score is 0.50 because a source is missing." };
        // Hallucination: the output agrees; Contextual Recall: the answer is retrieved, the source not.
        return call.prompt.includes("<contexts>")
          ? { verdicts: [{ verdict: "yes", reason: "It agrees." }] }
          : {
              verdicts: [
                { verdict: "yes", reason: "The 1st node has it." },
                { verdict: "no", reason: "No node names the source." },
              ],
            };
      },
    });
    const callback = createEvaluationCallback({
      goldens,
      metrics: [
        new HallucinationMetric({ model: judge }),
        new ContextualRecallMetric({ model: judge }),
      ],
      store: new MemoryRunStore(),
      print: () => {},
      generate: (input) => ({
        actualOutput: `The answer to ${String(input)}`,
        retrievalContext: [`Retrieved for ${String(input)}`],
      }),
    });
    await callback.onEpochEnd(0, { loss: 1 });
    const means = callback.history[0]?.summary.metrics.map((metric) => [
      metric.name,
      metric.meanScore,
    ]);
    expect(means).toEqual([
      ["Hallucination", 0],
      ["Contextual Recall", 0.5],
    ]);
    // The model's retrieval and each golden's context reached the judge.
    const prompts = judge.calls.map((call) => call.prompt).join("\n");
    expect(prompts).toContain(JSON.stringify("Retrieved for Question 2?"));
    expect(prompts).toContain(JSON.stringify("The answer to question 3 is 3."));
  });
});
