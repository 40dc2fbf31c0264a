// Recording a judge's answers to the conformance set, and replaying them offline. An answer is
// keyed by the example, the step (the keys of the JSON it answers: "opinions", "verdicts", …)
// and the call's number within that step, never by the prompt's text: a recorded run can be
// re-scored after a prompt change, and each answer keeps the hash of the prompt it was given,
// so that the replay can say which answers were given to a prompt that has since changed.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../../src/errors/config-error.ts";
import type { JudgeModel, JudgeOutput, JudgeRequest } from "../../src/judge/judge-model.ts";
import { redactSecrets, redactSecretText } from "../../src/secrets/redact-secrets.ts";

/** One recorded answer: the parsed object, or the raw text, and the prompt it answered. */
export interface RecordedAnswer {
  /** SHA-256 (hex) of the prompt as sent. */
  promptHash: string;
  object?: unknown;
  text?: string;
}

/** A judge's answers to the conformance set, as `--record` writes them. */
export interface Recording {
  version: 1;
  /** The judge that gave the answers, e.g. `"openai:gpt-4.1"`. */
  judge: string;
  /** Request key (`<example> · <step> #<n>`) → answer. */
  answers: Record<string, RecordedAnswer>;
}

/** Answers given to a prompt other than the one the replay sends. */
export interface StaleAnswer {
  example: string;
  key: string;
}

const recordingSchema = z.object({
  version: z.literal(1),
  judge: z.string().min(1),
  answers: z.record(
    z.string(),
    z.object({
      promptHash: z.string(),
      object: z.unknown().optional(),
      text: z.string().optional(),
    }),
  ),
});

function stepOf(request: JudgeRequest): string {
  const properties = (request.jsonSchema as { properties?: Record<string, unknown> }).properties;
  return (
    Object.keys(properties ?? {})
      .sort()
      .join("+") || "answer"
  );
}

function hashOf(prompt: string): string {
  return createHash("sha256").update(prompt).digest("hex");
}

/** Numbers the calls of each step of one example: the same run asks in the same order. */
function keyMaker(example: string): (request: JudgeRequest) => string {
  const counts = new Map<string, number>();
  return (request) => {
    const step = stepOf(request);
    const count = (counts.get(step) ?? 0) + 1;
    counts.set(step, count);
    return `${example} · ${step} #${count}`;
  };
}

/** An empty recording of `judge`'s answers. */
export function createRecording(judge: string): Recording {
  return { version: 1, judge, answers: {} };
}

/** Wraps `judge` for one example: every answer it gives is also written into `recording`. */
export function recordingJudge(
  judge: JudgeModel,
  example: string,
  recording: Recording,
): JudgeModel {
  const keyOf = keyMaker(example);
  return {
    name: judge.name,
    endpoint: judge.endpoint ?? null,
    supportsImages: judge.supportsImages ?? false,
    async generate(request) {
      const key = keyOf(request);
      const output = await judge.generate(request);
      const answer: JudgeOutput = typeof output === "string" ? { text: output } : output;
      recording.answers[key] = {
        promptHash: hashOf(request.prompt),
        ...(answer.object === undefined ? { text: answer.text ?? "" } : { object: answer.object }),
      };
      return output;
    },
  };
}

/**
 * A judge for one example that answers from `recording`, with no network. A request the
 * recording has no answer for is a `ConfigError` naming the example and the step; an answer
 * given to a different prompt is answered all the same and noted in `stale`.
 */
export function replayJudge(
  recording: Recording,
  example: string,
  stale: StaleAnswer[],
  replayFile: string,
): JudgeModel {
  const keyOf = keyMaker(example);
  return {
    name: recording.judge,
    endpoint: null,
    supportsImages: true,
    async generate(request) {
      const key = keyOf(request);
      const answer = recording.answers[key];
      if (answer === undefined) {
        throw new ConfigError(
          `${replayFile} has no answer for example "${example}" (request ${key}): record it again with --record and a real judge, or drop the example from the set.`,
        );
      }
      if (answer.promptHash !== hashOf(request.prompt)) stale.push({ example, key });
      return answer.object === undefined
        ? { text: answer.text ?? "" }
        : { object: structuredClone(answer.object) };
    },
  };
}

/** Writes a recording, secrets masked (a key a judge echoed never reaches the file). */
export function writeRecording(file: string, recording: Recording): void {
  // Each answer is masked on its own: a request key is an example id, never a secret, even
  // when it holds a word such as "token".
  const answers = Object.fromEntries(
    Object.entries(recording.answers)
      .sort(([one], [other]) => one.localeCompare(other))
      .map(([key, answer]) => [key, maskAnswer(answer)]),
  );
  writeFileSync(file, `${JSON.stringify({ ...recording, answers }, null, 2)}\n`);
}

// The prompt's hash is left as it is: 64 hex digits can look like a key to the masking.
function maskAnswer(answer: RecordedAnswer): RecordedAnswer {
  return {
    promptHash: answer.promptHash,
    ...(answer.object === undefined ? {} : { object: redactSecrets(answer.object) }),
    ...(answer.text === undefined ? {} : { text: redactSecretText(answer.text) }),
  };
}

/** Reads a recording written by `--record`; throws an Error saying what is wrong and what to do. */
export function readRecording(file: string): Recording {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `--replay ${file} cannot be read as JSON (${(error as Error).message}): pass a file written by --record.`,
    );
  }
  const parsed = recordingSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      `--replay ${file} is not a conformance recording: ${z.prettifyError(parsed.error)}. Pass a file written by --record.`,
    );
  }
  return parsed.data as Recording;
}

/** What wraps the judge for one example: recording it, or answering in its place. */
export type JudgeWrapper = (judge: JudgeModel, example: string) => JudgeModel;
