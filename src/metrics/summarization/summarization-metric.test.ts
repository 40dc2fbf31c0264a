import { describe, expect, it } from "vitest";
import { ConfigError } from "../../errors/config-error.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import { describeCustomMetricContract } from "../../testing/metric-contract/custom-metric-contract.ts";
import { scriptedJudge } from "../../testing/metric-contract/scripted-metric-contract.ts";
import type { MockAnswer, MockJudgeCall } from "../../testing/mock-judge.ts";
import { SummarizationTemplate } from "./prompts.ts";
import { SummarizationMetric, type SummarizationMetricOptions } from "./summarization-metric.ts";

const SOURCE =
  "The council approved a new cycle lane on Main Street on Tuesday. Work starts in May and costs 2 million euros, paid by a national grant. Shops on the street had asked for more parking instead.";
const SUMMARY =
  "The council approved a Main Street cycle lane, built from May with a 2 million euro grant.";
const lane = { name: "cycle-lane", input: SOURCE, actualOutput: SUMMARY };
const TRUTHS = [
  "The council approved a new cycle lane on Main Street.",
  "Work on the cycle lane starts in May.",
  "The cycle lane costs 2 million euros, paid by a national grant.",
];
const QUESTIONS = [
  "Did the council approve a cycle lane on Main Street?",
  "Does the work start in May?",
  "Did the shops ask for more parking?",
];

/** An answer step's answer: `original` when the call asks about the source, else `summary`. */
const answersFor =
  (original: readonly string[], summary: readonly string[]): MockAnswer =>
  (call: MockJudgeCall) => ({
    answers: call.prompt.includes(JSON.stringify(SOURCE)) ? original : summary,
  });

const ANSWERS: Record<string, MockAnswer> = {
  truths: { truths: TRUTHS },
  claims: { claims: ["The council approved a Main Street cycle lane.", "It is paid by a loan."] },
  verdicts: { verdicts: [{ verdict: "yes" }, { verdict: "no", reason: "A grant, not a loan." }] },
  questions: { questions: QUESTIONS.slice(0, 2) },
  answers: answersFor(["yes", "yes"], ["yes", "no"]),
  reason: { reason: "The score is 0.50 because the summary calls the grant a loan." },
};

describeCustomMetricContract({
  name: "Summarization",
  create: (options) => new SummarizationMetric({ n: 2, ...options }),
  testCase: lane,
  answer: (call: MockJudgeCall) => ANSWERS[call.kind] ?? new Error(`unexpected ${call.kind}`),
  optionVariants: {
    assessmentQuestions: [null, QUESTIONS],
    n: [5, 2, 3],
    truthsExtractionLimit: [null, 0, 2],
  },
});

/** Runs the cycle-lane case with scripted alignment verdicts and coverage answers. */
async function scored(options: {
  alignment: readonly string[];
  coverage: ReadonlyArray<readonly [string, string]>;
  metric?: SummarizationMetricOptions;
}) {
  const claims = options.alignment.map((_, index) => `Claim ${index + 1} of the summary.`);
  const questions = options.coverage.map((_, index) => `Question ${index + 1}?`);
  const judge = scriptedJudge({
    truths: [{ truths: TRUTHS }],
    claims: [{ claims }],
    verdicts: [
      {
        verdicts: options.alignment.map((verdict, index) => ({
          verdict,
          reason: verdict === "yes" ? null : `Claim ${index + 1} is "${verdict}".`,
        })),
      },
    ],
    questions: [{ questions }],
    answers: Array(2).fill(
      answersFor(
        options.coverage.map(([original]) => original),
        options.coverage.map(([, summary]) => summary),
      ),
    ),
    reason: [{ reason: "The score is scripted because the judge said so." }],
  });
  const metric = new SummarizationMetric({ n: questions.length, ...options.metric, model: judge });
  await metric.measure(lane);
  return { judge, metric, claims, questions };
}

// Each `breakdown` is what deepeval's own SummarizationMetric._calculate_score gives the same
// verdicts, for ALIGNMENT and COVERAGE, and the score their min (its source, run by
// test/fixtures/deepeval-scores.py):
//   [{"metric": "summarization", "alignment": [...], "coverage": [[original, summary], …],
//     "strict": …}, …]
//   → alignment/coverage: 1.0/1.0, 0/1.0, 1.0/0, 0.5/1.0, 0.667/1.0, 1.0/0.5, 0.333/0.5,
//     strict 0/0, strict 1.0/1.0, strict 0/1.0
// `success` is deepeval's is_successful (score >= threshold; threshold 1 in strict mode); the
// reason is asked of the judge exactly when a claim is contradicted or unsupported ("idk"), or
// a question the original answers is not answered by the summary.
const TABLE: Array<{
  label: string;
  alignment: string[];
  coverage: Array<[string, string]>;
  options?: SummarizationMetricOptions;
  breakdown: { alignment: number; coverage: number };
  success: boolean | null;
  /** What the judge is asked to explain; `null`: verdict writes the reason. */
  explains: { contradictions: string[]; redundancies: string[]; questions: string[] } | null;
  because?: string;
}> = [
  {
    label: "every claim backed, every question covered",
    alignment: ["yes", "yes"],
    coverage: [
      ["yes", "yes"],
      ["yes", "yes"],
    ],
    breakdown: { alignment: 1, coverage: 1 },
    success: true,
    explains: null,
    because:
      "The score is 1.00 because the original text backs all 2 claims of the summary, and the summary answers all 2 assessment questions the original text answers.",
  },
  {
    label: "no claims: alignment 0, verdict step skipped",
    alignment: [],
    coverage: [["yes", "yes"]],
    breakdown: { alignment: 0, coverage: 1 },
    success: false,
    explains: null,
    because:
      "The score is 0.00 because the summary makes no claim that could be checked against the original text (alignment 0), and the summary answers the one assessment question the original text answers.",
  },
  {
    label: "the original answers no question: coverage 0",
    alignment: ["yes"],
    coverage: [
      ["no", "yes"],
      ["no", "no"],
    ],
    breakdown: { alignment: 1, coverage: 0 },
    success: false,
    explains: null,
    because:
      "The score is 0.00 because the original text backs the one claim of the summary, and the original text answers none of the 2 assessment questions (coverage 0).",
  },
  {
    label: "idk (extra information) counts against alignment",
    alignment: ["yes", "idk"],
    coverage: [
      ["yes", "yes"],
      ["yes", "yes"],
    ],
    breakdown: { alignment: 0.5, coverage: 1 },
    success: true,
    explains: { contradictions: [], redundancies: ['Claim 2 is "idk".'], questions: [] },
  },
  {
    label: "a contradiction",
    alignment: ["yes", "no", "yes"],
    coverage: [["yes", "yes"]],
    breakdown: { alignment: 2 / 3, coverage: 1 },
    success: true,
    explains: { contradictions: ['Claim 2 is "no".'], redundancies: [], questions: [] },
  },
  {
    label: "a question the summary misses; one the original does not answer is not counted",
    alignment: ["yes"],
    coverage: [
      ["yes", "yes"],
      ["yes", "no"],
      ["no", "yes"],
    ],
    breakdown: { alignment: 1, coverage: 0.5 },
    success: true,
    explains: { contradictions: [], redundancies: [], questions: ["Question 2?"] },
  },
  {
    label: "the lower of both",
    alignment: ["yes", "idk", "no"],
    coverage: [
      ["yes", "yes"],
      ["yes", "no"],
      ["no", "yes"],
    ],
    breakdown: { alignment: 1 / 3, coverage: 0.5 },
    success: false,
    explains: {
      contradictions: ['Claim 3 is "no".'],
      redundancies: ['Claim 2 is "idk".'],
      questions: ["Question 2?"],
    },
  },
  {
    label: "strict mode: each score below 1 scores 0",
    alignment: ["yes", "idk", "no"],
    coverage: [
      ["yes", "yes"],
      ["yes", "no"],
      ["no", "yes"],
    ],
    options: { strictMode: true, threshold: 0.2 },
    breakdown: { alignment: 0, coverage: 0 },
    success: false,
    explains: {
      contradictions: ['Claim 3 is "no".'],
      redundancies: ['Claim 2 is "idk".'],
      questions: ["Question 2?"],
    },
  },
  {
    label: "strict mode: all good keeps 1",
    alignment: ["yes", "yes"],
    coverage: [
      ["yes", "yes"],
      ["no", "no"],
    ],
    options: { strictMode: true },
    breakdown: { alignment: 1, coverage: 1 },
    success: true,
    explains: null,
  },
  {
    label: "strict mode: a contradiction scores 0 with full coverage",
    alignment: ["yes", "no"],
    coverage: [["yes", "yes"]],
    options: { strictMode: true },
    breakdown: { alignment: 0, coverage: 1 },
    success: false,
    explains: { contradictions: ['Claim 2 is "no".'], redundancies: [], questions: [] },
  },
  {
    label: "higher is better: a score equal to the threshold passes",
    alignment: ["yes"],
    coverage: [
      ["yes", "yes"],
      ["yes", "no"],
    ],
    options: { threshold: 0.5 },
    breakdown: { alignment: 1, coverage: 0.5 },
    success: true,
    explains: { contradictions: [], redundancies: [], questions: ["Question 2?"] },
  },
  {
    label: "higher is better: a score below the threshold fails",
    alignment: ["yes"],
    coverage: [
      ["yes", "yes"],
      ["yes", "no"],
    ],
    options: { threshold: 0.6 },
    breakdown: { alignment: 1, coverage: 0.5 },
    success: false,
    explains: { contradictions: [], redundancies: [], questions: ["Question 2?"] },
  },
  {
    label: "threshold null: score only",
    alignment: ["no"],
    coverage: [["yes", "yes"]],
    options: { threshold: null },
    breakdown: { alignment: 0, coverage: 1 },
    success: null,
    explains: { contradictions: ['Claim 1 is "no".'], redundancies: [], questions: [] },
  },
];

describe("SummarizationMetric: deepeval's scores, success and reason plan", () => {
  it.each(TABLE)("$label", async (row) => {
    const { judge, metric, claims, questions } = await scored({
      alignment: row.alignment,
      coverage: row.coverage,
      ...(row.options ? { metric: row.options } : {}),
    });
    const score = Math.min(row.breakdown.alignment, row.breakdown.coverage);
    expect(metric.error).toBeNull();
    expect(metric.score).toBe(score);
    expect(metric.scoreBreakdown).toEqual(row.breakdown);
    expect(metric.success).toBe(row.success);
    const kinds = ["truths", "claims", "questions", "answers", "answers"];
    if (row.alignment.length > 0) kinds.push("verdicts");
    if (row.explains !== null) kinds.push("reason");
    expect(judge.calls.map((call) => call.kind).sort()).toEqual(kinds.sort());
    if (row.explains !== null) expect(judge.calls.at(-1)?.kind).toBe("reason");
    if (row.explains === null) {
      expect(metric.reason).toMatch(/^The score is \d\.\d\d because .+\.$/);
      if (row.because !== undefined) expect(metric.reason).toBe(row.because);
    } else {
      expect(metric.reason).toBe("The score is scripted because the judge said so.");
      const prompt = judge.callsOfKind("reason")[0]?.prompt ?? "";
      expect(prompt).toContain(`"The score is ${score.toFixed(2)} because"`);
      for (const [tag, items] of [
        ["contradictions", row.explains.contradictions],
        ["extra_information", row.explains.redundancies],
        ["unanswered_questions", row.explains.questions],
      ] as const) {
        expect(prompt).toContain(`<${tag}>\n${JSON.stringify(items, null, 2)}\n</${tag}>`);
      }
    }
    expect(metric.claims).toEqual(claims);
    expect(metric.verdicts?.map((verdict) => verdict.verdict)).toEqual(row.alignment);
    expect(metric.coverageVerdicts).toEqual(
      row.coverage.map(([originalVerdict, summaryVerdict], index) => ({
        question: questions[index],
        originalVerdict,
        summaryVerdict,
      })),
    );
  });

  it("re-asks a wrong answer count once, then reports a JudgeOutputError, never a score", async () => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
      answers: Array(4).fill({ answers: ["yes"] }),
    });
    const metric = new SummarizationMetric({ model: judge, assessmentQuestions: QUESTIONS });
    const error = await metric.measure(lane).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(error).toMatchObject({ metric: "Summarization", step: "generateAnswers" });
    expect((error as Error).message).toContain(
      "expected exactly 3 answers, one per question in the same order, but got 1",
    );
    expect(judge.callsOfKind("answers")).toHaveLength(4);
    expect(metric.score).toBeNull();
  });

  it("re-asks a wrong question count or an alignment verdict count, then reports it", async () => {
    const questions = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: ["A claim."] }],
      verdicts: [{ verdicts: ["yes"] }],
      questions: [{ questions: QUESTIONS }, { questions: QUESTIONS.slice(0, 1) }],
    });
    const metric = new SummarizationMetric({ model: questions, n: 2 });
    await expect(metric.measure(lane)).rejects.toThrow("expected exactly 2 questions, but got 1");
    expect(questions.callsOfKind("questions")).toHaveLength(2);

    const verdicts = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: ["A claim.", "Another claim."] }],
      verdicts: [{ verdicts: ["yes"] }, { verdicts: ["yes", "no", "idk"] }],
      answers: Array(2).fill({ answers: ["yes", "yes", "yes"] }),
    });
    const aligned = new SummarizationMetric({ model: verdicts, assessmentQuestions: QUESTIONS });
    const error = await aligned.measure(lane).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ metric: "Summarization", step: "generateAlignmentVerdicts" });
    expect((error as Error).message).toContain("expected exactly 2 verdicts, one per claim");
  });
});

describe("SummarizationMetric", () => {
  it("writes n questions from the original text and asks both texts each of them", async () => {
    const judge = scriptedJudge(
      Object.fromEntries(
        Object.entries(ANSWERS).map(([kind, answer]) => [
          kind,
          kind === "answers" ? [answer, answer] : [answer],
        ]),
      ),
    );
    const metric = new SummarizationMetric({ model: judge, n: 2 });
    expect(await metric.measure(lane)).toBe(0.5);
    expect(metric.scoreBreakdown).toEqual({ alignment: 0.5, coverage: 0.5 });
    const [questions] = judge.callsOfKind("questions");
    expect(questions?.prompt).toContain("Write exactly 2 questions.");
    expect(questions?.prompt).toContain(JSON.stringify(SOURCE));
    const [original, summary] = judge.callsOfKind("answers");
    expect(original?.prompt).toContain(JSON.stringify(SOURCE));
    expect(summary?.prompt).toContain(JSON.stringify(SUMMARY));
    for (const call of [original, summary]) {
      expect(call?.prompt).toContain(JSON.stringify(QUESTIONS.slice(0, 2), null, 2));
    }
    expect(judge.callsOfKind("truths")[0]?.prompt).toContain(JSON.stringify([SOURCE], null, 2));
    expect(judge.callsOfKind("claims")[0]?.prompt).toContain(JSON.stringify(SUMMARY));
    const reason = judge.callsOfKind("reason")[0]?.prompt ?? "";
    expect(reason).toContain("A grant, not a loan.");
    expect(reason).toContain(JSON.stringify([QUESTIONS[1]], null, 2));
    expect(reason).toContain("alignment (0.50)");
    // Steps for the dashboard: claims with their verdicts, questions with their answers.
    const labels = metric.verboseLogs.match(/^[A-Z][a-z ]+:$/gm);
    expect(labels).toEqual([
      "Truths:",
      "Claims:",
      "Alignment verdicts:",
      "Assessment questions:",
      "Coverage verdicts:",
      "Score breakdown:",
    ]);
    expect(metric.verboseLogs).toContain(
      JSON.stringify(
        [
          { original: "yes", summary: "yes", verdict: "covered" },
          { original: "yes", summary: "no", verdict: "not covered" },
        ],
        null,
        2,
      ),
    );
    expect(metric.details?.assessmentQuestions).toEqual(QUESTIONS.slice(0, 2));
    const prompts = [...judge.calls]
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.prompt.localeCompare(b.prompt))
      .map((call) => call.prompt);
    expect(prompts).toMatchSnapshot();
  });

  it("asks the given assessmentQuestions instead of writing any; an empty list writes them", async () => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
      answers: Array(2).fill(answersFor(["yes", "yes", "no"], ["yes", "no", "no"])),
      reason: [{ reason: "The score is 0.00 because the summary makes no claim." }],
    });
    const metric = new SummarizationMetric({ model: judge, assessmentQuestions: QUESTIONS });
    await metric.measure(lane);
    expect(judge.callsOfKind("questions")).toHaveLength(0);
    expect(judge.callsOfKind("answers")[0]?.prompt).toContain(JSON.stringify(QUESTIONS, null, 2));
    expect(metric.scoreBreakdown).toEqual({ alignment: 0, coverage: 0.5 });
    expect(new SummarizationMetric({ assessmentQuestions: [] }).assessmentQuestions).toBeNull();
    expect(new SummarizationMetric({ assessmentQuestions: [] }).config()).toEqual(
      new SummarizationMetric().config(),
    );
  });

  it("writes the questions for each test case: run() keeps none from an earlier case", async () => {
    const asked: string[] = [];
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }, { truths: TRUTHS }],
      claims: [{ claims: [] }, { claims: [] }],
      questions: [
        (call: MockJudgeCall) => {
          asked.push(call.prompt);
          return { questions: ["First case?"] };
        },
        (call: MockJudgeCall) => {
          asked.push(call.prompt);
          return { questions: ["Second case?"] };
        },
      ],
      answers: Array(4).fill({ answers: ["yes"] }),
    });
    const metric = new SummarizationMetric({ model: judge, n: 1 });
    await metric.measure(lane);
    await metric.measure({ ...lane, input: `${SOURCE} The lane opens in June.` });
    expect(asked).toHaveLength(2);
    expect(metric.coverageVerdicts?.[0]?.question).toBe("Second case?");
  });

  it("reads loosely spelled answers and refuses one that is neither yes nor no", async () => {
    const loose = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
      answers: Array(2).fill((call: MockJudgeCall) =>
        call.prompt.includes(JSON.stringify(SOURCE))
          ? '{"answers": [" Yes. ", "**YES**"]}'
          : '{"answers": ["yes!", "`No.`"]}',
      ),
      reason: [{ reason: "The score is 0.00 because the summary makes no claim." }],
    });
    const metric = new SummarizationMetric({
      model: loose,
      assessmentQuestions: QUESTIONS.slice(0, 2),
    });
    await metric.measure(lane);
    expect(metric.scoreBreakdown?.coverage).toBe(0.5);
    expect(loose.callsOfKind("answers")).toHaveLength(2);

    const vague = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
      answers: Array(4).fill({ answers: ["yes", "maybe"] }),
    });
    const refused = new SummarizationMetric({
      model: vague,
      assessmentQuestions: QUESTIONS.slice(0, 2),
    });
    await expect(refused.measure(lane)).rejects.toThrow(JudgeOutputError);
    expect(vague.callsOfKind("answers")).toHaveLength(4);
  });

  it("refuses options deepeval would run nonsense with", () => {
    expect(() => new SummarizationMetric({ n: 0 })).toThrow(
      "`n` must be a whole number of at least 1; got 0",
    );
    expect(() => new SummarizationMetric({ n: 2.5 })).toThrow(ConfigError);
    expect(() => new SummarizationMetric({ assessmentQuestions: ["Is it?", " "] })).toThrow(
      "`assessmentQuestions` must be a list of non-empty questions",
    );
    expect(() => new SummarizationMetric({ truthsExtractionLimit: -2 })).toThrow(ConfigError);
    expect(() => new SummarizationMetric({ assessment_questions: [] } as never)).toThrow(
      "verdict spells it `assessmentQuestions`",
    );
  });

  it("uses an evaluationTemplate's question prompt and the built-in ones for the others", async () => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
      questions: [{ questions: ["Custom?"] }],
      answers: Array(2).fill({ answers: ["yes"] }),
    });
    const metric = new SummarizationMetric({
      model: judge,
      n: 1,
      evaluationTemplate: { generateQuestions: ({ n }: { n: number }) => `CUSTOM ${n}` },
    });
    await metric.measure(lane);
    expect(judge.callsOfKind("questions")[0]?.prompt).toBe("CUSTOM 1");
    expect(judge.callsOfKind("answers")[0]?.prompt).toBe(
      SummarizationTemplate.generateAnswers({
        questions: ["Custom?"],
        text: SOURCE,
        multimodal: false,
      }),
    );
  });
});
