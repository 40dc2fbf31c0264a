import { ConfigError } from "../errors/config-error.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";
import type { SpanType } from "../results/trace-record.ts";
import { checkMetrics } from "./check-metrics.ts";
import {
  closeSpan,
  currentFrame,
  type LiveSpan,
  notRecording,
  openSpan,
  runInFrame,
} from "./span-context.ts";

/** Options of {@link observe}. */
export interface ObserveOptions {
  /** The span's name. @default the function's name (the method's, for a decorator), else the type */
  name?: string;
  /** What the span does: `"agent"`, `"llm"`, `"retriever"`, `"tool"` or any name. @default "custom" */
  type?: SpanType;
  /**
   * Metrics scored on the span's test case (set with `updateCurrentSpan({ testCase })`) in
   * component-level runs: `evaluate({ goldens, observedCallback })`.
   */
  metrics?: ReadonlyArray<BaseMetric<object>>;
}

/** A standard (TC39) method decorator that observes the method: what `observe(options)` returns. */
export type ObserveDecorator = <This, Args extends unknown[], Return>(
  method: (this: This, ...args: Args) => Return,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Return>,
) => (this: This, ...args: Args) => Return;

interface SpanSettings {
  name: string;
  type: SpanType;
  metrics: ReadonlyArray<BaseMetric<object>>;
}

function isMethodContext(value: unknown): value is ClassMethodDecoratorContext {
  return (
    typeof value === "object" &&
    value !== null &&
    "kind" in value &&
    "name" in value &&
    "addInitializer" in value
  );
}

function checkOptions(options: unknown): ObserveOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) {
    throw new ConfigError(
      `observe() takes an options object ({ name, type, metrics }); got ${typeof options}.`,
    );
  }
  const { name, type, metrics } = options as Record<string, unknown>;
  if (name !== undefined && typeof name !== "string") {
    throw new ConfigError(`observe({ name }) must be a string; got ${typeof name}.`);
  }
  if (type !== undefined && typeof type !== "string") {
    throw new ConfigError(
      `observe({ type }) must be a string such as "llm" or "retriever"; got ${typeof type}.`,
    );
  }
  return {
    ...(name !== undefined ? { name } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(metrics !== undefined
      ? { metrics: checkMetrics({ metrics, where: "observe({ metrics })" }) }
      : {}),
  };
}

function wrap<Fn extends (...args: never[]) => unknown>(fn: Fn, settings: SpanSettings): Fn {
  const observed = function (this: unknown, ...args: unknown[]): unknown {
    const frame = currentFrame();
    const call = () => Reflect.apply(fn, this, args);
    if (frame === notRecording) return call();
    // Outside any trace (plain production use): no span, but updates inside know they are in
    // an observed function and do nothing.
    if (frame === undefined || frame.trace === null || frame.trace.sealed) {
      return runInFrame(notRecording, call);
    }
    const { trace } = frame;
    let span: LiveSpan;
    try {
      span = openSpan({ trace, parent: frame.span, ...settings, args });
    } catch {
      return runInFrame(notRecording, call);
    }
    let result: unknown;
    try {
      result = runInFrame({ trace, span }, call);
    } catch (error) {
      closeSpan({ trace, span, outcome: { error } });
      throw error;
    }
    if (result instanceof Promise) {
      // Handlers on the side, so the caller gets the very promise the function returned
      // (same class, same methods); they run before the caller's own.
      try {
        result.then(
          (value) => closeSpan({ trace, span, outcome: { value } }),
          (error) => closeSpan({ trace, span, outcome: { error } }),
        );
      } catch {
        // A promise subclass with a broken `then` is the application's to discover.
      }
      return result;
    }
    closeSpan({ trace, span, outcome: { value: result } });
    return result;
  };
  Object.defineProperty(observed, "name", { value: fn.name, configurable: true });
  return observed as unknown as Fn;
}

function decorate(
  method: (...args: never[]) => unknown,
  context: ClassMethodDecoratorContext,
  options: ObserveOptions,
): (...args: never[]) => unknown {
  if (context.kind !== "method") {
    throw new ConfigError(
      `@observe() decorates methods; "${String(context.name)}" is a ${String(context.kind)}.`,
    );
  }
  const methodName =
    typeof context.name === "symbol" ? (context.name.description ?? "method") : context.name;
  return wrap(method, {
    name: options.name ?? methodName,
    type: options.type ?? "custom",
    metrics: options.metrics ?? [],
  });
}

/**
 * Observes a function: in component-level runs (`evaluate({ goldens, observedCallback })`)
 * each call becomes a span of the golden's trace, with its arguments, return value, timing,
 * error, nested spans and metrics. Works on sync functions (the wrapper stays sync) and
 * async ones, and as a standard method decorator. Without a trace being collected it only
 * calls the function, and tracing never makes it throw.
 * @example
 * const retrieve = observe(async (query: string) => search(query), { type: "retriever" });
 * const generate = observe(
 *   async (query: string, chunks: string[]) => {
 *     const answer = await llm(query, chunks);
 *     updateCurrentSpan({ testCase: { input: query, actualOutput: answer, retrievalContext: chunks } });
 *     return answer;
 *   },
 *   { name: "generate", type: "llm", metrics: [new AnswerRelevancyMetric()] },
 * );
 *
 * class Agent {
 *   \@observe({ type: "agent" })
 *   async answer(query: string) { return generate(query, await retrieve(query)); }
 * }
 */
export function observe<This, Args extends unknown[], Return>(
  method: (this: This, ...args: Args) => Return,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Return>,
): (this: This, ...args: Args) => Return;
/** Observes a function; the returned function has the same signature (a sync one stays sync). */
export function observe<Fn extends (...args: never[]) => unknown>(
  fn: Fn,
  options?: ObserveOptions,
): Fn;
/** A method decorator: `@observe({ name, type, metrics })`. */
export function observe(options?: ObserveOptions): ObserveDecorator;
export function observe(first?: unknown, second?: unknown): unknown {
  if (typeof first === "function") {
    const fn = first as (...args: never[]) => unknown;
    // `@observe` without parentheses: called as a decorator directly.
    if (isMethodContext(second)) return decorate(fn, second, {});
    const options = checkOptions(second);
    return wrap(fn, {
      name: options.name ?? (fn.name || options.type || "anonymous"),
      type: options.type ?? "custom",
      metrics: options.metrics ?? [],
    });
  }
  const options = checkOptions(first);
  const decorator = (method: (...args: never[]) => unknown, context: ClassMethodDecoratorContext) =>
    decorate(method, context, options);
  return decorator;
}
