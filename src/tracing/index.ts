export type {
  JsonValue,
  SpanRecord,
  SpanType,
  TestCaseRecord,
  TraceRecord,
} from "../results/trace-record.ts";
export { type ObserveDecorator, type ObserveOptions, observe } from "./observe.ts";
export { type SpanUpdate, updateCurrentSpan } from "./update-current-span.ts";
export { type TraceUpdate, updateCurrentTrace } from "./update-current-trace.ts";
