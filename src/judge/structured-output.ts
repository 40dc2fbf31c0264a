import type { ZodType } from "zod";
import { ConfigError } from "../errors/config-error.ts";
import { JudgeOutputError } from "../errors/judge-output-error.ts";
import type { ImagePart } from "../test-case/image.ts";
import { type AnswerObjects, chooseStepAnswer } from "./choose-step-answer.ts";
import type { JudgeLedger } from "./judge-ledger.ts";
import type { JudgeModel, JudgeTokenLogprob } from "./judge-model.ts";
import type { JudgeResponse, JudgeTransport } from "./judge-transport.ts";
import { MAX_TOP_LOGPROBS } from "./openai-logprobs.ts";
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
  /**
   * Ask for the answer's token log-probabilities with this many candidates per token (1–20);
   * read them with {@link askJudgeWithTokens}. Judges that cannot give them ignore it.
   */
  topLogprobs?: number;
}

/** A step's validated answer, with the tokens the judge wrote it in. */
export interface JudgeAnswerWithTokens<T> {
  value: T;
  /**
   * The accepted answer's tokens with their log-probabilities, in order; `null` when the
   * judge gave none (not asked, not an OpenAI or Azure model, a reasoning model, a batch
   * answer of a provider without them, a custom judge that gives none).
   */
  logprobs: JudgeTokenLogprob[] | null;
  /** The accepted answer as the judge wrote it (an object answer as its JSON). */
  rawText: string;
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

type Attempt<T> =
  | { ok: true; value: T; rawText: string }
  | { ok: false; problem: string; rawText: string };

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
  return { ...chooseStepAnswer(objects, step), rawText };
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
  return (await askForAnswer(options)).value;
}

/**
 * Asks the judge one step as {@link askJudge} does, and returns the validated answer with
 * the token log-probabilities and the raw text of the answer it accepted (the re-ask's, when
 * the first answer was re-asked): what a score weighted by the judge's token probabilities
 * needs. Set `step.topLogprobs` to ask for them.
 * @example
 * const { value, logprobs, rawText } = await askJudgeWithTokens({
 *   judge, transport, ledger, step: { ...step, topLogprobs: 20 },
 * });
 */
export async function askJudgeWithTokens<T>(
  options: AskJudgeOptions<T>,
): Promise<JudgeAnswerWithTokens<T>> {
  const { value, rawText, response } = await askForAnswer(options);
  return { value, logprobs: response.logprobs ?? null, rawText };
}

async function askForAnswer<T>(
  options: AskJudgeOptions<T>,
): Promise<{ value: T; rawText: string; response: JudgeResponse }> {
  const { judge, transport, step, ledger } = options;
  const topLogprobs = checkTopLogprobs(step);
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
        ...(topLogprobs === undefined ? {} : { topLogprobs }),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      { ...meta, validate: (answer) => read(answer).ok },
    );
    ledger.record(response, {
      step: step.step,
      model: judge.name,
      latencyMs: Math.round(performance.now() - sentAt),
      prompt,
      answer: rawTextOf(response),
    });
    return response;
  };

  const firstResponse = await send(step.prompt);
  const first = read(firstResponse);
  if (first.ok) return { value: first.value, rawText: first.rawText, response: firstResponse };
  const secondResponse = await send(
    buildReaskPrompt({ prompt: step.prompt, rawText: first.rawText, problem: first.problem }),
  );
  const second = read(secondResponse);
  if (second.ok) return { value: second.value, rawText: second.rawText, response: secondResponse };
  throw new JudgeOutputError({
    metric: step.metric,
    step: step.step,
    rawText: second.rawText,
    problem: second.problem,
  });
}

/** A step's `topLogprobs`, checked: a whole number from 1 to 20, or none. */
function checkTopLogprobs(step: JudgeStep<unknown>): number | undefined {
  const { topLogprobs } = step;
  if (topLogprobs === undefined) return undefined;
  if (Number.isInteger(topLogprobs) && topLogprobs >= 1 && topLogprobs <= MAX_TOP_LOGPROBS) {
    return topLogprobs;
  }
  throw new ConfigError(
    `Step "${step.step}" of metric "${step.metric}" asks for topLogprobs ${String(topLogprobs)}: ` +
      `give a whole number from 1 to ${MAX_TOP_LOGPROBS} (the most candidates OpenAI gives per token), or leave it out.`,
  );
}
