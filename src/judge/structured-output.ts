import type { ZodType } from "zod";
import { JudgeOutputError } from "../errors/judge-output-error.ts";
import type { ImagePart } from "../test-case/image.ts";
import { type AnswerObjects, chooseStepAnswer } from "./choose-step-answer.ts";
import type { JudgeLedger } from "./judge-ledger.ts";
import type { JudgeModel } from "./judge-model.ts";
import type { JudgeResponse, JudgeTransport } from "./judge-transport.ts";
import { MAX_ANSWER_CHARACTERS, parseJudgeText } from "./parse-judge-text.ts";
import { promptJson } from "./prompt-json.ts";
import { toStrictJsonSchema } from "./strict-json-schema.ts";

/** One step of a metric: a prompt and the JSON its answer must satisfy. */
export interface JudgeStep<T> {
  /** Metric name, for errors and accounting. */
  metric: string;
  /** Step name (the template function), e.g. `"generateVerdicts"`. */
  step: string;
  prompt: string;
  images: ImagePart[];
  /** What the answer must satisfy (after `prepare`). */
  schema: ZodType<T>;
  /** Normalises the parsed answer before validation (e.g. verdict spelling). */
  prepare?: (value: unknown) => unknown;
}

/** Everything needed to ask a judge one step. */
export interface AskJudgeOptions<T> {
  judge: JudgeModel;
  transport: JudgeTransport;
  step: JudgeStep<T>;
  ledger: JudgeLedger;
  /** Trial index (for `repeat`): distinct trials are never served from each other's cache. */
  trial?: number;
  signal?: AbortSignal;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; problem: string; rawText: string };

function rawTextOf(response: JudgeResponse): string {
  if (response.text !== null) return response.text;
  try {
    return JSON.stringify(response.object) ?? "";
  } catch {
    return String(response.object);
  }
}

// Finish reasons of an answer that did not end by itself (normalised: lower case, "-"), from
// the AI SDK ("length", "content-filter", "interrupted", "error") and from providers' own
// words, which custom judges may pass on ("max_tokens", "max_output_tokens", "content_filter").
const INCOMPLETE_FINISH_REASONS = new Set([
  "length",
  "max-tokens",
  "max-output-tokens",
  "model-context-window-exceeded",
  "content-filter",
  "interrupted",
  "error",
]);

/** Why an answer is incomplete by its finish reason, or `null` when it ended by itself. */
export function describeIncompleteFinish(finishReason: string | undefined): string | null {
  if (finishReason === undefined) return null;
  const normalised = finishReason.trim().toLowerCase().replaceAll("_", "-");
  if (!INCOMPLETE_FINISH_REASONS.has(normalised)) return null;
  const why = normalised.includes("filter")
    ? "a content filter stopped it"
    : normalised === "interrupted" || normalised === "error"
      ? "the provider stopped it early"
      : "it reached the output token limit";
  return `the answer was cut off (finish reason "${finishReason}": ${why}), so it is incomplete; answer again in full, keeping it short`;
}

function readAnswer<T>(response: JudgeResponse, step: JudgeStep<T>): Attempt<T> {
  const rawText = rawTextOf(response);
  const incomplete = describeIncompleteFinish(response.finishReason);
  if (incomplete !== null) return { ok: false, problem: incomplete, rawText };
  let objects: AnswerObjects;
  if (response.object !== undefined && response.object !== null) {
    if (rawText.length > MAX_ANSWER_CHARACTERS) {
      const problem = `the answer is ${rawText.length} characters long as JSON, more than the ${MAX_ANSWER_CHARACTERS} any step accepts`;
      return { ok: false, problem, rawText };
    }
    objects = { values: [response.object], enclosed: [] };
  } else {
    const parsed = parseJudgeText(response.text ?? "", { finishReason: response.finishReason });
    if (!parsed.ok) return { ok: false, problem: parsed.problem, rawText };
    objects = parsed;
  }
  const answer = chooseStepAnswer(objects, step);
  return answer.ok ? answer : { ...answer, rawText };
}

/** The prompt of the single re-ask: the original, the rejected answer, and why. */
export function buildReaskPrompt(options: {
  prompt: string;
  rawText: string;
  problem: string;
}): string {
  const previous =
    options.rawText.length > 4000 ? `${options.rawText.slice(0, 4000)}…` : options.rawText;
  return (
    `${options.prompt}\n\n` +
    "Your previous answer to this request could not be used.\n" +
    `Problem: ${options.problem}\n` +
    `Previous answer (as a JSON string): ${promptJson(previous)}\n` +
    "Answer again with only the JSON object asked for above, corrected. No prose, no code fences."
  );
}

/**
 * Asks the judge one step and returns its validated answer: the judge's structured
 * output, else its text read leniently; an answer that still fails validation, or that holds
 * several differing answers (see `chooseStepAnswer`), is re-asked once with the problem
 * quoted, then raised as {@link JudgeOutputError}.
 */
export async function askJudge<T>(options: AskJudgeOptions<T>): Promise<T> {
  const { judge, transport, step, ledger } = options;
  const jsonSchema = toStrictJsonSchema(step.schema);
  const meta = { metric: step.metric, step: step.step, trial: options.trial ?? 0 };
  // A caching transport validates the answer before storing it; reading each answer once
  // serves both that check and this step.
  const readings = new WeakMap<JudgeResponse, Attempt<T>>();
  const read = (response: JudgeResponse): Attempt<T> => {
    let attempt = readings.get(response);
    if (attempt === undefined) {
      attempt = readAnswer(response, step);
      readings.set(response, attempt);
    }
    return attempt;
  };
  const send = async (prompt: string) => {
    const sentAt = performance.now();
    const response = await transport.send(
      judge,
      {
        prompt,
        ...(step.images.length > 0 ? { images: step.images } : {}),
        schema: step.schema,
        jsonSchema,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      { ...meta, validate: (answer) => read(answer).ok },
    );
    ledger.record(response, {
      step: step.step,
      model: judge.name,
      latencyMs: Math.round(performance.now() - sentAt),
    });
    return response;
  };

  const first = read(await send(step.prompt));
  if (first.ok) return first.value;
  const second = read(
    await send(
      buildReaskPrompt({ prompt: step.prompt, rawText: first.rawText, problem: first.problem }),
    ),
  );
  if (second.ok) return second.value;
  throw new JudgeOutputError({
    metric: step.metric,
    step: step.step,
    rawText: second.rawText,
    problem: second.problem,
  });
}
