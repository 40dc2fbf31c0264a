import type { JudgeModel, JudgeOutput, JudgeRequest, JudgeUsage } from "../judge/judge-model.ts";
import { costOfUsage, type ModelPrice } from "../judge/usage-and-cost.ts";
import type { ImagePart } from "../test-case/image.ts";

/** One call the mock judge received. */
export interface MockJudgeCall {
  /** 0-based position of the call. */
  index: number;
  prompt: string;
  images: ImagePart[];
  jsonSchema: object;
  /**
   * The first property the answer must have (`"opinions"`, `"verdicts"`, `"statements"`,
   * `"reason"`): a simple way to tell which step is asking.
   */
  kind: string;
  /** The candidates per token the call asked for with its token log-probabilities; `null` when it asked for none. */
  topLogprobs: number | null;
}

/**
 * One scripted answer: a string is sent as raw text (so malformed JSON can be scripted), an
 * `Error` is thrown, a function is called with the call, a {@link JudgeOutput} (`text` or
 * `object`, with any of `usage`, `costUsd`, `finishReason`, `logprobs`) is given as it is, and
 * any other value is sent as its JSON text.
 * @example
 * new MockJudge({
 *   answers: [{ text: '{"score": 7}', logprobs: [{ token: "7", logprob: -0.3, topLogprobs: [] }] }],
 * });
 */
export type MockAnswer =
  | string
  | Error
  | JudgeOutput
  | Record<string, unknown>
  | ((call: MockJudgeCall) => MockAnswer | Promise<MockAnswer>);

/** Options of {@link MockJudge}. */
export interface MockJudgeOptions {
  /** @default "mock-judge" */
  name?: string;
  /** Answers in call order, or one function answering every call. */
  answers?: MockAnswer[] | ((call: MockJudgeCall) => MockAnswer | Promise<MockAnswer>);
  /** @default true */
  supportsImages?: boolean;
  /**
   * Usage reported per call. By default a rough estimate (characters ÷ 4) of prompt and
   * answer; `null` reports no usage.
   */
  usage?: JudgeUsage | null;
  /** Cost reported per call in USD. By default none (the cost stays unknown), or priced by `price`. */
  costUsd?: number;
  /**
   * The judge's price per million tokens: each call's cost is its usage at this price (unless
   * `costUsd` is given), and dry runs and cost budgets price with it. By default none.
   */
  price?: ModelPrice;
  /** Delay before each answer, in milliseconds. @default 0 */
  latencyMs?: number;
}

function kindOf(jsonSchema: object): string {
  const properties = (jsonSchema as { properties?: Record<string, unknown> }).properties;
  return properties ? (Object.keys(properties)[0] ?? "") : "";
}

function isJudgeOutput(value: object): value is JudgeOutput {
  const keys = Object.keys(value);
  return (
    keys.length > 0 &&
    keys.every(
      (key) =>
        key === "object" ||
        key === "text" ||
        key === "usage" ||
        key === "costUsd" ||
        key === "finishReason" ||
        key === "logprobs",
    ) &&
    ("object" in value || "text" in value)
  );
}

/**
 * A scripted judge for tests: no network, no key. Records every call and throws on a call
 * it has no answer for, so a test can never pass on an unexpected judge call.
 * @example
 * const judge = new MockJudge({
 *   answers: [{ opinions: ["Sarah is annoying."] }, { verdicts: [{ verdict: "yes", reason: "…" }] }, { reason: "…" }],
 * });
 * await new ToxicityMetric({ model: judge }).measure(testCase);
 * expect(judge.calls).toHaveLength(3);
 */
export class MockJudge implements JudgeModel {
  readonly name: string;
  readonly supportsImages: boolean;
  /** The price given, else `null` (unknown). */
  readonly price: ModelPrice | null;
  /** Every call received, in order. */
  readonly calls: MockJudgeCall[] = [];
  private readonly answers: MockJudgeOptions["answers"];
  private readonly usage: JudgeUsage | null | undefined;
  private readonly costUsd: number | undefined;
  private readonly latencyMs: number;

  constructor(options: MockJudgeOptions = {}) {
    this.name = options.name ?? "mock-judge";
    this.supportsImages = options.supportsImages ?? true;
    this.price = options.price ?? null;
    this.answers = options.answers ?? [];
    this.usage = options.usage;
    this.costUsd = options.costUsd;
    this.latencyMs = options.latencyMs ?? 0;
  }

  /** Answers one request from the script. */
  async generate(request: JudgeRequest): Promise<JudgeOutput> {
    const call: MockJudgeCall = {
      index: this.calls.length,
      prompt: request.prompt,
      images: request.images ?? [],
      jsonSchema: request.jsonSchema,
      kind: kindOf(request.jsonSchema),
      topLogprobs: request.topLogprobs ?? null,
    };
    this.calls.push(call);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    let answer: MockAnswer | undefined;
    if (typeof this.answers === "function") {
      answer = this.answers;
    } else {
      answer = this.answers?.[call.index];
      if (answer === undefined) {
        throw new Error(
          `MockJudge "${this.name}" got unscripted call #${call.index + 1} (asking for "${call.kind}"), ` +
            `but only ${this.answers?.length ?? 0} answers were scripted: add an answer for it.`,
        );
      }
    }
    while (typeof answer === "function") answer = await answer(call);
    if (answer instanceof Error) throw answer;
    const output: JudgeOutput =
      typeof answer === "string"
        ? { text: answer }
        : isJudgeOutput(answer)
          ? { ...answer }
          : { text: JSON.stringify(answer) };
    if (output.usage === undefined && this.usage !== null) {
      output.usage = this.usage ?? {
        inputTokens: Math.ceil(request.prompt.length / 4),
        outputTokens: Math.ceil((output.text ?? JSON.stringify(output.object ?? "")).length / 4),
      };
    }
    if (output.costUsd === undefined && this.costUsd !== undefined) output.costUsd = this.costUsd;
    if (output.costUsd === undefined && this.price !== null) {
      const costUsd = costOfUsage({ usage: output.usage, price: this.price });
      if (costUsd !== null) output.costUsd = costUsd;
    }
    return output;
  }

  /** The calls that asked for the given first property (`"opinions"`, `"verdicts"`, …). */
  callsOfKind(kind: string): MockJudgeCall[] {
    return this.calls.filter((call) => call.kind === kind);
  }
}
