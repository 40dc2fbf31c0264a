import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { toJsonValue } from "../results/to-json-value.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { observe } from "./observe.ts";
import { collectTrace, type LiveSpan } from "./span-context.ts";
import { updateCurrentSpan } from "./update-current-span.ts";
import { updateCurrentTrace } from "./update-current-trace.ts";

/** The tree's shape: names, with children. */
function shape(spans: readonly LiveSpan[]): unknown[] {
  return spans.map((span) =>
    span.children.length === 0 ? span.name : { [span.name]: shape(span.children) },
  );
}

describe("observe", () => {
  it("wraps a sync function that stays sync, recording arguments, return value and timing", async () => {
    const add = observe((left: number, right: number) => left + right, { name: "add" });
    const { trace, output } = await collectTrace({
      run: () => {
        const sum = add(1, 2);
        expect(sum).toBe(3);
        return sum;
      },
    });
    expect(output).toBe(3);
    const [span] = trace.spans;
    expect(span).toMatchObject({
      name: "add",
      type: "custom",
      input: [1, 2],
      output: 3,
      error: null,
    });
    expect(span?.durationMs).toBeGreaterThanOrEqual(0);
    expect(span?.startedAt).toBeGreaterThanOrEqual(trace.startedAt);
  });

  it("nests spans through awaits, timers and concurrent calls inside one trace", async () => {
    const retrieve = observe(
      async (query: string) => {
        await sleep(2);
        return [`doc about ${query}`];
      },
      { type: "retriever" },
    );
    const rank = observe(function rank(documents: string[]) {
      return [...documents].reverse();
    });
    const generate = observe(
      async (query: string, documents: string[]) => {
        await new Promise((resolve) => setImmediate(resolve));
        return `${query}: ${documents.join(", ")}`;
      },
      { name: "generate", type: "llm" },
    );
    const app = observe(
      async function app(query: string) {
        const [first, second] = await Promise.all([retrieve(query), retrieve(`${query} 2`)]);
        return generate(query, rank([...(first ?? []), ...(second ?? [])]));
      },
      { type: "agent" },
    );
    const { trace, output } = await collectTrace({ run: () => app("shoes") });
    expect(output).toBe("shoes: doc about shoes 2, doc about shoes");
    expect(shape(trace.spans)).toEqual([{ app: ["retriever", "retriever", "rank", "generate"] }]);
    const children = trace.spans[0]?.children ?? [];
    expect(children.map((span) => span.type)).toEqual(["retriever", "retriever", "custom", "llm"]);
    expect(children[1]?.input).toEqual(["shoes 2"]);
    expect(children[3]?.output).toBe("shoes: doc about shoes 2, doc about shoes");
  });

  it("never mixes two traces running at the same time", async () => {
    const step = observe(async (label: string, delay: number) => {
      await sleep(delay);
      updateCurrentSpan({ metadata: { label } });
      return label;
    });
    const app = observe(async (label: string) => {
      const first = await step(`${label}-a`, label === "one" ? 6 : 1);
      const second = await step(`${label}-b`, label === "one" ? 1 : 6);
      updateCurrentTrace({ output: `${first}+${second}` });
      return second;
    });
    const traces = await Promise.all(
      ["one", "two", "three", "four"].map((label) => collectTrace({ run: () => app(label) })),
    );
    for (const [position, label] of ["one", "two", "three", "four"].entries()) {
      const { trace } = traces[position] as Awaited<(typeof traces)[number]>;
      expect(trace.spans).toHaveLength(1);
      expect(trace.spans[0]?.input).toEqual([label]);
      expect(trace.spans[0]?.children.map((span) => span.input)).toEqual([
        [`${label}-a`, label === "one" ? 6 : 1],
        [`${label}-b`, label === "one" ? 1 : 6],
      ]);
      expect(trace.spans[0]?.children.map((span) => span.fields.metadata)).toEqual([
        { label: `${label}-a` },
        { label: `${label}-b` },
      ]);
      expect(trace.fields.output).toBe(`${label}-a+${label}-b`);
    }
  });

  it("records errors as errored spans and re-throws them unchanged", async () => {
    const failure = new TypeError("no index");
    const syncFailure = observe(function search(): string {
      throw failure;
    });
    const rejection = { reason: "not an Error" };
    const asyncFailure = observe(async function fetchPage(): Promise<string> {
      await sleep(1);
      throw rejection;
    });
    const caught: unknown[] = [];
    const { trace, threw, error } = await collectTrace({
      run: async () => {
        try {
          syncFailure();
        } catch (thrown) {
          caught.push(thrown);
        }
        await asyncFailure().catch((thrown: unknown) => caught.push(thrown));
        return asyncFailure();
      },
    });
    expect(caught).toEqual([failure, rejection]);
    expect(caught[0]).toBe(failure);
    expect(caught[1]).toBe(rejection);
    expect(threw).toBe(true);
    expect(error).toBe(rejection);
    expect(trace.spans.map((span) => span.error)).toEqual([
      "no index",
      '{"reason":"not an Error"}',
      '{"reason":"not an Error"}',
    ]);
    expect(trace.spans.every((span) => span.durationMs !== null)).toBe(true);
  });

  it("returns the very promise the function returned", async () => {
    const promise = Promise.resolve("same");
    const observed = observe(() => promise);
    expect(observed()).toBe(promise);
    await collectTrace({ run: () => expect(observed()).toBe(promise) });
  });

  it("throws a clear ConfigError for updates outside an observed function", async () => {
    const outside = () => updateCurrentSpan({ input: "q" });
    expect(outside).toThrow(ConfigError);
    expect(outside).toThrow(/outside an observed function.*observe\(fn/);
    expect(() => updateCurrentTrace({ output: "a" })).toThrow(/outside a trace/);
    try {
      outside();
    } catch (error) {
      expect((error as ConfigError).code).toBe("CONFIG");
    }
    // Inside a trace but not inside a span: the trace can be updated, a span cannot.
    const { trace, threw, error } = await collectTrace({
      run: () => {
        updateCurrentTrace({ output: "traced", metadata: { user: "u1" } });
        updateCurrentSpan({ input: "q" });
      },
    });
    expect(trace.fields).toEqual({ output: "traced", metadata: { user: "u1" } });
    expect(threw).toBe(true);
    expect(error).toBeInstanceOf(ConfigError);
  });

  it("without a trace being collected, only calls the function: no recording, no throw", async () => {
    let reads = 0;
    const watched = {
      get value() {
        reads += 1;
        return "read";
      },
    };
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const generate = observe(
      async (input: unknown, _other: unknown) => {
        updateCurrentSpan({ testCase: { input: "x", actualOutput: "y" }, output: circular });
        updateCurrentTrace({ metrics: [new ToxicityMetric({ model: new MockJudge() })] });
        return input;
      },
      { metrics: [new ToxicityMetric({ model: new MockJudge() })] },
    );
    const nested = observe((value: unknown) => generate(value, circular));
    await expect(nested(watched)).resolves.toBe(watched);
    expect(reads).toBe(0);
    const count = observe((value: number) => value + 1);
    expect(count(1)).toBe(2);
  });

  it("updateCurrentSpan sets the span's test case, name, input, output and metadata", async () => {
    const generate = observe(
      (question: string) => {
        updateCurrentSpan({ testCase: { input: question, actualOutput: "A refund." } });
        updateCurrentSpan({ name: "generator", output: "shown", metadata: { model: "m" } });
        updateCurrentSpan({ metadata: { tokens: 3 } });
        return "returned";
      },
      { type: "llm" },
    );
    const { trace } = await collectTrace({ run: () => generate("Shoes?") });
    const span = trace.spans[0];
    expect(span?.name).toBe("generator");
    expect(span?.output).toBe("shown");
    expect(span?.input).toEqual(["Shoes?"]);
    expect(span?.fields).toEqual({
      testCase: { input: "Shoes?", actualOutput: "A refund." },
      output: "shown",
      metadata: { model: "m", tokens: 3 },
    });
  });

  it("rejects a misspelt field while recording, naming the fields it takes", async () => {
    const generate = observe(() => {
      updateCurrentSpan({ actualOutput: "a" } as never);
    });
    const { error } = await collectTrace({ run: () => generate() });
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(
      'updateCurrentSpan() got unknown field "actualOutput"',
    );
    expect((error as Error).message).toContain('actualOutput is "output"');
  });

  it("rejects bad options when the function is wrapped, not when it is called", () => {
    expect(() => observe(() => 1, { metrics: ["toxicity"] as never })).toThrow(
      /observe\(\{ metrics \}\) takes an array of metrics/,
    );
    expect(() => observe(() => 1, { type: 3 as never })).toThrow(ConfigError);
  });
});

describe("toJsonValue", () => {
  it("turns awkward values into plain JSON", () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular.self = circular;
    const shared = { id: 1 };
    const value = {
      fn: function helper() {},
      arrow: () => {},
      big: 12345678901234567890n,
      symbol: Symbol("tag"),
      circular,
      twice: [shared, shared],
      huge: "x".repeat(25_000),
      date: new Date("2025-01-02T03:04:05.000Z"),
      error: new RangeError("out of range"),
      map: new Map([["a", 1]]),
      set: new Set([1, 2]),
      bytes: new Uint8Array(2048),
      nan: Number.NaN,
      missing: undefined,
      nested: { deeper: { deepest: [1, { a: null }] } },
      get broken(): string {
        throw new Error("getter failed");
      },
    };
    const json = toJsonValue(value) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(json.fn).toBe("[Function helper]");
    expect(json.arrow).toBe("[Function arrow]");
    expect(json.big).toBe("12345678901234567890n");
    expect(json.symbol).toBe("Symbol(tag)");
    expect(json.circular).toEqual({ name: "loop", self: "[Circular]" });
    expect(json.twice).toEqual([{ id: 1 }, { id: 1 }]);
    expect((json.huge as string).length).toBeLessThan(10_100);
    expect(json.huge).toMatch(/^x{10000}… \[15000 more characters\]$/);
    expect(json.date).toBe("2025-01-02T03:04:05.000Z");
    expect(json.error).toEqual({ name: "RangeError", message: "out of range" });
    expect(json.map).toEqual([["a", 1]]);
    expect(json.set).toEqual([1, 2]);
    expect(json.bytes).toBe("[Uint8Array 2048 bytes]");
    expect(json.nan).toBe("NaN");
    expect("missing" in json).toBe(false);
    expect(json.nested).toEqual({ deeper: { deepest: [1, { a: null }] } });
    expect(json.broken).toBe("[Unreadable: getter failed]");
  });

  it("cuts long arrays, deep nesting and values beyond the total budget", () => {
    expect(toJsonValue(Array.from({ length: 500 }, (_, index) => index))).toHaveLength(201);
    let deep: unknown = "bottom";
    for (let level = 0; level < 20; level++) deep = { level: deep };
    expect(JSON.stringify(toJsonValue(deep))).toContain('"[Object]"');
    const many = Array.from({ length: 100 }, () => "y".repeat(5_000));
    const cut = toJsonValue(many) as string[];
    expect(JSON.stringify(cut).length).toBeLessThan(110_000);
    expect(cut.at(-1)).toBe("[truncated]");
    expect(toJsonValue(undefined)).toBeNull();
  });
});
