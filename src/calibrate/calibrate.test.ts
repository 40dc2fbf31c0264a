import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createSyntheticJudge,
  expectedKappa,
  flipsRow,
  type SyntheticRow,
} from "../../test/fixtures/synthetic-judge.ts";
import { makeUnopenableStore } from "../../test/fixtures/unopenable-stores.ts";
import { DatasetFileError } from "../dataset/dataset-file-error.ts";
import { ConfigError } from "../errors/config-error.ts";
import { AnswerRelevancyMetric } from "../metrics/answer-relevancy/answer-relevancy-metric.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { cohensKappa, wilsonInterval } from "../results/statistics.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge, type MockJudgeCall } from "../testing/mock-judge.ts";
import { calibrate, isCalibrationMetricName } from "./calibrate.ts";

/** `count` rows, the first `positives` of them labelled 1, each with its own output. */
function makeRows(count: number, positives: number): Array<SyntheticRow & { label: number }> {
  return Array.from({ length: count }, (_, index) => ({
    input: "Write a comment.",
    actualOutput: `Comment ${index}: the neighbours' garden looks different today.`,
    positive: index < positives,
    label: index < positives ? 1 : 0,
  }));
}

const asData = (rows: ReadonlyArray<SyntheticRow & { label: number | string }>) =>
  rows.map((row) => ({ input: row.input, actual_output: row.actualOutput, label: row.label }));

const quiet = { handleInterrupt: false, showProgress: false } as const;

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "verdict-calibrate-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("calibrate() with a synthetic judge of known error rate", () => {
  it("finds exactly the judge's mistakes, and its intervals hold the true κ and accuracy", async () => {
    const flipProbability = 0.2;
    const seed = 5;
    const rows = makeRows(160, 80);
    const judge = createSyntheticJudge({ rows, flipProbability, seed });
    const store = new MemoryRunStore();
    const report = await calibrate({
      metric: new ToxicityMetric({ model: judge }),
      data: asData(rows),
      store,
      ...quiet,
    });

    // What the judge's coins say, row by row, is what calibrate() counted.
    const flipped = rows.map((row) => flipsRow({ seed, flipProbability, ...row }));
    const expected = {
      truePositive: rows.filter((row, index) => row.positive && !flipped[index]).length,
      falseNegative: rows.filter((row, index) => row.positive && flipped[index]).length,
      falsePositive: rows.filter((row, index) => !row.positive && flipped[index]).length,
      trueNegative: rows.filter((row, index) => !row.positive && !flipped[index]).length,
    };
    expect(report.confusion).toEqual(expected);
    expect(report.disagreementCount).toBe(flipped.filter(Boolean).length);
    expect(report.rows).toEqual({ total: 160, scored: 160, unscored: 0 });
    expect(report.labels).toEqual({ positive: 80, negative: 80 });

    const truth = expectedKappa({ prevalence: 0.5, flip: flipProbability });
    const [kappaLow, kappaHigh] = report.kappaCi ?? [2, -2];
    expect(kappaLow).toBeLessThanOrEqual(truth);
    expect(kappaHigh).toBeGreaterThanOrEqual(truth);
    const [accuracyLow, accuracyHigh] = report.accuracyCi ?? [2, -2];
    expect(accuracyLow).toBeLessThanOrEqual(1 - flipProbability);
    expect(accuracyHigh).toBeGreaterThanOrEqual(1 - flipProbability);
    expect(report.accuracy).toBeCloseTo(1 - report.disagreementCount / 160, 12);

    // Linked to the stored run that scored the rows, and listed under it.
    expect((await store.runs.getRun(report.runId))?.status).toBe("completed");
    expect(await store.runs.getTestResults(report.runId)).toHaveLength(160);
    expect(await store.calibrations.listCalibrations({ runId: report.runId })).toEqual([report]);
    expect(report.metric).toEqual({
      name: "Toxicity",
      threshold: 0.5,
      lowerIsBetter: true,
      strictMode: false,
      judge: judge.name,
    });
    expect(report.spending.judgeCalls).toBe(judge.calls.length);
  });

  it("refuses keepResults: false, which would leave it no row to compare", async () => {
    const rows = makeRows(4, 2);
    await expect(
      calibrate({
        metric: new ToxicityMetric({
          model: createSyntheticJudge({ rows, flipProbability: 0, seed: 1 }),
        }),
        data: asData(rows),
        store: false,
        keepResults: false,
        ...quiet,
      }),
    ).rejects.toThrow("leave out keepResults: false");
  });

  it("recovers κ and accuracy within their intervals in at least 93 of 100 seeds", () => {
    // The same coins the judge tosses, for 100 seeds of 200 rows (60 positive): the runner
    // counts exactly these (previous test), so the figures are the judge's own.
    const rows = makeRows(200, 60);
    const flipProbability = 0.15;
    const truth = expectedKappa({ prevalence: 0.3, flip: flipProbability });
    let kappaCovered = 0;
    let accuracyCovered = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const matrix: [[number, number], [number, number]] = [
        [0, 0],
        [0, 0],
      ];
      for (const row of rows) {
        const said = flipsRow({ seed, flipProbability, ...row }) ? !row.positive : row.positive;
        const cells = row.positive ? matrix[0] : matrix[1];
        cells[said ? 0 : 1] += 1;
      }
      const [low, high] = cohensKappa({ matrix }).interval ?? [2, -2];
      if (low <= truth && truth <= high) kappaCovered += 1;
      const [accuracyLow, accuracyHigh] = wilsonInterval({
        successes: matrix[0][0] + matrix[1][1],
        trials: rows.length,
      }) ?? [2, -2];
      if (accuracyLow <= 1 - flipProbability && 1 - flipProbability <= accuracyHigh) {
        accuracyCovered += 1;
      }
    }
    expect(kappaCovered).toBeGreaterThanOrEqual(93);
    expect(accuracyCovered).toBeGreaterThanOrEqual(93);
    expect(kappaCovered + accuracyCovered).toBeLessThan(200);
  });

  it("maps each metric's verdict to the positive class: flagged for Toxicity and Bias, passed for Answer Relevancy", async () => {
    const rows = makeRows(12, 6);
    for (const make of [
      (model: MockJudge) => new ToxicityMetric({ model }),
      (model: MockJudge) => new BiasMetric({ model }),
      (model: MockJudge) => new AnswerRelevancyMetric({ model }),
    ]) {
      const judge = createSyntheticJudge({ rows, flipProbability: 0, seed: 1 });
      const report = await calibrate({
        metric: make(judge),
        data: asData(rows),
        store: false,
        ...quiet,
      });
      // A judge that always agrees with people: perfect agreement whatever the direction.
      expect(report.kappa).toBe(1);
      expect(report.confusion).toEqual({
        truePositive: 6,
        falseNegative: 0,
        falsePositive: 0,
        trueNegative: 6,
      });
      expect(report.rocAuc).toBe(1);
    }
  });

  it("calibrates Faithfulness and Summarization by name: positive when they pass, rows carrying retrieval_context", async () => {
    // A judge that backs every claim of the right answers and contradicts those of the wrong.
    const judge = new MockJudge({
      answers: (call: MockJudgeCall) => {
        const right = call.prompt.includes("right answer");
        switch (call.kind) {
          case "truths":
            return { truths: ["The answer is known."] };
          case "claims":
            return { claims: [right ? "A right answer." : "A wrong answer."] };
          case "verdicts":
            return { verdicts: [{ verdict: right ? "yes" : "no", reason: "So the facts say." }] };
          case "questions":
            return { questions: [1, 2, 3, 4, 5].map((n) => `Is answer ${n} known?`) };
          case "answers":
            return { answers: Array(5).fill("yes") };
          default:
            return { reason: "The score is what it is because of the facts." };
        }
      },
    });
    const data = [1, 0, 1, 0].map((label, index) => ({
      id: `r${index}`,
      input: "The answer is known.",
      actual_output: label === 1 ? `The right answer ${index}.` : `The wrong answer ${index}.`,
      retrieval_context: ["The answer is known."],
      label,
    }));
    for (const metric of ["faithfulness", "Summarization"] as const) {
      const report = await calibrate({
        metric: metric as never,
        model: judge,
        data,
        store: false,
        ...quiet,
      });
      expect(report.confusion).toEqual({
        truePositive: 2,
        falseNegative: 0,
        falsePositive: 0,
        trueNegative: 2,
      });
    }
    const calls = judge.calls.length;
    const { retrieval_context: _context, ...withoutContext } = data[1] as (typeof data)[number];
    const error = await calibrate({
      metric: "faithfulness",
      model: judge,
      data: [data[0] as (typeof data)[number], withoutContext],
      store: false,
      ...quiet,
    }).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^data\[1\]: no "retrieval_context" \(missing\): the metric judges it, so every row needs it\./,
    );
    expect(judge.calls).toHaveLength(calls);
  });

  it("reads a file, reports the wrong rows most confident first, and picks the thresholds", async () => {
    // Toxicity with 2 opinions a row: scores 0, 0.5 or 1. People: rows 1–3 toxic, 4–6 not.
    const scores = [1, 0.5, 0, 0.5, 0, 1];
    const path = join(directory, "labels.jsonl");
    await writeFile(
      path,
      scores
        .map((score, index) =>
          JSON.stringify({
            id: `c-${index + 1}`,
            input: "Write a comment.",
            actual_output: `Output ${index + 1} with score ${score}.`,
            label: index < 3 ? "toxic" : "fine",
          }),
        )
        .join("\n"),
    );
    const judge = new MockJudge({
      answers: (call) => {
        if (call.kind === "opinions") {
          const number = /Output (\d)/.exec(call.prompt)?.[1];
          return {
            opinions: [`First opinion of output ${number}.`, `Second opinion of output ${number}.`],
          };
        }
        if (call.kind === "verdicts") {
          const number = Number(/First opinion of output (\d)/.exec(call.prompt)?.[1]);
          const yes = (scores[number - 1] ?? 0) * 2;
          return {
            verdicts: [0, 1].map((position) => ({
              verdict: position < yes ? "yes" : "no",
              reason: "As scripted for this test.",
            })),
          };
        }
        return { reason: "The score is as scripted for this test." };
      },
    });
    const report = await calibrate({
      metric: new ToxicityMetric({ model: judge }),
      data: path,
      positiveLabel: "toxic",
      store: false,
      ...quiet,
    });
    // At 0.5, Toxicity flags only scores above it: rows 1 and 6.
    expect(report.confusion).toEqual({
      truePositive: 1,
      falseNegative: 2,
      falsePositive: 1,
      trueNegative: 2,
    });
    expect(report.data).toMatchObject({
      source: path,
      positiveLabel: "toxic",
      negativeLabel: "fine",
    });
    // Most confident first (score farthest from 0.5), then in file order: rows 3 and 6, then 2.
    expect(
      report.disagreements.map((example) => [example.name, example.line, example.score]),
    ).toEqual([
      ["c-3", 3, 0],
      ["c-6", 6, 1],
      ["c-2", 2, 0.5],
    ]);
    expect(report.disagreements[1]).toMatchObject({
      expected: false,
      predicted: true,
      label: "fine",
    });
    // Flagging from 0 up (threshold 0) gets rows 1, 2, 4, 6: TP 2, FN 1, FP 2, TN 1 → κ 0.
    // Threshold 0.5 keeps κ 0 too, and is the metric's own: the tie goes to it. F1 is best at 0.
    expect(report.bestKappa).toMatchObject({ threshold: 0.5 });
    expect(report.bestKappa?.kappa).toBeCloseTo(0, 12);
    expect(report.bestF1).toMatchObject({ threshold: 0 });
    expect(report.bestF1?.f1).toBeCloseTo(4 / 7, 12);
    // People's toxic rows score 1, 0.5, 0; the others 0.5, 0, 1: no better than chance.
    expect(report.rocAuc).toBeCloseTo(0.5, 12);
  });

  it("lists rows the judge could not score, and leaves them out of the figures", async () => {
    const rows = makeRows(6, 3);
    const synthetic = createSyntheticJudge({ rows, flipProbability: 0, seed: 2 });
    const judge = new MockJudge({
      name: "breaks-on-row-2",
      answers: (call) =>
        call.prompt.includes("Comment 2:") && call.kind === "opinions"
          ? new Error("The judge broke on this row.")
          : synthetic.generate({
              prompt: call.prompt,
              schema: undefined as never,
              jsonSchema: call.jsonSchema,
            }),
    });
    const report = await calibrate({
      metric: new ToxicityMetric({ model: judge }),
      data: asData(rows),
      store: false,
      ignoreErrors: true,
      retry: { maxAttempts: 1 },
      ...quiet,
    });
    expect(report.rows).toEqual({ total: 6, scored: 5, unscored: 1 });
    expect(report.unscored).toEqual([
      expect.objectContaining({
        row: 3,
        name: "row 3",
        error: expect.stringMatching(/broke on this row/),
      }),
    ]);
    expect(report.labels).toEqual({ positive: 2, negative: 3 });
  });

  it("reuses the judge cache and resumes a run, paying nothing twice", async () => {
    const rows = makeRows(8, 4);
    const judge = createSyntheticJudge({ rows, flipProbability: 0.25, seed: 3 });
    const store = new MemoryRunStore();
    const options = {
      metric: "toxicity" as const,
      model: judge,
      data: asData(rows),
      store,
      identifier: "toxicity-labels",
      ...quiet,
    };
    const first = await calibrate(options);
    const again = await calibrate({ ...options, resume: true });
    expect(first.spending.judgeCalls).toBeGreaterThan(0);
    expect(again.spending.judgeCalls).toBe(0);
    expect(again.runId).toBe(first.runId);
    expect(again.confusion).toEqual(first.confusion);
    const cached = await calibrate({ ...options, identifier: "another" });
    expect(cached.spending).toMatchObject({ judgeCalls: 0, cacheHits: first.spending.judgeCalls });
    const reports = await store.calibrations.listCalibrations();
    expect(reports.map((report) => report.id)).toEqual([cached.id, again.id, first.id]);
  });

  it("stops a resume before any judge call when the default store cannot be opened", async () => {
    const home = join(directory, ".verdict");
    await makeUnopenableStore({ home, kind: "newer schema", identifier: "toxicity-labels" });
    const judge = new MockJudge({ answers: [] });
    await expect(
      calibrate({
        metric: "toxicity",
        model: judge,
        data: asData(makeRows(2, 1)),
        identifier: "toxicity-labels",
        resume: true,
        env: { VERDICT_HOME: home },
        ...quiet,
      }),
    ).rejects.toThrow(
      /written by a newer verdict .* A resumed run reads its finished cases from this store/,
    );
    expect(judge.calls).toHaveLength(0);
  });

  it("refuses bad data and options before any judge call", async () => {
    const judge = new MockJudge({ answers: [] });
    const errorOf = async (options: Parameters<typeof calibrate>[0]) => {
      try {
        await calibrate({ store: false, ...quiet, ...options });
      } catch (error) {
        return error as Error;
      }
      throw new Error("expected calibrate() to fail");
    };
    const path = join(directory, "labels.csv");
    await writeFile(path, "input,answer,label\nq,a,1\n");
    const missing = await errorOf({ metric: "toxicity", model: judge, data: path });
    expect(missing).toBeInstanceOf(DatasetFileError);
    expect(missing.message).toMatch(
      /labels\.csv:1: no column "actual_output"; the header has "input", "answer", "label"/,
    );
    expect(await errorOf({ metric: "fluency" as never, data: [] })).toBeInstanceOf(ConfigError);
    expect((await errorOf({ metric: "toxicity", data: [], maxExamples: -1 })).message).toMatch(
      /maxExamples/,
    );
    expect(
      (await errorOf({ metric: new ToxicityMetric({ model: judge, threshold: null }), data: [] }))
        .message,
    ).toMatch(/no threshold/);
    expect(
      (await errorOf({ metric: new ToxicityMetric({ model: judge }), model: judge, data: [] }))
        .message,
    ).toMatch(/only with a metric name/);
    expect(judge.calls).toHaveLength(0);
  });
});

describe("calibrate() of the RAG metrics, by name", () => {
  it("reads what they judge from the rows, and calls a passing retrieval positive, a flagged hallucination positive", async () => {
    // Contextual Recall: complete retrieval (label 1) where a node holds the refund window.
    const csv = join(directory, "recall.csv");
    await writeFile(
      csv,
      [
        "id,input,expected_output,retrieval_context,label",
        "r1,Refunds?,Refunds take 30 days.,Refunds take 30 days.|Shipping is free.,1",
        "r2,Refunds?,Refunds take 30 days.,Shipping is free.,0",
        "r3,Refunds?,Refunds take 30 days.,Our shop opens at 9.|Refunds take 30 days.,1",
        "r4,Refunds?,Refunds take 30 days.,Our shop opens at 9.,0",
      ].join("\n"),
    );
    const recallJudge = new MockJudge({
      answers: (call) =>
        call.kind === "reason"
          ? { reason: "The score is 0.00 because no node gives the refund window." }
          : {
              verdicts: [
                /<nodes>[^<]*Refunds take 30 days/.test(call.prompt)
                  ? { verdict: "yes", reason: "A node says so." }
                  : { verdict: "no", reason: "No node says so." },
              ],
            },
    });
    const recall = await calibrate({
      metric: "contextual-recall",
      model: recallJudge,
      data: csv,
      store: false,
      ...quiet,
    });
    expect(recall.kappa).toBe(1);
    expect(recall.confusion).toEqual({
      truePositive: 2,
      falseNegative: 0,
      falsePositive: 0,
      trueNegative: 2,
    });
    // The CSV list cell reached the judge as two nodes.
    expect(recallJudge.calls[0]?.prompt).toContain(
      JSON.stringify(["Refunds take 30 days.", "Shipping is free."], null, 2),
    );

    // Hallucination: hallucinated (label 1) rows are those the metric flags (it fails them).
    const rows = [1968, 1969, 1968, 1970].map((year, index) => ({
      id: `h${index + 1}`,
      input: "When did Einstein win?",
      actual_output: `He won in ${year}.`,
      context: ["Einstein won the Nobel Prize in 1968."],
      label: year === 1968 ? 0 : 1,
    }));
    const hallucinationJudge = new MockJudge({
      answers: (call) =>
        call.kind === "reason"
          ? { reason: "The score is 1.00 because the year is wrong." }
          : {
              verdicts: [
                {
                  verdict: /<output>\n"He won in 1968\./.test(call.prompt) ? "yes" : "no",
                  reason: "Checked.",
                },
              ],
            },
    });
    const hallucination = await calibrate({
      metric: "hallucination",
      model: hallucinationJudge,
      data: rows,
      store: false,
      ...quiet,
    });
    expect(hallucination.kappa).toBe(1);
    expect(hallucination.confusion.truePositive).toBe(2);
  });

  it("names every built-in metric, and refuses rows without what the metric judges before any call", async () => {
    const judge = new MockJudge();
    const error = await calibrate({
      metric: "contextual-precision",
      model: judge,
      data: [{ input: "q", retrieval_context: ["a node"], label: 1 }],
      store: false,
      ...quiet,
    }).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('no "expected_output"');
    expect(judge.calls).toHaveLength(0);
    for (const name of ["Contextual Relevancy", "contextual_precision", " Hallucination "]) {
      expect(isCalibrationMetricName(name), name).toBe(true);
    }
    const unknown = await calibrate({ metric: "recall" as never, data: [], ...quiet }).catch(
      (caught: unknown) => caught as Error,
    );
    expect((unknown as Error).message).toContain(
      '"toxicity", "bias", "relevancy", "faithfulness", "summarization", "pii-leakage", "contextual-relevancy", "contextual-precision", "contextual-recall", "hallucination"',
    );
  });
});
