import { ConfigError } from "../errors/config-error.ts";
import { currentFrame, mergeFields } from "./span-context.ts";
import type { SpanUpdate } from "./span-update.ts";

export type { SpanUpdate } from "./span-update.ts";

import { toJsonValue } from "../results/to-json-value.ts";

/**
 * Records fields on the span of the observed function it is called in: the test case its
 * metrics score, input, output, retrieval context, metadata, … Does nothing when no trace
 * is being collected (plain production use). Called outside any observed function it
 * throws a ConfigError: a mistake to fix, not something to record.
 * @example
 * const generate = observe(
 *   async (question: string, chunks: string[]) => {
 *     const answer = await llm(question, chunks);
 *     updateCurrentSpan({ testCase: { input: question, actualOutput: answer, retrievalContext: chunks } });
 *     return answer;
 *   },
 *   { type: "llm", metrics: [new AnswerRelevancyMetric()] },
 * );
 */
export function updateCurrentSpan(update: SpanUpdate): void {
  const frame = currentFrame();
  if (frame?.trace === null) return;
  if (frame === undefined || frame.span === null) {
    throw new ConfigError(
      "updateCurrentSpan() was called outside an observed function: call it inside a function " +
        "wrapped with observe(fn, { … }) or a method decorated with @observe(…)" +
        (frame ? " (the observedCallback itself is a span only when it is observed)." : "."),
    );
  }
  if (typeof update !== "object" || update === null) {
    throw new ConfigError(
      `updateCurrentSpan() takes an object of fields, e.g. updateCurrentSpan({ testCase }); got ${typeof update}.`,
    );
  }
  const { span, trace } = frame;
  if (trace.sealed) return;
  span.fields = mergeFields({ recorded: span.fields, update, caller: "updateCurrentSpan()" });
  if (typeof update.name === "string" && update.name !== "") span.name = update.name;
  if (update.input !== undefined) span.input = toJsonValue(update.input);
  if (update.output !== undefined) span.output = toJsonValue(update.output);
}
