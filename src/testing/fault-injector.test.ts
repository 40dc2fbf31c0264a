import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { classifyJudgeError } from "../judge/classify-judge-error.ts";
import { reply, startFakeOpenAIServer } from "./fake-openai-server.ts";
import { createFaultInjector, type FakeFaults, type FakeRateLimitHint } from "./fault-injector.ts";
import type { FakeOpenAIRequest } from "./parse-fake-openai-request.ts";

const request = (prompt: string): FakeOpenAIRequest => ({
  endpoint: "responses",
  model: "gpt-4.1",
  prompt,
  images: [],
  responseFormat: "json_schema",
  jsonSchema: null,
  toolName: null,
  temperature: 0,
  stream: false,
  body: {},
  headers: {},
});

/** What each prompt met, its first `tries` times, as status codes ("ok" for no fault). */
function fates(options: { faults: FakeFaults; prompts: string[]; tries?: number }): string[] {
  const injector = createFaultInjector(options.faults);
  const result: string[] = [];
  for (let attempt = 0; attempt < (options.tries ?? 1); attempt++) {
    for (const prompt of options.prompts) {
      const fault = injector.draw(request(prompt));
      result.push(
        `${prompt}#${attempt}:${fault === undefined ? "ok" : fault.kind === "error" ? fault.status : fault.kind}`,
      );
    }
  }
  return result;
}

const prompts = Array.from({ length: 2000 }, (_, index) => `prompt ${index}`);
const mixed: FakeFaults = { seed: 7, rateLimit: 0.3, serverError: 0.05, drop: 0.02 };

/** The share of `prompts` that met each fate ("429", "drop", "cut"…) under `faults`. */
function sharesOf(faults: FakeFaults): (fate: string) => number {
  const counts = new Map<string, number>();
  for (const fate of fates({ faults, prompts })) {
    const kind = fate.split(":")[1] as string;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return (fate) => (counts.get(fate) ?? 0) / prompts.length;
}

describe("createFaultInjector", () => {
  it("injects each fault at about its share, from the seed", () => {
    const share = sharesOf(mixed);
    expect(share("429")).toBeGreaterThan(0.27);
    expect(share("429")).toBeLessThan(0.33);
    expect(share("500")).toBeGreaterThan(0.035);
    expect(share("500")).toBeLessThan(0.065);
    expect(share("drop")).toBeGreaterThan(0.01);
    expect(share("drop")).toBeLessThan(0.03);
    expect(share("503")).toBe(0);
  });

  it("cuts answers after their headers and answers 200s that are not JSON, at their shares", () => {
    const share = sharesOf({ seed: 11, cutAfterHeaders: 0.1, notJson: 0.05 });
    expect(share("cut")).toBeGreaterThan(0.08);
    expect(share("cut")).toBeLessThan(0.12);
    expect(share("not-json")).toBeGreaterThan(0.035);
    expect(share("not-json")).toBeLessThan(0.065);
    expect(createFaultInjector({ seed: 1, cutAfterHeaders: 1 }).draw(request("x"))).toEqual({
      kind: "cut",
      afterBytes: 0,
    });
  });

  it("keeps a seed's draws for the older shares when a new share is left at 0", () => {
    const older = fates({ faults: mixed, prompts: prompts.slice(0, 300) });
    const withNew = fates({
      faults: { ...mixed, cutAfterHeaders: 0, notJson: 0 },
      prompts: prompts.slice(0, 300),
    });
    expect(withNew).toEqual(older);
  });

  it("gives the same requests the same faults for a seed, whatever their order", () => {
    const some = prompts.slice(0, 200);
    const forwards = fates({ faults: mixed, prompts: some, tries: 3 });
    const backwards = fates({ faults: mixed, prompts: [...some].reverse(), tries: 3 });
    expect(new Set(backwards)).toEqual(new Set(forwards));
    const otherSeed = fates({ faults: { ...mixed, seed: 8 }, prompts: some, tries: 3 });
    expect(otherSeed).not.toEqual(forwards);
  });

  it("draws afresh for each repeat of a request, so a retry can succeed", () => {
    const retried = fates({ faults: { seed: 1, rateLimit: 0.5 }, prompts: ["same"], tries: 40 });
    expect(new Set(retried.map((fate) => fate.split(":")[1]))).toEqual(new Set(["429", "ok"]));
  });

  it.each([
    ["retry-after-ms", 20],
    ["retry-after", 20],
    ["openai-reset", 20],
    ["retry-after", 1500],
    ["openai-reset", 1500],
    ["openai-reset", 360_000],
  ] as Array<[FakeRateLimitHint, number]>)(
    "says how long to wait with %s (%d ms), as verdict reads it",
    (rateLimitHint, retryAfterMs) => {
      const injector = createFaultInjector({ seed: 1, rateLimit: 1, rateLimitHint, retryAfterMs });
      const fault = injector.draw(request("x"));
      expect(fault).toMatchObject({ kind: "error", status: 429, code: "rate_limit_exceeded" });
      const headers = fault?.kind === "error" ? fault.headers : undefined;
      expect(classifyJudgeError({ statusCode: 429, responseHeaders: headers })).toMatchObject({
        kind: "rate-limit",
        retryAfterMs,
      });
    },
  );

  it("says how long to wait with Anthropic's reset time, and not at all with none", () => {
    const now = Date.now();
    const anthropic = createFaultInjector({
      seed: 1,
      serviceUnavailable: 1,
      rateLimitHint: "anthropic-reset",
      retryAfterMs: 30_000,
    }).draw(request("x"));
    expect(anthropic).toMatchObject({ kind: "error", status: 503 });
    const headers = anthropic?.kind === "error" ? anthropic.headers : undefined;
    const waitMs = classifyJudgeError(
      { statusCode: 503, responseHeaders: headers },
      { now },
    ).retryAfterMs;
    expect(waitMs).toBeGreaterThanOrEqual(30_000);
    expect(waitMs).toBeLessThan(31_000);
    const none = createFaultInjector({ seed: 1, rateLimit: 1, rateLimitHint: "none" }).draw(
      request("x"),
    );
    expect(none).toMatchObject({ kind: "error", status: 429, headers: {} });
  });

  it.each([
    [{ seed: 1.5 }, /seed must be a whole number/],
    [
      { seed: 1, rateLimit: 30 },
      /rateLimit must be a share of calls from 0 to 1 \(0\.3 for 30%\); got 30/,
    ],
    [{ seed: 1, drop: -0.1 }, /drop must be a share/],
    [{ seed: 1, cutAfterHeaders: 2 }, /cutAfterHeaders must be a share/],
    [{ seed: 1, notJson: Number.NaN }, /notJson must be a share/],
    [{ seed: 1, drop: 0.5, cutAfterHeaders: 0.4, notJson: 0.2 }, /add up to 1\.1/],
    [{ seed: 1, rateLimit: 0.7, serverError: 0.5 }, /add up to 1\.2, more than every call/],
    [{ seed: 1, retryAfterMs: -1 }, /retryAfterMs must be 0 or more milliseconds; got -1/],
    [
      { seed: 1, rateLimitHint: "x-retry" as FakeRateLimitHint },
      /rateLimitHint must be one of "retry-after-ms", .*; got "x-retry"/,
    ],
  ] as Array<[FakeFaults, RegExp]>)("refuses %j, naming the option", (faults, message) => {
    expect(() => createFaultInjector(faults)).toThrow(RangeError);
    expect(() => createFaultInjector(faults)).toThrow(message);
  });
});

describe("the fake server's faults option", () => {
  it("answers over HTTP with the drawn fault before any scripted reply, and restarts on reset()", async () => {
    const server = await startFakeOpenAIServer({
      faults: { seed: 3, rateLimit: 0.5, retryAfterMs: 5 },
    });
    try {
      const openai = createOpenAI({ baseURL: server.url, apiKey: "sk-test" });
      const call = async (prompt: string) => {
        try {
          const result = await generateText({ model: openai("gpt-4.1"), prompt, maxRetries: 0 });
          return result.text;
        } catch (error) {
          const failure = classifyJudgeError(error);
          return `${failure.status} after ${failure.retryAfterMs} ms`;
        }
      };
      const prompts = Array.from({ length: 12 }, (_, index) => `p${index}`);
      server.enqueue(...prompts.map((_, index) => reply.text(`scripted ${index}`)));
      const first: string[] = [];
      for (const prompt of prompts) first.push(await call(prompt));
      const answered = first.filter((answer) => answer.startsWith("scripted"));
      const faulted = first.length - answered.length;
      expect(faulted).toBeGreaterThan(0);
      expect(answered.length).toBeGreaterThan(0);
      // A faulted call consumed no scripted reply: the answered ones got them in order.
      expect(answered).toEqual(answered.map((_, index) => `scripted ${index}`));
      expect(first.filter((answer) => !answer.startsWith("scripted"))).toEqual(
        Array(faulted).fill("429 after 5 ms"),
      );
      expect(server.stats().byStatus).toEqual({ "200": answered.length, "429": faulted });

      server.reset();
      const again: string[] = [];
      for (const prompt of prompts) again.push(await call(prompt));
      const isFault = (answer: string) => answer.startsWith("429");
      expect(again.map(isFault)).toEqual(first.map(isFault));

      server.setFaults(undefined);
      server.reset();
      expect(isFault(await call(prompts[first.findIndex(isFault)] as string))).toBe(false);
    } finally {
      await server.close();
    }
  });
});
