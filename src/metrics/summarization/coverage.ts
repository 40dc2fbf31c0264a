import { z } from "zod";
import type { ImagePart } from "../../test-case/image.ts";
import type { MetricContext } from "../metric-context.ts";
import { itemText } from "../shared/answer-text.ts";
import { runSteps } from "../shared/truths-and-claims.ts";
import { normalizeVerdict } from "../shared/verdicts.ts";
import type { SummarizationAnswersArgs, SummarizationQuestionsArgs } from "./prompts.ts";

/** What a text answers to an assessment question: whether it holds what it takes to answer it. */
export const ANSWERS = ["yes", "no"] as const;
export type Answer = (typeof ANSWERS)[number];

/** One assessment question with the original text's and the summary's answers (deepeval's coverage verdict). */
export interface CoverageVerdict {
  question: string;
  originalVerdict: Answer;
  summaryVerdict: Answer;
}

// Built once per count: a fresh schema per call would miss the JSON Schema cache.
const questionSchemas = new Map<number, z.ZodObject<{ questions: z.ZodArray<typeof itemText> }>>();
const answerSchemas = new Map<
  number,
  z.ZodObject<{ answers: z.ZodArray<z.ZodEnum<{ yes: "yes"; no: "no" }>> }>
>();

/** The question step's schema: exactly `n` questions. */
export function questionsSchema(n: number) {
  let schema = questionSchemas.get(n);
  if (!schema) {
    schema = z.object({
      questions: z.array(itemText).length(n, {
        error: (issue) =>
          `expected exactly ${n} questions, but got ${Array.isArray(issue.input) ? issue.input.length : "none"}`,
      }),
    });
    questionSchemas.set(n, schema);
  }
  return schema;
}

/** The answer step's schema: one "yes" or "no" per question. */
export function answersSchema(count: number) {
  let schema = answerSchemas.get(count);
  if (!schema) {
    schema = z.object({
      answers: z.array(z.enum(ANSWERS)).length(count, {
        error: (issue) =>
          `expected exactly ${count} answers, one per question in the same order, but got ${
            Array.isArray(issue.input) ? issue.input.length : "none"
          }`,
      }),
    });
    answerSchemas.set(count, schema);
  }
  return schema;
}

/** Reads `"Yes."`, `" NO "` as answers before validation, with the verdicts' one normaliser. */
function normalizeAnswers(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const answers = (value as { answers?: unknown }).answers;
  if (!Array.isArray(answers)) return value;
  return { ...value, answers: answers.map((answer) => normalizeVerdict(answer, ANSWERS)) };
}

/** A text the coverage check asks about: its rendering and the images it refers to. */
export interface RenderedText {
  text: string;
  images: ImagePart[];
}

/** The coverage prompts, as the metric's template resolves them. */
export interface CoverageTemplate {
  generateQuestions(args: SummarizationQuestionsArgs): string;
  generateAnswers(args: SummarizationAnswersArgs): string;
}

/**
 * The coverage check: the assessment questions (given, or `n` written from the original text),
 * then each answered from the original text and from the summary (at once unless `asyncMode`
 * is false). A wrong count of questions or answers is re-asked once, then a `JudgeOutputError`.
 */
export async function checkCoverage(options: {
  ask: MetricContext<unknown>["ask"];
  template: CoverageTemplate;
  asyncMode: boolean;
  original: RenderedText;
  summary: RenderedText;
  /** The `assessmentQuestions` option; `null` writes `n` of them. */
  questions: readonly string[] | null;
  n: number;
}): Promise<CoverageVerdict[]> {
  const { ask, template, original, summary, n } = options;
  const questions =
    options.questions === null
      ? (
          await ask({
            step: "generateQuestions",
            prompt: template.generateQuestions({
              text: original.text,
              n,
              multimodal: original.images.length > 0,
            }),
            images: original.images,
            schema: questionsSchema(n),
          })
        ).questions
      : [...options.questions];
  const answersOf = async (source: RenderedText) =>
    (
      await ask({
        step: "generateAnswers",
        prompt: template.generateAnswers({
          questions,
          text: source.text,
          multimodal: source.images.length > 0,
        }),
        images: source.images,
        schema: answersSchema(questions.length),
        prepare: normalizeAnswers,
      })
    ).answers;
  const [originalAnswers, summaryAnswers] = await runSteps<[Answer[], Answer[]]>(
    options.asyncMode,
    [() => answersOf(original), () => answersOf(summary)],
  );
  return questions.map((question, index) => ({
    question,
    originalVerdict: originalAnswers[index] as Answer,
    summaryVerdict: summaryAnswers[index] as Answer,
  }));
}
