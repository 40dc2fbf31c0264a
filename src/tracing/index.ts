export type { ComponentEvaluateOptions } from "../evaluate/evaluate-components.ts";
export { type ObserveDecorator, type ObserveOptions, observe } from "./observe.ts";
export type {
  JsonValue,
  SpanRecord,
  SpanType,
  TestCaseRecord,
  TraceRecord,
} from "./trace-types.ts";
export { type SpanUpdate, updateCurrentSpan } from "./update-current-span.ts";
export { type TraceUpdate, updateCurrentTrace } from "./update-current-trace.ts";
