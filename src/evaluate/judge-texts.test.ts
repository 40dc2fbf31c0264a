import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { ConfigError } from "../errors/config-error.ts";
import { BiasMetric } from "../metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { judgeTextHashesOf } from "../results/judge-text-hashes.ts";
import type { RunnerEvent } from "../results/runner-events.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { MemoryRunStore } from "../store/memory-run-store.ts";
import { MockJudge } from "../testing/mock-judge.ts";
import { evaluate } from "./evaluate.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const quiet = { display: "none", showProgress: false, handleInterrupt: false } as const;

async function run(options: { keepJudgeText?: "text" | "hash"; env?: NodeJS.ProcessEnv } = {}) {
  const store = new MemoryRunStore();
  const judge = new MockJudge({ answers: answer });
  const events: RunnerEvent[] = [];
  const result = await evaluate({
    ...quiet,
    ...options,
    testCases: [{ name: "rude", input: "How is Sarah?", actualOutput: "Sarah is nasty." }],
    metrics: [new ToxicityMetric({ model: judge }), new BiasMetric({ model: judge })],
    store,
    onProgress: (event) => events.push(event),
  });
  return { store, judge, result, events };
}

describe("the judge's prompts and answers", () => {
  it("are stored once per run by hash, each call naming the prompt it sent and the answer it got", async () => {
    const { store, judge, result, events } = await run();
    const testResult = result.testResults[0];
    if (testResult === undefined) throw new Error("no result");
    const calls = testResult.metricsData.flatMap((metric) => metric.calls ?? []);
    expect(calls.length).toBe(judge.calls.length + 1); // the shared opinion step: one request, two calls
    // Every prompt the judge was sent is stored, under the SHA-256 of its text.
    const hashes = judgeTextHashesOf(testResult);
    const texts = await store.getJudgeTexts(result.testRunId, hashes);
    const byHash = new Map(texts.map((text) => [text.hash, text.text]));
    for (const call of calls) {
      const prompt = byHash.get(call.promptHash ?? "");
      expect(prompt).toBeDefined();
      expect(sha256(prompt ?? "")).toBe(call.promptHash);
      expect(JSON.parse(byHash.get(call.answerHash ?? "") ?? "null")).toBeTypeOf("object");
    }
    const sent = judge.calls.map((call) => call.prompt);
    expect([...byHash.values()]).toEqual(expect.arrayContaining(sent));
    // Toxicity and Bias send the same opinion prompt: kept once.
    expect(texts.length).toBe(hashes.length);
    expect(new Set(calls.map((call) => call.promptHash)).size).toBeLessThan(calls.length);
    // The results read back name them without holding them; the event carried them.
    const [stored] = await store.getTestResults(result.testRunId);
    expect(JSON.stringify(stored)).not.toContain(sent[0]);
    const end = events.find((event) => event.type === "test-case-end");
    expect(end?.type === "test-case-end" && end.judgeTexts?.length).toBe(texts.length);
  });

  it('keep only their hashes with keepJudgeText: "hash", or VERDICT_JUDGE_TEXT=hash', async () => {
    for (const options of [
      { keepJudgeText: "hash" as const },
      { env: { VERDICT_JUDGE_TEXT: "hash" } },
    ]) {
      const { store, result } = await run(options);
      const testResult = result.testResults[0];
      if (testResult === undefined) throw new Error("no result");
      const hashes = judgeTextHashesOf(testResult);
      expect(hashes.length).toBeGreaterThan(0);
      expect(await store.getJudgeTexts(result.testRunId, hashes)).toEqual([]);
      const stored = await store.getRun(result.testRunId);
      expect(stored?.config).toMatchObject({ keepJudgeText: "hash" });
    }
  });

  it("are masked before they are hashed: a secret in a prompt never reaches the store", async () => {
    const key = "Qv7Lr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3U";
    const forget = registerSecretValues([key]);
    try {
      const store = new MemoryRunStore();
      const result = await evaluate({
        ...quiet,
        testCases: [{ input: "q", actualOutput: `My key is ${key}, nasty.` }],
        metrics: [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })],
        store,
      });
      const testResult = result.testResults[0];
      if (testResult === undefined) throw new Error("no result");
      const texts = await store.getJudgeTexts(result.testRunId, judgeTextHashesOf(testResult));
      const prompt = texts.find((text) => text.text.includes("My key is"));
      expect(prompt?.text).not.toContain(key);
      expect(prompt && sha256(prompt.text)).toBe(prompt?.hash);
    } finally {
      forget();
    }
  });

  it("refuses a mode it does not know, saying which it takes", async () => {
    await expect(run({ keepJudgeText: "full" as "text" })).rejects.toThrow(ConfigError);
    await expect(run({ env: { VERDICT_JUDGE_TEXT: "yes" } })).rejects.toThrow(
      /VERDICT_JUDGE_TEXT is "yes": give "text" .* or "hash"/,
    );
  });
});
